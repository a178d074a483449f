#pragma once
// One model for every kind of input `lock` and `setup` accept — a manifest, a requirements file,
// a conda environment.yml — so that the resolver and the lockfile never care which it was.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aitk/project/conda_environment.hpp"
#include "aitk/project/manifest.hpp"
#include "aitk/project/requirements_file.hpp"
#include "aitk/project/target.hpp"

namespace aitk::project {

struct InputRequirement {
    RequirementLine line;  // the requirement and where it came from
    Applicability when;    // manifest per-OS/backend entries; "everywhere" for the other inputs
};

struct ProjectInput {
    std::string name;  // lockfile name: manifest name, or the input file's stem
    std::string python_requires;
    std::string python_preferred;  // "3.12"; empty: the newest the requirement allows
    std::map<std::string, std::string> torch_packages;  // name → specifier
    std::vector<BackendOption> backends;                // preference order
    std::vector<InputRequirement> requirements;
    std::vector<InputRequirement> constraints;
    RequirementsOptions options;  // indexes, --pre, binary rules, from the inputs
    std::optional<std::string> torch_index_url;
    std::vector<EnvironmentVariable> environment;
    std::vector<std::string> default_targets;
    std::vector<std::string> notes;  // import notes (skipped conda packages, …)
    // The bytes that decide the lock: every input file's contents (by label), in order.
    std::vector<std::pair<std::string, std::string>> hashed_inputs;

    // The requirements (and constraints) that apply to `target`.
    std::vector<const InputRequirement*> requirements_for(const Target& target) const;
    // The environment variables for `target`, name → value (later entries win).
    std::map<std::string, std::string> environment_for(const Target& target) const;
    // The backends allowed for os/arch, in preference order.
    std::vector<const BackendOption*> backends_for(std::string_view os,
                                                   std::string_view arch) const;
};

// From a manifest. With `project_dir`, the manifest's project_requirement_files are read from
// there (relative `-r` resolved) instead of its inline list.
Loaded<ProjectInput> from_manifest(const Manifest& manifest,
                                   const std::optional<std::filesystem::path>& project_dir,
                                   const RequirementsReadOptions& options = {});
// From a requirements file already read; the torch family pins are whatever it lists.
ProjectInput from_requirements(const RequirementsFile& file, std::string name);
ProjectInput from_conda(const CondaImport& import, const CondaEnvironment& env);

}  // namespace aitk::project
