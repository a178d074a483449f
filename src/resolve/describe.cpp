#include "describe.hpp"

#include <algorithm>

#include "aitk/pep/specifier.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::resolve {

std::string with_origin(const std::string& text, const std::string& origin) {
    return origin.empty() ? text : text + " (" + origin + ")";
}

namespace {

// "a", "a and b", "a, b and c" (with `last` as the final joiner).
std::string list(const std::vector<std::string>& items, const std::string& last) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += i + 1 == items.size() ? last : ", ";
        out += items[i];
    }
    return out;
}

std::string numbered(std::string text, std::optional<int> line) {
    return line ? text + " (" + std::to_string(*line) + ")" : text;
}

// At most this many versions are named in one reason; the rest are counted.
constexpr std::size_t named_versions = 3;

std::string version_list(const std::string& name, const std::vector<std::string>& versions) {
    std::vector<std::string> shown(
        versions.begin(),
        versions.begin() + static_cast<std::ptrdiff_t>(std::min(versions.size(), named_versions)));
    std::string out = name + " " + list(shown, " and ");
    if (versions.size() > named_versions) {
        out += " (and " + std::to_string(versions.size() - named_versions) + " more)";
    }
    return out;
}

}  // namespace

std::string Describer::term(const Term& t) const {
    const auto& info = table_.info(t.package);
    if (t.label) return info.name + *t.label;
    const auto& base = table_.base_info(t.package);
    if (base.url) return info.name + " @ " + util::redact_url(*base.url);
    if (t.set.count() == 1) {
        return info.name + "==" + base.candidates[*t.set.highest()].version.to_string();
    }
    return info.name + ranges(t);
}

std::string Describer::subject(const Term& t) const {
    std::string text = term(t);
    if (text == table_.info(t.package).name) return "every version of " + text;
    return text;
}

// The set as version ranges over the candidates, for sets that no longer match a specifier
// someone wrote. Prereleases and yanked versions outside the set are skipped, so "every final
// release" reads as the bare name rather than as a list of gaps.
std::string Describer::ranges(const Term& t) const {
    const auto& candidates = table_.base_info(t.package).candidates;
    std::vector<std::size_t> shown;
    std::size_t outside = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const bool member = t.set.contains(i);
        if (member || (!candidates[i].yanked && !candidates[i].version.is_prerelease())) {
            shown.push_back(i);
            if (!member) ++outside;
        }
    }
    if (outside == 0) return {};
    if (outside == shown.size()) return " (no version)";
    auto version = [&](std::size_t k) { return candidates[shown[k]].version.to_string(); };

    std::vector<std::pair<std::size_t, std::size_t>> runs;  // positions in `shown`
    for (std::size_t k = 0; k < shown.size(); ++k) {
        if (!t.set.contains(shown[k])) continue;
        if (!runs.empty() && runs.back().second + 1 == k) {
            runs.back().second = k;
        } else {
            runs.emplace_back(k, k);
        }
    }
    if (runs.size() > 1 && outside <= 2) {
        std::vector<std::string> excluded;
        for (std::size_t k = 0; k < shown.size(); ++k) {
            if (!t.set.contains(shown[k])) excluded.push_back("!=" + version(k));
        }
        return util::join(excluded, ",");
    }
    std::vector<std::string> parts;
    const std::size_t last = shown.size() - 1;
    for (auto [first, end] : runs) {
        if (first == end) {
            parts.push_back("==" + version(first));
        } else if (first == 0) {
            parts.push_back("<=" + version(end));
        } else if (end == last) {
            parts.push_back(">=" + version(first));
        } else {
            parts.push_back(">=" + version(first) + ",<=" + version(end));
        }
    }
    return util::join(parts, " or ");
}

const Term* Describer::non_root(const Incompatibility& incompatibility) const {
    for (const auto& t : incompatibility.terms) {
        if (t.package != root_package) return &t;
    }
    return nullptr;
}

