#pragma once
// PEP 508 dependency specifiers ("name[extras] (>=1.0) ; marker", "name @ url ; marker"),
// following pypa/packaging's Requirement: the same grammar, whitespace rules and str().
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/parsed.hpp"
#include "aitk/pep/specifier.hpp"

namespace aitk::pep {

class Requirement {
  public:
    static Parsed<Requirement> parse(std::string_view text);

    // The name as written ("Flask_SQLAlchemy"); canonical_name() is its PEP 503 form.
    const std::string& name() const noexcept { return name_; }
    std::string canonical_name() const;
    // As written, without duplicates, sorted (packaging keeps a set and sorts it for str()).
    const std::vector<std::string>& extras() const noexcept { return extras_; }
    const SpecifierSet& specifier() const noexcept { return specifier_; }
    const std::optional<std::string>& url() const noexcept { return url_; }
    const std::optional<Marker>& marker() const noexcept { return marker_; }

    // Whether the requirement applies: true without a marker, else the marker's value (see
    // Marker::evaluate for the meaning of `extras`).
    MarkerResult applies(const MarkerEnvironment& env) const;
    MarkerResult applies(const MarkerEnvironment& env, std::span<const std::string> extras) const;

    // packaging's str(): "name[a,b]<2,>=1; marker"; a URL is written "name @ url" and, when a
    // marker follows, "name @ url ; marker" (the space keeps ';' out of the URL).
    std::string to_string() const;

    // packaging's equality: canonical names, extras, specifiers, URL and marker all equal.
    friend bool operator==(const Requirement& a, const Requirement& b);

  private:
    Requirement() = default;

    std::string name_;
    std::vector<std::string> extras_;
    SpecifierSet specifier_;
    std::optional<std::string> url_;
    std::optional<Marker> marker_;
};

}  // namespace aitk::pep
