// A uv.lock read and converted into lockfile targets (app/uv_lock_input.hpp).
#include "aitk/app/uv_lock_input.hpp"

#include "aitk/app/lock.hpp"

#include <algorithm>
#include <set>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/index/url.hpp"
#include "aitk/lock/uv_lock.hpp"
#include "aitk/lock/uv_lock_install.hpp"
#include "aitk/lock/uv_lock_project.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/project/target.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

// The lock and what pyproject.toml beside it says.
struct LoadedUvLock {
    lock::UvLock lock;
    std::optional<lock::UvProject> project;
    std::string text;  // the lock's bytes (the input hash covers them)
    std::string label;
};

LoadedUvLock load(const stdfs::path& path) {
    LoadedUvLock out;
    out.label = util::utf8_of(path);
    std::error_code ec;
    if (!stdfs::exists(path, ec)) {
        throw util::InputError("uv.lock " + out.label + " does not exist",
                               "make it with `uv lock`, or pass the path of an existing one");
    }
    auto text = fs::read_input_file(path, fs::lockfile);
    if (!text) {
        throw util::InputError("uv.lock " + out.label + ": " + text.error(),
                               "pass the uv.lock `uv lock` wrote");
    }
    out.text = std::move(*text);
    auto parsed = lock::parse_uv_lock(out.text, out.label);
    if (!parsed) throw parsed.error().to_error();
    out.lock = std::move(*parsed);
    const auto pyproject = path.parent_path() / "pyproject.toml";
    if (stdfs::is_regular_file(pyproject, ec)) {
        auto project_text = fs::read_input_file(pyproject, fs::pyproject_file);
        if (!project_text) {
            throw util::InputError(util::utf8_of(pyproject) + ": " + project_text.error());
        }
        auto project = lock::parse_uv_project(*project_text, util::utf8_of(pyproject));
        if (!project) throw project.error().to_error();
        out.project = std::move(*project);
    }
    return out;
}

std::vector<std::string> normalised(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& n : names)
        out.push_back(pep::canonicalize_name(n));
    return out;
}

lock::UvSelection base_selection(const UvLockOptions& options,
                                 const std::optional<lock::UvProject>& project) {
    lock::UvSelection s;
    s.extras = normalised(options.extras);
    s.all_extras = options.all_extras;
    s.groups = normalised(options.groups);
    s.no_default_groups = options.no_default_groups;
    if (project) {
        s.default_groups = project->default_groups;
        s.all_default_groups = project->all_default_groups;
    }
    return s;
}

// The Python the markers are evaluated for (a full version, as lock targets record it).
std::string choose_python(const UvLockRequest& request, const lock::UvLock& lock) {
    const auto allowed = pep::SpecifierSet::parse(lock.requires_python);
    auto fits = [&](const std::string& full) {
        auto v = pep::Version::parse(full);
        return !allowed || (v && allowed->contains(*v, true));
    };
    std::optional<std::string> wanted = request.python;
    std::string from = "--python";
    if (!wanted) {
        const auto pinned = request.path.parent_path() / ".python-version";
        std::error_code ec;
        if (stdfs::is_regular_file(pinned, ec)) {
            auto text = fs::read_input_file(pinned, fs::config_file);
            if (text) {
                std::string first(util::trim(text->substr(0, text->find('\n'))));
                if (!first.empty()) {
                    wanted = first;
                    from = util::utf8_of(pinned);
                }
            }
        }
    }
    const auto& builds = python::standalone_builds();
    if (!wanted) {
        // 3.12 (what aitk-env locks for by default), else the newest CPython the lock allows.
        if (auto full = python::full_python_version("3.12", builds); full && fits(*full))
            return *full;
        std::optional<std::string> best;
        for (int minor = 8; minor <= 30; ++minor) {
            auto full = python::full_python_version("3." + std::to_string(minor), builds);
            if (full && fits(*full)) best = full;
        }
        if (!best) {
            throw util::InputError(
                "no CPython aitk-env knows satisfies the lock's requires-python " +
                    lock.requires_python,
                "pass --python X.Y");
        }
        return *best;
    }
    auto full = python::full_python_version(*wanted, builds);
    if (!full) {
        throw util::InputError(from + " " + *wanted + ": no known CPython " + *wanted,
                               "give X.Y (3.10 … 3.14) or a full version such as 3.12.3");
    }
    if (!fits(*full)) {
        throw util::InputError(
            "Python " + *full + " (" + from +
                ") is outside the lock's "
                "requires-python " +
                lock.requires_python,
            "pass --python with a version that satisfies " + lock.requires_python);
    }
    return *full;
}

