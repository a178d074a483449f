#pragma once
// Reading what a long build printed without loading all of it.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace aitk::build {

// The last `max_bytes` of the file (all of it when smaller); "" when it cannot be read.
std::string read_file_tail(const std::filesystem::path& file, std::size_t max_bytes);

// The last `count` lines of `text`, without trailing empty lines.
std::string last_lines(std::string_view text, std::size_t count);

}  // namespace aitk::build
