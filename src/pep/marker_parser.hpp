#pragma once
// Private to the pep layer: the recursive-descent marker parser, shared by Marker::parse and
// Requirement::parse (which parses a marker in the middle of its own input).
#include <optional>

#include "aitk/pep/marker.hpp"
#include "marker_scanner.hpp"

namespace aitk::pep::detail {

class MarkerParser {
  public:
    // packaging's `marker` rule: atoms joined by `and` / `or`, starting at the scanner's cursor
    // and stopping before the first token that cannot continue the expression (the caller checks
    // what follows). Trailing spaces and tabs are consumed.
    static Parsed<Marker> parse_expression(Scanner& scanner);

    // Why the text at the cursor cannot follow a complete marker, for the caller's error message.
    static std::string describe_trailing(const Scanner& scanner);

  private:
    explicit MarkerParser(Scanner& scanner) : scanner_(scanner) {}

    std::optional<ParseError> parse_marker(std::size_t depth);
    std::optional<ParseError> parse_atom(std::size_t depth);
    std::optional<ParseError> parse_comparison();
    std::optional<ParseError> parse_operand(MarkerOperand& operand);
    std::optional<ParseError> parse_op(MarkerOp& op);
    ParseError error_here(std::string message) const;

    Scanner& scanner_;
    Marker marker_;
};

}  // namespace aitk::pep::detail