// Which backend the target's torch is built for; nullopt when the target has no torch.
std::optional<std::string> torch_backend(const lock::UvLock& lock, const lock::UvInstallSet& set,
                                         const std::string& os, const std::string& arch) {
    const lock::UvPackage* torch = nullptr;
    std::string cuda_runtime;  // "12.8.90" from nvidia-cuda-runtime-cu12 (or -runtime for 13)
    for (const auto& s : set.packages) {
        const auto& p = lock.packages[s.package];
        if (p.name == "torch") torch = &p;
        if (p.name.starts_with("nvidia-cuda-runtime")) cuda_runtime = p.version;
    }
    if (torch == nullptr) return std::nullopt;
    if (torch->source.kind == lock::UvSource::Kind::registry) {
        std::string_view location = torch->source.location;
        while (!location.empty() && location.back() == '/')
            location.remove_suffix(1);
        const auto segment = location.substr(location.find_last_of('/') + 1);
        if (auto backend = platform::parse_backend_name(segment)) return *backend;
    }
    if (auto version = pep::Version::parse(torch->version); version && version->has_local()) {
        if (auto backend = platform::parse_backend_name(version->local())) return *backend;
    }
    // PyPI's own build.
    if (os == "macos") return std::string(arch == "arm64" ? "mps" : "cpu");
    if (os == "windows" || cuda_runtime.empty()) return std::string("cpu");
    auto parts = util::split(cuda_runtime, '.');
    if (parts.size() >= 2) return "cu" + std::string(parts[0]) + std::string(parts[1]);
    return std::string("cpu");
}

// One candidate target of an OS-arch: its walk and what chose it.
struct Candidate {
    lock::UvInstallSet set;
    std::string backend;
    std::string chosen_by;  // "extra 'cu128'"; "" without backend extras
};

std::string describe(const lock::UvConflictItem& item) {
    return item.extra.empty() ? "group '" + item.group + "'" : "extra '" + item.extra + "'";
}

class Converter {
  public:
    Converter(const LoadedUvLock& loaded, const UvLockRequest& request, std::string python)
        : loaded_(loaded),
          lock_(loaded.lock),
          request_(request),
          python_(std::move(python)),
          python_version_(*pep::Version::parse(python_)),
          base_(base_selection(request.options, loaded.project)) {
        name_indexes();
    }

    // The targets of one OS and architecture: one per backend extra, or the lock's one.
    std::vector<Candidate> candidates(const std::string& os, const std::string& arch) {
        const auto env = environment(os, arch);
        if (!lock_.supported_markers.empty()) {
            bool supported = false;
            for (const auto& m : lock_.supported_markers) {
                auto r = m->evaluate(env, std::vector<std::string>{});
                supported |= r && *r;
            }
            if (!supported) {
                throw util::InputError(
                    loaded_.label + " supports only " +
                        util::join(lock_.supported_marker_texts, " or ") + ", not " + os + "-" +
                        arch,
                    "use the lock on a machine it supports, or add the environment to "
                    "[tool.uv] environments and run `uv lock`");
            }
        }
        std::vector<Candidate> out;
        for (const auto& item : backend_items(env, os, arch)) {
            if (out.end() != std::find_if(out.begin(), out.end(), [&](const Candidate& c) {
                    return c.backend == item.backend;
                })) {
                notes_.push_back(os + "-" + arch + ": " + item.chosen_by + " gives the same " +
                                 item.backend + " build as an earlier one; left out");
                continue;
            }
            out.push_back(item);
        }
        if (!out.empty()) return out;
        auto set = walk(env, base_);
        Candidate plain;
        plain.backend = torch_backend(lock_, set, os, arch).value_or("cpu");
        plain.set = std::move(set);
        out.push_back(std::move(plain));
        return out;
    }

