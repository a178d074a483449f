#pragma once
// PubGrub's partial solution: the ordered list of decisions (one version of a package) and
// derivations (terms implied by an incompatibility), each at a decision level, with the running
// intersection of every package's assignments kept up to date.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "incompatibility.hpp"
#include "term.hpp"

namespace aitk::resolve {

struct Assignment {
    Term term;
    std::uint32_t level = 0;
    std::optional<IncompatibilityId> cause;  // none: a decision

    bool is_decision() const noexcept { return !cause; }
};

class PartialSolution {
  public:
    // The root's decision opens level 1; conflict resolution never backtracks below it.
    static constexpr std::uint32_t root_level = 1;

    void decide(PackageId package, std::size_t index, std::size_t universe);
    void derive(Term term, IncompatibilityId cause);
    // Drops every assignment above `level`.
    void backtrack(std::uint32_t level);

    std::uint32_t level() const noexcept { return level_; }
    // The intersection of the package's assignments; null when it has none.
    const Term* accumulated(PackageId package) const noexcept {
        return package < states_.size() && states_[package].accumulated
                   ? &*states_[package].accumulated
                   : nullptr;
    }
    std::optional<std::size_t> decision(PackageId package) const noexcept {
        return package < states_.size() ? states_[package].decision : std::nullopt;
    }
    // The decisions above `level` as (package, candidate), oldest first.
    std::vector<std::pair<PackageId, std::size_t>> decisions_above(std::uint32_t level) const;
    // The level of the package's decision, if it has one.
    std::optional<std::uint32_t> decision_level(PackageId package) const;
    // The package's assignments, as positions for at(), oldest first.
    std::span<const std::uint32_t> positions(PackageId package) const noexcept {
        if (package >= states_.size()) return {};
        return states_[package].positions;
    }
    // How the partial solution relates to `term`.
    Relation relation(const Term& term) const noexcept;

    // The position of the earliest assignment after which the partial solution satisfies
    // `term`; nullopt when it is satisfied by no assignment at all (a term that always holds).
    std::optional<std::size_t> satisfier(const Term& term) const;
    const Assignment& at(std::size_t position) const { return assignments_[position]; }

    std::size_t package_slots() const noexcept { return states_.size(); }

  private:
    struct PackageState {
        std::optional<Term> accumulated;
        std::optional<std::size_t> decision;
        std::vector<std::uint32_t> positions;  // into assignments_, in order
    };

    void add(Assignment assignment);
    PackageState& state(PackageId package);

    std::vector<Assignment> assignments_;
    std::vector<PackageState> states_;
    std::uint32_t level_ = 0;
};

}  // namespace aitk::resolve
