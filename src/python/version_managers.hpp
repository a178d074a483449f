#pragma once
// Internal to the python layer: the shim folders of version managers (pyenv, asdf, mise, conda's
// condabin) and the real interpreters behind them. A shim is a script that runs the manager to
// pick an interpreter (a pyenv shim starts hundreds of processes of bash); discovery never runs
// one, it reads the manager's own files to learn which interpreter the shim would start.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/python/discovery.hpp"

namespace aitk::python::detail {

enum class ShimManager {
    pyenv,         // <PYENV_ROOT>/shims
    pyenv_plugin,  // <PYENV_ROOT>/plugins/*/shims (pyenv-virtualenv's activate): no interpreters
    asdf,          // <ASDF_DATA_DIR>/shims
    mise,          // <MISE_DATA_DIR>/shims
    conda,         // <conda root>/condabin
};

struct ShimFolder {
    ShimManager manager = ShimManager::pyenv;
    std::filesystem::path root;  // the manager's data folder (or the conda installation)
};

// Whether `dir` (a PATH entry) is a version manager's shim folder. Windows: never (pyenv-win's
// shims are .bat files, which are no candidates anyway).
std::optional<ShimFolder> recognise_shim_folder(const std::filesystem::path& dir,
                                                const DiscoveryOptions& options);

// What the shims of one folder would run, in the manager's order of preference.
struct BehindShims {
    std::vector<std::filesystem::path> folders;  // bin folders of the selected versions
    bool system = false;  // a selected version is "system": the interpreters on PATH
};
BehindShims behind_shims(const ShimFolder& shims, const DiscoveryOptions& options);

// What a shim would run: the same name in the first folder behind its shim folder that has it
// (for "system", the PATH folders other than shim folders: options.path_value, else the
// environment's PATH). Nothing when `shim` is not in a shim folder, or no folder has the name.
std::optional<std::filesystem::path> behind_shim(const std::filesystem::path& shim,
                                                 const DiscoveryOptions& options);

// The bin folders of every version a manager installed, newest first (asdf and mise keep them
// under <root>/installs/python/<version>).
std::vector<std::filesystem::path> installed_version_bins(const ShimFolder& shims);

// The managers with a folder of installed versions (asdf, mise) found through `options`' home
// and environment, whether or not their shims are on PATH: their versions are candidates as
// pyenv's are.
std::vector<ShimFolder> installing_managers(const DiscoveryOptions& options);

// "3.12.1" → {3, 12, 1}; a part that is not a number is -1 (sorts before any number).
std::vector<int> version_key(const std::string& name);

}  // namespace aitk::python::detail
