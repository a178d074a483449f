#include "aitk/app/torch_choice.hpp"

#include <algorithm>
#include <tuple>

#include "aitk/app/os_floor.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {
namespace {

std::string release_list(const platform::Tables& tables) {
    if (tables.releases.empty()) return "none";
    return tables.releases.front().torch.to_string() + " … " +
           tables.releases.back().torch.to_string();
}

std::vector<platform::ReleaseKey> every_release(const platform::Tables& tables) {
    std::vector<platform::ReleaseKey> out;
    for (auto it = tables.releases.rbegin(); it != tables.releases.rend(); ++it)
        out.push_back(it->torch);
    return out;
}

// The version an exact pin names ("==2.7.0+cu128" → 2.7.0+cu128), for messages.
std::optional<pep::Version> exact_pin(const pep::SpecifierSet& set) {
    if (set.size() != 1) return std::nullopt;
    const auto& clause = set.specifiers().front();
    if (clause.op() != pep::Operator::equal || clause.has_wildcard()) return std::nullopt;
    return clause.version();
}

std::optional<platform::ReleaseKey> release_of(const std::string& version) {
    auto v = pep::Version::parse(version);
    if (!v) return std::nullopt;
    return platform::ReleaseKey{static_cast<unsigned>(v->major()),
                                static_cast<unsigned>(v->minor())};
}

// The backend a locked torch was built for: its local label when that names one.
std::string locked_build_backend(const lock::LockedTarget& target, const std::string& version) {
    auto v = pep::Version::parse(version);
    if (v && v->has_local()) {
        auto label = platform::parse_backend_name(v->local());
        if (label && *label != "auto") return *label;
    }
    return target.backend;
}

// Best first: CUDA (stable before experimental, newest CUDA first), ROCm (newest first), XPU,
// MPS, CPU; then the newer torch.
auto preference_key(const std::string& backend, const std::optional<platform::ReleaseKey>& release,
                    const platform::Tables& tables) {
    int kind = 5;
    int experimental = 0;
    long number = 0;
    if (auto family = platform::cuda_family_of(backend)) {
        kind = 0;
        number = std::stol(backend.substr(2));
        const auto* r = release ? tables.release(*release) : nullptr;
        if (r && std::find(r->cuda_experimental.begin(), r->cuda_experimental.end(), backend) !=
                     r->cuda_experimental.end()) {
            experimental = 1;
        }
    } else if (backend.rfind("rocm", 0) == 0) {
        kind = 1;
        auto v = pep::Version::parse(backend.substr(4));
        if (v) number = static_cast<long>(v->major() * 100 + v->minor());
    } else if (backend == "xpu") {
        kind = 2;
    } else if (backend == "mps") {
        kind = 3;
    } else if (backend == "cpu") {
        kind = 4;
    }
    platform::ReleaseKey r = release.value_or(platform::ReleaseKey{});
    return std::make_tuple(kind, experimental, -number, -static_cast<long>(r.major),
                           -static_cast<long>(r.minor));
}

bool offered_anywhere(const std::string& backend, const platform::Tables& tables) {
    return std::any_of(tables.releases.begin(), tables.releases.end(),
                       [&](const auto& r) { return r.offers(backend); });
}

// A torch pin no release of the tables satisfies (torch 1.13, a future 3.0): its builds cannot
// be judged. A build named by the user or the input is locked as asked (the reason says it was
// not checked); a machine without a GPU gets the CPU build; a GPU machine is refused, since
// any build chosen for it would be a guess.
platform::BackendChoice unjudged_choice(const project::TorchPins& pins,
                                        const platform::BackendRequest& request,
                                        const Machine& machine) {
    platform::BackendChoice c;
    const std::string what = request.torch_text + " is not in aitk-env's release tables (" +
                             release_list(machine.tables) + ")";
    const bool gpu = platform::has_usable_gpu(machine.host, machine.hardware);
    auto take = [&](const std::string& backend, const std::string& why) {
        c.backend = backend;
        c.candidates = {backend};
        c.reason = what + "; " + why;
    };
    if (machine.forced_backend) {
        take(*machine.forced_backend, machine.forced_by + " " + *machine.forced_backend + " → " +
                                          *machine.forced_backend +
                                          " (not checked against this machine's driver and GPUs)");
        c.forced = true;
    } else if (pins.backend && (*pins.backend != "cpu" || !gpu)) {
        take(*pins.backend, pins.backend_by + " asks for " + *pins.backend + " → " + *pins.backend +
                                " (not checked against this machine's driver and GPUs)");
    } else if (!gpu) {
        const bool apple = machine.os == "macos" && machine.arch == "arm64";
        take(apple ? "mps" : "cpu",
             "no GPU torch would use here → " + std::string(apple ? "mps" : "cpu"));
    } else {
        c.reason = what + ", so no build of it can be judged for this machine's GPUs → refused";
        c.fix =
            "pin a torch release aitk-env knows, or name the build with --backend (e.g. "
            "--backend cu118)";
    }
    return c;
}

}  // namespace

