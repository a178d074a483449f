#include "text_check.hpp"

#include <cstdint>

namespace aitk::project::detail {
namespace {

// Length of the valid UTF-8 sequence at the start of `s`, 0 when there is none (stray
// continuation byte, overlong form, surrogate, past U+10FFFF, cut short).
std::size_t utf8_length(std::string_view s) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    std::uint32_t cp = 0;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        cp = lead & 0x1fu;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        cp = lead & 0x0fu;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        cp = lead & 0x07u;
    } else {
        return 0;
    }
    if (s.size() < length) return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xc0u) != 0x80u) return 0;
        cp = (cp << 6) | (byte(i) & 0x3fu);
    }
    if ((length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp < 0xe000)) {
        return 0;
    }
    return length;
}

// Control bytes a text file may hold: tab, the line ends, and the separators pip splits on.
bool allowed_control(unsigned char c) {
    return c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           (c >= 0x1c && c <= 0x1e);
}

std::string hex_byte(unsigned char c) {
    static constexpr char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[c >> 4] + digits[c & 0xf];
}

}  // namespace

std::optional<util::InputProblem> check_user_text(std::string_view text, std::string_view file) {
    std::size_t line = 1;
    std::size_t line_start = 0;
    auto problem = [&](std::size_t at, std::string message, std::string hint) {
        return util::InputProblem{
            {std::string(file), line, at - line_start + 1}, std::move(message), std::move(hint)};
    };
    const std::string wrong_file = "is this the right file? save it as UTF-8 text";
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            line_start = ++i;
            continue;
        }
        if (i - line_start >= max_line_bytes) {
            return problem(line_start,
                           "line " + std::to_string(line) + " is longer than " +
                               std::to_string(max_line_bytes) + " bytes",
                           wrong_file);
        }
        if (c == 0) return problem(i, "NUL byte (the file looks binary)", wrong_file);
        if ((c < 0x20 && !allowed_control(c)) || c == 0x7f) {
            return problem(i, "control character " + hex_byte(c), wrong_file);
        }
        const std::size_t length = utf8_length(text.substr(i));
        if (length == 0) return problem(i, "invalid UTF-8 (byte " + hex_byte(c) + ")", wrong_file);
        i += length;
    }
    return std::nullopt;
}

}  // namespace aitk::project::detail