std::optional<Describer::Requires> Describer::requires_shape(
    const Incompatibility& incompatibility) const {
    const auto& terms = incompatibility.terms;
    if (terms.size() != 2 || terms[0].positive == terms[1].positive) return std::nullopt;
    if (terms[0].package == root_package || terms[1].package == root_package) return std::nullopt;
    const Term* pos = terms[0].positive ? &terms[0] : &terms[1];
    const Term* neg = terms[0].positive ? &terms[1] : &terms[0];
    if (incompatibility.cause == Cause::dependency) return Requires{pos, neg, "depends on"};
    if (incompatibility.cause == Cause::derived) return Requires{pos, neg, "requires"};
    return std::nullopt;
}

std::string Describer::clause(IncompatibilityId id) {
    const Incompatibility& incompatibility = all_[id];
    switch (incompatibility.cause) {
        case Cause::root:
            return "the requirements are to be met";
        case Cause::requirement: {
            const Term* needed = non_root(incompatibility);
            return with_origin(term(*needed) + " is required", incompatibility.origin);
        }
        case Cause::constraint: {
            const Term* limited = non_root(incompatibility);
            return with_origin(
                table_.info(limited->package).name + " is constrained to " + incompatibility.text,
                incompatibility.origin);
        }
        case Cause::dependency:
            if (auto shape = requires_shape(incompatibility)) {
                return term(*shape->subject) + " depends on " + term(*shape->object);
            }
            break;
        case Cause::no_versions:
            return no_versions_clause(incompatibility.terms.front());
        case Cause::unusable:
            return incompatibility.text;
        case Cause::derived:
            break;
    }
    return derived_clause(incompatibility.terms);
}

std::string Describer::derived_clause(const std::vector<Term>& terms) const {
    if (terms.empty() || (terms.size() == 1 && terms[0].package == root_package)) {
        return "the requirements cannot be satisfied";
    }
    if (terms.size() == 1) {
        const Term& t = terms[0];
        return t.positive ? subject(t) + " is forbidden" : term(t) + " is required";
    }
    std::vector<std::string> positives;
    std::vector<std::string> negatives;
    for (const auto& t : terms) {
        if (t.positive) {
            positives.push_back(positives.empty() ? subject(t) : term(t));
        } else {
            negatives.push_back(term(t));
        }
    }
    if (positives.size() == 1 && negatives.size() == 1) {
        return positives[0] + " requires " + negatives[0];
    }
    if (negatives.empty()) {
        if (positives.size() == 2) return positives[0] + " is incompatible with " + positives[1];
        return list(positives, " and ") + " are incompatible";
    }
    if (positives.empty()) {
        return (negatives.size() == 2 ? "either " : "one of ") + list(negatives, " or ") +
               " is required";
    }
    return list(positives, " and ") +
           (positives.size() == 1 ? " requires " : " together require ") + list(negatives, " or ");
}

std::string Describer::no_versions_clause(const Term& t) {
    const std::string& name = table_.info(t.package).name;
    std::string text;
    if (t.label && !t.label->empty()) {
        text = "no version of " + name + " matches " + *t.label;
    } else {
        text = "no version of " + name + " is available";
    }
    const std::string why = reasons(t);
    return why.empty() ? text : text + " (" + why + ")";
}