platform::BackendRequest backend_request(const project::ProjectInput& input,
                                         const project::TorchPins& pins, const Machine& machine) {
    platform::BackendRequest r = platform::BackendRequest::ai_toolkit_default();
    r.preferred.clear();
    for (const auto* b : input.backends_for(machine.os, machine.arch))
        r.preferred.push_back(b->name);
    if (r.preferred.empty() && pins.index_backends.size() > 1) r.preferred = pins.index_backends;

    if (pins.torch_specifier.empty()) {
        // Unpinned: every release is a candidate, newest first; the index decides what exists.
        r.releases = every_release(machine.tables);
        r.torch_text = "torch (not pinned)";
    } else {
        auto set = pep::SpecifierSet::parse(pins.torch_specifier);
        if (!set) {
            throw util::InputError(input.name + ": torch" + pins.torch_specifier + ": " +
                                   set.error().describe());
        }
        auto exact = exact_pin(*set);
        r.torch_text = exact ? "torch " + exact->to_string() : "torch" + pins.torch_specifier;
        if (exact) r.torch = exact->public_version();
        // Empty when the pin is older (or newer) than every release of the tables: see
        // choose_host_builds.
        r.releases = platform::releases_allowing(*set, machine.tables);
    }
    // A project's own list of builds (its backend sources) in the choice's order for the newest
    // release it allows: stable builds before experimental ones.
    if (input.only_listed_backends && !r.releases.empty()) {
        if (const auto* release = machine.tables.release(r.releases.front())) {
            std::stable_partition(r.preferred.begin(), r.preferred.end(), [&](const auto& b) {
                return std::find(release->cuda_experimental.begin(),
                                 release->cuda_experimental.end(),
                                 b) == release->cuda_experimental.end();
            });
        }
    }
    if (pins.backend) {
        r.fixed = pins.backend;
        r.fixed_by = pins.backend_by;
        r.fixed_strict = pins.backend_strict;
    }
    r.forced = machine.forced_backend;
    r.forced_by = machine.forced_by;
    r.force = machine.force;
    return r;
}

std::string release_constraint(const std::vector<platform::ReleaseKey>& releases,
                               const platform::Tables& tables) {
    std::vector<platform::ReleaseKey> known;
    for (const auto& r : releases) {
        if (tables.release(r) && std::find(known.begin(), known.end(), r) == known.end())
            known.push_back(r);
    }
    if (known.empty()) return {};
    std::sort(known.begin(), known.end());
    const auto& lo = known.front();
    const auto& hi = known.back();
    std::string out = "torch>=" + lo.to_string() + ",<" +
                      platform::ReleaseKey{hi.major, hi.minor + 1}.to_string();
    for (const auto& r : tables.releases) {
        if (r.torch > lo && r.torch < hi &&
            std::find(known.begin(), known.end(), r.torch) == known.end()) {
            out += ",!=" + r.torch.to_string() + ".*";
        }
    }
    return out;
}

Machine machine_for(const project::ProjectInput& input, const Machine& machine) {
    if (!input.selected_backend) return machine;
    if (machine.forced_backend && *machine.forced_backend != *input.selected_backend) {
        throw util::InputError(machine.forced_by + " " + *machine.forced_backend + " and " +
                                   input.selected_backend_by + " ask for two torch builds",
                               "keep one of them");
    }
    Machine out = machine;
    out.forced_backend = input.selected_backend;
    out.forced_by = input.selected_backend_by;
    return out;
}

