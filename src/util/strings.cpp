#include "aitk/util/strings.hpp"

namespace aitk::util {

namespace {

// Code points above U+007F for which Python's str.isspace() is true.
bool is_unicode_space(char32_t cp) noexcept {
    return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool is_python_ascii_space(char c) noexcept {
    return is_ascii_space(c) || (c >= '\x1c' && c <= '\x1f');
}

// Decodes the well-formed 2- or 3-byte UTF-8 sequence at the start of `s` (every Unicode space
// is in that range); returns 0 when there is none.
std::size_t decode_space(std::string_view s) noexcept {
    auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    if (s.size() >= 2 && (byte(0) & 0xE0) == 0xC0 && (byte(1) & 0xC0) == 0x80) {
        char32_t cp = ((byte(0) & 0x1Fu) << 6) | (byte(1) & 0x3Fu);
        return is_unicode_space(cp) ? 2 : 0;
    }
    if (s.size() >= 3 && (byte(0) & 0xF0) == 0xE0 && (byte(1) & 0xC0) == 0x80 &&
        (byte(2) & 0xC0) == 0x80) {
        char32_t cp = ((byte(0) & 0x0Fu) << 12) | ((byte(1) & 0x3Fu) << 6) | (byte(2) & 0x3Fu);
        return is_unicode_space(cp) ? 3 : 0;
    }
    return 0;
}

}  // namespace

std::size_t leading_space_length(std::string_view s) noexcept {
    if (s.empty()) return 0;
    if (static_cast<unsigned char>(s[0]) < 0x80) return is_python_ascii_space(s[0]) ? 1 : 0;
    return decode_space(s);
}

std::size_t trailing_space_length(std::string_view s) noexcept {
    if (s.empty()) return 0;
    if (static_cast<unsigned char>(s.back()) < 0x80) return is_python_ascii_space(s.back()) ? 1 : 0;
    for (std::size_t n = 2; n <= 3 && n <= s.size(); ++n) {
        if (decode_space(s.substr(s.size() - n)) == n) return n;
    }
    return 0;
}

std::string_view trim(std::string_view s) noexcept {
    while (std::size_t n = leading_space_length(s))
        s.remove_prefix(n);
    while (std::size_t n = trailing_space_length(s))
        s.remove_suffix(n);
    return s;
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = to_ascii_lower(c);
    return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (to_ascii_lower(a[i]) != to_ascii_lower(b[i])) return false;
    }
    return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            parts.push_back(s.substr(start));
            return parts;
        }
        parts.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

namespace {

std::string enclosed(std::string_view text, char mark) {
    std::string out;
    out.reserve(text.size() + 2);
    out += mark;
    out += text;
    out += mark;
    return out;
}

}  // namespace

std::string single_quoted(std::string_view text) {
    return enclosed(text, '\'');
}

std::string double_quoted(std::string_view text) {
    return enclosed(text, '"');
}

std::string backquoted(std::string_view text) {
    return enclosed(text, '`');
}

}  // namespace aitk::util
