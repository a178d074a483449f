#include "requirements_lines.hpp"

#include <limits>

#include "aitk/util/strings.hpp"

namespace aitk::project::detail {
namespace {

// Length of the line boundary at text[i], or 0 (the boundaries of Python's str.splitlines()).
std::size_t boundary_length(std::string_view text, std::size_t i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
        case '\n':
        case '\v':
        case '\f':
        case 0x1c:
        case 0x1d:
        case 0x1e:
            return 1;
        case '\r':
            return (i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
        case 0xc2:  // U+0085 NEXT LINE
            return (i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x85) ? 2 : 0;
        case 0xe2:  // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
            if (i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
                unsigned char last = static_cast<unsigned char>(text[i + 2]);
                if (last == 0xa8 || last == 0xa9) return 3;
            }
            return 0;
        default:
            return 0;
    }
}

// pip's COMMENT_RE.match(): the first non-whitespace character is '#'.
bool is_comment_line(std::string_view line) {
    while (std::size_t n = util::leading_space_length(line))
        line.remove_prefix(n);
    return !line.empty() && line.front() == '#';
}

// Start of pip's comment, COMMENT_RE = (^|\s+)#.*$: a '#' at the start or after whitespace.
std::size_t comment_start(std::string_view text) {
    for (std::size_t i = text.find('#'); i != std::string_view::npos; i = text.find('#', i + 1)) {
        if (i == 0 || util::trailing_space_length(text.substr(0, i)) > 0) return i;
    }
    return std::string_view::npos;
}

bool is_variable_char(char c) {
    return (c >= 'A' && c <= 'Z') || util::is_ascii_digit(c) || c == '_';
}

std::uint32_t clamp32(std::size_t value) {
    constexpr std::size_t most = std::numeric_limits<std::uint32_t>::max();
    return static_cast<std::uint32_t>(value < most ? value : most);
}

void append_utf8(std::string& out, std::uint32_t code_point) {
    if (code_point < 0x80) {
        out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
        out += static_cast<char>(0xc0 | (code_point >> 6));
        out += static_cast<char>(0x80 | (code_point & 0x3f));
    } else if (code_point < 0x10000) {
        out += static_cast<char>(0xe0 | (code_point >> 12));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (code_point & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (code_point >> 18));
        out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (code_point & 0x3f));
    }
}

std::string decode_utf16(std::string_view bytes, bool big_endian) {
    constexpr std::uint32_t replacement = 0xfffd;
    std::string out;
    out.reserve(bytes.size() / 2);
    auto unit_at = [&](std::size_t i) -> std::uint32_t {
        auto b0 = static_cast<unsigned char>(bytes[i]);
        auto b1 = static_cast<unsigned char>(bytes[i + 1]);
        return big_endian ? (std::uint32_t{b0} << 8 | b1) : (std::uint32_t{b1} << 8 | b0);
    };
    std::size_t i = 0;
    while (i + 1 < bytes.size()) {
        std::uint32_t unit = unit_at(i);
        i += 2;
        if (unit >= 0xd800 && unit < 0xdc00) {
            if (i + 1 < bytes.size()) {
                std::uint32_t low = unit_at(i);
                if (low >= 0xdc00 && low < 0xe000) {
                    i += 2;
                    append_utf8(out, 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00));
                    continue;
                }
            }
            append_utf8(out, replacement);
        } else if (unit >= 0xdc00 && unit < 0xe000) {
            append_utf8(out, replacement);
        } else {
            append_utf8(out, unit);
        }
    }
    if (i < bytes.size()) append_utf8(out, replacement);  // an odd trailing byte
    return out;
}

}  // namespace

TextOrigin LogicalLine::origin_at(std::size_t offset) const {
    if (origins.empty()) return TextOrigin{first_line, 1};
    if (offset < origins.size()) return origins[offset];
    TextOrigin last = origins.back();
    ++last.column;
    return last;
}

LogicalLineReader::LogicalLineReader(std::string_view text, const util::Environment& environment)
    : text_(text), environment_(environment) {}

bool LogicalLineReader::next_physical(Physical& physical) {
    if (position_ >= text_.size()) return false;
    std::size_t start = position_;
    std::size_t i = start;
    std::size_t boundary = 0;
    while (i < text_.size() && (boundary = boundary_length(text_, i)) == 0)
        ++i;
    physical.text = text_.substr(start, i - start);
    physical.number = clamp32(++line_number_);
    position_ = i + boundary;
    return true;
}

void LogicalLineReader::append(LogicalLine& line, std::string_view piece, std::uint32_t number,
                               std::uint32_t first_column) {
    line.text.append(piece);
    for (std::size_t k = 0; k < piece.size(); ++k)
        line.origins.push_back(TextOrigin{number, clamp32(first_column + k)});
}