void keep_listed_backends(const project::ProjectInput& input, const Machine& machine,
                          platform::BackendChoice& choice) {
    if (!input.only_listed_backends) return;
    const auto listed_options = input.backends_for(machine.os, machine.arch);
    if (listed_options.empty()) return;
    std::vector<std::string> listed;
    std::vector<std::string> described;
    for (const auto* b : listed_options) {
        listed.push_back(b->name);
        described.push_back(b->name + (b->note.empty() ? "" : " (" + b->note + ")"));
    }
    auto is_listed = [&](const std::string& name) {
        return std::find(listed.begin(), listed.end(), name) != listed.end();
    };
    // PyPI's macOS torch runs MPS; so does the cpu index's, which is the same build.
    const bool mps_as_cpu = machine.os == "macos" && is_listed("cpu") && !is_listed("mps");
    auto as_listed = [&](const std::string& name) {
        return mps_as_cpu && name == "mps" ? std::string("cpu") : name;
    };
    std::vector<std::string> kept;
    for (const auto& c : choice.candidates) {
        const auto name = as_listed(c);
        if (is_listed(name) && std::find(kept.begin(), kept.end(), name) == kept.end())
            kept.push_back(name);
    }
    for (auto& pair : choice.pairs)
        pair.backend = as_listed(pair.backend);
    if (choice.refused()) return;  // the choice says why nothing runs
    const std::string chosen = as_listed(*choice.backend);
    if (is_listed(chosen)) {
        if (chosen != *choice.backend) {
            choice.reason += "; " + input.name + " takes torch for macOS from the cpu index → cpu";
        }
        choice.backend = chosen;
        choice.candidates = kept;
        return;
    }
    choice.reason += "; but " + input.name + " takes torch on " + machine.os + "-" + machine.arch +
                     " only from " + util::join(described, ", ") + " → refused";
    choice.backend.reset();
    choice.candidates.clear();
    choice.pairs.clear();
    choice.fix =
        "ask for one of the project's builds with --extra or --backend (add --force "
        "when this machine cannot run it: " +
        util::join(listed, ", ") + "), or add a source for " + chosen + " to the project";
}

HostChoice choose_host_builds(const project::ProjectInput& input, const Machine& given) {
    given.require_target_os();
    if (!input.allows_platform(given.os, given.arch)) {
        throw resolve::Unsatisfiable(input.name + " is not for " + given.os + "-" + given.arch +
                                         " (" + input.platforms_by + ")",
                                     "lock it with --target for a platform it is for");
    }
    const Machine machine = machine_for(input, given);
    auto pins = project::torch_pins(input);
    if (!pins) throw pins.error().to_error();
    auto request = backend_request(input, *pins, machine);
    HostChoice out;
    if (request.releases.empty()) {
        out.choice = unjudged_choice(*pins, request, machine);
    } else {
        out.choice =
            platform::choose_backend(machine.host, machine.hardware, request, machine.tables);
    }
    // A snapshot's build older than every release aitk-env knows (cudatoolkit 10.2 → cu102)
    // cannot be judged here: it is locked as the input asks, and the reason says so. A pin's
    // label and the CPU build are judged as always.
    if (out.choice.refused() && pins->backend && !pins->backend_strict && *pins->backend != "cpu" &&
        !offered_anywhere(*pins->backend, machine.tables)) {
        out.choice.backend = pins->backend;
        out.choice.candidates = {*pins->backend};
        out.choice.reason = pins->backend_by + " asks for " + *pins->backend +
                            ", which no torch release aitk-env knows (" +
                            release_list(machine.tables) +
                            ") is built for: it is locked as asked, without checking it against "
                            "this machine's driver and GPUs";
        out.choice.fix.clear();
    }
    keep_listed_backends(input, machine, out.choice);
    if (out.choice.refused()) {
        throw resolve::Unsatisfiable("no build of the torch " + input.name +
                                         " asks for runs on this machine: " + out.choice.reason,
                                     out.choice.fix);
    }
    for (const auto& backend : out.choice.candidates) {
        LockAttempt attempt;
        attempt.backend = backend;
        attempt.target = machine.target_id(backend);
        attempt.releases = out.choice.releases_of(backend);
        attempt.torch_constraint = release_constraint(attempt.releases, machine.tables);
        out.attempts.push_back(std::move(attempt));
    }
    return out;
}

