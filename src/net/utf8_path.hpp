#pragma once
// UTF-8 <-> std::filesystem::path without the C++20 char8_t friction (and right on Windows,
// where the native encoding is UTF-16).
#include <filesystem>
#include <string>
#include <string_view>

namespace aitk::net::detail {

inline std::string path_to_utf8(const std::filesystem::path& path) {
    const auto text = path.u8string();
    return std::string(text.begin(), text.end());
}

inline std::filesystem::path utf8_to_path(std::string_view text) {
    return std::filesystem::path(std::u8string(text.begin(), text.end()));
}

}  // namespace aitk::net::detail
