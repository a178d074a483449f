#include "solver.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/util/redact.hpp"
#include "describe.hpp"
#include "explanation.hpp"

namespace aitk::resolve {

namespace {

std::vector<std::string> normalised_extras(const pep::Requirement& requirement) {
    std::vector<std::string> out;
    for (const auto& e : requirement.extras())
        out.push_back(pep::canonicalize_name(e));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string url_label(const std::string& url) {
    return " @ " + util::redact_url(url);
}

// Old metadata may name an extra in markers without a Provides-Extra line.
bool provides_extra(const DependencyInfo& metadata, const std::string& extra) {
    const auto& listed = metadata.provides_extra;
    if (std::find(listed.begin(), listed.end(), extra) != listed.end()) return true;
    return std::any_of(metadata.requires_dist.begin(), metadata.requires_dist.end(),
                       [&](const pep::Requirement& r) {
                           if (!r.marker() || !r.marker()->mentions_extra()) return false;
                           const auto named = r.marker()->referenced_extras();
                           return std::find(named.begin(), named.end(), extra) != named.end();
                       });
}

RequirementTraits traits_of(const pep::Requirement& requirement) {
    RequirementTraits traits;
    traits.direct = requirement.url().has_value();
    for (const auto& clause : requirement.specifier().specifiers()) {
        if (clause.op() == pep::Operator::equal || clause.op() == pep::Operator::arbitrary) {
            traits.pinned = true;
        }
    }
    traits.unfree = !requirement.specifier().empty();
    return traits;
}

Term root_term() {
    return Term{root_package, true, VersionSet::all(1), std::nullopt};
}

}  // namespace

Solver::Solver(PackageSource& source, std::span<const RootRequirement> roots,
               const ResolveOptions& options)
    : options_(options), table_(source, options) {
    prepare_roots(roots);
}

void Solver::prepare_roots(std::span<const RootRequirement> roots) {
    auto root_applies = [&](const RootRequirement& root) {
        auto result = root.requirement.applies(options_.environment, {});
        if (!result) {
            throw util::InputError(with_origin("cannot evaluate the marker of '" +
                                                   root.requirement.to_string() +
                                                   "': " + result.error().describe(),
                                               root.origin));
        }
        return *result;
    };
    for (const auto& override_ : options_.overrides) {
        auto& list = overrides_[override_.requirement.canonical_name()];
        if (root_applies(override_)) list.push_back({&override_.requirement, &override_.origin});
    }
    std::set<std::string> overridden_roots;
    auto add_root = [&](const Root& root) {
        roots_.push_back(root);
        const std::string name = root.requirement->canonical_name();
        requested_.insert(name);
        table_.note_root_specifier(name, root.requirement->specifier());
    };
    for (const auto& root : roots) {
        if (!root_applies(root)) continue;
        auto it = overrides_.find(root.requirement.canonical_name());
        if (it == overrides_.end()) {
            add_root({&root.requirement, &root.origin});
        } else if (overridden_roots.insert(it->first).second) {
            for (const auto& override_ : it->second)
                add_root(override_);
        }
    }
    for (const auto& constraint : options_.constraints) {
        if (!root_applies(constraint)) continue;
        const std::string name = constraint.requirement.canonical_name();
        constraints_[name].push_back({&constraint.requirement, &constraint.origin});
        table_.note_root_specifier(name, constraint.requirement.specifier());
    }
    // A package comes from one place: two different URLs for it cannot both be met.
    auto take_url = [&](const Root& root) {
        if (!root.requirement->url()) return;
        const std::string name = root.requirement->canonical_name();
        const PackageId id = table_.intern(name);
        std::string conflict;
        if (!table_.set_url(id, *root.requirement->url(), *root.origin, conflict)) {
            const auto& base = table_.base_info(id);
            throw Unsatisfiable(
                "Because " +
                with_origin(name + url_label(*base.url) + " is required", base.url_origin) +
                " and " +
                with_origin(name + url_label(*root.requirement->url()) + " is required",
                            *root.origin) +
                ", the requirements cannot be satisfied (a package comes from one URL only).");
        }
    };
    for (const auto& root : roots_)
        take_url(root);
    for (const auto& [name, list] : constraints_) {
        for (const auto& constraint : list)
            take_url(constraint);
    }
    for (const auto& [name, list] : overrides_) {
        for (const auto& override_ : list)
            take_url(override_);
    }
}

Resolution Solver::run() {
    Incompatibility root;
    root.terms.push_back(root_term().negated());
    root.cause = Cause::root;
    index(store(std::move(root)));
    PackageId next = root_package;
    while (true) {
        propagate(next);
        auto chosen = decide();
        if (!chosen) return result();
        next = *chosen;
    }
}

IncompatibilityId Solver::store(Incompatibility incompatibility) {
    incompatibilities_.push_back(std::move(incompatibility));
    return static_cast<IncompatibilityId>(incompatibilities_.size() - 1);
}

void Solver::index(IncompatibilityId id) {
    for (const auto& term : incompatibilities_[id].terms) {
        if (term.package >= by_package_.size()) by_package_.resize(term.package + 1);
        by_package_[term.package].push_back(id);
    }
}

IncompatibilityId Solver::derive(std::vector<Term> terms, IncompatibilityId conflict,
                                 IncompatibilityId other) {
    // One term per package (their intersection); terms that always hold say nothing; and the
    // root, which is always selected, is left out of anything longer than "the root fails".
    std::vector<Term> merged;
    for (auto& term : terms) {
        auto same = std::find_if(merged.begin(), merged.end(),
                                 [&](const Term& t) { return t.package == term.package; });
        if (same == merged.end()) {
            merged.push_back(std::move(term));
        } else {
            *same = same->intersect(term);
        }
    }
    std::erase_if(merged, [](const Term& t) { return t.tautology(); });
    if (merged.size() > 1) {
        std::erase_if(merged,
                      [](const Term& t) { return t.positive && t.package == root_package; });
    }
    Incompatibility out;
    out.terms = std::move(merged);
    out.cause = Cause::derived;
    out.causes = {conflict, other};
    return store(std::move(out));
}

Solver::Evaluation Solver::evaluate(IncompatibilityId id) const {
    const auto& terms = incompatibilities_[id].terms;
    std::optional<std::size_t> unsatisfied;
    for (std::size_t k = 0; k < terms.size(); ++k) {
        switch (solution_.relation(terms[k])) {
            case Relation::contradicted:
                return {Relation::contradicted, std::nullopt};
            case Relation::inconclusive:
                if (unsatisfied) return {Relation::inconclusive, std::nullopt};
                unsatisfied = k;
                break;
            case Relation::satisfied:
                break;
        }
    }
    if (unsatisfied) return {Relation::inconclusive, unsatisfied};
    return {Relation::satisfied, std::nullopt};
}

void Solver::propagate(PackageId start) {
    std::deque<PackageId> changed{start};
    std::vector<bool> queued(table_.size(), false);
    auto enqueue = [&](PackageId p) {
        if (p >= queued.size()) queued.resize(p + 1, false);
        if (!queued[p]) {
            queued[p] = true;
            changed.push_back(p);
        }
    };
    queued[start] = true;
    while (!changed.empty()) {
        const PackageId package = changed.front();
        changed.pop_front();
        queued[package] = false;
        if (package >= by_package_.size()) continue;
        // Newest first: conflict resolution's learned incompatibilities are the most general.
        for (std::size_t k = by_package_[package].size(); k-- > 0;) {
            const IncompatibilityId id = by_package_[package][k];
            const Evaluation e = evaluate(id);
            if (e.relation == Relation::satisfied) {
                ++conflicts_;
                count_step();
                const IncompatibilityId cause = resolve_conflict(id);
                const Evaluation after = evaluate(cause);
                if (!after.unsatisfied) fail(cause);  // cannot happen: it is almost satisfied
                const Term& term = incompatibilities_[cause].terms[*after.unsatisfied];
                solution_.derive(term.negated(), cause);
                changed.clear();
                std::fill(queued.begin(), queued.end(), false);
                enqueue(term.package);
                break;
            }
            if (e.unsatisfied) {
                const Term& term = incompatibilities_[id].terms[*e.unsatisfied];
                solution_.derive(term.negated(), id);
                enqueue(term.package);
            }
        }
    }
}

IncompatibilityId Solver::resolve_conflict(IncompatibilityId conflict) {
    IncompatibilityId id = conflict;
    bool learned = false;
    while (true) {
        const std::vector<Term> terms = incompatibilities_[id].terms;
        if (terms.empty() ||
            (terms.size() == 1 && terms[0].positive && terms[0].package == root_package)) {
            fail(id);
        }
        // The satisfier: the assignment after which the partial solution first satisfies the
        // whole incompatibility; the previous level: where the rest was already satisfied.
        std::optional<std::size_t> latest;
        std::size_t latest_term = 0;
        std::uint32_t previous_level = PartialSolution::root_level;
        for (std::size_t k = 0; k < terms.size(); ++k) {
            auto position = solution_.satisfier(terms[k]);
            if (!position) continue;
            if (!latest || *position > *latest) {
                if (latest) previous_level = std::max(previous_level, solution_.at(*latest).level);
                latest = position;
                latest_term = k;
            } else {
                previous_level = std::max(previous_level, solution_.at(*position).level);
            }
        }
        if (!latest) fail(id);
        const Assignment satisfier = solution_.at(*latest);
        const Term& term = terms[latest_term];
        // A satisfier that only narrows the term down together with earlier assignments of
        // the same package: those earlier ones count as previous satisfiers too.
        const Term difference = satisfier.term.difference(term);
        if (!difference.impossible()) {
            if (auto earlier = solution_.satisfier(difference.negated())) {
                previous_level = std::max(previous_level, solution_.at(*earlier).level);
            }
        }
        if (satisfier.is_decision() || previous_level != satisfier.level) {
            if (learned) index(id);
            solution_.backtrack(previous_level);
            saved_.clear();  // pip's backjump forgets the pins it pops
            return id;
        }
        std::vector<Term> prior;
        for (std::size_t k = 0; k < terms.size(); ++k) {
            if (k != latest_term) prior.push_back(terms[k]);
        }
        for (const auto& t : incompatibilities_[*satisfier.cause].terms) {
            if (t.package != satisfier.term.package) prior.push_back(t);
        }
        if (!difference.impossible()) prior.push_back(difference.negated());
        id = derive(std::move(prior), id, *satisfier.cause);
        learned = true;
        count_step();
    }
}

void Solver::count_step() {
    if (decisions_ + conflicts_ + repins_ > options_.max_steps) {
        throw util::Error(
            util::ExitCode::failure,
            "resolution gave up after " + std::to_string(options_.max_steps) + " steps",
            "pin some versions to narrow the search");
    }
}

// The order of decisions is pip's (resolvelib's get_preference in pip 23.2), computed from the
// requirements that the current decisions put on each package: direct references (and an
// extra's tie to its package) first, then packages pinned with ==, then the shallowest (1 under
// a root requirement, else one below its shallowest current depender), root requirements in
// the order written, packages with a specifier before bare names, then by name. Any order is
// complete for PubGrub; this one makes pip's trade-offs where requirements pull against each
// other: what is decided first gets its newest version, later decisions give way. (Pub's own
// "fewest candidates first" finds conflicts sooner but downgrades other packages than pip.)
Solver::Preference Solver::preference(PackageId package) const {
    Preference p;
    p.requested = table_.info(package).requested;
    std::size_t parent_depth = PackageInfo::unknown_rank;
    if (package >= by_package_.size()) return p;
    for (IncompatibilityId id : by_package_[package]) {
        const Incompatibility& incompatibility = incompatibilities_[id];
        std::size_t depth = 0;
        if (incompatibility.cause == Cause::dependency) {
            const Term& depender = incompatibility.terms[0];
            if (incompatibility.terms[1].package != package) continue;
            auto decided = solution_.decision(depender.package);
            if (!decided || !depender.set.contains(*decided)) continue;
            depth = table_.info(depender.package).depth;
        } else if (incompatibility.cause != Cause::requirement) {
            continue;
        }
        p.traits |= incompatibility.traits;
        parent_depth = std::min(parent_depth, depth);
    }
    if (p.requested != PackageInfo::unknown_rank) {
        p.depth = 1;
    } else if (parent_depth != PackageInfo::unknown_rank) {
        p.depth = parent_depth + 1;
    }
    return p;
}

bool Solver::decides_before(PackageId a, const Preference& x, PackageId b,
                            const Preference& y) const {
    return std::make_tuple(!x.traits.direct, !x.traits.pinned, x.depth, x.requested,
                           !x.traits.unfree, std::cref(table_.info(a).name)) <
           std::make_tuple(!y.traits.direct, !y.traits.pinned, y.depth, y.requested,
                           !y.traits.unfree, std::cref(table_.info(b).name));
}

std::optional<PackageId> Solver::decide() {
    std::optional<PackageId> best;
    Preference best_preference;
    for (PackageId id = 0; id < table_.size(); ++id) {
        const Term* known = solution_.accumulated(id);
        if (!known || !known->positive || solution_.decision(id)) continue;
        Preference p = id == root_package ? Preference{} : preference(id);
        if (!best || decides_before(id, p, *best, best_preference)) {
            best = id;
            best_preference = p;
        }
    }
    if (!best) return std::nullopt;
    const PackageId package = *best;
    const Term allowed = *solution_.accumulated(package);
    auto index_choice = choose_version(package, allowed.set);
    if (!index_choice) {
        Incompatibility none;
        none.terms.push_back(allowed);
        none.cause = Cause::no_versions;
        index(store(std::move(none)));
        return package;
    }
    const auto& dependencies = dependencies_of(package, *index_choice);
    if (!conflicts_with_solution(package, dependencies)) {
        decide_version(package, *index_choice, best_preference.depth);
        return package;
    }
    // pip keeps the version it is pinning and re-pins the earlier choices in its way, as long
    // as their other requirements leave room, keeping every other pin: do the same by undoing
    // those decisions, replaying the others, then choosing this version.
    if (auto repin = repin_plan(dependencies)) {
        auto replay = solution_.decisions_above(repin->level - 1);
        solution_.backtrack(repin->level - 1);
        ++repins_;
        count_step();
        for (const auto& [id, index] : replay) {
            if (repin->displaced.count(id)) continue;
            if (!replay_decision(id, index)) return package;  // a conflict took over
        }
        const Term* known = solution_.accumulated(package);
        if (known && known->positive && known->set.contains(*index_choice) &&
            !conflicts_with_solution(package, dependencies)) {
            decide_version(package, *index_choice, best_preference.depth);
        }
    }
    return package;
}

// Chooses a version again after a re-pin, if it still fits; one that does not fit yet is kept
// as the first choice for later. False when propagating it ran into a conflict (which
// backjumped).
bool Solver::replay_decision(PackageId package, std::size_t index) {
    if (solution_.decision(package)) return true;
    const Term* known = solution_.accumulated(package);
    if (!known || !known->positive) {
        saved_[package] = index;
        return true;
    }
    if (!known->set.contains(index)) return true;
    if (conflicts_with_solution(package, dependencies_of(package, index))) return true;
    decide_version(package, index, table_.info(package).depth);
    const std::uint32_t level = solution_.level();
    propagate(package);
    return solution_.level() >= level;
}

void Solver::decide_version(PackageId package, std::size_t index, std::size_t depth) {
    table_.info(package).depth = depth;
    solution_.decide(package, index, table_.universe(package));
    ++decisions_;
    count_step();
}

// Whether choosing the version these dependencies belong to would satisfy one of them.
bool Solver::conflicts_with_solution(PackageId package,
                                     const std::vector<IncompatibilityId>& dependencies) const {
    return std::any_of(dependencies.begin(), dependencies.end(), [&](IncompatibilityId id) {
        return conflicting(package, incompatibilities_[id]);
    });
}

bool Solver::conflicting(PackageId package, const Incompatibility& incompatibility) const {
    for (const auto& t : incompatibility.terms) {
        if (t.package != package && solution_.relation(t) != Relation::satisfied) return false;
    }
    return true;
}

// How to make room for the version whose `dependencies` these are: every conflict must come
// from another package's decision, and that package's other requirements must leave room for
// the new one (else pip finds no candidate either and moves on to an older version, as PubGrub
// does). A package is displaced a few times at most, so this never loops.
std::optional<Solver::RePin> Solver::repin_plan(
    const std::vector<IncompatibilityId>& dependencies) {
    constexpr std::size_t max_displacements = 8;
    std::vector<const Term*> wanted;  // conflicting requirements, on decided packages
    RePin plan;
    for (IncompatibilityId id : dependencies) {
        const Incompatibility& incompatibility = incompatibilities_[id];
        if (!conflicting(incompatibility.terms[0].package, incompatibility)) continue;
        if (incompatibility.cause != Cause::dependency) return std::nullopt;
        const Term& needed = incompatibility.terms[1];
        auto level = solution_.decision_level(needed.package);
        if (!level || *level <= PartialSolution::root_level) return std::nullopt;
        if (displaced_[needed.package] >= max_displacements) return std::nullopt;
        // A version kept from the lockfile stays; the newcomer gives way instead.
        if (preferred(needed.package) == solution_.decision(needed.package)) return std::nullopt;
        wanted.push_back(&needed);
        plan.displaced.insert(needed.package);
        plan.level = plan.displaced.size() == 1 ? *level : std::min(plan.level, *level);
    }
    if (wanted.empty()) return std::nullopt;
    // pip's test: the requirements of every pin that stays, with the new one, still leave a
    // candidate. Here: the package's derivations, less its decision and what the displaced
    // decisions implied (an extra's tie to its package).
    for (const Term* needed : wanted) {
        std::optional<Term> left;
        for (auto position : solution_.positions(needed->package)) {
            const Assignment& a = solution_.at(position);
            if (a.is_decision()) continue;
            const Incompatibility& cause = incompatibilities_[*a.cause];
            if (cause.cause == Cause::dependency && plan.displaced.count(cause.terms[0].package)) {
                continue;
            }
            left = left ? left->intersect(a.term) : a.term;
        }
        if (left && left->relation(*needed) == Relation::satisfied) return std::nullopt;
    }
    for (PackageId id : plan.displaced)
        ++displaced_[id];
    return plan;
}

std::optional<std::size_t> Solver::choose_version(PackageId package, const VersionSet& allowed) {
    if (allowed.empty()) return std::nullopt;
    const PackageId base = table_.info(package).base;
    // An extra takes its package's version and a package its extras' version, so neither has
    // to walk through versions to meet the other.
    if (base != package) {
        if (auto d = solution_.decision(base); d && allowed.contains(*d)) return d;
    } else {
        for (PackageId extra : table_.info(package).extras) {
            if (auto d = solution_.decision(extra); d && allowed.contains(*d)) return d;
        }
    }
    if (auto saved = saved_.find(package); saved != saved_.end()) {
        const std::size_t index = saved->second;
        saved_.erase(saved);
        if (allowed.contains(index)) return index;
    }
    if (auto locked = preferred(package); locked && allowed.contains(*locked)) return locked;
    // The newest version, unless ranks say the first index's versions come first
    // (unsafe-first-match): then the newest of the lowest rank allowed.
    const auto newest = allowed.highest();
    const auto& candidates = table_.candidates(base);
    if (candidates[*newest].index_rank == 0) return newest;
    std::optional<std::size_t> best;
    for (std::size_t i = candidates.size(); i-- > 0;) {
        if (allowed.contains(i) &&
            (!best || candidates[i].index_rank < candidates[*best].index_rank)) {
            best = i;
        }
    }
    return best;
}

// The candidate the lockfile had, unless the package is being upgraded.
std::optional<std::size_t> Solver::preferred(PackageId package) {
    const PackageId base = table_.info(package).base;
    const std::string& name = table_.info(base).name;
    if (options_.upgrade_all || options_.upgrade.count(name)) return std::nullopt;
    auto it = options_.preferences.find(name);
    if (it == options_.preferences.end()) return std::nullopt;
    const auto& candidates = table_.candidates(base);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (!candidates[i].unknown_version && candidates[i].version == it->second) return i;
    }
    return std::nullopt;
}

const std::vector<IncompatibilityId>& Solver::dependencies_of(PackageId package,
                                                              std::size_t index) {
    const auto key = std::make_pair(package, index);
    if (auto it = dependencies_.find(key); it != dependencies_.end()) return it->second;
    auto built =
        package == root_package ? root_dependencies() : version_dependencies(package, index);
    return dependencies_.emplace(key, std::move(built)).first->second;
}

void Solver::touch(PackageId package) {
    table_.load(package);
    const PackageId base = table_.info(package).base;
    if (table_.base_info(base).constraint_added) return;
    table_.base_info(base).constraint_added = true;
    auto it = constraints_.find(table_.info(base).name);
    if (it == constraints_.end()) return;
    for (const auto& constraint : it->second) {
        const auto& specifier = constraint.requirement->specifier();
        if (specifier.empty()) continue;  // a bare name or a URL limits no version
        Term outside{base, true, table_.constraint_set(base, specifier).complement(), std::nullopt};
        if (outside.impossible()) continue;  // every candidate is allowed anyway
        Incompatibility limit;
        limit.terms = {root_term(), std::move(outside)};
        limit.cause = Cause::constraint;
        limit.origin = *constraint.origin;
        limit.text = specifier.to_string();
        index(store(std::move(limit)));
    }
}

namespace {

// The candidates a requirement admits, labelled with its specifier (or its URL).
Term requirement_term(PackageTable& table, PackageId id, const pep::Requirement& requirement) {
    if (requirement.url()) {
        return Term{id, true, table.requirement_set(id, pep::SpecifierSet{}),
                    url_label(*requirement.url())};
    }
    return Term{id, true, table.requirement_set(id, requirement.specifier()),
                requirement.specifier().to_string()};
}

}  // namespace

std::vector<IncompatibilityId> Solver::root_dependencies() {
    std::vector<pep::Requirement> upcoming;
    for (const auto& root : roots_)
        upcoming.push_back(*root.requirement);
    if (!upcoming.empty()) table_.prefetch(upcoming);

    std::vector<IncompatibilityId> out;
    std::size_t position = 0;
    for (const auto& root : roots_) {
        const auto& requirement = *root.requirement;
        const std::string name = requirement.canonical_name();
        std::vector<PackageId> ids{table_.intern(name)};
        for (const auto& extra : normalised_extras(requirement)) {
            ids.push_back(table_.intern(name, extra));
        }
        for (PackageId id : ids) {
            auto& requested = table_.info(id).requested;
            requested = std::min(requested, position);
        }
        ++position;
        for (PackageId id : ids) {
            touch(id);
            Term target = requirement_term(table_, id, requirement);
            Incompatibility needed;
            needed.terms = {root_term(), target.negated()};
            needed.cause = Cause::requirement;
            needed.origin = *root.origin;
            needed.traits = traits_of(requirement);
            const IncompatibilityId needed_id = store(std::move(needed));
            if (target.set.empty()) {
                Incompatibility none;
                none.terms = {std::move(target)};
                none.cause = Cause::no_versions;
                const IncompatibilityId none_id = store(std::move(none));
                const IncompatibilityId forbidden = derive({root_term()}, needed_id, none_id);
                index(forbidden);
                out.push_back(forbidden);
            } else {
                index(needed_id);
                out.push_back(needed_id);
            }
        }
    }
    return out;
}

std::vector<IncompatibilityId> Solver::version_dependencies(PackageId package, std::size_t chosen) {
    // Copies: interning below may move the package table.
    const PackageId base = table_.info(package).base;
    const std::string package_name = table_.info(package).name;
    const std::string extra = table_.info(package).extra;
    const std::size_t universe = table_.universe(base);
    const Candidate candidate = table_.candidates(base)[chosen];
    const std::optional<std::string> url = table_.info(base).url;

    const std::string version_label = url ? url_label(*url) : "==" + candidate.version.to_string();
    const Term depender{package, true, VersionSet::single(universe, chosen), version_label};
    const std::string depender_text = package_name + version_label;

    const auto requirements = requirements_of(base, chosen, extra);
    std::vector<pep::Requirement> upcoming;
    for (const auto* r : requirements)
        upcoming.push_back(*r);
    if (!upcoming.empty()) table_.prefetch(upcoming);

    auto unusable = [&](std::string why) {
        Incompatibility bad;
        bad.terms = {depender};
        bad.cause = Cause::unusable;
        bad.text = std::move(why);
        const IncompatibilityId id = store(std::move(bad));
        index(id);
        return std::vector<IncompatibilityId>{id};
    };

    // One term per package: several requirements on one name (under different markers, or a
    // package and its extra) are met together.
    struct Target {
        Term term;
        RequirementTraits traits;
    };
    std::vector<Target> targets;
    auto add_target = [&](Term t, RequirementTraits traits) {
        auto same = std::find_if(targets.begin(), targets.end(),
                                 [&](const Target& x) { return x.term.package == t.package; });
        if (same == targets.end()) {
            targets.push_back({std::move(t), traits});
        } else {
            same->term = same->term.intersect(t);
            same->traits |= traits;
        }
    };
    if (base != package) {
        // An extra is its package at the very same version, plus the extra's requirements.
        RequirementTraits tie;
        tie.direct = true;  // pip ties them with an explicit requirement on the candidate
        add_target(Term{base, true, VersionSet::single(universe, chosen), version_label}, tie);
    }
    for (const auto* requirement : requirements) {
        const std::string name = requirement->canonical_name();
        const PackageId dependency = table_.intern(name);
        if (requirement->url()) {
            std::string conflict;
            if (!table_.set_url(dependency, *requirement->url(), depender_text, conflict)) {
                const auto& known = table_.base_info(dependency);
                const std::string wanted = name + url_label(*requirement->url());
                if (conflict == "url") {
                    return unusable(depender_text + " depends on " + wanted + ", but " +
                                    with_origin(name + url_label(*known.url) + " is required",
                                                known.url_origin));
                }
                return unusable(depender_text + " depends on " + wanted + ", but " + name +
                                " already comes from the package index (require " + wanted +
                                " directly)");
            }
        }
        std::vector<PackageId> ids{dependency};
        for (const auto& e : normalised_extras(*requirement))
            ids.push_back(table_.intern(name, e));
        for (PackageId id : ids) {
            touch(id);
            Term target = requirement_term(table_, id, *requirement);
            if (id == package) {
                if (target.set.contains(chosen)) continue;  // it depends on itself: met
                return unusable(depender_text + " depends on " + package_name + *target.label +
                                ", which it is not");
            }
            add_target(std::move(target), traits_of(*requirement));
        }
    }

    auto dependency = [&](const Target& target) {
        Incompatibility needs;
        needs.terms = {depender, target.term.negated()};
        needs.cause = Cause::dependency;
        needs.traits = target.traits;
        return store(std::move(needs));
    };
    for (const auto& target : targets) {
        if (!target.term.set.empty()) continue;
        // Nothing can meet this requirement: the version itself is out.
        const IncompatibilityId needs = dependency(target);
        Incompatibility none;
        none.terms = {target.term};
        none.cause = Cause::no_versions;
        const IncompatibilityId none_id = store(std::move(none));
        const IncompatibilityId forbidden = derive({depender}, needs, none_id);
        index(forbidden);
        return {forbidden};
    }
    std::vector<IncompatibilityId> out;
    for (const auto& target : targets) {
        const IncompatibilityId id = dependency(target);
        index(id);
        out.push_back(id);
    }
    return out;
}

bool Solver::applies(const pep::Requirement& requirement, std::span<const std::string> extras,
                     const std::string& where) {
    auto result = requirement.applies(options_.environment, extras);
    if (!result) {
        warn(where + ": cannot evaluate the marker of '" + requirement.to_string() + "' (" +
             result.error().describe() + "); the requirement is left out");
        return false;
    }
    return *result;
}

std::vector<const pep::Requirement*> Solver::overridden(
    std::vector<const pep::Requirement*> requirements) const {
    if (overrides_.empty()) return requirements;
    std::vector<const pep::Requirement*> out;
    std::set<std::string> replaced;
    for (const auto* r : requirements) {
        auto it = overrides_.find(r->canonical_name());
        if (it == overrides_.end()) {
            out.push_back(r);
        } else if (replaced.insert(it->first).second) {
            for (const auto& override_ : it->second)
                out.push_back(override_.requirement);
        }
    }
    return out;
}

std::vector<const pep::Requirement*> Solver::requirements_of(PackageId base, std::size_t index,
                                                             const std::string& extra) {
    const DependencyInfo& metadata = table_.metadata(base, index);
    const auto& candidate = table_.candidates(base)[index];
    const std::string where =
        table_.info(base).name +
        (candidate.unknown_version ? std::string() : " " + candidate.version.to_string());
    std::vector<const pep::Requirement*> out;
    if (extra.empty()) {
        for (const auto& r : metadata.requires_dist) {
            if (!r.marker() || applies(r, {}, where)) out.push_back(&r);
        }
        return overridden(std::move(out));
    }
    const std::string extras[1] = {extra};
    for (const auto& r : metadata.requires_dist) {
        if (r.marker() && r.marker()->mentions_extra() && applies(r, extras, where)) {
            out.push_back(&r);
        }
    }
    // pip warns and goes on: the extra simply adds nothing.
    if (!provides_extra(metadata, extra)) {
        warn(where + " does not provide the extra '" + extra + "'");
    }
    return overridden(std::move(out));
}

void Solver::warn(std::string message) {
    if (warned_.insert(message).second) warnings_.push_back(std::move(message));
}

[[noreturn]] void Solver::fail(IncompatibilityId id) {
    throw Unsatisfiable(explain_failure(id, incompatibilities_, table_));
}

Resolution Solver::result() {
    Resolution out;
    out.decisions = decisions_;
    out.conflicts = conflicts_;
    std::map<PackageId, std::vector<std::string>> extras;
    for (PackageId id = 1; id < table_.size(); ++id) {
        const auto& info = table_.info(id);
        if (info.base != id && solution_.decision(id)) extras[info.base].push_back(info.extra);
    }
    auto resolved = [&](const std::string& name) {
        auto id = table_.find(name);
        return id && solution_.decision(*id).has_value();
    };
    for (PackageId id = 1; id < table_.size(); ++id) {
        const auto decided = solution_.decision(id);
        if (!decided || table_.info(id).base != id) continue;
        ResolvedPackage package;
        package.name = table_.info(id).name;
        const Candidate& candidate = table_.candidates(id)[*decided];
        if (!candidate.unknown_version) package.version = candidate.version;
        package.url = table_.info(id).url;
        // Every extra asked for is listed, even one the package lacks (pip warns and goes on):
        // pip's hash-checking mode wants "name[extra]==version" for each extra it meets.
        package.extras = extras[id];
        std::sort(package.extras.begin(), package.extras.end());
        package.requested = requested_.count(package.name) > 0;
        std::set<std::string> needs;
        auto collect = [&](const std::string& extra) {
            for (const auto* r : requirements_of(id, *decided, extra)) {
                const std::string name = r->canonical_name();
                if (name != package.name && resolved(name)) needs.insert(name);
            }
        };
        collect({});
        for (const auto& extra : package.extras)
            collect(extra);
        package.dependencies.assign(needs.begin(), needs.end());
        out.packages.push_back(std::move(package));
    }
    std::sort(out.packages.begin(), out.packages.end(),
              [](const ResolvedPackage& a, const ResolvedPackage& b) { return a.name < b.name; });
    out.warnings = warnings_;
    return out;
}

}  // namespace aitk::resolve
