// The dependency graph of an installed prefix: each distribution's Requires-Dist evaluated
// for the snapshot's target, extras activated by what is installed, and the installer tools a
// snapshot leaves out.
#include <set>
#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/name.hpp"
#include "snapshot_parts.hpp"

namespace aitk::app::snapshot_detail {
namespace {

// What `python -m venv` (ensurepip) seeds and `pip freeze` leaves out for the same reason.
const std::set<std::string> installer_tools = {"pip", "setuptools", "wheel", "distribute"};

bool applies(const pep::Requirement& requirement, const pep::MarkerEnvironment& env,
             const std::vector<std::string>& extras) {
    auto result = requirement.applies(env, extras);
    return result && *result;
}

}  // namespace

std::vector<std::string> extra_list(const std::set<std::string>& extras) {
    return {extras.begin(), extras.end()};
}

std::optional<std::string> read_optional(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    return fs::read_file(path);
}

std::map<std::string, Dist> read_distributions(
    const std::vector<install::InstalledDistribution>& installed, std::vector<std::string>& notes) {
    std::map<std::string, Dist> dists;
    for (const auto& d : installed) {
        Dist dist;
        dist.installed = &d;
        if (auto text = read_optional(d.dist_info / "METADATA")) {
            auto metadata = pep::CoreMetadata::parse(*text);
            if (metadata) {
                for (const auto& line : metadata->requires_dist) {
                    auto requirement = pep::Requirement::parse(line);
                    if (requirement) {
                        dist.requires_dist.push_back(std::move(*requirement));
                    } else {
                        notes.push_back(d.name + ": Requires-Dist '" + line +
                                        "' is not a requirement; ignored");
                    }
                }
                for (const auto& extra : metadata->provides_extra)
                    dist.provides_extra.push_back(pep::canonicalize_name(extra));
            } else {
                notes.push_back(d.name + ": unreadable METADATA (" + metadata.error().describe() +
                                "); no dependencies");
            }
        }
        dists.emplace(d.name, std::move(dist));
    }
    return dists;
}

void activate_extras(std::map<std::string, Dist>& dists, const pep::MarkerEnvironment& env) {
    for (auto& [name, dist] : dists) {
        if (!dist.installed->requested) continue;
        for (const auto& extra : dist.provides_extra) {
            bool any = false, all = true;
            for (const auto& r : dist.requires_dist) {
                if (!r.marker() || !r.marker()->mentions_extra()) continue;
                if (applies(r, env, {}) || !applies(r, env, {extra})) continue;
                any = true;
                all = all && dists.count(r.canonical_name()) > 0;
            }
            if (any && all) dist.extras.insert(extra);
        }
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (auto& [name, dist] : dists) {
            auto active = extra_list(dist.extras);
            for (const auto& r : dist.requires_dist) {
                if (!applies(r, env, active)) continue;
                auto it = dists.find(r.canonical_name());
                if (it == dists.end() || it->first == name) continue;
                for (const auto& extra : r.extras()) {
                    changed |= it->second.extras.insert(pep::canonicalize_name(extra)).second;
                }
            }
        }
    }
}

void find_dependencies(std::map<std::string, Dist>& dists, const pep::MarkerEnvironment& env,
                       std::vector<std::string>& notes) {
    for (auto& [name, dist] : dists) {
        auto active = extra_list(dist.extras);
        for (const auto& r : dist.requires_dist) {
            if (!applies(r, env, active)) continue;
            auto dep = r.canonical_name();
            if (dep == name) continue;
            if (dists.count(dep)) {
                dist.dependencies.insert(dep);
            } else {
                notes.push_back(name + " requires " + r.to_string() + ", which is not installed");
            }
        }
    }
}

std::set<std::string> kept_names(const std::map<std::string, Dist>& dists, bool keep_tools,
                                 std::vector<std::string>& left_out) {
    std::set<std::string> kept;
    std::vector<std::string> queue;
    for (const auto& [name, dist] : dists) {
        if (keep_tools || !installer_tools.count(name)) queue.push_back(name);
    }
    while (!queue.empty()) {
        auto name = queue.back();
        queue.pop_back();
        if (!kept.insert(name).second) continue;
        for (const auto& dep : dists.at(name).dependencies)
            queue.push_back(dep);
    }
    for (const auto& [name, dist] : dists) {
        if (!kept.count(name)) {
            left_out.push_back(name + " " + dist.installed->version +
                               " (installer tooling, as pip freeze leaves out; --all keeps it)");
        }
    }
    return kept;
}

}  // namespace aitk::app::snapshot_detail
