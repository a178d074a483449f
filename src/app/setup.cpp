#include "aitk/app/setup.hpp"

#include <algorithm>

#include "aitk/app/bundle.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/app/torch_choice.hpp"
#include "aitk/build/git_url.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "aitk/python/venv.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/shim/shims.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "setup_venv.hpp"

namespace aitk::app {
namespace {

std::filesystem::path absolute_from(const std::filesystem::path& cwd,
                                    const std::filesystem::path& p) {
    return p.is_absolute() ? p : cwd / p;
}

std::string major_minor(const std::string& version) {
    auto parts = util::split(version, '.');
    if (parts.size() < 2) return version;
    return std::string(parts[0]) + "." + std::string(parts[1]);
}

// An interpreter for the target's Python: the one asked for (a path or X.Y), else the newest
// CPython X.Y on this machine, else a standalone build installed into the cache.
python::Interpreter choose_interpreter(const SetupRequest& request,
                                       const lock::LockedTarget& target,
                                       std::vector<std::string>& notes) {
    std::string wanted = major_minor(target.python);
    std::string spec = wanted;
    if (request.python) {
        bool is_path = request.python->find('/') != std::string::npos ||
                       request.python->find('\\') != std::string::npos;
        if (is_path) {
            spec = absolute_from(request.cwd, *request.python).string();
        } else if (major_minor(*request.python) != wanted) {
            throw util::InputError("--python " + *request.python + ": the lock target " +
                                       target.id + " was resolved for Python " + target.python,
                                   "lock again with --python " + *request.python);
        } else {
            spec = *request.python;
        }
    }
    PythonOptions options;
    options.cache_root = request.cache_root;
    options.environment = request.environment;
    options.offline = request.network.offline;
    options.concurrency = request.network.concurrency;
    options.cert = request.network.cert;
    options.observer = request.observer;
    options.rewrite = request.rewrite_urls;
    auto ensured = ensure_python(options, spec);
    if (major_minor(ensured.interpreter.version) != wanted) {
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
std::optional<std::string> python_to_lock_for(const SetupRequest& request) {
    if (!request.python) return std::nullopt;
    const bool is_path = request.python->find('/') != std::string::npos ||
                         request.python->find('\\') != std::string::npos;
    if (!is_path) return request.python;
    const auto path = absolute_from(request.cwd, *request.python);
    python::DiscoveryOptions discovery;
    discovery.environment = request.environment;
    if (!request.cache_root.empty()) {
        discovery.cache_file = python::default_interpreter_cache_file(request.cache_root);
    }
    auto interpreter = python::probe_interpreter(path, discovery);
    if (!interpreter) {
        throw util::InputError("--python " + *request.python + ": " + interpreter.error(),
                               "pass a working interpreter or a version X.Y");
    }
    return interpreter->version;
}

// Where run_lock writes the lock when no output is given (lockfiles/<input name>.lock.yml under
// the project folder or the working directory).
std::filesystem::path default_lock_path(const SetupRequest& request) {
    auto input = load_project_input(request.input, request.cwd, request.environment);
    auto base = request.input.project_dir ? absolute_from(request.cwd, *request.input.project_dir)
                                          : request.cwd;
    return base / "lockfiles" / (input.name + ".lock.yml");
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
    process.argv = {(layout.scripts / (layout.windows ? "aitk-run.cmd" : "aitk-run")).string(),
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
            "run `aitk-env doctor -p " + layout.prefix.string() + "`");
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
    if (package.source && package.source->kind == "vcs" &&
        package.source->url.starts_with("git+") &&
        !build::is_full_commit_id(package.source->commit)) {
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

}  // namespace

SetupOutcome run_setup(const SetupRequest& request) {
    if (request.bundle) return run_setup_from_bundle(request);  // verifies, then runs offline
    SetupOutcome outcome;
    lock::Lockfile lockfile;
    if (request.lockfile) {
        outcome.lockfile = absolute_from(request.cwd, *request.lockfile);
        lockfile = read_lockfile(outcome.lockfile);
    } else {
        LockRequest lock_request;
        lock_request.input = request.input;
        if (request.target) {
            lock_request.targets = {*request.target};
        } else {
            lock_request.machine = request.machine;
            lock_request.this_machine = true;
        }
        lock_request.python = python_to_lock_for(request);
        lock_request.indexes = request.indexes;
        lock_request.network = request.network;
        lock_request.cache_root = request.cache_root;
        lock_request.cwd = request.cwd;
        lock_request.environment = request.environment;
        lock_request.observer = request.observer;
        lock_request.sources.inspect = request.build_sources;
        // --dry-run resolves as a real setup would (keeping the existing lock's pins) but writes
        // the lock into a scratch folder: the project's lockfiles/ stays as it was.
        std::optional<fs::TempDir> scratch;
        std::optional<std::filesystem::path> would_write;
        if (request.dry_run) {
            would_write = default_lock_path(request);
            scratch.emplace(fs::TempDir::create("aitk-setup-dry-run"));
            lock_request.output = scratch->path() / would_write->filename();
            std::error_code ec;
            if (std::filesystem::exists(*would_write, ec)) {
                std::filesystem::copy_file(*would_write, *lock_request.output);
            }
        }
        auto locked = run_lock(lock_request);
        outcome.lockfile = would_write ? *would_write : locked.path;
        outcome.notes = locked.notes;
        outcome.target_reason = locked.target_reason;
        lockfile = std::move(locked.lockfile);
    }
    std::string judged;
    const auto& target = choose_lock_target(lockfile, request.machine, judged, request.target);
    if (outcome.target_reason.empty()) outcome.target_reason = judged;
    outcome.target = target.id;

    auto interpreter = choose_interpreter(request, target, outcome.notes);
    outcome.python = interpreter.executable.string();
    outcome.prefix = absolute_from(request.cwd, request.prefix);
    auto layout =
        install::PrefixLayout::for_venv(outcome.prefix, interpreter.version, request.windows);
    // The prefix stays locked from making the venv to the smoke test: a second setup into it
    // waits, and never meets a half-made venv or half-written shims.
    std::optional<fs::FileLock> prefix_lock;
    std::error_code missing;
    const bool new_prefix = !request.dry_run && !std::filesystem::exists(outcome.prefix, missing);
    if (!request.dry_run) {
        python::VenvRequest venv;
        venv.prefix = outcome.prefix;
        venv.interpreter = interpreter;
        venv.windows = request.windows;
        prefix_lock = lock_and_make_venv(venv, layout);
    }

    SyncRequest sync;
    sync.lock = &lockfile;
    sync.target = &target;
    sync.layout = layout;
    sync.cache_root = request.cache_root;
    sync.network = request.network;
    sync.observer = request.observer;
    sync.link_mode = request.link_mode;
    sync.remove_extraneous = true;
    sync.dry_run = request.dry_run;
    sync.compile_bytecode = request.compile_bytecode;
    sync.build_sources = request.build_sources;
    sync.prefix_lock = prefix_lock ? &*prefix_lock : nullptr;
    sync.artifact_sources.rewrite = request.rewrite_urls;
    // Index URLs given with a lock say where its files are now (a mirror of it); the lock
    // itself, URLs and hashes, stays as it is. A lock made here from a private index has its
    // URLs stripped of the index's credentials: its files are found again on the index's pages,
    // whose links keep them.
    if ((request.lockfile || index_credentials(request.indexes)) &&
        (request.indexes.index_url || !request.indexes.extra_index_urls.empty())) {
        sync.artifact_sources.indexes = request.indexes;
    }
    try {
        outcome.sync = sync_prefix(sync);
    } catch (...) {
        // A failed first setup (a download that did not come) leaves no empty venv behind that
        // would look like an environment; an existing prefix stays as sync left it (intact).
        std::error_code ignored;
        if (new_prefix) std::filesystem::remove_all(outcome.prefix, ignored);
        throw;
    }
    for (const auto& p : outcome.sync.plan.unbuildable) {
        outcome.notes.push_back(p.name + " is not installed: it comes from " +
                                (p.source ? p.source->url : std::string("source")) +
                                unbuildable_reason(p, request.build_sources));
    }
    if (request.dry_run) return outcome;

    shim::PrefixEnvironment env;
    env.prefix = outcome.prefix;
    env.scripts = layout.scripts;
    env.variables = target.variables;
    env.os = request.windows ? shim::ShimOs::windows : shim::ShimOs::posix;
    outcome.shims = shim::write_shims(env, layout.purelib);
    if (request.smoke_test) outcome.smoke = smoke_test(layout, target, request.environment);
    return outcome;
}

nlohmann::json SetupOutcome::to_json() const {
    nlohmann::json shim_paths = nlohmann::json::array();
    for (const auto& s : shims)
        shim_paths.push_back(s.string());
    return {{"lockfile", lockfile.string()}, {"target", target}, {"reason", target_reason},
            {"prefix", prefix.string()},     {"python", python}, {"sync", sync.to_json()},
            {"shims", shim_paths},           {"smoke", smoke},   {"notes", notes}};
}

std::string SetupOutcome::summary() const {
    std::string out;
    out += "target   " + target + " (" + target_reason + ")\n";
    out += "prefix   " + prefix.string() + " (Python " + python + ")\n";
    out += "changes  " + std::to_string(sync.plan.install.size()) + " installed, " +
           std::to_string(sync.plan.reinstall.size()) + " reinstalled, " +
           std::to_string(sync.plan.remove.size()) + " removed, " +
           std::to_string(sync.plan.keep.size()) + " unchanged\n";
    if (!smoke.empty()) out += "smoke    " + smoke + "\n";
    for (const auto& note : notes)
        out += "note     " + note + "\n";
    out += "run      " + (prefix / "bin" / "aitk-run").string() + " python your_script.py\n";
    return out;
}

}  // namespace aitk::app
