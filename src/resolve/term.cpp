#include "term.hpp"

namespace aitk::resolve {

namespace {

std::optional<std::string> joined_label(const std::optional<std::string>& a,
                                        const std::optional<std::string>& b) {
    if (!a || !b) return std::nullopt;
    if (a->empty() || *a == *b) return b;
    if (b->empty()) return a;
    return *a + "," + *b;
}

}  // namespace

Term Term::negated() const {
    return Term{package, !positive, set, label};
}

Term Term::intersect(const Term& other) const {
    Term out{package, true, {}, std::nullopt};
    if (positive && other.positive) {
        out.set = set & other.set;
        if (label && out.set == set) {
            out.label = label;
        } else if (other.label && out.set == other.set) {
            out.label = other.label;
        } else {
            // Both specifiers at once is exactly the intersection ("<2" and ">=1" → "<2,>=1").
            out.label = joined_label(label, other.label);
        }
    } else if (positive || other.positive) {
        const Term& pos = positive ? *this : other;
        const Term& neg = positive ? other : *this;
        out.set = pos.set - neg.set;
        if (out.set == pos.set) out.label = pos.label;
    } else {
        out.positive = false;
        out.set = set | other.set;
        if (out.set == set) {
            out.label = label;
        } else if (out.set == other.set) {
            out.label = other.label;
        }
    }
    return out;
}

bool Term::satisfies(const Term& other) const noexcept {
    return relation(other) == Relation::satisfied;
}

Relation Term::relation(const Term& other) const noexcept {
    if (positive) {
        if (other.positive) {
            if (set.subset_of(other.set)) return Relation::satisfied;
            if (set.disjoint(other.set)) return Relation::contradicted;
        } else {
            if (set.disjoint(other.set)) return Relation::satisfied;
            if (set.subset_of(other.set)) return Relation::contradicted;
        }
    } else {
        // "not A" admits the package being absent, which only a negative term allows.
        if (other.positive) {
            if (other.set.subset_of(set)) return Relation::contradicted;
        } else {
            if (other.set.subset_of(set)) return Relation::satisfied;
        }
    }
    return Relation::inconclusive;
}

}  // namespace aitk::resolve
