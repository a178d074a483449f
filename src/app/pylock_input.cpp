// A PEP 751 pylock.toml as aitk-env's lockfile: which platform, Python and extras each target
// installs, and which torch build (backend) each target holds, so that choose_lock_target
// judges a pylock.toml's builds against this machine as it judges a lockfile's targets.
#include "pylock_input.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/project/target.hpp"
#include "aitk/project/torch_pins.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app::pylock_detail {
namespace {

// The Python a lock is made for when nothing says (as `lock`'s own default).
constexpr std::string_view preferred_python = "3.12";

struct Platform {
    std::string os;
    std::string arch;
    std::string id() const { return os + "-" + arch; }
};

// One install of the file: a platform, a Python, the extras; converted, or why not.
struct Attempt {
    std::vector<std::string> extras;
    std::optional<lock::LockedTarget> target;  // the backend not yet decided
    std::optional<lock::PylockProblem> problem;
    bool has_torch = false;
    std::optional<std::string> backend;  // what the torch family's files say
    std::string backend_by;              // "torch 2.7.0+cu128", "the index …/whl/cu128"
    std::string torch;                   // "torch 2.7.0" (the first core package met)
    std::size_t source_builds = 0;       // packages without a wheel
};

// What a target of the converted lock installs.
struct Planned {
    Platform platform;
    std::string backend;
    std::vector<std::string> extras;
    std::string origin;  // "extra 'cu128' of pylock.toml"; "" when nothing chose it
};

class Converter {
  public:
    Converter(const lock::Pylock& pylock, const std::filesystem::path& path,
              const LockReadOptions& options)
        : pylock_(pylock), file_(util::utf8_of(path.filename())) {
        const auto folder = path.parent_path();
        places_.local_url = [folder](std::string_view written) {
            return index::path_to_file_url(
                fs::absolute_from(folder, util::path_from_utf8(std::string(written)))
                    .lexically_normal());
        };
        places_.index_backend = [](std::string_view url) -> std::optional<std::string> {
            if (auto named = project::backend_index_url(url)) return named->backend;
            return std::nullopt;
        };
        if (!options.no_default_groups) groups_ = pylock.default_groups;
        for (const auto& group : options.groups) {
            if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) {
                groups_.push_back(group);
            }
        }
    }

    const std::string& file() const { return file_; }

    // Converts the file for `platform`, `python` (full) and `extras`; `indexes` collects the
    // indexes the target uses.
    Attempt attempt(const Platform& platform, const std::string& python,
                    const std::vector<std::string>& extras,
                    std::vector<lock::LockedIndex>& indexes) const {
        Attempt out;
        out.extras = extras;
        const auto version = pep::Version::parse(python);
        const project::Target target{platform.os, platform.arch, "cpu"};
        lock::PylockSelection selection;
        selection.environment = project::marker_environment(target, *version);
        selection.extras = extras;
        selection.groups = groups_;
        auto selected = lock::select_pylock_packages(pylock_, selection);
        if (!selected) {
            out.problem = selected.error();
            return out;
        }
        lock::PylockTarget spec;
        spec.id = platform.id();
        spec.os = platform.os;
        spec.arch = platform.arch;
        spec.python = python;
        spec.environment = selection.environment;
        spec.tags = pep::TagPriority::for_target(project::tag_platform(target, *version));
        auto converted = lock::pylock_target(*selected, spec, places_, indexes);
        if (!converted) {
            out.problem = converted.error();
            return out;
        }
        out.target = std::move(*converted);
        for (const auto& package : out.target->packages) {
            if (!package.wheel) ++out.source_builds;
        }
        find_backend(out, indexes);
        if (out.target && out.has_torch && !out.backend) pypi_backend(out, platform);
        return out;
    }

