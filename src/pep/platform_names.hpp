#pragma once
// How platform tags spell a target's machine (private to pep): tags.cpp builds the tag lists
// with them, tag_fit.cpp judges a wheel's tags with the same spellings.
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/tags.hpp"

namespace aitk::pep::detail {

// The Linux machine names a target may run wheels for, closest first ("amd64" → x86_64;
// "armv8l" → armv8l, armv7l).
std::vector<std::string> linux_archs(std::string_view arch);
// The macOS spelling of a machine: aarch64 → arm64, amd64 → x86_64, x86/i686 → i386.
std::string mac_arch(std::string_view arch);
// The binary formats a macOS version accepts for `arch` (mac_arch's spelling): the arch itself,
// "intel", "fat*", "universal", "universal2"; none for versions that predate the arch. The
// first view is `arch` itself: keep the string it views alive while the result is used.
std::vector<std::string_view> mac_binary_formats(OsVersion version, std::string_view arch);
// "win_amd64", "win_arm64", "win32".
std::string windows_platform(std::string_view arch);

}  // namespace aitk::pep::detail
