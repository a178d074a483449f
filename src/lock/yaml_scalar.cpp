#include "aitk/lock/yaml_scalar.hpp"

#include <array>
#include <cstdint>

#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "utf8.hpp"

namespace aitk::lock {
namespace {

using detail::utf8_sequence;
using util::is_ascii_alnum;
using util::is_ascii_digit;

// Words that some YAML resolver turns into a bool, a null or a special key (YAML 1.1 takes
// y/n/on/off as booleans, `<<` as a merge key and `=` as a "value" key). Compared without
// case, a superset of the spellings the specs list.
bool is_special_word(std::string_view text) noexcept {
    static constexpr std::array<std::string_view, 12> words = {
        "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", "=", "<<"};
    for (const auto word : words) {
        if (util::iequals(text, word)) return true;
    }
    return false;
}

bool all_of(std::string_view text, bool (*accept)(char)) noexcept {
    if (text.empty()) return false;
    for (const char c : text) {
        if (!accept(c)) return false;
    }
    return true;
}

// A superset of the int and float forms of YAML 1.1 (sexagesimal `1:20`, `0777`, `1_000`,
// `.5`, `1.`, `0x1F`, `0b101`, `.inf`, `.nan`) and of the YAML 1.2 core schema (`1e3`, `0o17`).
bool looks_like_number(std::string_view text) noexcept {
    if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
    if (text.empty()) return false;
    for (const auto special : {".inf", ".nan"}) {
        if (util::iequals(text, special)) return true;
    }
    if (text.size() > 2 && text[0] == '0' &&
        (text[1] == 'x' || text[1] == 'X' || text[1] == 'o' || text[1] == 'O' || text[1] == 'b' ||
         text[1] == 'B')) {
        const bool radix_digits =
            all_of(text.substr(2), [](char c) { return util::is_hex_digit(c) || c == '_'; });
        if (radix_digits) return true;
    }
    if (!is_ascii_digit(text[0]) && text[0] != '.') return false;
    std::size_t i = 0;
    bool digits = false;
    while (i < text.size() && (is_ascii_digit(text[i]) || text[i] == '_' || text[i] == ':')) {
        digits = digits || is_ascii_digit(text[i]);
        ++i;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && (is_ascii_digit(text[i]) || text[i] == '_')) {
            digits = digits || is_ascii_digit(text[i]);
            ++i;
        }
    }
    if (!digits) return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        const std::size_t exponent = i;
        while (i < text.size() && is_ascii_digit(text[i]))
            ++i;
        if (i == exponent) return false;
    }
    return i == text.size();
}

// YAML 1.1 timestamps start with a four-digit year and a dash ("2024-01-01", "2024-1-1 ...").
bool looks_like_timestamp(std::string_view text) noexcept {
    return text.size() >= 6 && is_ascii_digit(text[0]) && is_ascii_digit(text[1]) &&
           is_ascii_digit(text[2]) && is_ascii_digit(text[3]) && text[4] == '-' &&
           is_ascii_digit(text[5]);
}

bool plain_first_char(std::string_view text, YamlContext context) noexcept {
    const char c = text[0];
    if (is_ascii_alnum(c)) return true;
    if (c == '/' || c == '.' || c == '_' || c == '+' || c == '$' || c == '(') return true;
    // `-x` is a plain scalar and `- x` a sequence entry; "--index-url ..." starts that way.
    if (c == '-' && context == YamlContext::block && text.size() > 1) {
        return text[1] == '-' || is_ascii_alnum(text[1]);
    }
    return false;
}

void append_hex_escape(std::string& out, char prefix, std::uint32_t value, int digits) {
    out += '\\';
    out += prefix;
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
        out += util::hex_digit(value >> shift, true);
    }
}

// Characters a YAML 1.1 reader takes raw inside double quotes: printable ones, minus those that
// break lines (NEL, U+2028, U+2029) or that readers strip (BOM).
bool raw_in_quotes(std::uint32_t c) noexcept {
    if (c >= 0x20 && c <= 0x7E) return true;
    if (c >= 0xA0 && c <= 0xD7FF) return c != 0x2028 && c != 0x2029;
    if (c >= 0xE000 && c <= 0xFFFD) return c != 0xFEFF;
    return c >= 0x10000 && c <= 0x10FFFF;
}

}  // namespace

bool yaml_plain_safe(std::string_view text, YamlContext context) noexcept {
    if (text.empty() || !plain_first_char(text, context)) return false;
    if (text.back() == ' ' || text.back() == ':') return false;
    if (is_special_word(text) || looks_like_number(text) || looks_like_timestamp(text)) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c < 0x20 || c > 0x7E) return false;  // control characters, tabs, non-ASCII
        switch (c) {
            case '"':
            case '\'':
            case '`':
            case ',':
            case '[':
            case ']':
            case '{':
            case '}':
                return false;
            case '#':
                if (context == YamlContext::flow || text[i - 1] == ' ') return false;
                break;
            case ':':
                if (context == YamlContext::flow || text[i + 1] == ' ') return false;
                break;
            case ' ':
                if (context == YamlContext::flow) return false;
                break;
            default:
                break;
        }
    }
    return true;
}

std::string yaml_double_quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x80) {
            switch (byte) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\0':
                    out += "\\0";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                default:
                    if (raw_in_quotes(byte)) {
                        out += static_cast<char>(byte);
                    } else {
                        append_hex_escape(out, 'x', byte, 2);
                    }
            }
            ++i;
            continue;
        }
        std::uint32_t code_point = 0;
        const std::size_t length = utf8_sequence(text.substr(i), code_point);
        if (length == 0) {
            append_hex_escape(out, 'x', byte, 2);
            ++i;
        } else if (raw_in_quotes(code_point)) {
            out.append(text.substr(i, length));
            i += length;
        } else if (code_point <= 0xFF) {
            append_hex_escape(out, 'x', code_point, 2);
            i += length;
        } else if (code_point <= 0xFFFF) {
            append_hex_escape(out, 'u', code_point, 4);
            i += length;
        } else {
            append_hex_escape(out, 'U', code_point, 8);
            i += length;
        }
    }
    out += '"';
    return out;
}

std::string yaml_scalar(std::string_view text, YamlContext context) {
    if (yaml_plain_safe(text, context)) return std::string(text);
    return yaml_double_quoted(text);
}

}  // namespace aitk::lock
