#pragma once
// environment.yml as `conda env export` writes it: `name`, `channels`, `dependencies` with
// `name=version=build` conda specs (epochs "1!2.0" included) and a `pip:` sub-list, `variables`
// and `prefix` (informational). Then the import: conda names mapped to PyPI names with the data
// table manifests/conda-pypi.yaml (pytorch → torch, pytorch-cuda / cudatoolkit → a backend,
// python → the interpreter, py-opencv → opencv-python, …), packages that the interpreter or the
// wheels provide (openssl, zlib, libgcc-ng, mkl, …) skipped with a note, and names that map to
// nothing listed together in one error.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/project/requirements_file.hpp"

namespace aitk::project {

struct CondaSpec {
    SourceLocation where;
    std::string text;     // as written: "absl-py=0.13.0=py36h06a4308_0"
    std::string channel;  // "conda-forge" from "conda-forge::name"; empty otherwise
    std::string name;     // lower case
    std::string version;  // "0.13.0", "1!2.0", "1.9.*", ">=1.2"; empty when not given
    std::string build;    // "py36h06a4308_0"; empty when not given
};

struct CondaEnvironment {
    std::string file;  // for messages
    std::string name;
    std::vector<std::string> channels;
    std::vector<CondaSpec> conda;
    // The `pip:` items, parsed as lines of a requirements file (options included).
    RequirementsFile pip;
    std::map<std::string, std::string> variables;
    std::string prefix;
};

// `base_dir` is where relative `-r` items of the pip list are looked up (the yml's folder).
Loaded<CondaEnvironment> parse_conda_environment(std::string_view yaml, std::string_view file,
                                                 const std::filesystem::path& base_dir = {},
                                                 const RequirementsReadOptions& options = {});
Loaded<CondaEnvironment> read_conda_environment(const std::filesystem::path& path,
                                                const RequirementsReadOptions& options = {});

// One row of the mapping table.
enum class CondaRole {
    pypi,         // a PyPI distribution (possibly renamed)
    interpreter,  // python itself
    backend,      // selects the torch backend (cudatoolkit=11.8 → cu118, pytorch-cuda=12.1 → cu121,
                  // cpuonly → cpu)
    provided,     // supplied by the interpreter or the wheels: skipped with a note
};

struct CondaMapping {
    std::string conda_name;
    CondaRole role = CondaRole::pypi;
    std::string pypi_name;  // for `pypi`
    std::string note;       // why it is skipped / what it stands for
};

// The built-in table (manifests/conda-pypi.yaml, compiled in). Unknown conda names that look
// like Python packages (no build string, or a "py*" build) map to themselves; the rest are
// unmappable.
const std::vector<CondaMapping>& conda_mappings();

struct CondaImport {
    std::optional<std::string> python;   // "3.6.13" from python=3.6.13
    std::optional<std::string> backend;  // "cu102" from cudatoolkit=10.2.89
    std::vector<RequirementLine> requirements;  // converted conda specs, then the pip items
    RequirementsOptions pip_options;
    std::vector<std::string> notes;      // "skipped openssl=1.1.1k: provided by the interpreter"
    std::vector<CondaSpec> unmapped;     // filled only with skip_unmapped
    std::map<std::string, std::string> variables;
};

// Unmappable names: one problem listing all of them (each with its line) and the hint
// "--skip-unmapped"; with `skip_unmapped` they go to `unmapped` and notes instead.
Loaded<CondaImport> import_conda_environment(const CondaEnvironment& env, bool skip_unmapped);

}  // namespace aitk::project
