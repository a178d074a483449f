#pragma once
// Reading typed values out of a pyproject.toml with toml++, each problem at the file:line:column
// of the value (or key) it is about. Private to the pyproject reader.
#include <toml++/toml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::project::detail {

using util::InputProblem;
using util::Loaded;
using util::SourceLocation;

// One file's values: its label goes into every location.
class TomlFile {
  public:
    explicit TomlFile(std::string label) : label_(std::move(label)) {}
    const std::string& label() const noexcept { return label_; }

    SourceLocation at(const toml::source_region& region) const;
    SourceLocation at(const toml::node& node) const { return at(node.source()); }
    SourceLocation at(const toml::key& key) const { return at(key.source()); }

    // `what` names the value in messages ("project.dependencies").
    Loaded<std::string> string(const toml::node& node, std::string_view what) const;
    Loaded<bool> boolean(const toml::node& node, std::string_view what) const;
    // An array of strings; `single_ok`: a lone string counts as a list of one.
    Loaded<std::vector<std::pair<std::string, SourceLocation>>> strings(
        const toml::node& node, std::string_view what, bool single_ok = false) const;
    const toml::table* table(const toml::node& node, std::string_view what,
                             std::optional<InputProblem>& problem) const;
    Loaded<pep::Requirement> requirement(const toml::node& node, std::string_view what) const;
    Loaded<pep::Marker> marker(const toml::node& node, std::string_view what) const;
    // A PEP 508 project, extra or group name, normalised.
    Loaded<std::string> name(const toml::node& node, std::string_view what) const;

    // The first key of `table` that is not in `known`, as a problem naming it and listing the
    // known keys; nullopt when every key is known.
    std::optional<InputProblem> unknown_key(const toml::table& table,
                                            std::initializer_list<std::string_view> known,
                                            std::string_view table_name) const;

  private:
    // A problem inside the string `node` at `offset` characters into its value.
    SourceLocation inside(const toml::node& node, std::size_t offset) const;
    std::string label_;
};

// The TOML document, or a problem at the line and column where the syntax breaks.
Loaded<toml::table> parse_toml(std::string_view text, const std::string& label);

}  // namespace aitk::project::detail
