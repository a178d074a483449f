#pragma once
// Paths the user typed are relative to the command's working directory, which a request
// carries (tests drive commands with a cwd of their own), not to this process's.
#include <filesystem>

namespace aitk::fs {

// `path` as given when absolute, else below `cwd`.
inline std::filesystem::path absolute_from(const std::filesystem::path& cwd,
                                           const std::filesystem::path& path) {
    return path.is_absolute() ? path : cwd / path;
}

}  // namespace aitk::fs
