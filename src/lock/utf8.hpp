#pragma once
// UTF-8 decoding for the YAML reader and writer: YAML text is Unicode, so a string that is not
// valid UTF-8 can neither be written raw nor be read back as written.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace aitk::lock::detail {

// Length of the valid UTF-8 sequence at the start of `s` (0 when there is none: a stray
// continuation byte, a truncated sequence, an overlong form, a surrogate, a value past
// U+10FFFF) and its code point.
inline std::size_t utf8_sequence(std::string_view s, std::uint32_t& code_point) noexcept {
    if (s.empty()) return 0;
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) {
        code_point = lead;
        return 1;
    }
    std::size_t length = 0;
    std::uint32_t value = 0;
    std::uint32_t minimum = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, value = lead & 0x1Fu, minimum = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, value = lead & 0x0Fu, minimum = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, value = lead & 0x07u, minimum = 0x10000;
    } else {
        return 0;
    }
    if (s.size() < length) return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0u) != 0x80u) return 0;
        value = (value << 6) | (byte(i) & 0x3Fu);
    }
    if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
    code_point = value;
    return length;
}

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