LockTargetJudgement judge_lock_targets(const lock::Lockfile& lock, const Machine& machine,
                                       const std::optional<std::string>& wanted) {
    LockTargetJudgement out;
    const bool cpu_forced = machine.forced_backend && *machine.forced_backend == "cpu";
    std::vector<std::optional<platform::ReleaseKey>> releases;
    for (const auto& t : lock.targets) {
        LockTargetVerdict v;
        v.id = t.id;
        std::optional<platform::ReleaseKey> release;
        if (const auto* torch = t.find("torch")) {
            v.torch = torch->version;
            release = release_of(torch->version);
        }
        releases.push_back(release);
        if (t.os != machine.os || t.arch != machine.arch) {
            v.why = "for " + t.os + "-" + t.arch + " (this machine is " + machine.os + "-" +
                    machine.arch + ")";
        } else if (!release) {
            // Without torch the backend decides nothing that could fail here.
            v.runs = true;
            v.why = "holds no torch";
        } else {
            const bool named = cpu_forced || (wanted && *wanted == t.id);
            auto verdict =
                platform::judge_build(machine.host, machine.hardware, *release,
                                      locked_build_backend(t, v.torch), machine.tables, named);
            v.runs = verdict.runs;
            v.why = verdict.why;
        }
        // A build that runs here still needs the glibc (or macOS) its wheels were made for.
        if (v.runs) {
            if (auto problem = floor_problem(t, machine.host)) {
                v.runs = false;
                v.why = problem->why;
                v.fix = problem->fix;
            }
        }
        out.targets.push_back(std::move(v));
    }

    auto describe = [&](const LockTargetVerdict& v) {
        return v.id + (v.torch.empty() ? "" : " (torch " + v.torch + ")") + ": " + v.why;
    };
    auto everything = [&] {
        std::vector<std::string> parts;
        for (const auto& v : out.targets)
            parts.push_back(describe(v));
        return util::join(parts, "; ");
    };
    auto choose = [&](std::size_t i, std::string why) {
        out.chosen = i;
        out.targets[i].chosen = true;
        out.reason = std::move(why);
    };

    // A target named by --target, or the one of a forced backend: honoured or refused.
    std::optional<std::string> named = wanted;
    std::string named_by = "--target " + (wanted ? *wanted : std::string());
    if (!named && machine.forced_backend) {
        named = machine.target_id(*machine.forced_backend);
        named_by = machine.forced_by + " " + *machine.forced_backend;
    }
    if (named) {
        for (std::size_t i = 0; i < out.targets.size(); ++i) {
            const auto& v = out.targets[i];
            if (v.id != *named) continue;
            if (v.runs) {
                choose(i, named_by + ": " + describe(v));
            } else if (machine.force && lock.targets[i].os == machine.os &&
                       lock.targets[i].arch == machine.arch) {
                choose(i, named_by + " with --force although " + describe(v));
            } else {
                out.reason = named_by + ", but " + describe(v) + " → refused";
                out.fix = v.fix.empty()
                              ? "drop " + named_by.substr(0, named_by.find(' ')) +
                                    " to use the best target this machine runs, or add --force "
                                    "to install it anyway (e.g. for another machine)"
                              : v.fix +
                                    "; or add --force to install it anyway (e.g. for "
                                    "another machine)";
            }
            return out;
        }
        out.reason = named_by + ", but the lockfile has no target " + *named + " (it has " + [&] {
            std::vector<std::string> ids;
            for (const auto& v : out.targets)
                ids.push_back(v.id);
            return util::join(ids, ", ");
        }() + ") → refused";
        out.fix = "lock for it: aitk-env lock --target " + *named;
        return out;
    }

    // The targets that run, by preference; then the one rule of platform::rank_by_driver_fit
    // (builds the driver runs natively before those that lean on minor-version compatibility).
    std::vector<std::size_t> running;
    for (std::size_t i = 0; i < out.targets.size(); ++i) {
        if (out.targets[i].runs) running.push_back(i);
    }
    auto key_of = [&](std::size_t i) {
        return preference_key(locked_build_backend(lock.targets[i], out.targets[i].torch),
                              releases[i], machine.tables);
    };
    std::stable_sort(running.begin(), running.end(),
                     [&](std::size_t a, std::size_t b) { return key_of(a) < key_of(b); });
    std::vector<std::string> builds;
    for (std::size_t i : running)
        builds.push_back(locked_build_backend(lock.targets[i], out.targets[i].torch));
    std::optional<std::size_t> best;
    if (!running.empty()) {
        best = running[platform::rank_by_driver_fit(builds, machine.host, machine.hardware,
                                                    machine.tables)
                           .front()];
    }
    if (best) {
        std::vector<std::string> others;
        for (std::size_t i = 0; i < out.targets.size(); ++i) {
            if (i != *best) others.push_back(describe(out.targets[i]));
        }
        choose(*best, "this machine runs " + describe(out.targets[*best]) +
                          (others.empty() ? "" : "; the others: " + util::join(others, "; ")));
        return out;
    }

    out.reason = "no target of the lockfile runs on this machine: " + everything();
    // A target whose build would run but whose wheels need a newer glibc: its fix is the one.
    for (const auto& v : out.targets) {
        if (!v.fix.empty()) {
            out.fix = v.fix;
            return out;
        }
    }
    // What would run: the best build of the lock's torch releases on this machine.
    platform::BackendRequest request;
    std::vector<platform::ReleaseKey> keys;
    for (const auto& r : releases) {
        if (r && std::find(keys.begin(), keys.end(), *r) == keys.end()) keys.push_back(*r);
    }
    std::sort(keys.begin(), keys.end(), std::greater<>());
    request.releases = keys;
    request.torch = *pep::Version::parse(keys.empty() ? "2.13.0" : keys.front().to_string());
    auto best_here =
        platform::choose_backend(machine.host, machine.hardware, request, machine.tables);
    if (best_here.backend) {
        out.fix = "lock for it: aitk-env lock --target " + machine.target_id(*best_here.backend);
    } else {
        out.fix = best_here.fix;
    }
    const bool has_cpu = std::any_of(lock.targets.begin(), lock.targets.end(), [&](const auto& t) {
        return t.os == machine.os && t.arch == machine.arch && t.backend == "cpu";
    });
    if (has_cpu && !cpu_forced) {
        out.fix += "; the lock's " + machine.target_id("cpu") +
                   " target installs only with --backend cpu (CPU torch on a GPU machine)";
    }
    return out;
}

