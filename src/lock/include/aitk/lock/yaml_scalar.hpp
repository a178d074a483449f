#pragma once
// Writing one YAML scalar so that every reader gets the same string back: yaml-cpp
// (micromamba), ruamel.yaml (conda, YAML 1.2) and PyYAML (YAML 1.1, where `yes`, `1:20` and
// `2024-01-01` are not strings). A value stays plain only when it is plainly a string under
// all of them; otherwise it is double-quoted with escapes.
#include <string>
#include <string_view>

namespace aitk::lock {

enum class YamlContext {
    block,  // a mapping value or sequence item on its own line
    flow,   // an item inside `[...]` or `{...}`
};

// True when `text`, written without quotes in `context`, reads back as this very string under
// both YAML 1.1 and 1.2 resolvers. Errs on the side of quoting: "1.10", "2.0", "1e3", "yes",
// "null", "~", "", "2024-01-01", " x", "a: b", "a #b" and anything non-ASCII are not safe;
// "2.13.0", "2.9.0+cu130", "https://h/x.whl" and "--index-url https://h/simple" are.
bool yaml_plain_safe(std::string_view text, YamlContext context) noexcept;

// `"..."` with YAML escapes (\\, \", \n, \t, \xNN, \uNNNN for line separators and other
// characters a YAML reader may not take raw). Valid UTF-8 is written as it is; a byte that is
// not part of valid UTF-8 is written as \xNN, which reads back as U+00NN (lossy by nature).
std::string yaml_double_quoted(std::string_view text);

// The plain text when yaml_plain_safe(), else yaml_double_quoted().
std::string yaml_scalar(std::string_view text, YamlContext context = YamlContext::block);

}  // namespace aitk::lock
