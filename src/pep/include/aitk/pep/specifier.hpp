#pragma once
// PEP 440 version specifiers, following pypa/packaging's Specifier and SpecifierSet, including
// its prerelease policy.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"
#include "aitk/pep/version.hpp"

namespace aitk::pep {

enum class Operator : std::uint8_t {
    compatible,     // ~=
    equal,          // ==
    not_equal,      // !=
    less_equal,     // <=
    greater_equal,  // >=
    less,           // <
    greater,        // >
    arbitrary,      // ===
};

std::string_view operator_string(Operator op) noexcept;

class Specifier {
public:
    // One clause such as ">=2.1", "==1.*", "~=3.10", "===foo". `prereleases` overrides the
    // policy the clause implies (packaging's `prereleases=` argument).
    static Parsed<Specifier> parse(std::string_view text,
                                   std::optional<bool> prereleases = std::nullopt);

    Operator op() const noexcept { return op_; }
    // The version part as written, trimmed (may end in ".*"; any text for "===").
    const std::string& version_text() const noexcept { return version_text_; }
    bool has_wildcard() const noexcept { return wildcard_; }
    // The version as parsed, without ".*"; for "===" only when its text is a valid version.
    const std::optional<Version>& version() const noexcept { return version_; }
    std::optional<bool> explicit_prereleases() const noexcept { return prereleases_; }
    // Whether this clause admits prereleases: the explicit value, else whether the clause itself
    // names a prerelease with an inclusive operator.
    bool prereleases() const noexcept;

    // `prereleases` here is packaging's argument to contains(): nullopt means "use prereleases()".
    bool contains(const Version& version, std::optional<bool> prereleases = std::nullopt) const;
    // A candidate given as text: "===" compares the raw text, other operators parse it first
    // (an invalid version is never contained).
    bool contains(std::string_view version, std::optional<bool> prereleases = std::nullopt) const;

    // packaging's Specifier.filter: keeps order, falls back to prereleases when no final
    // release matches.
    std::vector<std::string> filter(const std::vector<std::string>& versions,
                                    std::optional<bool> prereleases = std::nullopt) const;

    std::string to_string() const;  // operator + version text, no spaces: ">=2.1"

    // packaging compares specifiers by operator and canonical version.
    friend bool operator==(const Specifier& a, const Specifier& b);

private:
    Operator op_ = Operator::greater_equal;
    std::string version_text_;
    bool wildcard_ = false;
    std::optional<bool> prereleases_;
    // Parsed form of version_text_ (without ".*"); for "===" set only when the text is a valid
    // version (it then decides the prerelease policy).
    std::optional<Version> version_;
};

class SpecifierSet {
public:
    // Comma-separated clauses; the empty string is the empty set (matches everything final).
    static Parsed<SpecifierSet> parse(std::string_view text,
                                      std::optional<bool> prereleases = std::nullopt);

    SpecifierSet() = default;

    // Distinct clauses (the first spelling of equal ones), sorted by their string.
    const std::vector<Specifier>& specifiers() const noexcept { return specifiers_; }
    bool empty() const noexcept { return specifiers_.empty(); }
    std::size_t size() const noexcept { return specifiers_.size(); }

    // Explicit value, else nullopt for an empty set, else whether any clause admits prereleases.
    std::optional<bool> prereleases() const noexcept;

    // packaging's SpecifierSet.contains(version, prereleases, installed).
    bool contains(const Version& version, std::optional<bool> prereleases = std::nullopt,
                  bool installed = false) const;
    bool contains(std::string_view version, std::optional<bool> prereleases = std::nullopt,
                  bool installed = false) const;

    std::vector<std::string> filter(const std::vector<std::string>& versions,
                                    std::optional<bool> prereleases = std::nullopt) const;

    // Clauses sorted by their string and joined with ",": ">=1.0,<2" -> "<2,>=1.0".
    std::string to_string() const;

    // Intersection: the clauses of both (the resolver narrows ranges with it). An explicit
    // prerelease policy carries over; throws std::invalid_argument when the two sets have
    // opposite explicit policies (packaging raises ValueError).
    SpecifierSet& operator&=(const SpecifierSet& other);

    friend bool operator==(const SpecifierSet& a, const SpecifierSet& b);

private:
    std::vector<Specifier> specifiers_;
    std::optional<bool> prereleases_;
};

}  // namespace aitk::pep