  private:
    // The torch build the core of the torch family was made for: a local label ("+cu128"),
    // the backend index it comes from (…/whl/cu128), or the folder of its file's URL.
    void find_backend(Attempt& attempt, const std::vector<lock::LockedIndex>& indexes) const {
        const auto core = index::default_torch_core();
        for (const auto& package : attempt.target->packages) {
            if (std::find(core.begin(), core.end(), package.name) == core.end()) continue;
            if (!attempt.has_torch) {
                attempt.has_torch = true;
                attempt.torch =
                    package.name + (package.version.empty() ? "" : " " + package.version);
            }
            std::vector<std::pair<std::string, std::string>> named;  // backend, by what
            if (auto v = pep::Version::parse(package.version); v && v->has_local()) {
                auto label = platform::parse_backend_name(v->local());
                if (label && *label != "auto") {
                    named.emplace_back(*label, package.name + " " + package.version);
                }
            }
            for (const auto& index : indexes) {
                if (index.name != package.index) continue;
                if (auto b = project::backend_index_url(index.url)) {
                    named.emplace_back(b->backend, "the index " + util::redact_url(index.url));
                }
            }
            const std::string url = package.wheel    ? package.wheel->url
                                    : package.source ? package.source->url
                                                     : std::string();
            if (const auto slash = url.rfind('/'); slash != std::string::npos) {
                if (auto b = project::backend_index_url(url.substr(0, slash))) {
                    named.emplace_back(b->backend, "the URL of " + package.name + "'s file");
                }
            }
            for (auto& [backend, by] : named) {
                if (!attempt.backend) {
                    attempt.backend = backend;
                    attempt.backend_by = by;
                } else if (*attempt.backend != backend) {
                    lock::PylockProblem problem;
                    problem.problem.where.file = pylock_.file;
                    problem.problem.message =
                        "the torch family names two builds: " + *attempt.backend + " (" +
                        attempt.backend_by + ") and " + backend + " (" + by + ")";
                    problem.problem.hint =
                        "lock again so that torch, torchvision and torchaudio come from one "
                        "backend";
                    attempt.problem = std::move(problem);
                    attempt.target.reset();
                    return;
                }
            }
        }
    }

    // A torch without a local label from an index that names no build is PyPI's (uv exports
    // such a file for a project that takes torch from PyPI). On Linux that build depends on
    // NVIDIA's CUDA runtime package, whose version is the build's CUDA (12.8.90 → cu128); on
    // Windows PyPI's torch is the CPU build. Anything else stays unknown (the caller asks for
    // --target).
    static void pypi_backend(Attempt& attempt, const Platform& platform) {
        for (const auto& package : attempt.target->packages) {
            const bool runtime = package.name == "nvidia-cuda-runtime" ||
                                 package.name == "nvidia-cuda-runtime-cu11" ||
                                 package.name == "nvidia-cuda-runtime-cu12";
            if (!runtime) continue;
            const auto version = pep::Version::parse(package.version);
            if (!version || version->release().size() < 2) continue;
            const auto major = version->release()[0];
            if (!package.name.ends_with("-cu" + std::to_string(major)) &&
                package.name != "nvidia-cuda-runtime") {
                continue;
            }
            const std::string backend =
                "cu" + std::to_string(major) + std::to_string(version->release()[1]);
            auto named = platform::parse_backend_name(backend);
            if (!named || *named != backend) continue;
            attempt.backend = backend;
            attempt.backend_by = "its CUDA runtime " + package.name + " " + package.version;
            return;
        }
        if (platform.os == "windows") {
            attempt.backend = "cpu";
            attempt.backend_by = "PyPI's torch for Windows";
        }
    }

    const lock::Pylock& pylock_;
    std::string file_;
    lock::PylockPlaces places_;
    std::vector<std::string> groups_;
};

// A problem of the file or of what was asked is bad input (exit 2); a valid file that this
// machine, target or Python cannot install is unsatisfiable (exit 3), as a lock target that does
// not run here is.
[[noreturn]] void fail(const lock::PylockProblem& problem) {
    if (problem.fits_elsewhere) {
        throw resolve::Unsatisfiable(problem.problem.describe(), problem.problem.hint);
    }
    throw problem.problem.to_error();
}

