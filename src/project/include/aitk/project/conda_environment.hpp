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
    std::string name;  // a plain file name (util::path_name_problem), or empty
    SourceLocation name_where;
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
    backend,  // selects the torch backend (cudatoolkit=11.8 → cu118, pytorch-cuda=12.1 → cu121,
              // cpuonly → cpu)
    provided,    // supplied by the interpreter or the wheels: skipped with a note
    unmappable,  // no PyPI equivalent (a program such as ffmpeg): always listed
};

struct CondaMapping {
    std::string conda_name;
    CondaRole role = CondaRole::pypi;
    std::string pypi_name;  // for `pypi`
    std::string note;       // why it is skipped / what it stands for
    std::string backend;    // for `backend`: fixed ("cpu"); empty: cuXY from the version
};

// The built-in table (manifests/conda-pypi.yaml, compiled in). Unknown conda names that look
// like Python packages (no build string, or a "py*" build) map to themselves; the rest are
// unmappable.
const std::vector<CondaMapping>& conda_mappings();

// The row for a conda name: an exact row, else the longest row whose name ends in '*' and is a
// prefix of it ("cuda-*"); nullptr when none.
const CondaMapping* find_conda_mapping(std::string_view conda_name);

// The table format of manifests/conda-pypi.yaml, for tests of the data and of other tables.
util::Expected<std::vector<CondaMapping>, std::string> parse_conda_mappings(std::string_view yaml,
                                                                            std::string_view file);

// A conda version constraint ("1.9.0", "1.9.*", ">=1.2,<2", "1!2.0") as a PEP 440 specifier
// ("==1.9.0", "==1.9.*", ">=1.2,<2", "==1!2.0"); "" for none. conda spellings that PEP 440
// lacks are normalised where the meaning is clear ("1.0.0_1" → "==1.0.0.1"); '|' (or) and
// versions that stay invalid are errors.
util::Expected<std::string, std::string> conda_version_to_specifier(std::string_view version);

struct CondaImport {
    // "3.6.13" from python=3.6.13, "3.8" from python=3.8 or 3.8.*; another constraint as a
    // PEP 440 specifier (">=3.8,<3.11").
    std::optional<std::string> python;
    std::optional<std::string> backend;         // "cu102" from cudatoolkit=10.2.89
    std::vector<RequirementLine> requirements;  // converted conda specs, then the pip items
    std::vector<RequirementLine> constraints;   // from `-c` items of the pip list
    RequirementsOptions pip_options;
    std::vector<std::string> notes;   // "skipped openssl=1.1.1k: provided by the interpreter"
    std::vector<CondaSpec> unmapped;  // filled only with skip_unmapped
    std::map<std::string, std::string> variables;
};

// Unmappable names: one problem listing all of them (each with its line) and the hint
// "--skip-unmapped"; with `skip_unmapped` they go to `unmapped` and notes instead.
Loaded<CondaImport> import_conda_environment(const CondaEnvironment& env, bool skip_unmapped);

}  // namespace aitk::project
