// The torch builds a pyproject.toml's sources name: every torch/torchvision/torchaudio source
// whose index is a PyTorch backend index (…/cu128, …/cpu, …/rocm6.4, …/xpu on any host, so a
// mirror counts) is a candidate, tied to its extra, group or marker.
#include <algorithm>
#include <array>

#include "aitk/project/torch_pins.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "pyproject_convert.hpp"

namespace aitk::project::detail {

namespace {

constexpr std::array<std::string_view, 3> torch_core{"torch", "torchvision", "torchaudio"};

bool is_core(std::string_view name) {
    return std::find(torch_core.begin(), torch_core.end(), name) != torch_core.end();
}

std::string trimmed(std::string_view url) {
    while (!url.empty() && url.back() == '/')
        url.remove_suffix(1);
    return util::to_lower(url);
}

std::string selector_words(const BackendCandidate& c) {
    if (!c.extra.empty()) return "extra '" + c.extra + "'";
    if (!c.group.empty()) return "group '" + c.group + "'";
    return "every table";
}

// Whether the extra or group a source is limited to exists.
std::optional<InputProblem> check_selector(const PyprojectContext& c, const std::string& package,
                                           const UvSource& s) {
    const auto& p = c.project;
    if (!s.extra.empty() && !p.optional_dependencies.count(s.extra) &&
        !p.is_dynamic("optional-dependencies")) {
        return InputProblem{s.where,
                            "tool.uv.sources." + package + " is limited to extra '" + s.extra +
                                "', which [project.optional-dependencies] does not define",
                            "define the extra, or fix the name"};
    }
    const bool dev_group = s.group == "dev" && !p.uv.dev_dependencies.empty();
    if (!s.group.empty() && !p.groups.count(s.group) && !dev_group) {
        return InputProblem{s.where,
                            "tool.uv.sources." + package + " is limited to group '" + s.group +
                                "', which [dependency-groups] does not define",
                            "define the group, or fix the name"};
    }
    return std::nullopt;
}

std::optional<InputProblem> check_index_names(const PyprojectContext& c) {
    for (const auto& [package, list] : c.project.uv.sources) {
        for (const auto& s : list) {
            if (auto problem = check_selector(c, package, s)) return problem;
            if (s.kind != UvSourceKind::index || c.indexes.count(s.location)) continue;
            std::vector<std::string> names;
            for (const auto& [name, index] : c.indexes)
                names.push_back(name);
            return InputProblem{s.where,
                                "tool.uv.sources." + package + " names the index '" + s.location +
                                    "', which no [[tool.uv.index]] defines",
                                names.empty() ? "define it: [[tool.uv.index]] name = \"" +
                                                    s.location + "\" url = \"https://…\""
                                              : "the file defines " + util::join(names, ", ")};
        }
    }
    return std::nullopt;
}

}  // namespace

bool same_index_url(std::string_view a, std::string_view b) {
    return trimmed(a) == trimmed(b);
}

std::vector<const BackendCandidate*> BackendPlan::of_extra(std::string_view extra) const {
    std::vector<const BackendCandidate*> out;
    for (const auto& c : candidates) {
        if (!c.extra.empty() && c.extra == extra) out.push_back(&c);
    }
    return out;
}

std::vector<const BackendCandidate*> BackendPlan::of_group(std::string_view group) const {
    std::vector<const BackendCandidate*> out;
    for (const auto& c : candidates) {
        if (!c.group.empty() && c.group == group) out.push_back(&c);
    }
    return out;
}

Loaded<BackendPlan> plan_backends(const PyprojectContext& c) {
    BackendPlan plan;
    if (auto problem = check_index_names(c))
        return util::Unexpected<InputProblem>(std::move(*problem));
    const auto& uv = c.project.uv;
    if (uv.no_sources) return plan;
    auto skipped = [&](const std::string& package) {
        return std::find(uv.no_sources_packages.begin(), uv.no_sources_packages.end(), package) !=
               uv.no_sources_packages.end();
    };
    for (const auto& name : torch_core) {
        auto it = uv.sources.find(std::string(name));
        if (it == uv.sources.end() || skipped(it->first)) continue;
        for (const auto& s : it->second) {
            if (s.kind != UvSourceKind::index) continue;
            const UvIndex& index = *c.indexes.at(s.location);
            auto named = backend_index_url(index.url);
            if (!named) {
                // torch from the default index (PyPI) on these platforms: no backend of ours.
                if (same_index_url(index.url, c.default_index_url)) continue;
                return util::input_problem(
                    s.where,
                    std::string(name) + " comes from the index '" + s.location + "' (" +
                        util::redact_url(index.url) +
                        "), which is neither a PyTorch backend index (…/cu128, …/cpu, "
                        "…/rocm6.4, …/xpu) nor the default index",
                    "aitk-env takes the torch family from the backend index it chooses for the "
                    "machine: point the index at one, or remove the source");
            }
            PlatformSet platforms = all_platforms();
            if (s.marker) {
                auto where = platforms_where(*s.marker);
                if (!where) {
                    return util::input_problem(
                        s.where,
                        "tool.uv.sources." + std::string(name) + ": the marker '" +
                            s.marker->to_string() + "': " + where.error(),
                        "limit the source with sys_platform, platform_system and "
                        "platform_machine only");
                }
                platforms = *where;
            }
            if (plan.base.empty()) {
                plan.base = named->base;
            } else if (!same_index_url(plan.base, named->base)) {
                return util::input_problem(
                    s.where,
                    std::string(name) + "'s backend indexes lie under two bases (" +
                        util::redact_url(plan.base) + " and " + util::redact_url(named->base) + ")",
                    "aitk-env takes the torch family from <base>/<backend>/ of one base: use "
                    "one host (pass --torch-index-url to use a mirror)");
            }
            BackendCandidate candidate{named->backend, named->base, s.extra, s.group,
                                       platforms,      s.where,     {}};
            candidate.described = (!s.extra.empty()   ? "extra '" + s.extra + "' of "
                                   : !s.group.empty() ? "group '" + s.group + "' of "
                                                      : std::string("the torch source of ")) +
                                  c.where_text(s.where);
            bool merged = false;
            for (auto& known : plan.candidates) {
                if (known.extra != candidate.extra || known.group != candidate.group) continue;
                if (known.backend == candidate.backend) {
                    known.platforms |= candidate.platforms;
                    merged = true;
                } else if ((known.platforms & candidate.platforms).any()) {
                    return util::input_problem(
                        s.where,
                        std::string(name) + " is taken from " + candidate.backend + " for " +
                            selector_words(candidate) + " on " +
                            describe_platforms(known.platforms & candidate.platforms) + ", where " +
                            c.where_text(known.where) + " names " + known.backend,
                        "the torch family comes from one backend index: name one backend per "
                        "extra (or group) and platform");
                }
            }
            if (!merged) plan.candidates.push_back(std::move(candidate));
        }
    }
    // The rest of the family (triton, xformers, …) from the same backend index follows it.
    for (const auto& [package, list] : uv.sources) {
        if (is_core(package) || skipped(package)) continue;
        for (const auto& s : list) {
            if (s.kind != UvSourceKind::index) continue;
            auto named = backend_index_url(c.indexes.at(s.location)->url);
            if (named && !plan.base.empty() && same_index_url(named->base, plan.base) &&
                std::find(plan.backend_index_packages.begin(), plan.backend_index_packages.end(),
                          package) == plan.backend_index_packages.end()) {
                plan.backend_index_packages.push_back(package);
            }
        }
    }
    return plan;
}

}  // namespace aitk::project::detail