// The full Python versions to try, best guess first: --python as given, else per X.Y aitk-env
// can install the newest patch release the file's requires-python allows (its newest when none
// does), newest X.Y first.
std::vector<std::string> python_candidates(const LockReadOptions& options,
                                           const lock::Pylock& pylock) {
    const auto& builds = python::standalone_builds();
    if (options.python) {
        auto full = python::full_python_version(*options.python, builds);
        if (!full) {
            throw util::InputError(
                "--python " + *options.python + ": no known CPython " + *options.python,
                "give X.Y (3.10 … 3.14) or a full version such as 3.12.3");
        }
        return {*full};
    }
    std::map<std::string, std::vector<pep::Version>> by_pair;
    for (const auto& build : builds) {
        auto version = pep::Version::parse(build.version);
        if (version) by_pair[util::major_minor(build.version)].push_back(*version);
    }
    std::vector<pep::Version> chosen;
    for (auto& [pair, versions] : by_pair) {
        std::sort(versions.begin(), versions.end(),
                  [](const auto& a, const auto& b) { return b < a; });
        const pep::Version* pick = &versions.front();
        if (pylock.requires_python) {
            for (const auto& v : versions) {
                if (pylock.requires_python->contains(v, true)) {
                    pick = &v;
                    break;
                }
            }
        }
        chosen.push_back(*pick);
    }
    std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return b < a; });
    std::vector<std::string> out;
    for (const auto& v : chosen)
        out.push_back(v.to_string());
    return out;
}

// The Python every platform installs the file with: the one with the fewest source builds
// (wheels over builds), then lock's default 3.12, then the newest.
std::string choose_python(const Converter& converter, const lock::Pylock& pylock,
                          const std::vector<Platform>& platforms, const LockReadOptions& options) {
    const auto candidates = python_candidates(options, pylock);
    std::optional<std::string> best;
    std::size_t best_builds = 0;
    std::optional<lock::PylockProblem> first_problem;
    for (const auto& python : candidates) {
        std::size_t builds = 0;
        bool fits = true;
        for (const auto& platform : platforms) {
            std::vector<lock::LockedIndex> scratch;
            auto attempt = converter.attempt(platform, python, options.extras, scratch);
            if (attempt.problem) {
                if (!first_problem || util::major_minor(python) == preferred_python) {
                    first_problem = attempt.problem;
                }
                fits = false;
                break;
            }
            builds += attempt.source_builds;
        }
        if (!fits) continue;
        const bool better =
            !best || builds < best_builds ||
            (builds == best_builds && util::major_minor(python) == preferred_python);
        if (better) {
            best = python;
            best_builds = builds;
        }
    }
    if (!best) {
        lock::PylockProblem problem = *first_problem;
        // Only a file that another Python could install gets the list of Pythons tried; a
        // problem of the file itself is the same on every one.
        if (!options.python && problem.fits_elsewhere) {
            auto& hint = problem.problem.hint;
            hint = (hint.empty() ? "" : hint + "; ") + "no Python aitk-env installs (" + [&] {
                std::vector<std::string> pairs;
                for (const auto& p : candidates)
                    pairs.push_back(util::major_minor(p));
                return util::join(pairs, ", ");
            }() + ") installs this lock file";
        }
        fail(problem);
    }
    return *best;
}

// The backend of a converted install: what its torch says, "cpu" without torch, "mps" for a
// macOS arm64 torch (PyPI's build there); nothing when its torch does not say.
std::optional<std::string> backend_of(const Attempt& attempt, const Platform& platform) {
    if (attempt.backend) return attempt.backend;
    if (!attempt.has_torch) return std::string("cpu");
    if (platform.os == "macos") return std::string(platform.arch == "x86_64" ? "cpu" : "mps");
    return std::nullopt;
}

