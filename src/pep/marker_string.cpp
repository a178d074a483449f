// Python string literals in markers: packaging reads them with ast.literal_eval, so escapes are
// decoded, and str() must write them back in a form that decodes to the same value.
#include "marker_string.hpp"

#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::pep::detail {
namespace {

using util::is_ascii_digit;
using util::to_ascii_lower;

void append_utf8(std::string& out, char32_t cp) {
    // Lone surrogates (from \ud800) are kept as 3-byte sequences, as Python keeps them in str.
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

}  // namespace

Parsed<std::string> decode_python_string(std::string_view literal, std::string_view input,
                                         std::size_t position) {
    std::string out;
    std::string_view body = literal.substr(1, literal.size() - 2);
    out.reserve(body.size());
    auto fail = [&](std::string message, std::size_t offset) {
        return parse_error(std::move(message), input, position + 1 + offset);
    };
    for (std::size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c == '\0') return fail("a NUL character is not allowed in a quoted string", i);
        if (c == '\n' || c == '\r')
            return fail("line break inside a quoted string; close the quote on the same line", i);
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        if (i + 1 == body.size()) {
            return fail(
                "unterminated string: the backslash escapes the closing quote (write \\\\ for a "
                "literal backslash)",
                i);
        }
        char e = body[++i];
        switch (e) {
            case '\n':
                continue;  // line continuation
            case '\r':
                if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
                continue;
            case '\\':
                out.push_back('\\');
                continue;
            case '\'':
                out.push_back('\'');
                continue;
            case '"':
                out.push_back('"');
                continue;
            case 'a':
                out.push_back('\a');
                continue;
            case 'b':
                out.push_back('\b');
                continue;
            case 'f':
                out.push_back('\f');
                continue;
            case 'n':
                out.push_back('\n');
                continue;
            case 'r':
                out.push_back('\r');
                continue;
            case 't':
                out.push_back('\t');
                continue;
            case 'v':
                out.push_back('\v');
                continue;
            case 'N':
                return fail(
                    "\\N{...} escapes are not supported; write the character itself or use "
                    "\\u/\\U",
                    i - 1);
            default:
                break;
        }
        if (e >= '0' && e <= '7') {
            char32_t cp = 0;
            std::size_t n = 0;
            while (n < 3 && i + n < body.size() && body[i + n] >= '0' && body[i + n] <= '7') {
                cp = cp * 8 + static_cast<char32_t>(body[i + n] - '0');
                ++n;
            }
            append_utf8(out, cp);
            i += n - 1;
            continue;
        }
        std::size_t width = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (width == 0) {
            // Python keeps an unknown escape as written (and only warns).
            out.push_back('\\');
            --i;
            continue;
        }
        char32_t cp = 0;
        for (std::size_t k = 1; k <= width; ++k) {
            if (i + k >= body.size() || util::hex_value(body[i + k]) < 0) {
                return fail("truncated \\" + std::string(1, e) + " escape: it needs exactly " +
                                std::to_string(width) + " hex digits",
                            i - 1);
            }
            cp = cp * 16 + static_cast<char32_t>(util::hex_value(body[i + k]));
        }
        if (cp > 0x10FFFF) return fail("\\U escape beyond U+10FFFF", i - 1);
        append_utf8(out, cp);
        i += width;
    }
    return out;
}

void append_python_string(std::string& out, std::string_view value) {
    bool has_double = false;
    bool has_single = false;
    bool needs_escape = false;
    for (char c : value) {
        has_double |= c == '"';
        has_single |= c == '\'';
        needs_escape |= c == '\\' || (static_cast<unsigned char>(c) < 0x20 && c != '\t');
    }
    if (!needs_escape && (!has_double || !has_single)) {
        char quote = has_double ? '\'' : '"';
        out.push_back(quote);
        out.append(value);
        out.push_back(quote);
        return;
    }
    out.push_back('"');
    for (char c : value) {
        auto byte = static_cast<unsigned char>(c);
        if (c == '\\') {
            out.append("\\\\");
        } else if (c == '\n') {
            out.append("\\n");
        } else if (c == '\r') {
            out.append("\\r");
        } else if (c == '"' || (byte < 0x20 && c != '\t')) {
            out.append("\\x");
            util::append_hex_byte(out, byte);
        } else {
            out.push_back(c);
        }
    }
    out.push_back('"');
}
}  // namespace aitk::pep::detail
