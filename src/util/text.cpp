#include "aitk/util/text.hpp"

#include "aitk/util/hex.hpp"

namespace aitk::util {
namespace {

bool line_separator(unsigned char c) {
    return c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e);
}

std::string hex_byte(unsigned char c) {
    std::string out = "0x";
    append_hex_byte(out, c);
    return out;
}

}  // namespace

std::size_t utf8_sequence(std::string_view s, std::uint32_t& code_point) noexcept {
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

std::optional<InputProblem> check_text(std::string_view text, std::string_view file,
                                       const TextRules& rules) {
    std::size_t line = 1;
    std::size_t line_start = 0;
    auto problem = [&](std::size_t at, std::string message) {
        return InputProblem{
            {std::string(file), line, at - line_start + 1}, std::move(message), rules.hint};
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            line_start = ++i;
            continue;
        }
        if (i - line_start >= rules.max_line_bytes) {
            return problem(line_start, "line " + std::to_string(line) + " is longer than " +
                                           std::to_string(rules.max_line_bytes) + " bytes");
        }
        if (c == 0) return problem(i, "NUL byte (the file looks binary)");
        const bool allowed_control =
            c == '\t' || c == '\r' || (rules.allow_line_separators && line_separator(c));
        if ((c < 0x20 && !allowed_control) || c == 0x7f) {
            return problem(i, "control character " + hex_byte(c));
        }
        if (!rules.require_utf8 || c < 0x80) {
            ++i;
            continue;
        }
        std::uint32_t code_point = 0;
        const std::size_t length = utf8_sequence(text.substr(i), code_point);
        if (length == 0) return problem(i, "invalid UTF-8 (byte " + hex_byte(c) + ")");
        i += length;
    }
    return std::nullopt;
}

}  // namespace aitk::util