bool LogicalLineReader::next(LogicalLine& line) {
    while (true) {
        line.text.clear();
        line.origins.clear();
        line.expansions.clear();
        line.first_line = 0;
        bool pending = false;  // inside a run of lines joined by trailing backslashes
        bool produced = false;
        Physical physical;
        while (next_physical(physical)) {
            bool comment = is_comment_line(physical.text);
            bool continues = !comment && !physical.text.empty() && physical.text.back() == '\\';
            if (!pending) line.first_line = physical.number;
            if (!continues) {
                // pip prefixes a comment line with a space so that the comment cut below removes
                // it; appending nothing has the same effect, on its own or after a backslash.
                if (!comment) append(line, physical.text, physical.number, 1);
                produced = true;
                break;
            }
            pending = true;
            // pip's line.strip("\\"): every backslash at either end goes.
            std::string_view piece = physical.text;
            std::size_t leading = 0;
            while (leading < piece.size() && piece[leading] == '\\')
                ++leading;
            piece.remove_prefix(leading);
            while (!piece.empty() && piece.back() == '\\')
                piece.remove_suffix(1);
            append(line, piece, physical.number, clamp32(1 + leading));
        }
        if (!produced && !pending) return false;
        finish(line);
        if (!line.text.empty()) return true;
    }
}

void LogicalLineReader::finish(LogicalLine& line) const {
    std::size_t cut = comment_start(line.text);
    if (cut != std::string::npos) {
        line.text.resize(cut);
        line.origins.resize(cut);
    }
    std::size_t end = line.text.size();
    while (std::size_t n = util::trailing_space_length(std::string_view(line.text).substr(0, end)))
        end -= n;
    line.text.resize(end);
    line.origins.resize(end);
    std::size_t begin = 0;
    while (std::size_t n = util::leading_space_length(std::string_view(line.text).substr(begin)))
        begin += n;
    line.text.erase(0, begin);
    line.origins.erase(line.origins.begin(),
                       line.origins.begin() + static_cast<std::ptrdiff_t>(begin));

    // ${NAME} with NAME in [A-Z0-9_]+, replaced when the variable is set and not empty; other
    // text with '$' stays as written (pip's expand_env_variables).
    if (line.text.find("${") == std::string::npos || environment_.empty()) return;
    std::string expanded;
    std::vector<TextOrigin> origins;
    expanded.reserve(line.text.size());
    origins.reserve(line.origins.size());
    std::size_t i = 0;
    while (i < line.text.size()) {
        if (line.text.compare(i, 2, "${") == 0) {
            std::size_t j = i + 2;
            while (j < line.text.size() && is_variable_char(line.text[j]))
                ++j;
            if (j > i + 2 && j < line.text.size() && line.text[j] == '}') {
                std::string_view name(line.text.data() + i + 2, j - i - 2);
                auto value = util::environment_lookup(environment_, name);
                if (value && !value->empty()) {
                    line.expansions.push_back({*value, "${" + std::string(name) + "}"});
                    expanded += *value;
                    origins.insert(origins.end(), value->size(), line.origins[i]);
                    i = j + 1;
                    continue;
                }
            }
        }
        expanded += line.text[i];
        origins.push_back(line.origins[i]);
        ++i;
    }
    line.text = std::move(expanded);
    line.origins = std::move(origins);
}

std::string decode_requirements_bytes(std::string_view bytes) {
    auto starts = [&](std::string_view prefix) { return bytes.substr(0, prefix.size()) == prefix; };
    if (starts("\xef\xbb\xbf")) return std::string(bytes.substr(3));
    if (starts(std::string_view("\xff\xfe\x00\x00", 4)) ||
        starts(std::string_view("\x00\x00\xfe\xff", 4))) {
        // UTF-32: rare enough to decode plainly, one code point per four bytes.
        bool big_endian = bytes[0] == '\0';
        std::string out;
        for (std::size_t i = 4; i + 3 < bytes.size(); i += 4) {
            std::uint32_t cp = 0;
            for (std::size_t k = 0; k < 4; ++k) {
                auto b = static_cast<unsigned char>(bytes[i + (big_endian ? k : 3 - k)]);
                cp = (cp << 8) | b;
            }
            append_utf8(out, (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) ? 0xfffd : cp);
        }
        return out;
    }
    if (starts("\xff\xfe")) return decode_utf16(bytes.substr(2), false);
    if (starts("\xfe\xff")) return decode_utf16(bytes.substr(2), true);
    return std::string(bytes);
}

}  // namespace aitk::project::detail
