#pragma once
// The rules that keep an archive member inside the folder it is extracted to. Pure functions on
// the stored names (no I/O), so they are cheap to test and to fuzz.
#include <string>
#include <string_view>

#include "aitk/util/expected.hpp"

namespace aitk::archive {

// Longest accepted member name and path component, in bytes (what common filesystems allow).
inline constexpr std::size_t max_member_path_bytes = 4096;
inline constexpr std::size_t max_component_bytes = 255;

// A stored member name made relative and canonical: components joined by '/', without empty or
// '.' components. Refused (the error says why): '..' components, absolute names ("/etc",
// "//host/share"), drive letters ("C:x", "c:/x"), backslashes (a second separator on Windows),
// control characters, overlong names or components. "./" alone gives "" (the archive root).
util::Expected<std::string, std::string> normalize_member_path(std::string_view stored);

// Where a symlink at the (normalised) `link_path` points, as a normalised path relative to the
// extraction root, judged on names alone. Refused: empty or absolute targets, drive letters,
// backslashes, and targets whose '..' climb above the root.
util::Expected<std::string, std::string> resolve_link_target(std::string_view link_path,
                                                             std::string_view target);

}  // namespace aitk::archive
