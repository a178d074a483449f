#pragma once
// Whole-file reads and crash-safe writes. Paths are UTF-8 std::filesystem paths.
#include <filesystem>
#include <string>
#include <string_view>

namespace aitk::fs {

// Reads a whole file; throws util::Error (exit 1) naming the path and the OS reason.
std::string read_file(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path`, flushes it to disk, then renames it over
// `path`, so a reader (or a crash) sees either the old file or the new one, never half of it.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace aitk::fs
