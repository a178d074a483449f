#include "aitk/app/setup.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/bundle.hpp"
#include "aitk/app/project_folder.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/app/torch_choice.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "aitk/python/venv.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/shim/shims.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "disk_full.hpp"
#include "hash_checks.hpp"
#include "setup_venv.hpp"

namespace aitk::app {
namespace {

// An interpreter for the target's Python: the one asked for (a path or X.Y), else the newest
// CPython X.Y on this machine, else a standalone build installed into the cache.
python::Interpreter choose_interpreter(Session& session, const SetupRequest& request,
                                       const lock::LockedTarget& target,
                                       std::vector<std::string>& notes) {
    std::string wanted = util::major_minor(target.python);
    std::string spec = wanted;
    if (request.python) {
        bool is_path = request.python->find('/') != std::string::npos ||
                       request.python->find('\\') != std::string::npos;
        if (is_path) {
            spec = util::utf8_of(fs::absolute_from(session.cwd(), *request.python));
        } else if (util::major_minor(*request.python) != wanted) {
            throw util::InputError("--python " + *request.python + ": the lock target " +
                                       target.id + " was resolved for Python " + target.python,
                                   "lock again with --python " + *request.python);
        } else {
            spec = *request.python;
        }
    }
    auto ensured = ensure_python(session, spec);
    if (util::major_minor(ensured.interpreter.version) != wanted) {
        throw util::InputError(spec + " is Python " + ensured.interpreter.version + ", but " +
                                   target.id + " was resolved for Python " + target.python,
                               "pass an interpreter " + wanted + " or lock again");
    }
    if (ensured.standalone) {
        notes.push_back("installed the standalone CPython " + ensured.interpreter.version +
                        " (no CPython " + wanted + " on this machine)");
    }
    return ensured.interpreter;
}

// The Python version a lock made by setup is resolved for: --python X.Y as given; for
// --python PATH the version of that interpreter, so that the lock fits the interpreter the
// prefix will be made with.
std::optional<std::string> python_to_lock_for(const Session& session, const SetupRequest& request) {
    if (!request.python) return std::nullopt;
    const bool is_path = request.python->find('/') != std::string::npos ||
                         request.python->find('\\') != std::string::npos;
    if (!is_path) return request.python;
    const auto path = fs::absolute_from(session.cwd(), *request.python);
    auto interpreter = python::probe_interpreter(path, discovery_options(session));
    if (!interpreter) {
        throw util::InputError("--python " + *request.python + ": " + interpreter.error(),
                               "pass a working interpreter or a version X.Y");
    }
    return interpreter->version;
}

std::string smoke_script() {
    return "import importlib.util, sys\n"
           "if importlib.util.find_spec('torch') is None:\n"
           "    print('python', sys.version.split()[0], 'no-torch')\n"
           "else:\n"
           "    import torch\n"
           "    v = getattr(torch, 'version', None)\n"
           "    cuda = getattr(v, 'cuda', None)\n"
           "    mod = getattr(torch, 'cuda', None)\n"
           "    avail = mod.is_available() if mod is not None and hasattr(mod, 'is_available') "
           "else None\n"
           "    print('torch', torch.__version__, cuda, avail)\n";
}

// Runs the smoke test through the shim, as the user will run things; a CPU build of torch on
// a CUDA target is a failure (the classic "CPU-only torch on a GPU box").
std::string smoke_test(const install::PrefixLayout& layout, const lock::LockedTarget& target,
                       const util::Environment& environment) {
    util::ProcessRequest process;
    process.environment = environment;
    process.timeout = std::chrono::seconds(120);
    process.argv = {util::utf8_of(layout.scripts / (layout.windows ? "aitk-run.cmd" : "aitk-run")),
                    "python", "-c", smoke_script()};
    auto result = util::run_process(process);
    if (!result) {
        throw util::Error(util::ExitCode::failure,
                          "smoke test could not run: " + result.error().message);
    }
    std::string out(util::trim(result->out));
    if (!result->succeeded()) {
        throw util::Error(
            util::ExitCode::failure,
            "smoke test " + result->describe() + ":\n" + std::string(util::trim(result->err)),
            "run `aitk-env doctor -p " + util::utf8_of(layout.prefix) + "`");
    }
    const auto* torch = target.find("torch");
    if (torch && target.backend.starts_with("cu") && out.find("+cpu") != std::string::npos) {
        throw util::Error(
            util::ExitCode::failure,
            "smoke test: torch is a CPU build on the CUDA target " + target.id + ": " + out);
    }
    return out;
}

// Whether an index was given with credentials in its URL (`https://user:token@host/simple/`).
bool index_credentials(const IndexSettings& indexes) {
    if (indexes.index_url && util::has_credentials(*indexes.index_url)) return true;
    return std::any_of(indexes.extra_index_urls.begin(), indexes.extra_index_urls.end(),
                       [](const std::string& url) { return util::has_credentials(url); });
}

// Why sync left a source node out, for the note that names it.
std::string unbuildable_reason(const lock::LockedPackage& package, bool build_sources) {
    if (!build_sources) return " and needs a source build (--no-build is set)";
    if (package.source && package.source->kind == lock::SourceKind::vcs &&
        package.source->url.starts_with("git+") &&
        !pep::is_full_commit_id(package.source->commit)) {
        // A lock made with --no-build keeps the revision as written: building "main" would
        // install whatever it names today, which the lock cannot reproduce.
        const auto& revision = package.source->commit;
        return (revision.empty() ? std::string() : "@" + revision) +
               ", which the lock does not pin to a commit; lock again without --no-build to pin "
               "one";
    }
    return " and cannot be built here (only git commits, sdists, archive URLs and local folders "
           "can)";
}

// The first of --glibc and --macos given: they cap the lock setup makes, so they are refused
// where setup makes none (-l, a project's own lock file, --bundle).
struct OsCapGiven {
    std::string flag;   // "--glibc"
    std::string value;  // "2.28"
    std::string given() const { return flag + " " + value; }
};
std::optional<OsCapGiven> os_cap_given(const SetupRequest& request) {
    if (request.glibc) return OsCapGiven{"--glibc", *request.glibc};
    if (request.macos) return OsCapGiven{"--macos", *request.macos};
    return std::nullopt;
}

// What run_lock is asked when setup makes the lock: this machine's target unless --target
// names one, the Python setup will install into, and setup's own settings.
LockRequest lock_request_for(const Session& session, const SetupRequest& request) {
    LockRequest lock_request;
    lock_request.input = request.input;
    if (request.target) {
        lock_request.targets = {*request.target};
    } else {
        lock_request.machine = request.machine;
        lock_request.this_machine = true;
    }
    lock_request.python = python_to_lock_for(session, request);
    lock_request.glibc = request.glibc;
    lock_request.macos = request.macos;
    lock_request.indexes = request.indexes;
    lock_request.sources.inspect = request.build_sources;
    lock_request.on_input = request.on_input;
    return lock_request;
}

// Stage 1: the lock, read from -l or made now. --dry-run resolves as a real setup would
// (keeping the existing lock's pins) but writes the lock into a scratch folder: the project's
// lockfiles/ stays as it was.
// A lock file that records several installs (pylock.toml, uv.lock) is converted for this
// machine, or the --target, with the extras and groups asked for; `backend_origin` says per
// target which extra chose its torch build.
lock::Lockfile lock_for_setup(Session& session, const SetupRequest& request, SetupOutcome& outcome,
                              std::map<std::string, std::string>& backend_origin) {
    std::optional<std::filesystem::path> lock_path = request.lockfile;
    std::vector<std::string> folder_notes;
    const auto& in = request.input;
    if (!lock_path && !in.manifest && !in.requirements && !in.conda_file) {
        // No input named: the lock file the project's folder ships comes first.
        const auto folder =
            in.project_dir ? fs::absolute_from(session.cwd(), *in.project_dir) : session.cwd();
        lock_path = folder_lock_file(folder, in.locked, folder_notes);
    }
    if (const auto cap = os_cap_given(request); lock_path && cap) {
        throw util::InputError(
            cap->given() + " caps the lock setup makes, but " + util::utf8_of(*lock_path) +
                " is locked already",
            "lock it again with `aitk-env lock " + cap->given() + "`, or drop " + cap->flag);
    }
    if (lock_path) {
        outcome.lockfile = fs::absolute_from(session.cwd(), *lock_path);
        outcome.input = util::utf8_of(outcome.lockfile.filename()) + " (" +
                        lock_file_kind_label(lock_file_kind(outcome.lockfile)) + ")";
        if (request.on_input) request.on_input(outcome.input);
        auto options = lock_read_options(request.input, request.machine.os, request.machine.arch);
        if (request.target) options.targets = {*request.target};
        // Only another tool's lock file is converted for a Python; a lockfile's targets name
        // theirs.
        if (lock_file_kind(outcome.lockfile) != LockFileKind::aitk) {
            options.python = python_to_lock_for(session, request);
        }
        auto read = read_any_lock(outcome.lockfile, options);
        outcome.notes = std::move(read.notes);
        outcome.notes.insert(outcome.notes.begin(), folder_notes.begin(), folder_notes.end());
        backend_origin = std::move(read.backend_origin);
        if (request.input.require_hashes)
            refuse_unhashed_locked_files(read.lock, util::utf8_of(outcome.lockfile));
        return std::move(read.lock);
    }
    LockRequest lock_request = lock_request_for(session, request);
    std::optional<fs::TempDir> scratch;
    if (request.dry_run) {
        scratch.emplace(fs::TempDir::create("aitk-setup-dry-run"));
        lock_request.scratch_dir = scratch->path();
    }
    auto locked = run_lock(session, lock_request);
    outcome.lockfile = locked.destination;
    outcome.input = locked.input;
    outcome.selected_backend = locked.selected_backend;
    outcome.selected_backend_by = locked.selected_backend_by;
    outcome.notes = std::move(folder_notes);  // a stale uv.lock passed over, first
    outcome.notes.insert(outcome.notes.end(), locked.notes.begin(), locked.notes.end());
    outcome.target_reason = locked.target_reason;
    return std::move(locked.lockfile);
}

// Stage 2: the target this machine runs. For another tool's lock file (pylock.toml, uv.lock)
// the way out is another choice of its extras (or another file), not another lock command.
const lock::LockedTarget& choose_target(const lock::Lockfile& lockfile, const SetupRequest& request,
                                        const Machine& machine, std::string& judged) {
    try {
        return choose_lock_target(lockfile, machine, judged, request.target);
    } catch (const resolve::Unsatisfiable& refused) {
        if (!request.lockfile || lock_file_kind(*request.lockfile) == LockFileKind::aitk) throw;
        std::string fix =
            request.input.extras.empty()
                ? "the lock file offers no torch build this machine runs: lock it again with one "
                  "(an extra per backend lets aitk-env choose), or add --force with --target to "
                  "install it anyway"
                : "drop --extra to let aitk-env choose among the builds the lock file offers, or "
                  "name the extra of one this machine runs (--target with --force installs a "
                  "build anyway)";
        throw resolve::Unsatisfiable(refused.what(), std::move(fix));
    }
}

// Stage 3: the venv, made under the prefix's lock. The lock stays held from making the venv to
// the smoke test: a second setup into the prefix waits, and never meets a half-made venv or
// half-written shims. Nothing is made or locked for --dry-run.
struct HeldPrefix {
    std::optional<fs::FileLock> lock;
    bool is_new = false;  // made by this setup: removed again when the sync fails
};

HeldPrefix make_prefix(const SetupRequest& request, const SetupOutcome& outcome,
                       const python::Interpreter& interpreter,
                       const install::PrefixLayout& layout) {
    HeldPrefix held;
    if (request.dry_run) return held;
    std::error_code missing;
    held.is_new = !std::filesystem::exists(outcome.prefix, missing);
    python::VenvRequest venv;
    venv.prefix = outcome.prefix;
    venv.interpreter = interpreter;
    venv.windows = request.windows;
    held.lock = lock_and_make_venv(venv, layout);
    return held;
}

ArtifactSources artifact_sources_for(const Session& session, const SetupRequest& request) {
    ArtifactSources sources;
    sources.rewrite = session.network().rewrite;
    // Index URLs given with a lock say where its files are now (a mirror of it); the lock
    // itself, URLs and hashes, stays as it is. A lock made here from a private index has its
    // URLs stripped of the index's credentials: its files are found again on the index's pages,
    // whose links keep them.
    if ((request.lockfile || index_credentials(request.indexes)) &&
        (request.indexes.index_url || !request.indexes.extra_index_urls.empty())) {
        sources.indexes = request.indexes;
    }
    // A lock someone handed over reads files on this machine only where the user vouches.
    if (request.lockfile) {
        sources.local_files =
            LocalFileRule::for_lock(session.cwd(), *request.lockfile, request.indexes);
    }
    return sources;
}

SyncRequest sync_request_for(const Session& session, const SetupRequest& request,
                             const lock::Lockfile& lockfile, const lock::LockedTarget& target,
                             const install::PrefixLayout& layout, HeldPrefix& held) {
    SyncRequest sync;
    sync.lock = &lockfile;
    sync.target = &target;
    sync.layout = layout;
    sync.link_mode = request.link_mode;
    sync.remove_extraneous = true;
    sync.dry_run = request.dry_run;
    sync.compile_bytecode = request.compile_bytecode;
    sync.build_sources = request.build_sources;
    sync.prefix_lock = held.lock ? &*held.lock : nullptr;
    sync.artifact_sources = artifact_sources_for(session, request);
    return sync;
}

// Stage 4: sync. A failed first setup (a download that did not come) leaves no folder behind:
// neither a venv that would look like an environment nor an empty prefix that would make the
// next setup's prefix an existing one; an existing prefix stays as sync left it (intact).
SyncOutcome sync_into(Session& session, const SyncRequest& sync,
                      const std::filesystem::path& prefix, HeldPrefix& held) {
    try {
        return sync_prefix(session, sync);
    } catch (...) {
        if (held.is_new && held.lock) {
            fs::remove_locked_folder(prefix, *held.lock);
        } else if (held.is_new) {
            std::error_code ignored;
            std::filesystem::remove_all(prefix, ignored);
        }
        throw;
    }
}

void note_unbuildable(SetupOutcome& outcome, bool build_sources) {
    for (const auto& p : outcome.sync.plan.unbuildable) {
        outcome.notes.push_back(p.name + " is not installed: it comes from " +
                                (p.source ? p.source->url : std::string("source")) +
                                unbuildable_reason(p, build_sources));
    }
}

// Stage 5: the launch shims and activation scripts, with the target's variables.
std::vector<std::filesystem::path> write_prefix_shims(const SetupRequest& request,
                                                      const lock::LockedTarget& target,
                                                      const install::PrefixLayout& layout,
                                                      const std::filesystem::path& prefix) {
    shim::PrefixEnvironment env;
    env.prefix = prefix;
    env.scripts = layout.scripts;
    env.variables = target.variables;
    env.os = request.windows ? shim::ShimOs::windows : shim::ShimOs::posix;
    return shim::write_shims(env, layout.purelib);
}

// lock → target → interpreter → venv → sync → shims → smoke test; each stage a function above.
SetupOutcome setup_stages(Session& session, const SetupRequest& request) {
    SetupOutcome outcome;
    Stopwatch stages(session.clock());
    std::map<std::string, std::string> backend_origin;  // another tool's lock: its extras
    const lock::Lockfile lockfile = lock_for_setup(session, request, outcome, backend_origin);
    stages.mark("lock");

    std::string judged;  // stage 2: the target this machine runs, and its interpreter
    Machine machine = request.machine;
    if (outcome.selected_backend) {  // --extra cu128: as --backend cu128 (checked by the lock)
        machine.forced_backend = outcome.selected_backend;
        machine.forced_by = outcome.selected_backend_by;
    }
    const auto& target = choose_target(lockfile, request, machine, judged);
    if (outcome.target_reason.empty()) outcome.target_reason = judged;
    outcome.target = target.id;
    if (auto origin = backend_origin.find(target.id); origin != backend_origin.end()) {
        outcome.notes.push_back("backend " + target.backend + ": " + origin->second);
    }
    check_local_files(target, artifact_sources_for(session, request));  // before the venv
    const auto interpreter = choose_interpreter(session, request, target, outcome.notes);
    outcome.python = util::utf8_of(interpreter.executable);
    outcome.prefix = fs::absolute_from(session.cwd(), request.prefix);
    const auto layout =
        install::PrefixLayout::for_venv(outcome.prefix, interpreter.version, request.windows);
    stages.mark("interpreter");

    HeldPrefix held = make_prefix(request, outcome, interpreter, layout);
    stages.mark("prefix");
    outcome.sync =
        sync_into(session, sync_request_for(session, request, lockfile, target, layout, held),
                  outcome.prefix, held);
    stages.mark("sync");
    note_unbuildable(outcome, request.build_sources);
    outcome.stages = stages.describe();
    if (request.dry_run) return outcome;

    outcome.shims = write_prefix_shims(request, target, layout, outcome.prefix);
    stages.mark("shims");
    if (request.smoke_test) {
        outcome.smoke = smoke_test(layout, target, session.environment());
        stages.mark("smoke test");
    }
    outcome.stages = stages.describe();
    return outcome;
}

}  // namespace

SetupOutcome run_setup(Session& session, const SetupRequest& request) {
    if (const auto cap = os_cap_given(request); request.bundle && cap) {
        throw util::InputError(cap->flag + " caps the lock setup makes; a bundle holds its lock",
                               "drop " + cap->flag);
    }
    if (request.bundle) return run_setup_from_bundle(session, request);  // then runs offline
    try {
        return setup_stages(session, request);
    } catch (const std::exception& error) {
        explain_disk_full(error, session.cache_root(),
                          fs::absolute_from(session.cwd(), request.prefix));
        throw;
    }
}

nlohmann::json SetupOutcome::to_json() const {
    nlohmann::json shim_paths = nlohmann::json::array();
    for (const auto& s : shims)
        shim_paths.push_back(util::utf8_of(s));
    return {{"input", input},
            {"lockfile", util::utf8_of(lockfile)},
            {"target", target},
            {"reason", target_reason},
            {"prefix", util::utf8_of(prefix)},
            {"python", python},
            {"sync", sync.to_json()},
            {"shims", shim_paths},
            {"smoke", smoke},
            {"notes", notes}};
}

std::string SetupOutcome::summary(bool with_input) const {
    std::string out;
    if (with_input && !input.empty()) out += "input    " + input + "\n";
    out += "target   " + target + " (" + target_reason + ")\n";
    out += "prefix   " + util::utf8_of(prefix) + " (Python " + python + ")\n";
    out += "changes  " + std::to_string(sync.plan.install.size()) + " installed, " +
           std::to_string(sync.plan.reinstall.size()) + " reinstalled, " +
           std::to_string(sync.plan.remove.size()) + " removed, " +
           std::to_string(sync.plan.keep.size()) + " unchanged\n";
    if (!smoke.empty()) out += "smoke    " + smoke + "\n";
    for (const auto& note : notes)
        out += "note     " + note + "\n";
    out += "run      " + util::utf8_of(prefix / "bin" / "aitk-run") + " python your_script.py\n";
    return out;
}

}  // namespace aitk::app