const lock::LockedTarget& choose_lock_target(const lock::Lockfile& lock, const Machine& machine,
                                             std::string& reason,
                                             const std::optional<std::string>& wanted) {
    machine.require_target_os();
    auto judged = judge_lock_targets(lock, machine, wanted);
    if (!judged.chosen) throw resolve::Unsatisfiable(judged.reason, judged.fix);
    reason = judged.reason;
    return lock.targets[*judged.chosen];
}

const lock::LockedTarget& choose_sync_target(const lock::Lockfile& lock, const Machine& machine,
                                             const std::optional<std::string>& wanted,
                                             const std::optional<std::string>& prefix_target,
                                             std::string& reason) {
    if (wanted) return choose_lock_target(lock, machine, reason, wanted);
    std::optional<std::string> id = prefix_target;
    std::string why = "the target the prefix was set up for";
    if ((!id || id->empty()) && lock.targets.size() == 1) {
        id = lock.targets.front().id;
        why = "the lockfile's only target";
    }
    if (!id || id->empty()) return choose_lock_target(lock, machine, reason);
    machine.require_target_os();
    auto judged = judge_lock_targets(lock, machine);
    for (std::size_t i = 0; i < judged.targets.size(); ++i) {
        const auto& v = judged.targets[i];
        if (v.id != *id) continue;
        if (v.runs || machine.force) {
            reason = why + ": " + v.id + (v.runs ? "" : " (with --force although " + v.why + ")");
            return lock.targets[i];
        }
        std::string fix =
            judged.chosen ? "pass --target " + judged.targets[*judged.chosen].id + " (it runs here)"
                          : "lock for this machine";
        if (!v.fix.empty()) fix = v.fix;
        if (lock.targets[i].backend == "cpu" && v.fix.empty())
            fix += ", or --backend cpu to keep the CPU build";
        throw resolve::Unsatisfiable(why + ", " + v.id +
                                         (v.torch.empty() ? "" : " (torch " + v.torch + ")") +
                                         ", does not run on this machine: " + v.why,
                                     fix + ", or add --force to install it anyway");
    }
    throw util::InputError("the lockfile has no target '" + *id + "' (" + why + ")",
                           "pass --target OS-ARCH-BACKEND");
}

nlohmann::json LockTargetJudgement::to_json() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& t : targets) {
        list.push_back(
            {{"id", t.id},
             {"torch", t.torch.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.torch)},
             {"runs", t.runs},
             {"chosen", t.chosen},
             {"why", t.why}});
    }
    return {{"targets", list},
            {"chosen", chosen ? nlohmann::json(targets[*chosen].id) : nlohmann::json(nullptr)},
            {"reason", reason},
            {"fix", fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(fix)}};
}

}  // namespace aitk::app