std::string extras_origin(const std::vector<std::string>& extras, const std::string& file) {
    if (extras.empty()) return {};
    std::vector<std::string> names;
    for (const auto& e : extras)
        names.push_back(util::single_quoted(e));
    return (extras.size() == 1 ? "extra " : "extras ") + util::join(names, ", ") + " of " + file;
}

// What `platform` installs: with --extra, that selection; else the file's default install, and
// the extras that choose a torch build (backend candidates): an extra named as a backend (uv's
// `cu128`, `cpu`), or any extra when the extras select different builds (`gpu` and `cpu`). An
// extra that only adds torch is not a choice of build, and stays off as PEP 751 says. `wanted`:
// the backend a --target names, which picks among them.
std::vector<Planned> plan_platform(const Converter& converter, const lock::Pylock& pylock,
                                   const Platform& platform, const std::string& python,
                                   const LockReadOptions& options,
                                   const std::optional<std::string>& wanted) {
    std::vector<lock::LockedIndex> scratch;
    const Attempt base = converter.attempt(platform, python, options.extras, scratch);
    std::vector<Attempt> variants;
    if (options.extras.empty()) {
        std::set<std::string> builds;
        if (base.target && base.has_torch) builds.insert(base.backend.value_or("?"));
        for (const auto& extra : pylock.extras) {
            auto variant = converter.attempt(platform, python, {extra}, scratch);
            if (variant.problem || !variant.has_torch) continue;
            if (base.target && base.has_torch && variant.backend == base.backend) continue;
            builds.insert(variant.backend.value_or("?"));
            variants.push_back(std::move(variant));
        }
        if (builds.size() < 2) {
            std::erase_if(variants, [](const Attempt& v) {
                auto named = platform::parse_backend_name(v.extras.front());
                return !named || *named == "auto";
            });
        }
    }
    auto unknown_backend = [&](const Attempt& attempt) {
        return util::InputError(
            converter.file() + ": " + attempt.torch +
                " does not say which torch build it is (no local label such as +cu128, no "
                "backend index such as …/whl/cu128)",
            "name the target with the build its torch is: --target " + platform.id() +
                "-<backend> (cpu, cu128, …)");
    };
    std::vector<Planned> out;
    auto add = [&](const Attempt& attempt) {
        auto backend = backend_of(attempt, platform);
        if (!backend && !wanted) throw unknown_backend(attempt);
        const std::string build = backend ? *backend : *wanted;
        for (const auto& planned : out) {
            if (planned.backend == build) return;  // the first extra of a build wins
        }
        out.push_back(Planned{platform, build, attempt.extras,
                              extras_origin(attempt.extras, converter.file())});
    };
    if (base.target && (base.has_torch || variants.empty())) add(base);
    for (const auto& variant : variants)
        add(variant);
    if (out.empty()) fail(*base.problem);
    if (!wanted) return out;
    for (auto& planned : out) {
        if (planned.backend == *wanted) return {planned};
    }
    // A file without torch installs the same on every backend: the target names which.
    if (out.size() == 1 && base.target && !base.has_torch) {
        out.front().backend = *wanted;
        return out;
    }
    std::vector<std::string> offered;
    for (const auto& planned : out) {
        offered.push_back(planned.backend +
                          (planned.origin.empty() ? "" : " (" + planned.origin + ")"));
    }
    throw resolve::Unsatisfiable(
        converter.file() + " has no " + *wanted + " build for " + platform.id() +
            "; it has: " + util::join(offered, ", "),
        "pass --target " + platform.id() + "-" + out.front().backend + " or drop --target");
}

std::string lock_name(const std::filesystem::path& path) {
    const std::string file = util::utf8_of(path.filename());
    std::string name = "pylock";
    if (file.size() > 12) name = file.substr(7, file.size() - 12);  // pylock.NAME.toml
    return util::path_name_problem(name) ? std::string("pylock") : name;
}

}  // namespace