    lock::LockedTarget target(const std::string& os, const std::string& arch,
                              const Candidate& candidate) {
        lock::LockedTarget t;
        t.os = os;
        t.arch = arch;
        t.backend = candidate.backend;
        t.id = os + "-" + arch + "-" + candidate.backend;
        t.python = python_;
        const project::Target target{os, arch, candidate.backend};
        t.marker_environment =
            pep::marker_map(project::marker_environment(target, python_version_));
        const auto tags =
            pep::TagPriority::for_target(project::tag_platform(target, python_version_));
        lock::UvConversionOptions options;
        options.tags = &tags;
        options.index_names = index_names_;
        options.target_id = t.id;
        options.os = os;
        options.arch = arch;
        const auto folder = request_.path.parent_path();
        options.local_url = [folder](std::string_view relative) {
            auto path = (folder / util::path_from_utf8(std::string(relative))).lexically_normal();
            if (!path.has_filename()) path = path.parent_path();  // "." → the folder itself
            return index::path_to_file_url(path);
        };
        auto packages = lock::uv_locked_packages(lock_, candidate.set, options);
        if (!packages) throw packages.error().to_error();
        t.packages = std::move(*packages);
        for (const auto& p : t.packages) {
            if (!p.index.empty()) used_indexes_.insert(p.index);
        }
        return t;
    }

    std::vector<lock::LockedIndex> indexes() const {
        std::vector<lock::LockedIndex> out;
        for (const auto& index : all_indexes_) {
            if (used_indexes_.count(index.name)) out.push_back(index);
        }
        return out;
    }

    std::vector<std::string> take_notes() { return std::move(notes_); }

  private:
    pep::MarkerEnvironment environment(const std::string& os, const std::string& arch) const {
        return project::marker_environment(project::Target{os, arch, "cpu"}, python_version_);
    }

    lock::UvInstallSet walk(const pep::MarkerEnvironment& env, const lock::UvSelection& s) const {
        auto set = lock::select_uv_packages(lock_, env, s);
        if (!set) throw util::InputError(loaded_.label + ": " + set.error());
        return std::move(*set);
    }

    // The conflict sets whose items (extras or groups of the roots) install torch builds of two
    // or more backends: each item is a candidate, unless the user already chose one of them.
    std::vector<Candidate> backend_items(const pep::MarkerEnvironment& env, const std::string& os,
                                         const std::string& arch) const {
        std::set<std::string> roots;
        for (auto i : lock_.roots())
            roots.insert(lock_.packages[i].name);
        for (const auto& set : lock_.conflicts) {
            std::vector<Candidate> found;
            std::set<std::string> backends;
            for (const auto& item : set) {
                if (!roots.count(item.package) || (item.extra.empty() && item.group.empty()))
                    continue;
                auto selection = base_;
                if (!item.extra.empty()) {
                    selection.extras.push_back(item.extra);
                } else {
                    selection.groups.push_back(item.group);
                }
                auto walked = lock::select_uv_packages(lock_, env, selection);
                if (!walked) continue;  // clashes with what the user chose
                auto backend = torch_backend(lock_, *walked, os, arch);
                if (!backend) continue;
                backends.insert(*backend);
                found.push_back({std::move(*walked), *backend, describe(item)});
            }
            if (backends.size() < 2) continue;
            // An item the user named wins: that one target only.
            for (auto& c : found) {
                const auto& chosen = c.chosen_by;
                for (const auto& e : base_.extras)
                    if (chosen == "extra '" + e + "'") return {std::move(c)};
                for (const auto& g : base_.groups)
                    if (chosen == "group '" + g + "'") return {std::move(c)};
            }
            return found;
        }
        return {};
    }

