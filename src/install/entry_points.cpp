#include "aitk/install/entry_points.hpp"

#include "aitk/util/strings.hpp"

namespace aitk::install {
namespace {

// Python's \w on str: ASCII letters, digits, '_' and (taken on trust) any non-ASCII character.
bool is_word_char(char c) noexcept {
    return util::is_ascii_alnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

// "a.b.c": identifiers joined by single dots.
bool is_dotted_name(std::string_view s) noexcept {
    if (s.empty()) return false;
    bool need_char = true;
    for (char c : s) {
        if (c == '.') {
            if (need_char) return false;
            need_char = true;
        } else if (is_word_char(c)) {
            need_char = false;
        } else {
            return false;
        }
    }
    return !need_char;
}

std::string line_prefix(std::size_t line) {
    return "line " + std::to_string(line) + ": ";
}

}  // namespace

util::Expected<std::vector<EntryPoint>, std::string> parse_entry_points(std::string_view text) {
    std::vector<EntryPoint> out;
    std::string group;
    std::size_t line_number = 0;
    std::size_t pos = 0;
    if (text.starts_with("\xEF\xBB\xBF")) pos = 3;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = util::trim(text.substr(pos, end - pos));
        pos = end + 1;
        ++line_number;
        if (line.empty() || line.front() == '#' || line.front() == ';') continue;
        if (line.front() == '[') {
            if (line.back() != ']') {
                return util::Unexpected(line_prefix(line_number) + "a group header '" +
                                        std::string(line) + "' lacks its closing ']'");
            }
            group = std::string(util::trim(line.substr(1, line.size() - 2)));
            if (group.empty()) {
                return util::Unexpected(line_prefix(line_number) + "the group name is empty");
            }
            continue;
        }
        std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            return util::Unexpected(line_prefix(line_number) + "'" + std::string(line) +
                                    "' is not written 'name = value'");
        }
        if (group.empty()) {
            return util::Unexpected(line_prefix(line_number) + "entry point '" + std::string(line) +
                                    "' comes before any [group]");
        }
        EntryPoint ep;
        ep.group = group;
        ep.name = std::string(util::trim(line.substr(0, eq)));
        ep.value = std::string(util::trim(line.substr(eq + 1)));
        ep.line = line_number;
        if (ep.name.empty()) {
            return util::Unexpected(line_prefix(line_number) + "an entry point has no name");
        }
        out.push_back(std::move(ep));
    }
    return out;
}

util::Expected<ScriptTarget, std::string> parse_script_target(std::string_view value) {
    value = util::trim(value);
    ScriptTarget target;
    if (std::size_t open = value.find('['); open != std::string_view::npos) {
        if (value.back() != ']') {
            return util::Unexpected("'" + std::string(value) + "': extras lack a closing ']'");
        }
        std::string_view extras = value.substr(open + 1, value.size() - open - 2);
        for (std::string_view extra : util::split(extras, ',')) {
            extra = util::trim(extra);
            if (extra.empty()) continue;
            for (char c : extra) {
                if (!is_word_char(c) && c != '-' && c != '.') {
                    return util::Unexpected("'" + std::string(value) + "': extra '" +
                                            std::string(extra) + "' is not a valid name");
                }
            }
            target.extras.emplace_back(extra);
        }
        value = util::trim(value.substr(0, open));
    }
    std::size_t colon = value.find(':');
    if (colon == std::string_view::npos) {
        return util::Unexpected("'" + std::string(value) +
                                "' names no callable: write 'module:function'");
    }
    std::string_view module = util::trim(value.substr(0, colon));
    std::string_view attribute = util::trim(value.substr(colon + 1));
    if (!is_dotted_name(module)) {
        return util::Unexpected("'" + std::string(value) + "': '" + std::string(module) +
                                "' is not a module name");
    }
    if (!is_dotted_name(attribute)) {
        return util::Unexpected("'" + std::string(value) + "': '" + std::string(attribute) +
                                "' is not an attribute name");
    }
    target.module = std::string(module);
    target.attribute = std::string(attribute);
    return target;
}

bool is_valid_script_name(std::string_view name) noexcept {
    if (name.empty() || name == "." || name == "..") return false;
    for (char c : name) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == ' ' || c == '/' || c == '\\') return false;
    }
    return true;
}

}  // namespace aitk::install
