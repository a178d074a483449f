#pragma once
// Hex digits and URL percent-encoding: the one copy of each that every layer uses (hashes,
// escapes in journals, YAML and Python strings, file URLs, archive names in URLs).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::util {

// 0..15 for [0-9a-fA-F], -1 for anything else.
constexpr int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

constexpr bool is_hex_digit(char c) noexcept {
    return hex_value(c) >= 0;
}

constexpr bool is_lower_hex_digit(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// Whether `text` is all hex digits (of either case, or lower-case only); false when empty.
bool is_hex(std::string_view text, bool lower_only = false) noexcept;

// 64 lower-case hex digits: how lockfiles, the cache and `#sha256=` fragments hold a digest.
bool is_sha256_hex(std::string_view text) noexcept;

// The digit for the low four bits of `value`.
constexpr char hex_digit(unsigned value, bool upper = false) noexcept {
    constexpr std::string_view lower_digits = "0123456789abcdef";
    constexpr std::string_view upper_digits = "0123456789ABCDEF";
    return (upper ? upper_digits : lower_digits)[value & 0xFu];
}

// Two digits for `byte`, high nibble first.
inline void append_hex_byte(std::string& out, unsigned char byte, bool upper = false) {
    out += hex_digit(byte >> 4u, upper);
    out += hex_digit(byte, upper);
}

// Lower-case hex of `size` bytes (digests).
std::string to_hex(const std::uint8_t* data, std::size_t size);

// "%XX" with upper-case digits, as RFC 3986 recommends.
inline void append_percent_escaped(std::string& out, unsigned char byte) {
    out += '%';
    append_hex_byte(out, byte, true);
}

// Every "%XX" (either case) becomes its byte; a '%' not followed by two hex digits stays as
// written, as browsers and pip read URLs.
std::string percent_decode(std::string_view text);

// The same, but a '%' without two hex digits after it is an error (nullopt): for text this
// program escaped itself, where such a '%' means the text was damaged.
std::optional<std::string> percent_decode_strict(std::string_view text);

}  // namespace aitk::util