ReadLock lock_from_pylock(const lock::Pylock& pylock, const std::filesystem::path& path,
                          std::string_view bytes, const LockReadOptions& options) {
    ReadLock out;
    for (const auto& warning : pylock.warnings)
        out.notes.push_back(warning.describe());
    const Converter converter(pylock, path, options);

    // The platforms and the backend each --target names; else this machine's platform.
    std::vector<std::pair<Platform, std::optional<std::string>>> wanted;
    if (options.targets.empty()) {
        if (options.host_os.empty()) {
            throw util::InputError(converter.file() +
                                       ": this machine's OS is not one a lock "
                                       "target names",
                                   "name the target with --target OS-ARCH-BACKEND");
        }
        wanted.push_back({Platform{options.host_os, options.host_arch}, std::nullopt});
    }
    for (const auto& id : options.targets) {
        auto target = project::Target::parse(id);
        if (!target) throw util::InputError("--target " + id + ": " + target.error());
        wanted.push_back({Platform{target->os, target->arch}, target->backend});
    }
    std::vector<Platform> platforms;
    for (const auto& want : wanted) {
        const Platform& platform = want.first;
        if (std::none_of(platforms.begin(), platforms.end(),
                         [&](const Platform& p) { return p.id() == platform.id(); })) {
            platforms.push_back(platform);
        }
    }
    const std::string python = choose_python(converter, pylock, platforms, options);

    std::vector<Planned> planned;
    for (const auto& [platform, backend] : wanted) {
        for (auto& p : plan_platform(converter, pylock, platform, python, options, backend)) {
            const std::string id = p.platform.id() + "-" + p.backend;
            if (std::any_of(planned.begin(), planned.end(), [&](const Planned& q) {
                    return q.platform.id() + "-" + q.backend == id;
                })) {
                continue;
            }
            planned.push_back(std::move(p));
        }
    }

    lock::Lockfile& lock = out.lock;
    lock.name = lock_name(path);
    lock.generator = std::string("aitk-env ") + AITK_ENV_VERSION;
    lock.python_requires = pylock.requires_python_text;
    fs::Sha256 hash;
    auto field = [&](std::string_view label, std::string_view value) {
        hash.update(label);
        hash.update(std::string_view("\0", 1));
        hash.update(std::to_string(value.size()));
        hash.update(std::string_view("\0", 1));
        hash.update(value);
    };
    field("pylock", bytes);
    field("python", python);
    for (const auto& p : planned) {
        const std::string id = p.platform.id() + "-" + p.backend;
        if (auto problem =
                project::combination_problem(p.platform.os, p.platform.arch, p.backend)) {
            throw util::InputError(converter.file() + ": the target " + id +
                                       " is not one torch "
                                       "ships: " +
                                       problem->message,
                                   problem->hint);
        }
        auto attempt = converter.attempt(p.platform, python, p.extras, lock.indexes);
        if (attempt.problem) fail(*attempt.problem);
        lock::LockedTarget target = std::move(*attempt.target);
        target.id = id;
        target.backend = p.backend;
        if (lock.default_target.empty()) lock.default_target = id;
        if (!p.origin.empty()) out.backend_origin[id] = p.origin;
        field("target", id + " " + util::join(p.extras, ","));
        lock.targets.push_back(std::move(target));
    }
    for (const auto& group : options.groups)
        field("group", group);
    if (options.no_default_groups) field("no-default-groups", "1");
    lock.input_hash = "sha256:" + hash.finish_hex();
    std::sort(lock.targets.begin(), lock.targets.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    out.notes.push_back(converter.file() + ": Python " + python + ", " +
                        std::to_string(lock.targets.size()) + " target" +
                        (lock.targets.size() == 1 ? "" : "s") + " (" +
                        [&] {
                            std::vector<std::string> ids;
                            for (const auto& t : lock.targets)
                                ids.push_back(t.id);
                            return util::join(ids, ", ");
                        }() +
                        ")");
    return out;
}

}  // namespace aitk::app::pylock_detail