// What the resolver and the source know about versions that do not count: other backends'
// builds, yanked versions, prereleases, direct references of unknown version, and the source's
// own words ("only wheels for Windows").
std::string Describer::reasons(const Term& t) {
    const auto& base = table_.base_info(t.package);
    std::vector<std::string> out;
    // The specifier the term stands for; a set no longer tied to one says nothing about which
    // of the versions left out would have matched.
    const bool has_specifier = t.label && !t.label->starts_with(" @");
    const std::string label = has_specifier ? *t.label : std::string();
    auto parsed = pep::SpecifierSet::parse(label);
    if (has_specifier && parsed) {
        const pep::SpecifierSet& specifier = *parsed;
        // Other backends' builds, newest first: "torchvision 0.28.0+cpu is built for cpu, not
        // cu130".
        std::vector<const ExcludedCandidate*> other_builds;
        for (const auto& e : base.excluded) {
            if (specifier.contains(e.version, true)) other_builds.push_back(&e);
        }
        if (!other_builds.empty()) {
            const auto& newest = *other_builds.front();
            out.push_back(base.name + " " + newest.version.to_string() + " is " + newest.reason);
            if (other_builds.size() == 2) {
                out.back() += ", and 1 more is built for another backend";
            } else if (other_builds.size() > 2) {
                out.back() += ", and " + std::to_string(other_builds.size() - 1) +
                              " more are built for other backends";
            }
        }

        std::vector<std::string> yanked;
        std::string yanked_reason;
        std::vector<std::string> prereleases;
        bool final_matches = false;
        for (std::size_t i = base.candidates.size(); i-- > 0;) {
            const auto& c = base.candidates[i];
            if (c.unknown_version || t.set.contains(i) || !specifier.contains(c.version, true)) {
                continue;
            }
            if (c.yanked) {
                yanked.push_back(c.version.to_string());
                yanked_reason = c.yanked_reason;
            } else if (c.version.is_prerelease()) {
                prereleases.push_back(c.version.to_string());
            } else {
                final_matches = true;
            }
        }
        if (yanked.size() == 1) {
            out.push_back(base.name + " " + yanked[0] + " is yanked" +
                          (yanked_reason.empty() ? "" : " (\"" + yanked_reason + "\")") +
                          ", and only an exact == pin selects a yanked version");
        } else if (!yanked.empty()) {
            out.push_back(version_list(base.name, yanked) +
                          " are yanked, and only an exact == pin selects a yanked version");
        }
        if (!prereleases.empty() && !final_matches) {
            const std::string versions =
                version_list(base.name, prereleases).substr(base.name.size() + 1);
            out.push_back(prereleases.size() == 1 ? "only the prerelease " + versions + " matches"
                                                  : "only the prereleases " + versions + " match");
            out.back() += "; allow prereleases with --pre or name one in the specifier";
        }
    }
    if (base.url) {
        for (const auto& c : base.candidates) {
            if (c.unknown_version) {
                out.push_back(base.name + " @ " + util::redact_url(*base.url) +
                              " has no known version until it is built");
            }
        }
    }

    const auto key = std::make_pair(base.name, label);
    auto note = source_notes_.find(key);
    if (note == source_notes_.end()) {
        note = source_notes_.emplace(key, table_.source().explain(base.name, label)).first;
    }
    if (!note->second.empty()) out.push_back(note->second);
    return util::join(out, "; ");
}

std::string Describer::pair(IncompatibilityId a, IncompatibilityId b, std::optional<int> line_a,
                            std::optional<int> line_b) {
    const Incompatibility& first = all_[a];
    const Incompatibility& second = all_[b];
    if (!line_a && !line_b) {
        if (first.cause == Cause::requirement && second.cause == Cause::requirement) {
            return with_origin(term(*non_root(first)), first.origin) + " and " +
                   with_origin(term(*non_root(second)), second.origin) + " are required";
        }
        auto x = requires_shape(first);
        auto y = requires_shape(second);
        if (x && y) {
            if (x->subject->package == y->subject->package && x->subject->set == y->subject->set) {
                const char* verb =
                    first.cause == Cause::dependency && second.cause == Cause::dependency
                        ? "depends on"
                        : "requires";
                return subject(*x->subject) + " " + verb + " both " + term(*x->object) + " and " +
                       term(*y->object);
            }
            // "a depends on b which depends on c", when every b meant has that dependency.
            auto through = [&](const Requires& p, const Requires& q) -> std::optional<std::string> {
                if (p.object->package != q.subject->package ||
                    !p.object->set.subset_of(q.subject->set)) {
                    return std::nullopt;
                }
                return subject(*p.subject) + " " + p.verb + " " + term(*p.object) + " which " +
                       q.verb + " " + term(*q.object);
            };
            if (auto text = through(*x, *y)) return *text;
            if (auto text = through(*y, *x)) return *text;
        }
    }
    return numbered(clause(a), line_a) + " and " + numbered(clause(b), line_b);
}

}  // namespace aitk::resolve
