#pragma once
// PubGrub incompatibilities: sets of terms that must not all hold. External ones record a fact
// (a requirement, a dependency, a missing version); derived ones come from conflict resolution
// and keep their two causes, which is what the explanation walks.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "term.hpp"

namespace aitk::resolve {

using IncompatibilityId = std::uint32_t;

enum class Cause : std::uint8_t {
    root,         // {not root}: the requirements are to be met
    requirement,  // {root, not foo in S}: a root requirement, `origin` says where it was written
    constraint,   // {root, foo outside S}: a constraint, `text` holds its specifier
    dependency,   // {foo==1.0, not bar in S}: Requires-Dist (or an extra's tie to its package)
    no_versions,  // {foo in S}: no candidate in S
    unusable,     // {foo==1.0}: `text` says why, as a clause
    derived,      // resolution of `causes[0]` (the conflict) and `causes[1]` (a satisfier's cause)
};

// What pip's decision order looks at in the requirements on a package (see Solver::decide).
struct RequirementTraits {
    bool direct = false;  // a URL, or an extra's tie to its package
    bool pinned = false;  // an == / === clause
    bool unfree = false;  // any specifier

    RequirementTraits& operator|=(const RequirementTraits& other) noexcept {
        direct = direct || other.direct;
        pinned = pinned || other.pinned;
        unfree = unfree || other.unfree;
        return *this;
    }
};

struct Incompatibility {
    std::vector<Term> terms;
    Cause cause = Cause::derived;
    std::array<IncompatibilityId, 2> causes{};
    std::string origin;
    std::string text;
    RequirementTraits traits;  // on requirement and dependency incompatibilities
};

}  // namespace aitk::resolve
