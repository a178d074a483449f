#include "aitk/pep/marker.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"
#include "marker_parser.hpp"
#include "marker_string.hpp"

namespace aitk::pep {
namespace detail {
namespace {

constexpr std::string_view kExpectedOperand =
    "expected a marker variable (python_version, python_full_version, os_name, sys_platform, "
    "platform_release, platform_system, platform_version, platform_machine, "
    "platform_python_implementation, implementation_name, implementation_version, extra; in a "
    "lock file also extras, dependency_groups) or a quoted string";

bool is_specifier_op(MarkerOp op) noexcept {
    return op != MarkerOp::in && op != MarkerOp::not_in;
}

MarkerOp op_from_text(std::string_view text) noexcept {
    if (text == "===") return MarkerOp::arbitrary;
    if (text == "==") return MarkerOp::equal;
    if (text == "~=") return MarkerOp::compatible;
    if (text == "!=") return MarkerOp::not_equal;
    if (text == "<=") return MarkerOp::less_equal;
    if (text == ">=") return MarkerOp::greater_equal;
    if (text == "<") return MarkerOp::less;
    return MarkerOp::greater;
}

}  // namespace

ParseError MarkerParser::error_here(std::string message) const {
    return ParseError{std::move(message), std::string(scanner_.text()), scanner_.position()};
}

Parsed<Marker> MarkerParser::parse_expression(Scanner& scanner) {
    MarkerParser parser(scanner);
    if (auto error = parser.parse_marker(0)) return util::Unexpected(std::move(*error));
    return std::move(parser.marker_);
}

std::string MarkerParser::describe_trailing(const Scanner& scanner) {
    std::string_view rest = scanner.rest();
    if (rest.substr(0, 2) == "&&" || rest.substr(0, 2) == "||")
        return "'" + std::string(rest.substr(0, 2)) +
               "' is not a marker operator; use 'and' / 'or'";
    if (rest.substr(0, 1) == ")") return "unmatched ')'";
    return "expected 'and', 'or' or the end of the marker";
}

std::optional<ParseError> MarkerParser::parse_marker(std::size_t depth) {
    if (auto error = parse_atom(depth)) return error;
    while (true) {
        Marker::EntryKind kind;
        std::size_t length = 0;
        if ((length = scanner_.keyword_length("or")) > 0) {
            kind = Marker::EntryKind::op_or;
        } else if ((length = scanner_.keyword_length("and")) > 0) {
            kind = Marker::EntryKind::op_and;
        } else {
            return std::nullopt;
        }
        marker_.entries_.push_back({kind, 0});
        scanner_.advance(length);
        if (auto error = parse_atom(depth)) return error;
    }
}

std::optional<ParseError> MarkerParser::parse_atom(std::size_t depth) {
    scanner_.skip_ws();
    if (scanner_.next_is('(')) {
        if (depth >= Marker::max_nesting) {
            return error_here("parentheses nested more than " +
                              std::to_string(Marker::max_nesting) + " deep");
        }
        std::size_t open_position = scanner_.position();
        std::size_t open_entry = marker_.entries_.size();
        marker_.entries_.push_back({Marker::EntryKind::open, 0});
        scanner_.advance(1);
        scanner_.skip_ws();
        if (auto error = parse_marker(depth + 1)) return error;
        scanner_.skip_ws();
        if (!scanner_.next_is(')')) {
            return error_here("expected ')' to close the '(' at column " +
                              std::to_string(open_position + 1) +
                              (scanner_.at_end() ? ", found the end of the marker" : ""));
        }
        scanner_.advance(1);
        marker_.entries_[open_entry].index = static_cast<std::uint32_t>(marker_.entries_.size());
        marker_.entries_.push_back({Marker::EntryKind::close, 0});
    } else if (auto error = parse_comparison()) {
        return error;
    }
    scanner_.skip_ws();
    return std::nullopt;
}

std::optional<ParseError> MarkerParser::parse_comparison() {
    MarkerComparison comparison;
    if (auto error = parse_operand(comparison.lhs)) return error;
    scanner_.skip_ws();
    if (auto error = parse_op(comparison.op)) return error;
    scanner_.skip_ws();
    if (auto error = parse_operand(comparison.rhs)) return error;
    scanner_.skip_ws();

    // PEP 685: extra names compare normalised, and packaging stores them normalised.
    if (comparison.lhs.variable == MarkerVariable::extra && !comparison.rhs.is_variable())
        comparison.rhs.value = canonicalize_name(comparison.rhs.value);
    if (comparison.rhs.variable == MarkerVariable::extra && !comparison.lhs.is_variable())
        comparison.lhs.value = canonicalize_name(comparison.lhs.value);

    if (!comparison.rhs.is_variable() && is_specifier_op(comparison.op) &&
        may_be_specifier_version(comparison.op, comparison.rhs.value)) {
        std::string text(marker_op_string(comparison.op));
        text += comparison.rhs.value;
        if (auto specifier = Specifier::parse(text))
            comparison.rhs_specifier = std::move(*specifier);
    }
    marker_.entries_.push_back(
        {Marker::EntryKind::comparison, static_cast<std::uint32_t>(marker_.comparisons_.size())});
    marker_.comparisons_.push_back(std::move(comparison));
    return std::nullopt;
}

std::optional<ParseError> MarkerParser::parse_operand(MarkerOperand& operand) {
    MarkerVariable variable;
    if (std::size_t length = scanner_.variable_length(&variable)) {
        operand.variable = variable;
        scanner_.advance(length);
        return std::nullopt;
    }
    if (std::size_t length = scanner_.quoted_string_length()) {
        auto value = decode_python_string(scanner_.rest().substr(0, length), scanner_.text(),
                                          scanner_.position());
        if (!value) return std::move(value).error();
        operand.value = std::move(*value);
        scanner_.advance(length);
        return std::nullopt;
    }
    if (scanner_.at_end()) return error_here(std::string(kExpectedOperand) + ", found the end");
    if (scanner_.next_is('"') || scanner_.next_is('\'')) {
        return error_here("unterminated string: no closing " + std::string(1, scanner_.rest()[0]));
    }
    if (std::size_t length = scanner_.word_length()) {
        std::string word(scanner_.rest().substr(0, length));
        if (word == "not") {
            return error_here(
                "'not' cannot start a comparison: PEP 508 has no 'not' operator (use != or "
                "'not in')");
        }
        if (word == "and" || word == "or")
            return error_here(std::string(kExpectedOperand) + ", found '" + word + "'");
        if (util::is_ascii_digit(word[0])) {
            return error_here(std::string(kExpectedOperand) + "; values must be quoted (\"" + word +
                              "\")");
        }
        return error_here("unknown marker variable '" + word + "'; " +
                          std::string(kExpectedOperand));
    }
    return error_here(std::string(kExpectedOperand));
}

std::optional<ParseError> MarkerParser::parse_op(MarkerOp& op) {
    if (std::size_t length = scanner_.keyword_length("in")) {
        op = MarkerOp::in;
        scanner_.advance(length);
        return std::nullopt;
    }
    if (std::size_t length = scanner_.keyword_length("not")) {
        scanner_.advance(length);
        if (scanner_.ws_length() == 0) return error_here("expected whitespace after 'not'");
        scanner_.skip_ws();
        std::size_t in_length = scanner_.keyword_length("in");
        if (in_length == 0) return error_here("expected 'in' after 'not'");
        scanner_.advance(in_length);
        op = MarkerOp::not_in;
        return std::nullopt;
    }
    if (std::size_t length = scanner_.comparison_op_length()) {
        op = op_from_text(scanner_.rest().substr(0, length));
        scanner_.advance(length);
        return std::nullopt;
    }
    std::string message =
        "expected a marker operator: one of <=, <, !=, ==, >=, >, ~=, ===, in, not in";
    if (scanner_.next_is('=')) message += " ('=' alone is not one; did you mean '=='?)";
    return error_here(std::move(message));
}

}  // namespace detail

namespace {

void append_operand(std::string& out, const MarkerOperand& operand) {
    if (operand.variable) {
        out += marker_variable_name(*operand.variable);
    } else {
        detail::append_python_string(out, operand.value);
    }
}

void append_comparison(std::string& out, const MarkerComparison& c) {
    append_operand(out, c.lhs);
    out += ' ';
    out += marker_op_string(c.op);
    out += ' ';
    append_operand(out, c.rhs);
}

}  // namespace

std::string_view marker_op_string(MarkerOp op) noexcept {
    switch (op) {
        case MarkerOp::less_equal:
            return "<=";
        case MarkerOp::less:
            return "<";
        case MarkerOp::not_equal:
            return "!=";
        case MarkerOp::equal:
            return "==";
        case MarkerOp::greater_equal:
            return ">=";
        case MarkerOp::greater:
            return ">";
        case MarkerOp::compatible:
            return "~=";
        case MarkerOp::arbitrary:
            return "===";
        case MarkerOp::in:
            return "in";
        case MarkerOp::not_in:
            return "not in";
    }
    return "==";
}

std::string MarkerComparison::to_string() const {
    std::string out;
    append_comparison(out, *this);
    return out;
}

Parsed<Marker> Marker::parse(std::string_view text) {
    detail::Scanner scanner(text);
    auto marker = detail::MarkerParser::parse_expression(scanner);
    if (!marker) return marker;
    if (!scanner.at_end()) {
        return parse_error(detail::MarkerParser::describe_trailing(scanner), text,
                           scanner.position());
    }
    return marker;
}

bool Marker::mentions(MarkerVariable variable) const noexcept {
    return std::any_of(comparisons_.begin(), comparisons_.end(), [&](const auto& c) {
        return c.lhs.variable == variable || c.rhs.variable == variable;
    });
}

std::vector<std::string> Marker::referenced_extras() const {
    std::vector<std::string> names;
    for (const auto& c : comparisons_) {
        if (c.lhs.variable == MarkerVariable::extra && !c.rhs.is_variable())
            names.push_back(c.rhs.value);
        if (c.rhs.variable == MarkerVariable::extra && !c.lhs.is_variable())
            names.push_back(c.lhs.value);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

std::size_t Marker::atom_end(std::size_t at) const noexcept {
    return entries_[at].kind == EntryKind::open ? entries_[at].index + 1 : at + 1;
}

// packaging drops the parentheses around a group that holds a single item, and around the whole
// marker; every other group keeps the parentheses the user wrote. (packaging 24 also drops them
// from a doubly parenthesised inner group, changing its meaning; that is not reproduced.)
void Marker::render_sequence(std::size_t begin, std::size_t end, bool top, std::string& out) const {
    if (atom_end(begin) == end) {
        render_atom(begin, top, out);
        return;
    }
    if (!top) out += '(';
    for (std::size_t at = begin; at < end;) {
        render_atom(at, false, out);
        at = atom_end(at);
        if (at < end) {
            out += entries_[at].kind == EntryKind::op_and ? " and " : " or ";
            ++at;
        }
    }
    if (!top) out += ')';
}

void Marker::render_atom(std::size_t at, bool top, std::string& out) const {
    const Entry& entry = entries_[at];
    if (entry.kind == EntryKind::comparison) {
        append_comparison(out, comparisons_[entry.index]);
    } else {
        render_sequence(at + 1, entry.index, top, out);
    }
}

std::string Marker::to_string() const {
    std::string out;
    if (!entries_.empty()) render_sequence(0, entries_.size(), true, out);
    return out;
}

}  // namespace aitk::pep
