#include "conda_spec.hpp"

#include <array>

#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::project::detail {
namespace {

using SpecResult = util::Expected<CondaSpec, CondaSpecError>;

bool is_name_char(char c) {
    return util::is_ascii_alnum(c) || c == '_' || c == '-' || c == '.' || c == '+';
}

bool is_operator_char(char c) {
    return c == '<' || c == '>' || c == '!' || c == '~' || c == '=';
}

std::string without_spaces(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (!util::is_ascii_space(c)) out += c;
    }
    return out;
}

// "1.2*" and "1.2.*" both mean any 1.2.x; stored as "1.2.*".
std::string as_prefix(std::string_view version) {
    while (!version.empty() && (version.back() == '*' || version.back() == '.'))
        version.remove_suffix(1);
    return version.empty() ? std::string{} : std::string(version) + ".*";
}

std::string_view unquote(std::string_view value) {
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
        value.back() == value.front()) {
        return value.substr(1, value.size() - 2);
    }
    return value;
}

// Reads "name[key=value, key='value']" brackets into the spec.
std::optional<CondaSpecError> read_brackets(std::string_view inside, std::size_t offset,
                                            CondaSpec& spec) {
    std::size_t i = 0;
    while (i < inside.size()) {
        while (i < inside.size() && (inside[i] == ',' || util::is_ascii_space(inside[i])))
            ++i;
        if (i >= inside.size()) break;
        std::size_t equals = inside.find('=', i);
        if (equals == std::string_view::npos) {
            return CondaSpecError{offset + i, "expected key=value inside the brackets",
                                  "write name[version='>=1.0',build=py*]"};
        }
        std::string key(util::trim(inside.substr(i, equals - i)));
        std::size_t value_start = equals + 1;
        std::size_t value_end = value_start;
        if (value_start < inside.size() &&
            (inside[value_start] == '\'' || inside[value_start] == '"')) {
            std::size_t close = inside.find(inside[value_start], value_start + 1);
            if (close == std::string_view::npos) {
                return CondaSpecError{offset + value_start, "this quote is never closed",
                                      "close the quote"};
            }
            value_end = close + 1;
        } else {
            while (value_end < inside.size() && inside[value_end] != ',' &&
                   !util::is_ascii_space(inside[value_end]))
                ++value_end;
        }
        std::string value(unquote(inside.substr(value_start, value_end - value_start)));
        if (key == "version") {
            spec.version = without_spaces(value);
        } else if (key == "build") {
            spec.build = value;
        } else if (key == "channel") {
            spec.channel = value;
        } else if (key != "subdir" && key != "build_number" && key != "md5" && key != "sha256") {
            return CondaSpecError{offset + i, "unsupported key '" + key + "' in the brackets",
                                  "aitk-env reads version, build and channel here"};
        }
        i = value_end;
    }
    return std::nullopt;
}

// The version part after "=": "1.2" (any 1.2.x), "1.2=build" / "1.2 build" (exactly 1.2).
void read_single_equals(std::string_view body, CondaSpec& spec) {
    std::size_t equals = body.find('=');
    std::size_t space = body.find_first_of(" \t");
    std::size_t split = std::min(equals, space);
    if (body.find_first_of(",|") != std::string_view::npos) {
        spec.version = "=" + without_spaces(body);  // a clause list; conversion reads each clause
    } else if (split != std::string_view::npos) {
        spec.version = std::string(body.substr(0, split));
        spec.build = std::string(util::trim(body.substr(split + 1)));
    } else if (!body.empty() && body.back() == '*') {
        spec.version = as_prefix(body);
    } else {
        spec.version = as_prefix(std::string(body) + ".*");
    }
}

}  // namespace

