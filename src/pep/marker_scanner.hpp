#pragma once
// Private to the pep layer: the token rules shared by the marker and requirement parsers. Each
// *_length() answers how long the token starting at the cursor is (0: no such token there),
// reproducing what pypa/packaging's tokenizer regexes match, so both parsers accept exactly
// what packaging accepts and stop at the same column.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/parsed.hpp"

namespace aitk::pep::detail {

class Scanner {
  public:
    explicit Scanner(std::string_view text) noexcept : text_(text) {}

    std::string_view text() const noexcept { return text_; }
    std::size_t position() const noexcept { return pos_; }
    void advance(std::size_t n) noexcept { pos_ += n; }
    bool next_is(char c) const noexcept { return pos_ < text_.size() && text_[pos_] == c; }
    std::string_view rest() const noexcept { return text_.substr(pos_); }

    // Python's `$`: the end, or a single trailing "\n" before it.
    bool at_end() const noexcept;
    // [ \t]+
    std::size_t ws_length() const noexcept;
    void skip_ws() noexcept { pos_ += ws_length(); }

    // '[^']*' or "[^"]*" (escapes are decoded later, by decode_python_string).
    std::size_t quoted_string_length() const noexcept;
    // ===, ==, ~=, !=, <=, >=, <, >
    std::size_t comparison_op_length() const noexcept;
    // \bword\b for "and", "or", "in", "not".
    std::size_t keyword_length(std::string_view word) const noexcept;
    // A marker variable, legacy spellings included ("os.name", "python_implementation").
    std::size_t variable_length(MarkerVariable* variable) const noexcept;
    // \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b
    std::size_t identifier_length() const noexcept;
    // One PEP 440 clause with its operator (">= 1.0", "==1.*", "===anything").
    std::size_t specifier_length() const noexcept;
    // [^ \t]+
    std::size_t url_length() const noexcept;
    // "\.\*" and "\+[a-z0-9]+([-_.][a-z0-9]+)*" right after a clause that may not have them.
    std::size_t wildcard_trail_length() const noexcept;
    std::size_t local_trail_length() const noexcept;
    // A run of letters, digits, '_', '.' (to name an unknown word in an error message).
    std::size_t word_length() const noexcept;

  private:
    bool word_boundary(std::size_t at) const noexcept;
    std::optional<std::size_t> version_after_operator(std::size_t at) const noexcept;

    std::string_view text_;
    std::size_t pos_ = 0;
};

// A cheap test that spares Specifier::parse (and the error it would build) for the common
// `platform_system == "Linux"`: apart from `===`, a specifier's version starts with an optional
// 'v' and a digit, after optional whitespace, unless the value continues the operator. False
// means `op` + value is certainly not a specifier.
bool may_be_specifier_version(MarkerOp op, std::string_view value) noexcept;

}  // namespace aitk::pep::detail
