#include "partial_solution.hpp"

#include <algorithm>
#include <stdexcept>

namespace aitk::resolve {

PartialSolution::PackageState& PartialSolution::state(PackageId package) {
    if (package >= states_.size()) states_.resize(package + 1);
    return states_[package];
}

void PartialSolution::add(Assignment assignment) {
    auto& s = state(assignment.term.package);
    s.positions.push_back(static_cast<std::uint32_t>(assignments_.size()));
    s.accumulated = s.accumulated ? s.accumulated->intersect(assignment.term) : assignment.term;
    assignments_.push_back(std::move(assignment));
}

void PartialSolution::decide(PackageId package, std::size_t index, std::size_t universe) {
    ++level_;
    state(package).decision = index;
    add(Assignment{Term{package, true, VersionSet::single(universe, index), std::nullopt}, level_,
                   std::nullopt});
}

void PartialSolution::derive(Term term, IncompatibilityId cause) {
    add(Assignment{std::move(term), level_, cause});
}

void PartialSolution::backtrack(std::uint32_t level) {
    std::vector<PackageId> touched;
    while (!assignments_.empty() && assignments_.back().level > level) {
        const PackageId package = assignments_.back().term.package;
        auto& s = states_[package];
        if (assignments_.back().is_decision()) s.decision.reset();
        s.positions.pop_back();
        touched.push_back(package);
        assignments_.pop_back();
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (PackageId package : touched) {
        auto& s = states_[package];
        s.accumulated.reset();
        for (auto position : s.positions) {
            const Term& t = assignments_[position].term;
            s.accumulated = s.accumulated ? s.accumulated->intersect(t) : t;
        }
    }
    level_ = level;
}

std::vector<std::pair<PackageId, std::size_t>> PartialSolution::decisions_above(
    std::uint32_t level) const {
    std::vector<std::pair<PackageId, std::size_t>> out;
    for (const Assignment& a : assignments_) {
        if (a.level > level && a.is_decision()) {
            out.emplace_back(a.term.package, *states_[a.term.package].decision);
        }
    }
    return out;
}

std::optional<std::uint32_t> PartialSolution::decision_level(PackageId package) const {
    if (package >= states_.size() || !states_[package].decision) return std::nullopt;
    for (auto position : states_[package].positions) {
        if (assignments_[position].is_decision()) return assignments_[position].level;
    }
    return std::nullopt;
}

Relation PartialSolution::relation(const Term& term) const noexcept {
    if (const Term* known = accumulated(term.package)) return known->relation(term);
    // Nothing is known: only a term that always (or never) holds is decided.
    if (term.tautology()) return Relation::satisfied;
    if (term.impossible()) return Relation::contradicted;
    return Relation::inconclusive;
}

std::optional<std::size_t> PartialSolution::satisfier(const Term& term) const {
    if (term.tautology()) return std::nullopt;
    if (term.package < states_.size()) {
        std::optional<Term> running;
        for (auto position : states_[term.package].positions) {
            const Term& t = assignments_[position].term;
            running = running ? running->intersect(t) : t;
            if (running->satisfies(term)) return position;
        }
    }
    throw std::logic_error("resolver: a satisfied term has no satisfier");
}

}  // namespace aitk::resolve
