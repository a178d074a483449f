#pragma once
// The net layer's names for util's UTF-8 <-> path conversions.
#include "aitk/util/utf8.hpp"

namespace aitk::net::detail {

inline std::string path_to_utf8(const std::filesystem::path& path) { return util::utf8_of(path); }

inline std::filesystem::path utf8_to_path(std::string_view text) {
    return util::path_from_utf8(text);
}

}  // namespace aitk::net::detail