    // Lockfile index entries for the lock's registries: a torch backend index ("…/whl/cu128",
    // on any host) of torch as "torch <backend>", PyPI as "primary", the others numbered.
    void name_indexes() {
        std::set<std::string> registries;
        std::map<std::string, std::string> torch_registries;  // location → backend
        for (const auto& p : lock_.packages) {
            if (p.source.kind != lock::UvSource::Kind::registry) continue;
            registries.insert(p.source.location);
            if (p.name != "torch") continue;
            std::string_view location = p.source.location;
            while (!location.empty() && location.back() == '/')
                location.remove_suffix(1);
            if (auto backend =
                    platform::parse_backend_name(location.substr(location.find_last_of('/') + 1))) {
                torch_registries[p.source.location] = *backend;
            }
        }
        std::set<std::string> names;
        auto add = [&](const std::string& location, std::string name, lock::IndexKind kind) {
            if (!names.insert(name).second) return false;
            std::string url = location;
            if (kind == lock::IndexKind::torch_backend && !url.ends_with("/")) url += "/";
            index_names_[location] = name;
            all_indexes_.push_back({std::move(name), std::move(url), kind});
            return true;
        };
        for (const auto& location : registries) {
            std::string_view plain = location;
            while (!plain.empty() && plain.back() == '/')
                plain.remove_suffix(1);
            if (plain == "https://pypi.org/simple")
                add(location, "primary", lock::IndexKind::simple);
        }
        int number = 0;
        for (const auto& location : registries) {
            if (index_names_.count(location)) continue;
            auto torch = torch_registries.find(location);
            if (torch != torch_registries.end() &&
                add(location, "torch " + torch->second, lock::IndexKind::torch_backend))
                continue;
            while (!add(location, "extra-index " + std::to_string(++number),
                        lock::IndexKind::simple)) {
            }
        }
    }

    const LoadedUvLock& loaded_;
    const lock::UvLock& lock_;
    const UvLockRequest& request_;
    std::string python_;
    pep::Version python_version_;
    lock::UvSelection base_;
    std::map<std::string, std::string> index_names_;
    std::vector<lock::LockedIndex> all_indexes_;
    std::set<std::string> used_indexes_;
    std::vector<std::string> notes_;
};

std::string input_hash(const LoadedUvLock& loaded, const UvLockRequest& request,
                       const std::string& python, const std::vector<std::string>& ids) {
    fs::Sha256 hash;
    auto field = [&](std::string_view label, std::string_view value) {
        hash.update(label);
        hash.update(std::string_view("\0", 1));
        hash.update(std::to_string(value.size()));
        hash.update(std::string_view("\0", 1));
        hash.update(value);
    };
    field("format", std::to_string(lock::lock_format_version));
    field("uv.lock", loaded.text);
    field("python", python);
    for (const auto& id : ids)
        field("target", id);
    for (const auto& e : request.options.extras)
        field("extra", e);
    if (request.options.all_extras) field("all-extras", "");
    for (const auto& g : request.options.groups)
        field("group", g);
    if (request.options.no_default_groups) field("no-default-groups", "");
    if (loaded.project) {
        for (const auto& g : loaded.project->default_groups)
            field("default-group", g);
        if (loaded.project->all_default_groups) field("default-groups", "all");
    }
    return "sha256:" + hash.finish_hex();
}

}  // namespace

