#pragma once
// The one rule for a name that comes from an input and becomes one component of a path: an
// environment.yml or manifest `name:` (lockfiles/<name>.lock.yml), a lock target id, a file name
// a lockfile or a bundle lists (the cache, a bundle member, a mirror folder, a pylock `name`).
// Such a name must stay one plain file name on every system the lock may travel to, so what
// POSIX allows but Windows cannot create is refused too.
#include <optional>
#include <string>
#include <string_view>

namespace aitk::util {

// Longest accepted name, in bytes (the component limit of ext4, NTFS and APFS).
inline constexpr std::size_t max_path_name_bytes = 255;

// Why `name` cannot be one path component, or nullopt when it can. Refused: an empty name, "."
// and "..", '/' and '\' (separators, so absolute paths too), ':' (drive letters, NTFS streams),
// NUL and other control characters, the characters Windows forbids in names (< > " | ? *),
// a trailing dot or space (Windows drops them), the device names of Windows (CON, PRN, AUX,
// NUL, COM0-9, LPT0-9, CONIN$, CONOUT$; also with an extension, "nul.txt"), and names longer
// than max_path_name_bytes. The answer says what is wrong ("it contains a path separator '/'").
std::optional<std::string> path_name_problem(std::string_view name);

// The hint every refusal of a name shares: what a name may look like.
inline constexpr std::string_view path_name_rule =
    "a name becomes a file name: use letters, digits, '-', '_' and '.', without '/', '\\', "
    "':', '..' or a Windows device name such as CON or NUL";

}  // namespace aitk::util
