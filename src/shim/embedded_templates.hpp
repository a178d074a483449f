#pragma once
// The templates compiled in by src/shim/embedded.cmake.
#include <string_view>

namespace aitk::embedded {
std::string_view shim_posix_environment_sh();
std::string_view shim_aitk_run_sh();
std::string_view shim_activate_sh();
std::string_view shim_activate_fish();
std::string_view shim_aitk_run_cmd();
std::string_view shim_activate_ps1();
std::string_view shim_dll_paths_pth();
std::string_view shim_dll_paths_py();
}  // namespace aitk::embedded
