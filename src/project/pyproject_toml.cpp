#include "pyproject_toml.hpp"

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::project::detail {

namespace {

std::string type_name(const toml::node& node) {
    switch (node.type()) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a number";
        case toml::node_type::boolean:
            return "a boolean";
        default:
            return "a date or time";
    }
}

// uv ends a URL at a ';' followed by whitespace ("pkg @ git+https://x/pkg.git; sys_platform ==
// 'linux'"), where PEP 508 and packaging want whitespace before it: the same text with that
// space, or nullopt when there is no such ';'.
std::optional<std::string> with_space_before_marker(const std::string& text) {
    const auto at = text.find('@');
    if (at == std::string::npos) return std::nullopt;
    for (auto semicolon = text.find(';', at); semicolon != std::string::npos;
         semicolon = text.find(';', semicolon + 1)) {
        const bool followed = semicolon + 1 < text.size() &&
                              (text[semicolon + 1] == ' ' || text[semicolon + 1] == '\t');
        const bool preceded = text[semicolon - 1] == ' ' || text[semicolon - 1] == '\t';
        if (followed && !preceded) {
            return text.substr(0, semicolon) + " " + text.substr(semicolon);
        }
    }
    return std::nullopt;
}

}  // namespace

SourceLocation TomlFile::at(const toml::source_region& region) const {
    return SourceLocation{label_, static_cast<std::size_t>(region.begin.line),
                          static_cast<std::size_t>(region.begin.column)};
}

SourceLocation TomlFile::inside(const toml::node& node, std::size_t offset) const {
    SourceLocation where = at(node);
    // The value starts after its opening quote (or the three of a multi-line string); offsets
    // past an escape sequence are off by its length, which is rare in a requirement.
    if (where.column > 0) where.column += 1 + offset;
    return where;
}

Loaded<std::string> TomlFile::string(const toml::node& node, std::string_view what) const {
    if (const auto* s = node.as_string()) return s->get();
    return util::input_problem(at(node),
                               std::string(what) + " is " + type_name(node) + ", not a string",
                               "write it as a quoted string");
}

Loaded<bool> TomlFile::boolean(const toml::node& node, std::string_view what) const {
    if (const auto* b = node.as_boolean()) return b->get();
    return util::input_problem(at(node),
                               std::string(what) + " is " + type_name(node) + ", not a boolean",
                               "write true or false");
}

Loaded<std::vector<std::pair<std::string, SourceLocation>>> TomlFile::strings(
    const toml::node& node, std::string_view what, bool single_ok) const {
    std::vector<std::pair<std::string, SourceLocation>> out;
    if (single_ok && node.is_string()) {
        out.emplace_back(node.as_string()->get(), at(node));
        return out;
    }
    const auto* array = node.as_array();
    if (array == nullptr) {
        return util::input_problem(
            at(node), std::string(what) + " is " + type_name(node) + ", not an array of strings",
            "write [\"…\", \"…\"]");
    }
    for (const auto& element : *array) {
        const auto* s = element.as_string();
        if (s == nullptr) {
            return util::input_problem(
                at(element),
                std::string(what) + " holds " + type_name(element) + " where a string belongs",
                "write each entry as a quoted string");
        }
        out.emplace_back(s->get(), at(element));
    }
    return out;
}

const toml::table* TomlFile::table(const toml::node& node, std::string_view what,
                                   std::optional<InputProblem>& problem) const {
    if (const auto* t = node.as_table()) return t;
    problem = InputProblem{at(node), std::string(what) + " is " + type_name(node) + ", not a table",
                           "write it as a table: [" + std::string(what) + "] or { key = … }"};
    return nullptr;
}

Loaded<pep::Requirement> TomlFile::requirement(const toml::node& node,
                                               std::string_view what) const {
    auto text = string(node, what);
    if (!text) return util::Unexpected<InputProblem>(std::move(text.error()));
    auto parsed = pep::Requirement::parse(*text);
    if (!parsed) {
        if (auto uv_form = with_space_before_marker(*text)) {
            if (auto relaxed = pep::Requirement::parse(*uv_form)) return std::move(*relaxed);
        }
        const std::size_t position = parsed.error().position;
        return util::input_problem(
            inside(node, position == util::ParseError::no_position ? 0 : position),
            std::string(what) + ": invalid requirement '" + *text + "': " + parsed.error().message,
            "write a PEP 508 requirement such as \"name>=1.0\" or \"name[extra]==2.1 ; "
            "sys_platform == 'linux'\"");
    }
    return std::move(*parsed);
}

Loaded<pep::Marker> TomlFile::marker(const toml::node& node, std::string_view what) const {
    auto text = string(node, what);
    if (!text) return util::Unexpected<InputProblem>(std::move(text.error()));
    auto parsed = pep::Marker::parse(*text);
    if (!parsed) {
        const std::size_t position = parsed.error().position;
        return util::input_problem(
            inside(node, position == util::ParseError::no_position ? 0 : position),
            std::string(what) + ": invalid marker '" + *text + "': " + parsed.error().message,
            "markers look like sys_platform == 'linux' and platform_machine == 'x86_64'");
    }
    return std::move(*parsed);
}

Loaded<std::string> TomlFile::name(const toml::node& node, std::string_view what) const {
    auto text = string(node, what);
    if (!text) return util::Unexpected<InputProblem>(std::move(text.error()));
    if (!pep::is_valid_name(*text)) {
        return util::input_problem(at(node),
                                   std::string(what) + " '" + *text + "' is not a valid name",
                                   "names are letters, digits, '-', '_' and '.', starting and "
                                   "ending with a letter or digit (PEP 508)");
    }
    return pep::canonicalize_name(*text);
}

std::optional<InputProblem> TomlFile::unknown_key(const toml::table& table,
                                                  std::initializer_list<std::string_view> known,
                                                  std::string_view table_name) const {
    for (const auto& [key, value] : table) {
        bool found = false;
        for (auto k : known)
            found = found || key.str() == k;
        if (found) continue;
        std::vector<std::string> names(known.begin(), known.end());
        return InputProblem{
            at(key), "unknown key '" + std::string(key.str()) + "' in " + std::string(table_name),
            "the keys uv documents there are " + util::join(names, ", ") +
                " (a misspelt key would be ignored by other tools; aitk-env "
                "does not guess)"};
    }
    return std::nullopt;
}

Loaded<toml::table> parse_toml(std::string_view text, const std::string& label) {
    try {
        return toml::parse(text, label);
    } catch (const toml::parse_error& e) {
        const auto& begin = e.source().begin;
        return util::input_problem(SourceLocation{label, static_cast<std::size_t>(begin.line),
                                                  static_cast<std::size_t>(begin.column)},
                                   "not valid TOML: " + std::string(e.description()),
                                   "fix the syntax of the file (https://toml.io)");
    }
}

}  // namespace aitk::project::detail
