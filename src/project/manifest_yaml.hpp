#pragma once
// Strict reading of the manifest's YAML tree: every problem becomes an InputProblem with
// file:line:column (1-based), the key path and a hint. Used only inside the manifest parser,
// which catches ManifestFailure at its boundary, so nothing here escapes to callers.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/input_problem.hpp"

namespace aitk::project::detail {

struct ManifestFailure {
    util::InputProblem problem;
};

// The closest of `candidates` to `word` within a small edit distance, or "".
std::string_view closest_word(std::string_view word,
                              std::initializer_list<std::string_view> candidates);

class ManifestYaml {
  public:
    ManifestYaml(std::string_view file, std::string_view text) : file_(file), text_(text) {}

    util::SourceLocation location(const YAML::Node& node) const;
    // Where the text of a scalar starts (past an opening quote), for columns inside it.
    util::SourceLocation text_location(const YAML::Node& scalar) const;
    [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                           const std::string& message, std::string hint = {}) const;
    [[noreturn]] void fail_at(util::SourceLocation where, std::string message,
                              std::string hint = {}) const;

    // Checks that `node` is a mapping whose keys are plain, distinct and among `known`.
    // `path` names the mapping in messages ("" for the top level).
    void expect_keys(const YAML::Node& node, const std::string& path,
                     std::initializer_list<std::string_view> known) const;

    // A key's value, or an undefined node when the key is absent or has no value (null).
    static YAML::Node get(const YAML::Node& map, std::string_view key);

    std::string string(const YAML::Node& node, const std::string& path,
                       const std::string& hint = {}) const;
    std::vector<std::string> string_list(const YAML::Node& node, const std::string& path,
                                         const std::string& hint = {}) const;
    bool boolean(const YAML::Node& node, const std::string& path) const;
    double non_negative_number(const YAML::Node& node, const std::string& path) const;
    const YAML::Node& sequence(const YAML::Node& node, const std::string& path,
                               const std::string& hint = {}) const;
    const YAML::Node& mapping(const YAML::Node& node, const std::string& path,
                              const std::string& hint = {}) const;

    const std::string& file() const { return file_; }

  private:
    std::string file_;
    std::string_view text_;
};

// "a list", "a mapping", "text", "nothing": what the user wrote, for type errors.
std::string_view yaml_kind(const YAML::Node& node);
std::string item_path(const std::string& path, std::size_t index);
std::string key_path(const std::string& path, std::string_view key);

}  // namespace aitk::project::detail
