#include "package_table.hpp"

#include <algorithm>

#include "aitk/util/strings.hpp"

namespace aitk::resolve {

std::string extra_package_name(const std::string& name, const std::string& extra) {
    return extra.empty() ? name : name + "[" + extra + "]";
}

namespace {

bool is_pin(const pep::Specifier& clause) {
    return (clause.op() == pep::Operator::equal && !clause.has_wildcard()) ||
           clause.op() == pep::Operator::arbitrary;
}

// PEP 592: a yanked version is chosen only when a specifier pins exactly that version.
bool pins(const pep::SpecifierSet& specifier, const pep::Version& version) {
    return std::any_of(
        specifier.specifiers().begin(), specifier.specifiers().end(),
        [&](const pep::Specifier& s) { return is_pin(s) && s.contains(version, true); });
}

// Whether a local label names a PyTorch backend build ("cu128", "cpu", "rocm6.4", "xpu",
// "cpu.cxx11.abi"): only those are other flavours of the family. A source build's label
// ("git02105d46c") says nothing about the backend it was built for.
bool names_a_backend(std::string_view local) {
    const std::string_view head = local.substr(0, local.find('.'));
    auto digits_after = [&](std::string_view prefix) {
        if (!util::istarts_with(head, prefix) || head.size() == prefix.size()) return false;
        return std::all_of(head.begin() + static_cast<std::ptrdiff_t>(prefix.size()), head.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
    };
    return util::iequals(head, "cpu") || util::iequals(head, "xpu") || util::iequals(head, "mps") ||
           digits_after("cu") || digits_after("rocm");
}

}  // namespace

PackageTable::PackageTable(PackageSource& source, const ResolveOptions& options)
    : source_(source), options_(options) {
    source_.lookahead(options_);
    PackageInfo root;
    root.loaded = true;
    root.candidates.push_back(Candidate{});
    root.metadata.resize(1);
    packages_.push_back(std::move(root));
}

PackageId PackageTable::intern(const std::string& name, const std::string& extra) {
    const std::string key = extra_package_name(name, extra);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    const PackageId base = extra.empty() ? static_cast<PackageId>(packages_.size()) : intern(name);
    const auto id = static_cast<PackageId>(packages_.size());
    PackageInfo info;
    info.name = key;
    info.base = base;
    info.extra = extra;
    packages_.push_back(std::move(info));
    ids_.emplace(key, id);
    if (base != id) packages_[base].extras.push_back(id);
    return id;
}

void PackageTable::note_root_specifier(const std::string& name,
                                       const pep::SpecifierSet& specifier) {
    auto& policy = root_policy_[name];
    if (specifier.prereleases().value_or(false)) policy.names_prerelease = true;
    if (std::any_of(specifier.specifiers().begin(), specifier.specifiers().end(), is_pin)) {
        policy.pins.push_back(specifier);
    }
}

bool PackageTable::set_url(PackageId id, const std::string& url, const std::string& origin,
                           std::string& conflict) {
    auto& base = base_info(id);
    if (base.url) {
        if (*base.url == url) return true;
        conflict = "url";
        return false;
    }
    if (base.loaded) {
        conflict = "index";
        return false;
    }
    base.url = url;
    base.url_origin = origin;
    return true;
}

bool PackageTable::in_local_group(const std::string& name) const {
    for (const auto& entry : options_.local_group) {
        if (!entry.empty() && entry.back() == '*') {
            if (name.starts_with(std::string_view(entry).substr(0, entry.size() - 1))) return true;
        } else if (entry == name) {
            return true;
        }
    }
    return false;
}

bool PackageTable::load(PackageId id) {
    auto& base = base_info(id);
    if (base.loaded) return false;
    read_candidates(base);
    base.loaded = true;
    base.metadata.resize(base.candidates.size());
    return true;
}

void PackageTable::read_candidates(PackageInfo& base) {
    if (base.url) {
        auto direct = source_.direct(base.name, *base.url);
        if (!direct) throw SourceFailure(direct.error());
        Candidate candidate;
        candidate.unknown_version = !direct->version;
        if (direct->version) candidate.version = *direct->version;
        base.candidates.push_back(std::move(candidate));
        base.metadata.resize(1);
        base.metadata[0] = std::move(direct->dependencies);
        return;
    }
    auto listed = source_.versions(base.name);
    if (!listed) throw SourceFailure(listed.error());
    const bool group = !options_.local_label.empty() && in_local_group(base.name);
    std::vector<Candidate> candidates;
    candidates.reserve(listed->size());
    for (auto& offered : *listed) {
        const pep::Version& v = offered.version;
        if (group && v.has_local() && !util::iequals(v.local(), options_.local_label) &&
            names_a_backend(v.local())) {
            base.excluded.push_back(
                {v, "built for " + v.local() + ", not " + options_.local_label});
            continue;
        }
        candidates.push_back({std::move(offered.version), offered.yanked,
                              std::move(offered.yanked_reason), false, offered.index_rank});
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.version < b.version; });
    // Equal versions from several indexes are one candidate, yanked only if every copy is.
    for (auto& c : candidates) {
        if (!base.candidates.empty() && base.candidates.back().version == c.version) {
            auto& kept = base.candidates.back();
            kept.index_rank = std::min(kept.index_rank, c.index_rank);
            if (kept.yanked && !c.yanked) {
                kept.yanked = false;
                kept.yanked_reason.clear();
            }
            continue;
        }
        base.candidates.push_back(std::move(c));
    }
    std::sort(base.excluded.begin(), base.excluded.end(),
              [](const ExcludedCandidate& a, const ExcludedCandidate& b) {
                  return b.version < a.version;
              });
}

const std::vector<Candidate>& PackageTable::candidates(PackageId id) {
    load(id);
    return base_info(id).candidates;
}

// Which candidates a requirement admits, decided once per package and specifier text:
// - PEP 440 matching by SpecifierSet::contains with prereleases allowed, then the policies:
// - prereleases: only with --pre, when this specifier names a prerelease (">=2.0b1"), when a
//   root requirement or constraint on the package names one (uv's "explicit" rule, so a pin on
//   the command line reaches the package's transitive requirements too), or, for a requirement
//   without a specifier, when no final version is offered at all. That last fallback is
//   packaging's SpecifierSet.filter as pip 23.2 uses it: a versioned specifier such as ">=1"
//   never falls back to prereleases there ("foo>=1" with only 2.0b1 offered finds nothing).
// - yanked: only when this specifier, or a root requirement or constraint, pins exactly that
//   version with == or === (PEP 592).
// - a direct reference of unknown version: only a requirement without a specifier.
const VersionSet& PackageTable::requirement_set(PackageId id, const pep::SpecifierSet& specifier) {
    load(id);
    auto& base = base_info(id);
    std::string key = specifier.to_string();
    if (auto it = base.requirement_sets.find(key); it != base.requirement_sets.end()) {
        return it->second;
    }
    const RootPolicy* policy = nullptr;
    if (auto it = root_policy_.find(base.name); it != root_policy_.end()) policy = &it->second;
    const bool admit_prereleases = options_.allow_prereleases ||
                                   (policy && policy->names_prerelease) ||
                                   specifier.prereleases().value_or(false);
    auto root_pins = [&](const pep::Version& v) {
        return policy && std::any_of(policy->pins.begin(), policy->pins.end(),
                                     [&](const pep::SpecifierSet& s) { return pins(s, v); });
    };

    const std::size_t n = base.candidates.size();
    VersionSet set = VersionSet::none(n);
    VersionSet held_prereleases = VersionSet::none(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Candidate& c = base.candidates[i];
        if (c.unknown_version) {
            if (specifier.empty()) set.insert(i);
            continue;
        }
        if (!specifier.contains(c.version, true)) continue;
        if (c.yanked && !pins(specifier, c.version) && !root_pins(c.version)) continue;
        if (c.version.is_prerelease() && !admit_prereleases) {
            held_prereleases.insert(i);
            continue;
        }
        set.insert(i);
    }
    if (set.empty() && specifier.empty()) set = held_prereleases;
    return base.requirement_sets.emplace(std::move(key), std::move(set)).first->second;
}

VersionSet PackageTable::constraint_set(PackageId id, const pep::SpecifierSet& specifier) {
    const auto& all = candidates(id);
    VersionSet set = VersionSet::none(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (!all[i].unknown_version && specifier.contains(all[i].version, true)) set.insert(i);
    }
    return set;
}

const DependencyInfo& PackageTable::metadata(PackageId id, std::size_t index) {
    load(id);
    auto& base = base_info(id);
    auto& slot = base.metadata[index];
    if (!slot) {
        auto fetched = source_.dependencies(base.name, base.candidates[index].version);
        if (!fetched) throw SourceFailure(fetched.error());
        slot = std::move(*fetched);
    }
    return *slot;
}

}  // namespace aitk::resolve
