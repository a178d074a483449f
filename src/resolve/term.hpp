#pragma once
// PubGrub terms: "foo in S" (positive) or "not foo in S" (negative: foo is not selected, or is
// selected outside S), over the candidate-index sets of version_set.hpp.
#include <cstdint>
#include <optional>
#include <string>

#include "version_set.hpp"

namespace aitk::resolve {

using PackageId = std::uint32_t;
// The virtual package whose single version stands for the user's requirements.
inline constexpr PackageId root_package = 0;

enum class Relation : std::uint8_t { satisfied, contradicted, inconclusive };

struct Term {
    PackageId package = root_package;
    bool positive = true;
    VersionSet set;
    // The specifier text this set came from (">=2,<3"; "" for "any version"), kept while the set
    // is still exactly that requirement's, so explanations quote what the user or the metadata
    // wrote instead of a computed range.
    std::optional<std::string> label;

    Term negated() const;
    // Both terms refer to the same package.
    Term intersect(const Term& other) const;
    Term difference(const Term& other) const { return intersect(other.negated()); }

    // Never true: a positive term admitting no candidate.
    bool impossible() const noexcept { return positive && set.empty(); }
    // Always true: "not foo in {}".
    bool tautology() const noexcept { return !positive && set.empty(); }

    // How this term (what the partial solution knows about the package) relates to `other`:
    // satisfied when every selection this term allows makes `other` true, contradicted when
    // none does.
    Relation relation(const Term& other) const noexcept;
    bool satisfies(const Term& other) const noexcept;
};

}  // namespace aitk::resolve
