#pragma once
// The PubGrub loop (pub's doc/solver.md): unit propagation, conflict resolution with learned
// incompatibilities and backjumping, decision making; dependencies become incompatibilities
// lazily, when a version is about to be chosen. Where several solutions exist it picks pip's:
// decisions in pip's order, and an earlier choice re-pinned when a later one needs it to move
// (see decide() in solver.cpp).
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "aitk/resolve/resolver.hpp"
#include "incompatibility.hpp"
#include "package_table.hpp"
#include "partial_solution.hpp"

namespace aitk::resolve {

class Solver {
  public:
    Solver(PackageSource& source, std::span<const RootRequirement> roots,
           const ResolveOptions& options);

    // Throws Unsatisfiable (with the explanation), SourceFailure or util::Error.
    Resolution run();

  private:
    struct Root {
        const pep::Requirement* requirement;
        const std::string* origin;
    };
    struct Evaluation {
        Relation relation;
        std::optional<std::size_t> unsatisfied;  // the term index when almost satisfied
    };

    IncompatibilityId store(Incompatibility incompatibility);
    void index(IncompatibilityId id);
    IncompatibilityId derive(std::vector<Term> terms, IncompatibilityId conflict,
                             IncompatibilityId other);

    Evaluation evaluate(IncompatibilityId id) const;
    void propagate(PackageId start);
    IncompatibilityId resolve_conflict(IncompatibilityId conflict);
    std::optional<PackageId> decide();
    struct Preference {
        RequirementTraits traits;
        std::size_t depth = PackageInfo::unknown_rank;
        std::size_t requested = PackageInfo::unknown_rank;
    };
    // pip's view of an undecided package: from the requirements the current decisions put on it.
    Preference preference(PackageId package) const;
    bool decides_before(PackageId a, const Preference& x, PackageId b, const Preference& y) const;
    std::optional<std::size_t> choose_version(PackageId package, const VersionSet& allowed);
    std::optional<std::size_t> preferred(PackageId package);
    void decide_version(PackageId package, std::size_t index, std::size_t depth);
    bool conflicts_with_solution(PackageId package,
                                 const std::vector<IncompatibilityId>& dependencies) const;
    bool conflicting(PackageId package, const Incompatibility& incompatibility) const;
    struct RePin {
        std::uint32_t level = 0;        // the lowest decision level to undo
        std::set<PackageId> displaced;  // the packages whose decisions are in the way
    };
    std::optional<RePin> repin_plan(const std::vector<IncompatibilityId>& dependencies);
    bool replay_decision(PackageId package, std::size_t index);
    void count_step();
    [[noreturn]] void fail(IncompatibilityId id);

    // The incompatibilities for choosing candidate `index` of `package`, built once.
    const std::vector<IncompatibilityId>& dependencies_of(PackageId package, std::size_t index);
    std::vector<IncompatibilityId> root_dependencies();
    std::vector<IncompatibilityId> version_dependencies(PackageId package, std::size_t chosen);
    // Reads the package's candidates and adds the constraints that name it.
    void touch(PackageId package);
    bool applies(const pep::Requirement& requirement, std::span<const std::string> extras,
                 const std::string& where);
    // The requirements of candidate `index` of the base package, with the given extra ("" for
    // the package's own) active.
    std::vector<const pep::Requirement*> requirements_of(PackageId base, std::size_t index,
                                                         const std::string& extra);
    void warn(std::string message);
    void prepare_roots(std::span<const RootRequirement> roots);
    // `requirements` with the overridden ones replaced by their overrides.
    std::vector<const pep::Requirement*> overridden(
        std::vector<const pep::Requirement*> requirements) const;

    Resolution result();

    const ResolveOptions& options_;
    PackageTable table_;
    std::vector<Root> roots_;
    std::map<std::string, std::vector<Root>> constraints_;  // by normalised name
    // The overrides whose markers hold, by normalised name (an overridden name with none that
    // holds maps to an empty list: its requirements are dropped).
    std::map<std::string, std::vector<Root>> overrides_;
    std::set<std::string> requested_;

    std::vector<Incompatibility> incompatibilities_;
    std::vector<std::vector<IncompatibilityId>> by_package_;
    PartialSolution solution_;
    std::map<std::pair<PackageId, std::size_t>, std::vector<IncompatibilityId>> dependencies_;

    std::vector<std::string> warnings_;
    std::set<std::string> warned_;
    std::map<PackageId, std::size_t> saved_;      // pins kept through a re-pin, for later
    std::map<PackageId, std::size_t> displaced_;  // how often a decision was undone for a re-pin
    std::size_t decisions_ = 0;
    std::size_t conflicts_ = 0;
    std::size_t repins_ = 0;
};

}  // namespace aitk::resolve
