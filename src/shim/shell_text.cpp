#include "shell_text.hpp"

#include <cstdint>
#include <cstdio>

#include "aitk/util/strings.hpp"

namespace aitk::shim::detail {
namespace {

// The code point of the UTF-8 sequence at `text[i]` and its length, or nullopt when the bytes
// there are not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF count
// as malformed, as they do for Python's decoder).
struct DecodedChar {
    char32_t code_point;
    std::size_t length;
};
std::optional<DecodedChar> decode_utf8(std::string_view text, std::size_t i) {
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char lead = byte(i);
    std::size_t length = 0;
    char32_t code_point = 0;
    char32_t minimum = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, code_point = lead & 0x1Fu, minimum = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, code_point = lead & 0x0Fu, minimum = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, code_point = lead & 0x07u, minimum = 0x10000;
    } else {
        return std::nullopt;
    }
    if (i + length > text.size()) return std::nullopt;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0u) != 0x80u) return std::nullopt;
        code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
    }
    if (code_point < minimum || code_point > 0x10FFFF) return std::nullopt;
    if (code_point >= 0xD800 && code_point <= 0xDFFF) return std::nullopt;
    return DecodedChar{code_point, length};
}

void append_escape(std::string& out, const char* format, unsigned value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, format, value);
    out += buffer;
}

// U+2018..U+201B in UTF-8: E2 80 98..9B.
bool is_typographic_single_quote(std::string_view text, std::size_t i) {
    return i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2 &&
           static_cast<unsigned char>(text[i + 1]) == 0x80 &&
           static_cast<unsigned char>(text[i + 2]) >= 0x98 &&
           static_cast<unsigned char>(text[i + 2]) <= 0x9B;
}

}  // namespace

std::string fish_quote(std::string_view value) {
    std::string out = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    out.push_back('\'');
    return out;
}

std::string powershell_quote(std::string_view value) {
    std::string out = "'";
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\'') {
            out += "''";
        } else if (is_typographic_single_quote(value, i)) {
            out.append(value.substr(i, 3));
            out.append(value.substr(i, 3));
            i += 2;
        } else {
            out.push_back(value[i]);
        }
    }
    out.push_back('\'');
    return out;
}

std::optional<std::string> cmd_escape(std::string_view value) {
    std::string out;
    for (char c : value) {
        switch (c) {
            case '\r':
            case '\n':
                return std::nullopt;
            case '%':
                out += "%%";
                break;
            case '^':
            case '&':
            case '|':
            case '<':
            case '>':
            case '(':
            case ')':
            case '"':
                out.push_back('^');
                out.push_back(c);
                break;
            default:
                out.push_back(c);
        }
    }
    return out;
}

std::string python_literal(std::string_view value) {
    std::string out = "'";
    for (std::size_t i = 0; i < value.size();) {
        auto byte = static_cast<unsigned char>(value[i]);
        if (byte < 0x80) {
            if (byte == '\\' || byte == '\'') {
                out.push_back('\\');
                out.push_back(static_cast<char>(byte));
            } else if (byte < 0x20 || byte == 0x7F) {
                append_escape(out, "\\x%02x", byte);
            } else {
                out.push_back(static_cast<char>(byte));
            }
            ++i;
            continue;
        }
        if (auto decoded = decode_utf8(value, i)) {
            auto cp = static_cast<unsigned>(decoded->code_point);
            append_escape(out, cp <= 0xFFFF ? "\\u%04x" : "\\U%08x", cp);
            i += decoded->length;
        } else {
            append_escape(out, "\\udc%02x", byte);
            ++i;
        }
    }
    out.push_back('\'');
    return out;
}

std::string sh_contains_pattern(std::string_view needle) {
    std::string out = "*";
    for (char c : needle) {
        if (c == '/') {
            out += "[/\\\\]";
        } else if (util::is_ascii_alpha(c)) {
            out.push_back('[');
            out.push_back(util::to_ascii_lower(c));
            out.push_back(static_cast<char>(util::to_ascii_lower(c) - 'a' + 'A'));
            out.push_back(']');
        } else {
            out.push_back(c);
        }
    }
    out.push_back('*');
    return out;
}

std::string prompt_label(std::string_view prefix) {
    while (!prefix.empty() && (prefix.back() == '/' || prefix.back() == '\\')) {
        prefix.remove_suffix(1);
    }
    std::size_t slash = prefix.find_last_of("/\\");
    std::string_view name = slash == std::string_view::npos ? prefix : prefix.substr(slash + 1);
    std::string label;
    for (char c : name) {
        bool plain = util::is_ascii_alnum(c) || c == '.' || c == '_' || c == '-';
        label.push_back(plain ? c : '_');
    }
    return label.empty() ? std::string("aitk-env") : label;
}

}  // namespace aitk::shim::detail
