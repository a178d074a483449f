#pragma once
// A YAML document as a plain tree with a 1-based position on every node (nulls included),
// built from yaml-cpp's parser events. Readers of our own files want more than YAML::Node gives:
// the position of an empty value, whether a scalar was quoted, every duplicate key, and
// a refusal of aliases (a few bytes of `*a` can stand for gigabytes once walked).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/input_problem.hpp"

namespace aitk::lock::detail {

struct YamlEntry;

struct YamlNode {
    enum class Kind { null, scalar, sequence, mapping };
    Kind kind = Kind::null;
    std::size_t line = 0;  // 1-based
    std::size_t column = 0;
    std::string text;                // scalars
    bool plain = true;               // a scalar written without quotes or tag
    std::vector<YamlNode> items;     // sequences
    std::vector<YamlEntry> entries;  // mappings, in document order, duplicates kept

    bool is_scalar() const noexcept { return kind == Kind::scalar; }
    bool is_sequence() const noexcept { return kind == Kind::sequence; }
    bool is_mapping() const noexcept { return kind == Kind::mapping; }
};

struct YamlEntry {
    YamlNode key;
    YamlNode value;
};

// Nesting deeper than this is refused (our files need a handful of levels).
inline constexpr std::size_t max_yaml_depth = 32;

// The single document of `text`. Problems: YAML syntax errors, an empty file, more than one
// document, aliases, nesting beyond max_yaml_depth, and scalars that are not valid UTF-8.
util::Loaded<YamlNode> load_yaml_tree(std::string_view text, std::string_view file);

}  // namespace aitk::lock::detail