UvLockInput read_uv_lock(const UvLockRequest& request) {
    const LoadedUvLock loaded = load(request.path);
    UvLockInput out;
    if (loaded.project) {
        if (auto mismatch = lock::uv_lock_mismatch(loaded.lock, *loaded.project)) {
            out.stale = *mismatch;
            const std::string what =
                loaded.label + " does not match the pyproject.toml beside it (" + *mismatch + ")";
            if (request.options.locked) {
                throw util::Error(util::ExitCode::failure, what + "; --locked refuses it",
                                  "run `uv lock` to update the lock, or drop --locked to install "
                                  "the lock as it is");
            }
            out.notes.push_back("warning: " + what +
                                "; installing the lock as it is (`uv lock` updates it, "
                                "--locked refuses a stale lock)");
        }
    } else if (request.options.locked) {
        out.notes.push_back("no pyproject.toml beside " + loaded.label +
                            ": --locked cannot compare it");
    }
    const std::string python = choose_python(request, loaded.lock);
    Converter converter(loaded, request, python);

    // The OS-arch pairs, with the backend each named target asks for.
    struct Wanted {
        std::string os, arch, backend;  // backend "" = every candidate
    };
    std::vector<Wanted> wanted;
    if (request.targets.empty()) {
        if (request.machine == nullptr || request.machine->os.empty()) {
            throw util::InputError("no target to convert " + loaded.label + " for",
                                   "pass --target OS-ARCH-BACKEND");
        }
        wanted.push_back({request.machine->os, request.machine->arch, ""});
    } else {
        for (const auto& id : request.targets) {
            auto target = project::Target::parse(id);
            if (!target) throw util::InputError("--target " + id + ": " + target.error());
            wanted.push_back({target->os, target->arch, target->backend});
        }
    }
    std::map<std::string, std::vector<Candidate>> by_platform;
    std::vector<std::string> ids;
    std::optional<util::InputError> first_problem;
    for (const auto& w : wanted) {
        const std::string platform = w.os + "-" + w.arch;
        if (!by_platform.count(platform))
            by_platform[platform] = converter.candidates(w.os, w.arch);
        const auto& candidates = by_platform[platform];
        bool found = false;
        for (const auto& c : candidates) {
            if (!w.backend.empty() && c.backend != w.backend) continue;
            found = true;
            const std::string id = platform + "-" + c.backend;
            if (std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
            std::optional<lock::LockedTarget> target;
            try {
                target = converter.target(w.os, w.arch, c);
            } catch (const util::InputError& e) {
                // One of the machine's candidates the lock cannot give (a wheel without a hash,
                // no wheel for this Python): the others still can. A named target is an error.
                if (!w.backend.empty()) throw;
                out.notes.push_back(id + (c.chosen_by.empty() ? "" : " (" + c.chosen_by + ")") +
                                    " left out: " + e.what());
                if (!first_problem) first_problem = e;
                continue;
            }
            ids.push_back(id);
            if (!c.chosen_by.empty()) out.chosen_by[target->id] = c.chosen_by;
            out.lockfile.targets.push_back(std::move(*target));
        }
        if (!found) {
            std::vector<std::string> offered;
            for (const auto& c : candidates)
                offered.push_back(platform + "-" + c.backend +
                                  (c.chosen_by.empty() ? "" : " (" + c.chosen_by + ")"));
            throw util::InputError(loaded.label + " gives no " + w.backend + " build for " +
                                       platform + " (it gives " + util::join(offered, ", ") + ")",
                                   "pass one of those targets");
        }
    }
    if (ids.empty() && first_problem) throw *first_problem;
    auto notes = converter.take_notes();
    out.notes.insert(out.notes.end(), notes.begin(), notes.end());

    auto& lockfile = out.lockfile;
    const auto roots = loaded.lock.roots();
    lockfile.name = roots.empty() ? util::utf8_of(request.path.parent_path().filename())
                                  : loaded.lock.packages[roots.front()].name;
    lockfile.generator = std::string("aitk-env ") + AITK_ENV_VERSION + " from uv.lock";
    lockfile.input_hash = input_hash(loaded, request, python, ids);
    lockfile.python_requires = loaded.lock.requires_python;
    lockfile.indexes = converter.indexes();
    lockfile.default_target = ids.front();
    std::sort(lockfile.targets.begin(), lockfile.targets.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
}

UvLockStatus uv_lock_status(const std::filesystem::path& project_dir) {
    UvLockStatus status;
    status.path = project_dir / "uv.lock";
    std::error_code ec;
    if (!stdfs::exists(status.path, ec)) return status;
    status.present = true;
    try {
        const LoadedUvLock loaded = load(status.path);
        if (!loaded.project) {
            status.reason = "no pyproject.toml beside it";
            return status;
        }
        if (auto mismatch = lock::uv_lock_mismatch(loaded.lock, *loaded.project)) {
            status.reason = *mismatch;
            return status;
        }
        status.current = true;
    } catch (const util::Error& e) {
        status.unreadable = true;
        status.reason = e.what();
    }
    return status;
}

}  // namespace aitk::app
