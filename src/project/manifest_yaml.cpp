#include "manifest_yaml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "aitk/util/strings.hpp"

namespace aitk::project::detail {

namespace {

// Levenshtein distance, bounded: words here are short keys, so the table stays tiny.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            std::size_t cost =
                util::to_ascii_lower(a[i - 1]) == util::to_ascii_lower(b[j - 1]) ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string known_list(std::initializer_list<std::string_view> known) {
    std::string out;
    for (auto k : known) {
        if (!out.empty()) out += ", ";
        out += k;
    }
    return out;
}

}  // namespace

std::string_view closest_word(std::string_view word,
                              std::initializer_list<std::string_view> candidates) {
    if (word.size() > 64) return {};
    std::string_view best;
    std::size_t best_distance = word.size() <= 4 ? 1 : 2;
    for (auto c : candidates) {
        std::size_t d = edit_distance(word, c);
        if (d <= best_distance && (best.empty() || d < best_distance)) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

std::string_view yaml_kind(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Sequence:
            return "a list";
        case YAML::NodeType::Map:
            return "a mapping";
        case YAML::NodeType::Scalar:
            return "text";
        default:
            return "nothing";
    }
}

std::string item_path(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::string key_path(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

util::SourceLocation ManifestYaml::location(const YAML::Node& node) const {
    util::SourceLocation where{file_, 0, 0};
    if (!node.IsDefined()) return where;
    const YAML::Mark mark = node.Mark();
    if (mark.is_null() || mark.line < 0 || mark.column < 0) return where;
    where.line = static_cast<std::size_t>(mark.line) + 1;
    where.column = static_cast<std::size_t>(mark.column) + 1;
    return where;
}

util::SourceLocation ManifestYaml::text_location(const YAML::Node& scalar) const {
    util::SourceLocation where = location(scalar);
    const YAML::Mark mark = scalar.Mark();
    if (where.column != 0 && mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text_.size()) {
        char first = text_[static_cast<std::size_t>(mark.pos)];
        if (first == '"' || first == '\'') ++where.column;
    }
    return where;
}

void ManifestYaml::fail_at(util::SourceLocation where, std::string message,
                           std::string hint) const {
    throw ManifestFailure{{std::move(where), std::move(message), std::move(hint)}};
}

void ManifestYaml::fail(const YAML::Node& node, const std::string& path, const std::string& message,
                        std::string hint) const {
    fail_at(location(node), path.empty() ? message : path + ": " + message, std::move(hint));
}

YAML::Node ManifestYaml::get(const YAML::Node& map, std::string_view key) {
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (it->first.IsScalar() && it->first.Scalar() == key) {
            if (!it->second.IsDefined() || it->second.IsNull()) break;
            return it->second;
        }
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

void ManifestYaml::expect_keys(const YAML::Node& node, const std::string& path,
                               std::initializer_list<std::string_view> known) const {
    mapping(node, path);
    std::map<std::string, std::size_t> seen;  // key → line
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;  // the iterator hands out a temporary pair
        if (!key.IsScalar()) {
            fail(key, path, "a key must be plain text, not " + std::string(yaml_kind(key)),
                 "known keys: " + known_list(known));
        }
        const std::string& name = key.Scalar();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            std::string where = path.empty() ? "at the top level" : "in " + path;
            std::string hint;
            if (auto near = closest_word(name, known); !near.empty())
                hint = "did you mean " + util::double_quoted(near) + "? ";
            hint += "known keys: " + known_list(known);
            fail(key, "", "unknown key " + util::double_quoted(name) + " " + where, hint);
        }
        auto [previous, fresh] = seen.emplace(name, location(key).line);
        if (!fresh) {
            fail(key, path,
                 "duplicate key " + util::double_quoted(name) + " (first on line " +
                     std::to_string(previous->second) + ")",
                 "keep one of them");
        }
    }
}

const YAML::Node& ManifestYaml::mapping(const YAML::Node& node, const std::string& path,
                                        const std::string& hint) const {
    if (!node.IsMap())
        fail(node, path, "expected a mapping, got " + std::string(yaml_kind(node)), hint);
    return node;
}

const YAML::Node& ManifestYaml::sequence(const YAML::Node& node, const std::string& path,
                                         const std::string& hint) const {
    if (!node.IsSequence())
        fail(node, path, "expected a list, got " + std::string(yaml_kind(node)), hint);
    return node;
}

std::string ManifestYaml::string(const YAML::Node& node, const std::string& path,
                                 const std::string& hint) const {
    if (!node.IsScalar())
        fail(node, path, "expected text, got " + std::string(yaml_kind(node)), hint);
    return node.Scalar();
}

std::vector<std::string> ManifestYaml::string_list(const YAML::Node& node, const std::string& path,
                                                   const std::string& hint) const {
    std::vector<std::string> out;
    if (!node.IsDefined()) return out;
    std::string list_hint = hint;
    if (node.IsScalar()) list_hint = "write a list: [" + node.Scalar() + "]";
    sequence(node, path, list_hint);
    out.reserve(node.size());
    for (std::size_t i = 0; i < node.size(); ++i)
        out.push_back(string(node[i], item_path(path, i), hint));
    return out;
}

bool ManifestYaml::boolean(const YAML::Node& node, const std::string& path) const {
    std::string text = string(node, path, "write true or false");
    if (text == "true") return true;
    if (text == "false") return false;
    fail(node, path, "expected true or false, got " + util::double_quoted(text),
         "write true or false");
}

double ManifestYaml::non_negative_number(const YAML::Node& node, const std::string& path) const {
    std::string text = string(node, path, "write a number such as 24");
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
        value < 0) {
        fail(node, path, "expected a non-negative number, got " + util::double_quoted(text),
             "write a number such as 24");
    }
    return value;
}

}  // namespace aitk::project::detail