SpecResult parse_conda_spec(std::string_view text) {
    CondaSpec spec;
    std::string_view rest = text;
    if (std::size_t comment = rest.find('#'); comment != std::string_view::npos) {
        rest = rest.substr(0, comment);
    }
    std::string_view trimmed = util::trim(rest);
    std::size_t base = static_cast<std::size_t>(trimmed.data() - text.data());
    rest = trimmed;
    if (rest.empty()) {
        return util::Unexpected(CondaSpecError{0, "empty dependency", "remove the empty item"});
    }
    for (std::string_view ext : {".tar.bz2", ".conda"}) {
        if (rest.size() > ext.size() && rest.substr(rest.size() - ext.size()) == ext) {
            return util::Unexpected(
                CondaSpecError{base, "a conda package file cannot be imported",
                               "name the package and its version instead (name=version)"});
        }
    }

    // "[key=value,…]" at the end.
    if (!rest.empty() && rest.back() == ']') {
        std::size_t open = rest.find('[');
        if (open == std::string_view::npos) {
            return util::Unexpected(
                CondaSpecError{base + rest.size() - 1, "']' without '['", "remove the ']'"});
        }
        if (auto error = read_brackets(rest.substr(open + 1, rest.size() - open - 2),
                                       base + open + 1, spec)) {
            return util::Unexpected(std::move(*error));
        }
        rest = util::trim(rest.substr(0, open));
    }

    // "channel::name"
    if (std::size_t colons = rest.rfind("::"); colons != std::string_view::npos) {
        spec.channel = std::string(rest.substr(0, colons));
        base += colons + 2;
        rest = rest.substr(colons + 2);
    }

    std::size_t name_end = 0;
    while (name_end < rest.size() && !is_operator_char(rest[name_end]) &&
           !util::is_ascii_space(rest[name_end]))
        ++name_end;
    std::string_view name = rest.substr(0, name_end);
    if (name.empty()) {
        return util::Unexpected(
            CondaSpecError{base, "no package name", "a dependency starts with its name: name=1.0"});
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (!is_name_char(name[i])) {
            return util::Unexpected(
                CondaSpecError{base + i, "'" + std::string(name) + "' is not a conda package name",
                               "conda names use letters, digits, '-', '_', '.' and '+'"});
        }
    }
    spec.name = util::to_lower(name);

    std::string_view version = util::trim(rest.substr(name_end));
    if (version.empty()) return spec;
    if (version[0] == '=' && (version.size() < 2 || version[1] != '=')) {
        read_single_equals(util::trim(version.substr(1)), spec);
    } else {
        // "==1.2", ">=1.2,<2", "1.2.3", "1.2.3 build", "1.2.* build".
        std::string_view build;
        std::size_t last_space = version.find_last_of(" \t");
        if (last_space != std::string_view::npos) {
            std::string_view last = version.substr(last_space + 1);
            std::string_view before = util::trim(version.substr(0, last_space));
            bool looks_like_build =
                !last.empty() && !is_operator_char(last[0]) &&
                last.find_first_of(",|<>=!~") == std::string_view::npos && !before.empty() &&
                before.find_last_of(",|") != before.size() - 1 && !is_operator_char(before.back());
            if (looks_like_build) {
                build = last;
                version = before;
            }
        }
        std::string v = without_spaces(version);
        bool is_list = v.find_first_of(",|") != std::string::npos;
        if (!is_list && v.rfind("==", 0) == 0) v.erase(0, 2);
        if (!is_list && !v.empty() && v.back() == '*' && !is_operator_char(v[0])) v = as_prefix(v);
        if (!is_list && !v.empty() && !is_operator_char(v[0])) {
            // "1.2.3=build" written after a space.
            if (std::size_t equals = v.find('='); equals != std::string::npos) {
                build = {};
                spec.build = v.substr(equals + 1);
                v.erase(equals);
            }
        }
        spec.version = v == "*" ? std::string{} : v;
        if (!build.empty()) spec.build = std::string(build);
    }
    if (spec.build == "*") spec.build.clear();
    return spec;
}

}  // namespace aitk::project::detail

namespace aitk::project {
namespace {

// The version as PEP 440 reads it; conda's '_' separators become '.' when that is all it takes.
util::Expected<std::string, std::string> pep440_version(std::string_view version) {
    if (pep::Version::parse(version)) return std::string(version);
    std::string dotted(version);
    for (char& c : dotted) {
        if (c == '_') c = '.';
    }
    if (dotted != version && pep::Version::parse(dotted)) return dotted;
    return util::Unexpected("'" + std::string(version) + "' is not a PEP 440 version");
}

}  // namespace

util::Expected<std::string, std::string> conda_version_to_specifier(std::string_view version) {
    std::string text = util::to_lower(util::trim(version));
    if (text.empty() || text == "*") return std::string{};
    if (text.find('|') != std::string::npos) {
        return util::Unexpected("'" + std::string(version) +
                                "' allows one version or another ('|'), which a PEP 440 "
                                "specifier cannot say");
    }
    static constexpr std::array<std::string_view, 9> operators{
        {"===", "==", "!=", "<=", ">=", "~=", "<", ">", "="}};
    std::vector<std::string> clauses;
    for (std::string_view clause : util::split(text, ',')) {
        clause = util::trim(clause);
        std::string_view op;
        for (auto candidate : operators) {
            if (clause.substr(0, candidate.size()) == candidate) {
                op = candidate;
                break;
            }
        }
        std::string_view body = util::trim(clause.substr(op.size()));
        if (op == "===") {
            clauses.push_back("===" + std::string(body));
            continue;
        }
        bool wildcard = !body.empty() && body.back() == '*';
        while (!body.empty() && (body.back() == '*' || body.back() == '.'))
            body.remove_suffix(1);
        if (body.empty()) {
            if (wildcard) continue;  // "*": any version
            return util::Unexpected("'" + std::string(version) + "' has an empty version clause");
        }
        auto v = pep440_version(body);
        if (!v) return util::Unexpected(v.error());
        if (op.empty() || op == "==") {
            clauses.push_back("==" + *v + (wildcard ? ".*" : ""));
        } else if (op == "=") {
            clauses.push_back("==" + *v + ".*");  // conda's "=1.2" is any 1.2.x
        } else if (op == "!=") {
            clauses.push_back("!=" + *v + (wildcard ? ".*" : ""));
        } else {
            clauses.push_back(std::string(op) + *v);  // ">=1.2.*" means ">=1.2"
        }
    }
    std::string joined = util::join(clauses, ",");
    if (auto parsed = pep::SpecifierSet::parse(joined); !parsed) {
        return util::Unexpected("'" + std::string(version) + "' gives '" + joined +
                                "', which is not a PEP 440 specifier: " + parsed.error().message);
    }
    return joined;
}

}  // namespace aitk::project
