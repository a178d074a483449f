#include "aitk/pep/requirement.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "marker_parser.hpp"

namespace aitk::pep {
namespace {

using detail::Scanner;

std::string column(std::size_t position) {
    return "column " + std::to_string(position + 1);
}

util::Unexpected<ParseError> error_at(const Scanner& scanner, std::string message) {
    if (scanner.next_is('\r')) message += " (a carriage return is not allowed here)";
    return parse_error(std::move(message), scanner.text(), scanner.position());
}

// extras = "[" ws? (identifier (ws? "," ws? identifier)*)? ws? "]"
std::optional<util::Unexpected<ParseError>> parse_extras(Scanner& scanner,
                                                         std::vector<std::string>& extras) {
    std::size_t open_position = scanner.position();
    scanner.advance(1);
    scanner.skip_ws();
    if (std::size_t length = scanner.identifier_length()) {
        extras.emplace_back(scanner.rest().substr(0, length));
        scanner.advance(length);
        while (true) {
            scanner.skip_ws();
            if (scanner.identifier_length() > 0)
                return error_at(scanner, "expected a comma between extra names");
            if (!scanner.next_is(',')) break;
            scanner.advance(1);
            scanner.skip_ws();
            length = scanner.identifier_length();
            if (length == 0) {
                return error_at(scanner, scanner.next_is(']')
                                             ? "expected an extra name after the comma (remove "
                                               "the trailing comma)"
                                             : "expected an extra name after the comma");
            }
            extras.emplace_back(scanner.rest().substr(0, length));
            scanner.advance(length);
        }
    }
    scanner.skip_ws();
    if (!scanner.next_is(']')) {
        return error_at(scanner, "expected ']' to close the extras list opened at " +
                                     column(open_position) + " (or ',' between extra names)");
    }
    scanner.advance(1);
    return std::nullopt;
}

// specifier = "(" ws? clauses ws? ")" | ws? clauses ws?; clauses may be empty. Returns the
// clauses joined by ',' as written, for SpecifierSet::parse.
Parsed<std::string> parse_specifier_text(Scanner& scanner) {
    std::string text;
    bool parenthesised = scanner.next_is('(');
    std::size_t open_position = scanner.position();
    if (parenthesised) scanner.advance(1);
    scanner.skip_ws();
    while (std::size_t length = scanner.specifier_length()) {
        std::size_t clause_position = scanner.position();
        text += scanner.rest().substr(0, length);
        scanner.advance(length);
        if (scanner.wildcard_trail_length()) {
            return error_at(scanner,
                            "'.*' can only be used with the == and != operators (in the "
                            "version clause at " +
                                column(clause_position) + ")");
        }
        if (scanner.local_trail_length()) {
            return error_at(scanner,
                            "a local version label ('+...') can only be used with the == and "
                            "!= operators (in the version clause at " +
                                column(clause_position) + ")");
        }
        scanner.skip_ws();
        if (!scanner.next_is(',')) break;
        text += ',';
        scanner.advance(1);
        scanner.skip_ws();
    }
    // packaging ignores empty clauses, and a trailing comma is the only way to write one here.
    if (!text.empty() && text.back() == ',') text.pop_back();
    scanner.skip_ws();
    if (parenthesised) {
        if (!scanner.next_is(')')) {
            return error_at(scanner, "expected ')' to close the version specifier opened at " +
                                         column(open_position));
        }
        scanner.advance(1);
    }
    return text;
}

}  // namespace

Parsed<Requirement> Requirement::parse(std::string_view text) {
    Scanner scanner(text);
    Requirement requirement;

    scanner.skip_ws();
    std::size_t name_length = scanner.identifier_length();
    if (name_length == 0) {
        std::string message = "expected a package name at the start of the requirement";
        if (scanner.at_end()) {
            message += " (it is empty)";
        } else if (scanner.specifier_length() > 0) {
            message += " (the name comes before the version, as in 'name>=1.0')";
        }
        return error_at(scanner, std::move(message));
    }
    requirement.name_ = std::string(scanner.rest().substr(0, name_length));
    scanner.advance(name_length);
    scanner.skip_ws();

    if (scanner.next_is('[')) {
        if (auto error = parse_extras(scanner, requirement.extras_)) return std::move(*error);
        std::sort(requirement.extras_.begin(), requirement.extras_.end());
        requirement.extras_.erase(
            std::unique(requirement.extras_.begin(), requirement.extras_.end()),
            requirement.extras_.end());
    }
    scanner.skip_ws();

    // Like packaging, the whole grammar is checked before the version clauses are interpreted,
    // so the first error reported is the leftmost syntax error.
    std::string specifier_text;
    std::size_t specifier_position = scanner.position();
    auto finish = [&]() -> Parsed<Requirement> {
        auto specifier = SpecifierSet::parse(specifier_text);
        if (!specifier) {
            return parse_error("invalid version specifier: " + specifier.error().message, text,
                               specifier_position);
        }
        requirement.specifier_ = std::move(*specifier);
        return std::move(requirement);
    };

    std::string after;
    if (scanner.next_is('@')) {
        scanner.advance(1);
        scanner.skip_ws();
        std::size_t url_length = scanner.url_length();
        if (url_length == 0) return error_at(scanner, "expected a URL after '@'");
        std::string_view url = scanner.rest().substr(0, url_length);
        requirement.url_ = std::string(url);
        scanner.advance(url_length);
        // A marker must be separated from the URL by whitespace, since ';' is a URL character.
        scanner.skip_ws();
        if (scanner.at_end()) return finish();
        after = "after the URL and whitespace";
        if (url.back() == ';')
            after += "; the ';' right after the URL is part of it: put a space before ';'";
    } else {
        auto parsed_text = parse_specifier_text(scanner);
        if (!parsed_text) return util::Unexpected(std::move(parsed_text).error());
        specifier_text = std::move(*parsed_text);
        scanner.skip_ws();
        if (scanner.at_end()) return finish();
        if (specifier_text.empty()) {
            after = "after the name '" + requirement.name_ + "', which has no valid version";
        } else {
            after = "after the version specifier at " + column(specifier_position);
            if (scanner.specifier_length() > 0) after += "; separate version clauses with ','";
        }
    }

    if (!scanner.next_is(';')) {
        return error_at(scanner,
                        "expected the end of the requirement, or ';' and a marker (" + after + ")");
    }
    scanner.advance(1);
    auto marker = detail::MarkerParser::parse_expression(scanner);
    if (!marker) return util::Unexpected(std::move(marker).error());
    requirement.marker_ = std::move(*marker);
    scanner.skip_ws();
    if (!scanner.at_end()) {
        return error_at(scanner, "expected the end of the requirement after its marker: " +
                                     detail::MarkerParser::describe_trailing(scanner));
    }
    return finish();
}

std::string Requirement::canonical_name() const {
    return canonicalize_name(name_);
}

MarkerResult Requirement::applies(const MarkerEnvironment& env) const {
    if (!marker_) return true;
    return marker_->evaluate(env);
}

MarkerResult Requirement::applies(const MarkerEnvironment& env,
                                  std::span<const std::string> extras) const {
    if (!marker_) return true;
    return marker_->evaluate(env, extras);
}

std::string Requirement::to_string() const {
    std::string out = name_;
    if (!extras_.empty()) {
        out += '[';
        for (std::size_t i = 0; i < extras_.size(); ++i) {
            if (i > 0) out += ',';
            out += extras_[i];
        }
        out += ']';
    }
    out += specifier_.to_string();
    if (url_) {
        out += " @ ";
        out += *url_;
        if (marker_) out += ' ';
    }
    if (marker_) {
        out += "; ";
        out += marker_->to_string();
    }
    return out;
}

bool operator==(const Requirement& a, const Requirement& b) {
    return canonicalize_name(a.name_) == canonicalize_name(b.name_) && a.extras_ == b.extras_ &&
           a.specifier_ == b.specifier_ && a.url_ == b.url_ && a.marker_ == b.marker_;
}

}  // namespace aitk::pep
