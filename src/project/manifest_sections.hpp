#pragma once
// Readers of the manifest's sections, one per concern, over the strict YAML reader. Each fills
// its part of the Manifest or throws ManifestFailure (caught by parse_manifest).
#include <string>

#include "aitk/project/manifest.hpp"
#include "manifest_yaml.hpp"

namespace aitk::project::detail {

// `os`, `arch` and (when `with_backends`) `backends` of `map`, each name checked.
Applicability read_applicability(const ManifestYaml& y, const YAML::Node& map,
                                 const std::string& path, bool with_backends);

void read_python(const ManifestYaml& y, const YAML::Node& node, Manifest& m);
void read_torch(const ManifestYaml& y, const YAML::Node& node, TorchSpec& torch);

// A list of requirement-file lines; each is parsed (so a bad one fails here with its position)
// and must not repeat a torch-family pin of `torch`.
std::vector<ManifestRequirement> read_requirement_lines(const ManifestYaml& y,
                                                        const YAML::Node& node,
                                                        const std::string& path,
                                                        const Applicability& when,
                                                        const TorchSpec& torch);
std::vector<ManifestRequirement> read_extra_requirements(const ManifestYaml& y,
                                                         const YAML::Node& node,
                                                         const TorchSpec& torch);
std::vector<std::string> read_project_files(const ManifestYaml& y, const YAML::Node& node);

// One manifest requirement line as a requirements file (options included), with the position of
// its YAML scalar. Includes (-r/-c) are refused. Shared by the parser and from_manifest.
Loaded<RequirementsFile> parse_manifest_line(const ManifestRequirement& requirement,
                                             const RequirementsReadOptions& options);

}  // namespace aitk::project::detail
