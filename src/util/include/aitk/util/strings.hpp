#pragma once
// ASCII string helpers. Packaging standards are defined over ASCII case folding and the
// whitespace set of Python's str.strip(), so these deliberately ignore the locale.
#include <string>
#include <string_view>
#include <vector>

namespace aitk::util {

constexpr bool is_ascii_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
constexpr bool is_ascii_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
constexpr bool is_ascii_alpha(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_ascii_alnum(char c) noexcept {
    return is_ascii_alpha(c) || is_ascii_digit(c);
}
constexpr char to_ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Length of the whitespace character (as Python's str.isspace() defines it, Unicode included)
// that starts / ends `s` in UTF-8, or 0 when there is none.
std::size_t leading_space_length(std::string_view s) noexcept;
std::size_t trailing_space_length(std::string_view s) noexcept;

// Strips whitespace at both ends like Python's str.strip(): ASCII and Unicode spaces (U+00A0,
// U+2000..U+200A, U+2028, U+2029, U+202F, ...), so pasted text from web pages still parses.
std::string_view trim(std::string_view s) noexcept;
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b) noexcept;
bool istarts_with(std::string_view s, std::string_view prefix) noexcept;
std::vector<std::string_view> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Text safe inside HTML element content and quoted attribute values (& < > " ').
std::string html_escape(std::string_view text);
// A name or value as error messages show it: 'text' (packaging's words), "text" (manifest values)
// or `text` (lock files' keys and values, as TOML and YAML users write them in prose).
std::string single_quoted(std::string_view text);
std::string double_quoted(std::string_view text);
std::string backquoted(std::string_view text);

}  // namespace aitk::util
