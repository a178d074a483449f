#include "aitk/pep/metadata.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::pep {

namespace {

struct Line {
    std::string_view text;  // without its line end
    std::size_t next = 0;   // offset of the following line
};

// Line ends are "\r\n", "\n" or a lone "\r", as Python's email parser accepts.
Line read_line(std::string_view text, std::size_t pos) {
    std::size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r')
        ++end;
    std::size_t next = end;
    if (next < text.size()) {
        next += (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n') ? 2 : 1;
    }
    return {text.substr(pos, end - pos), next};
}

constexpr bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

std::string_view trim_blanks(std::string_view s) noexcept {
    while (!s.empty() && is_blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back()))
        s.remove_suffix(1);
    return s;
}

// RFC 5322 field names: printable ASCII except ':' (so no spaces).
constexpr bool is_field_name_char(char c) noexcept {
    return c > ' ' && c < '\x7F' && c != ':';
}

// Free-text fields whose line breaks are content: writers fold them with 8 spaces (or 7 spaces
// and '|', the old distutils convention) in front of every following line.
bool is_multiline_field(std::string_view name) noexcept {
    return util::iequals(name, "Description") || util::iequals(name, "License");
}

std::string_view strip_fold_prefix(std::string_view line) noexcept {
    if (line.size() >= 8 && line.substr(0, 7) == "       " && (line[7] == '|' || line[7] == ' ')) {
        return line.substr(8);
    }
    while (!line.empty() && is_blank(line.front()))
        line.remove_prefix(1);
    return line;
}

std::string normalize_line_ends(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\r') {
            out.push_back(text[i]);
        } else {
            out.push_back('\n');
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        }
    }
    return out;
}

// Column of a header's value in its first line: after the colon and any blanks.
std::size_t value_column(std::string_view line) noexcept {
    std::size_t column = line.find(':') + 1;
    while (column < line.size() && is_blank(line[column]))
        ++column;
    return column;
}

util::Unexpected<ParseError> line_error(std::size_t line_number, std::string message,
                                        std::string_view line, std::size_t column) {
    return parse_error("line " + std::to_string(line_number) + ": " + std::move(message), line,
                       column);
}

}  // namespace

Parsed<CoreMetadata> CoreMetadata::parse(std::string_view text) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

    CoreMetadata out;
    // First line of each header, for error messages about its value.
    std::vector<std::string_view> first_lines;
    std::size_t pos = 0;
    std::size_t line_number = 0;
    std::optional<std::size_t> body_start;
    while (pos < text.size()) {
        Line line = read_line(text, pos);
        ++line_number;
        pos = line.next;
        if (line.text.empty()) {
            body_start = pos;
            break;
        }
        if (is_blank(line.text.front())) {
            if (out.headers.empty()) {
                return line_error(line_number,
                                  "continuation line (starting with whitespace) before any header",
                                  line.text, 0);
            }
            MetadataHeader& header = out.headers.back();
            if (is_multiline_field(header.name)) {
                header.value += '\n';
                header.value += strip_fold_prefix(line.text);
            } else if (std::string_view piece = trim_blanks(line.text); !piece.empty()) {
                if (!header.value.empty()) header.value += ' ';
                header.value += piece;
            }
            continue;
        }
        // An mbox "From " line may open the file; it is not a header.
        if (line_number == 1 && line.text.substr(0, 5) == "From ") continue;

        std::size_t colon = 0;
        while (colon < line.text.size() && is_field_name_char(line.text[colon]))
            ++colon;
        if (colon == 0 || colon == line.text.size() || line.text[colon] != ':') {
            return line_error(line_number,
                              "expected a header 'Field-Name: value' (a blank line must separate "
                              "the headers from the description)",
                              line.text, colon);
        }
        out.headers.push_back(MetadataHeader{std::string(line.text.substr(0, colon)),
                                             std::string(trim_blanks(line.text.substr(colon + 1))),
                                             line_number});
        first_lines.push_back(line.text);
    }

    std::optional<std::size_t> name_index;
    std::optional<std::size_t> version_index;
    std::optional<std::size_t> description_index;
    for (std::size_t i = 0; i < out.headers.size(); ++i) {
        MetadataHeader& header = out.headers[i];
        if (is_multiline_field(header.name)) {
            // Trailing blank lines come from folding, not from the text.
            while (!header.value.empty() && util::is_ascii_space(header.value.back())) {
                header.value.pop_back();
            }
        }
        const std::string& key = header.name;
        // Single-use fields keep their first occurrence.
        auto first = [&](std::string& field) {
            if (field.empty()) field = header.value;
        };
        auto first_index = [&](std::optional<std::size_t>& index) {
            if (!index) index = i;
        };
        if (util::iequals(key, "Name")) {
            first_index(name_index);
        } else if (util::iequals(key, "Version")) {
            first_index(version_index);
        } else if (util::iequals(key, "Metadata-Version")) {
            first(out.metadata_version);
        } else if (util::iequals(key, "Requires-Python")) {
            first(out.requires_python);
        } else if (util::iequals(key, "Requires-Dist")) {
            out.requires_dist.push_back(header.value);
        } else if (util::iequals(key, "Provides-Extra")) {
            out.provides_extra.push_back(header.value);
        } else if (util::iequals(key, "Summary")) {
            first(out.summary);
        } else if (util::iequals(key, "Description-Content-Type")) {
            first(out.description_content_type);
        } else if (util::iequals(key, "Description")) {
            first_index(description_index);
        }
    }

    if (!name_index) {
        return parse_error("core metadata has no 'Name' header (it is required)", "");
    }
    if (!version_index) {
        return parse_error("core metadata has no 'Version' header (it is required)", "");
    }

    const MetadataHeader& name = out.headers[*name_index];
    std::string_view name_line = first_lines[*name_index];
    if (!is_valid_name(name.value)) {
        return line_error(name.line,
                          "Name '" + name.value +
                              "' is not a valid project name (ASCII letters and digits, with "
                              "'-', '_' or '.' between them)",
                          name_line, value_column(name_line));
    }
    out.name = name.value;

    const MetadataHeader& version = out.headers[*version_index];
    std::string_view version_line = first_lines[*version_index];
    auto parsed = Version::parse(version.value);
    if (!parsed) {
        const ParseError& inner = parsed.error();
        std::size_t column = value_column(version_line);
        if (inner.position != ParseError::no_position) {
            column += std::min(inner.position, version.value.size());
        }
        return line_error(
            version.line,
            "Version '" + version.value + "' is not a valid PEP 440 version: " + inner.message,
            version_line, column);
    }
    out.version_text = version.value;
    out.version = std::move(*parsed);

    if (description_index && !out.headers[*description_index].value.empty()) {
        out.description = out.headers[*description_index].value;
    } else if (body_start) {
        out.description = normalize_line_ends(text.substr(*body_start));
    }
    return out;
}

std::optional<std::string_view> CoreMetadata::get(std::string_view header) const {
    for (const MetadataHeader& h : headers) {
        if (util::iequals(h.name, header)) return std::string_view(h.value);
    }
    return std::nullopt;
}

std::vector<std::string_view> CoreMetadata::get_all(std::string_view header) const {
    std::vector<std::string_view> out;
    for (const MetadataHeader& h : headers) {
        if (util::iequals(h.name, header)) out.emplace_back(h.value);
    }
    return out;
}

}  // namespace aitk::pep
