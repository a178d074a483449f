#pragma once
// The launch scripts written into a prefix, rendered from templates/ (compiled in): POSIX
// `bin/aitk-run` and `bin/activate` (bash/zsh), `bin/activate.fish`; Windows `Scripts\aitk-run.cmd`
// and `Scripts\Activate.ps1`; and `aitk_env_dll_paths.pth` in site-packages, which on Windows
// calls os.add_dll_directory for torch\lib and nvidia\*\bin so DLL search works without a shim.
// Each applies the same policy as environment_policy.hpp.
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/shim/environment_policy.hpp"

namespace aitk::shim {

struct ShimFile {
    std::filesystem::path path;  // relative to the prefix
    std::string content;
    bool executable = false;
};

// Every shim for `prefix` (its scripts folder and site-packages relative to the prefix; either may
// be given absolute or relative). POSIX prefixes get the three scripts; Windows prefixes get the
// two scripts and the site-packages pair (aitk_env_dll_paths.pth + _aitk_env_dll_paths.py).
std::vector<ShimFile> render_shims(const PrefixEnvironment& prefix,
                                   const std::filesystem::path& site_packages);

// The files the shims put into site-packages (relative to it): aitk-env's own, owned by no
// distribution's RECORD, so `verify` does not count them as extra. Empty on POSIX.
std::vector<std::string> site_packages_shim_files(bool windows);

// Writes them (atomically, executable bits on POSIX). Returns the paths written.
std::vector<std::filesystem::path> write_shims(const PrefixEnvironment& prefix,
                                               const std::filesystem::path& site_packages);

}  // namespace aitk::shim
