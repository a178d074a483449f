#pragma once
// UTF-8 decoding for the YAML reader and writer: YAML text is Unicode, so a string that is not
// valid UTF-8 can neither be written raw nor be read back as written.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aitk/util/text.hpp"

namespace aitk::lock::detail {

using util::utf8_sequence;

inline bool valid_utf8(std::string_view text) noexcept {
    std::uint32_t code_point = 0;
    while (!text.empty()) {
        const std::size_t length = utf8_sequence(text, code_point);
        if (length == 0) return false;
        text.remove_prefix(length);
    }
    return true;
}

}  // namespace aitk::lock::detail
