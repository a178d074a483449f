#pragma once
// One function per shim text; shims.cpp decides which ones a prefix gets and where they go.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aitk/shim/environment_policy.hpp"

namespace aitk::shim::detail {

// POSIX: bin/aitk-run, bin/activate (bash, zsh), bin/activate.fish.
std::string render_aitk_run_sh(const PrefixEnvironment& prefix);
std::string render_activate_sh(const PrefixEnvironment& prefix);
std::string render_activate_fish(const PrefixEnvironment& prefix);

// Windows: Scripts\aitk-run.cmd (CRLF line ends; switches the console to UTF-8 while it sets
// values when any of them is not ASCII) and Scripts\Activate.ps1 (UTF-8 with a byte-order mark,
// which Windows PowerShell 5.1 needs to read non-ASCII text as UTF-8).
std::string render_aitk_run_cmd(const PrefixEnvironment& prefix);
std::string render_activate_ps1(const PrefixEnvironment& prefix);

// site-packages: the .pth line and the module it imports (ASCII only).
std::string render_dll_paths_pth();
std::string render_dll_paths_module(const PrefixEnvironment& prefix);

// The lock variables every shim sets (lock_variable_problem() == nullopt), in name order.
std::vector<std::pair<std::string, std::string>> applicable_variables(
    const PrefixEnvironment& prefix);

}  // namespace aitk::shim::detail
