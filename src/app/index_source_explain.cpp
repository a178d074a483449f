// IndexPackageSource's explanations: why no version of a project fits (what the indexes offer,
// what first-index passed over, which wheel tags the target refuses and why).
#include <algorithm>
#include <functional>
#include <map>

#include "aitk/app/index_source.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/strings.hpp"
#include "index_source_project.hpp"

namespace aitk::app {

std::string IndexPackageSource::explain(const std::string& name, const std::string& specifier) {
    auto it = projects_.find(name);
    if (it == projects_.end() || !it->second->loaded) return {};
    const auto& project = *it->second;
    if (!project.found) {
        std::vector<std::string> searched;
        for (const auto& location : client_.routing().candidates(name)) {
            searched.push_back(location.name);
        }
        return "not found on " +
               (searched.empty() ? std::string("any index") : util::join(searched, ", "));
    }
    std::vector<std::string> reasons;
    if (!project.versions.empty()) {
        // What there is instead, newest first: the most useful fact when a pin misses.
        std::vector<std::string> offered;
        for (auto v = project.versions.rbegin(); v != project.versions.rend(); ++v) {
            if (offered.size() == 5) {
                offered.push_back("…");
                break;
            }
            offered.push_back(v->version.to_string());
        }
        if (auto passed = passed_over(name, specifier, offered)) {
            reasons.push_back(std::move(*passed));
        } else {
            reasons.push_back(offered_by(project.listing) + " " + util::join(offered, ", ") +
                              " for this target");
        }
        if (client_.routing().is_torch_family(name) && client_.routing().torch_backend_index) {
            reasons.back() += "; the torch family comes only from the target backend's index";
        }
    }
    if (auto refused = refused_wheels(name, project, specifier)) reasons.push_back(*refused);
    if (project.python_excluded > 0) {
        reasons.push_back(std::to_string(project.python_excluded) +
                          " files need another Python than " + target_.python.to_string());
    }
    if (!project.hash_refused.empty()) {
        reasons.push_back(std::to_string(project.hash_refused.size()) +
                          " files of the pinned version have digests that match none of the "
                          "hashes pinned at " +
                          project.hash_refused.front().pin->where.to_string());
    }
    if (project.sdists_refused > 0) {
        reasons.push_back(std::to_string(project.sdists_refused) +
                          " sdists are not used (binary only)");
    }
    return util::join(reasons, "; ");
}

std::string IndexPackageSource::offered_by(const index::ProjectFiles& listing) {
    if (listing.listed_on.size() < 2) return listing.index.name + " offers";
    std::vector<std::string> names;
    for (const auto& location : listing.listed_on)
        names.push_back(location.name);
    return util::join(names, ", ") + " offer";
}

std::optional<std::string> IndexPackageSource::passed_over(
    const std::string& name, const std::string& specifier,
    const std::vector<std::string>& offered) {
    const auto& routing = client_.routing();
    // Only first-index passes indexes over; the torch family's backend routing is the same
    // under every strategy, so no flag would help it.
    if (routing.strategy != index::IndexStrategy::first_index ||
        (routing.torch_backend_index && routing.is_torch_family(name))) {
        return std::nullopt;
    }
    auto wanted = pep::SpecifierSet::parse(specifier);
    if (!wanted) return std::nullopt;
    const auto& first = projects_.at(name)->listing.index.name;
    for (auto& listing : client_.passed_over(name)) {
        Project other;
        const std::string where = listing.index.name;
        index_project(other, std::move(listing));
        std::vector<std::string> matching;
        for (auto v = other.versions.rbegin(); v != other.versions.rend(); ++v) {
            if (!wanted->contains(v->version, true)) continue;
            if (matching.size() == 5) {
                matching.push_back("…");
                break;
            }
            matching.push_back(v->version.to_string());
        }
        if (matching.empty()) continue;
        return first + " lists " + name + " (" + util::join(offered, ", ") +
               ") and first-index stops there; " + where + " has " + util::join(matching, ", ") +
               " — pass --index-strategy unsafe-best-match to take it from there";
    }
    return std::nullopt;
}

std::optional<std::string> IndexPackageSource::refused_wheels(const std::string& name,
                                                              const Project& project,
                                                              const std::string& specifier) {
    if (project.incompatible.empty()) return std::nullopt;
    const auto& files = project.listing.files;
    // The versions whose every wheel the target refuses, newest first; those the specifier
    // admits when it names any.
    const auto wanted = pep::SpecifierSet::parse(specifier);
    std::map<pep::Version, std::vector<std::size_t>, std::greater<>> refused;
    for (std::size_t i : project.incompatible) {
        const auto version = files[i].version();
        if (project.find(version)) continue;  // another file of it fits
        if (wanted && !wanted->contains(version, true)) continue;
        refused[version].push_back(i);
    }
    if (refused.empty()) return std::nullopt;
    if (!tag_fit_) tag_fit_ = std::make_unique<pep::TagFit>(target_.platform);
    const auto& target = tag_fit_->target();
    auto describe = [&](const pep::TagRefusal& r) {
        std::string text = r.describe(target);
        if (r.why == pep::TagMismatch::os_too_new && !target_.os_cap_by.empty())
            text += " (" + target_.os_cap_by + ")";
        return text;
    };
    // The newest such version, when a newer glibc (or macOS) is all it needs: the one fact
    // that matters ("vllm 0.19.1 needs glibc ≥ 2.31 …; this target: ≤ 2.28 (--glibc 2.28)").
    const auto& [newest, newest_files] = *refused.begin();
    std::optional<pep::TagRefusal> closest;
    for (std::size_t i : newest_files) {
        auto r = tag_fit_->refusal(std::span<const pep::Tag>(files[i].wheel()->tags));
        if (r && r->why == pep::TagMismatch::os_too_new && r->need &&
            (!closest || r->need->version < closest->need->version)) {
            closest = std::move(r);
        }
    }
    if (closest) {
        const auto& need = *closest->need;
        const std::string library = need.library == pep::OsLibrary::macos ? "macOS" : "glibc";
        return name + " " + newest.to_string() + " needs " + library + " ≥ " +
               pep::to_string(need.version) + " (" + need.platform + "); this target: ≤ " +
               pep::to_string(target.os_version) +
               (target_.os_cap_by.empty() ? std::string() : " (" + target_.os_cap_by + ")");
    }
    // Otherwise each wheel's closest miss, once each, newest version first.
    std::vector<std::string> why;
    std::size_t wheels = 0;
    for (const auto& [version, indexes] : refused) {
        for (std::size_t i : indexes) {
            ++wheels;
            auto r = tag_fit_->refusal(std::span<const pep::Tag>(files[i].wheel()->tags));
            if (!r) continue;
            std::string text = describe(*r);
            if (std::find(why.begin(), why.end(), text) == why.end()) why.push_back(text);
        }
    }
    if (why.size() > 4) {
        why.resize(4);
        why.push_back("…");
    }
    // When some versions fit, which ones these are.
    std::string which;
    if (!project.versions.empty()) {
        which = name + " " + newest.to_string();
        if (refused.size() > 1) which += " and " + std::to_string(refused.size() - 1) + " older";
        which += ": ";
    }
    return which + (refused.size() > 1 ? "their " : "its ") + std::to_string(wheels) +
           (wheels == 1 ? " wheel is" : " wheels are") + " for other platforms or Pythons (" +
           util::join(why, "; ") + ")";
}

}  // namespace aitk::app
