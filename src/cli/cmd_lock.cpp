// `aitk-env lock`: resolve the inputs for every target and write the lockfile.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <tuple>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/cache.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

namespace {

struct LockArgs {
    std::string manifest, requirements, conda_file, from, project_dir, output, python, glibc, macos,
        backend = "auto";
    std::vector<std::string> targets, upgrade_packages;
    bool upgrade = false, check = false, skip_unmapped = false, no_build = false, force = false,
         require_hashes = false;
    app::InputSelection selection;  // --extra … --locked (add_install_selection_options)
};

// `lock --from FILE`: another tool's lock file converted, not resolved.
app::LockOutcome lock_from(const LockArgs& a, app::Session& session) {
    // A converted lock keeps the versions its file pins: nothing to upgrade or map.
    if (a.upgrade || !a.upgrade_packages.empty() || a.skip_unmapped) {
        throw util::InputError(
            "--from converts a lock file as it is: --upgrade, "
            "--upgrade-package and --skip-unmapped do not apply",
            "drop them");
    }
    for (const auto& [flag, value, library] :
         {std::tuple{"--glibc", &a.glibc, "glibc"}, std::tuple{"--macos", &a.macos, "macOS"}}) {
        if (value->empty()) continue;
        throw util::InputError(std::string("--from converts a lock file as it is: ") + flag + " " +
                                   *value + " would need a resolution",
                               std::string("drop ") + flag +
                                   " (setup and sync check each wheel's " + library +
                                   " against the machine), or lock the project's inputs with it");
    }
    app::LockFromRequest request;
    request.from = util::path_from_utf8(a.from);
    request.output = path_or_none(a.output);
    request.project_dir = path_or_none(a.project_dir);
    request.check = a.check;
    std::string host_os, host_arch;
    if (a.targets.empty()) {
        const auto machine = probe_this_machine(a.backend, a.force, session.cache_root());
        machine.require_target_os();
        host_os = machine.os;
        host_arch = machine.arch;
    }
    request.options = app::lock_read_options(a.selection, host_os, host_arch);
    request.options.targets = a.targets;
    if (!a.python.empty()) request.options.python = a.python;
    return app::lock_from_file(session, request);
}

// ", glibc ≥ 2.31 for vllm": what the target's wheels need of the OS, when any need a version.
std::string floor_summary(const lock::LockedTarget& target) {
    if (!target.os_floor) return {};
    const std::string what = target.os == "linux" ? "glibc" : "macOS";
    std::string names;
    for (const auto& name : target.os_floor->packages)
        names += (names.empty() ? "" : ", ") + name;
    return ", " + what + " ≥ " + target.os_floor->version + " for " + names;
}

}  // namespace

Command add_lock_command(CLI::App& app, GlobalOptions& globals) {
    auto* lock = app.add_subcommand("lock",
                                    "Resolve the inputs for every target and write the "
                                    "lockfile (an environment.yml conda also accepts)");
    auto a = std::make_shared<LockArgs>();
    auto* m = lock->add_option("-m,--manifest", a->manifest,
                               "Manifest (default: the built-in AI Toolkit manifest)");
    auto* r = lock->add_option("-r,--requirements", a->requirements, "A pip requirements file");
    auto* f = lock->add_option("-f,--file", a->conda_file, "A conda environment.yml");
    auto* from = lock->add_option("--from", a->from,
                                  "Convert this lock file (a uv.lock or a PEP 751 pylock.toml) "
                                  "instead of resolving: its packages as it pins them");
    m->excludes(r)->excludes(f)->excludes(from);
    r->excludes(f)->excludes(from);
    f->excludes(from);
    add_install_selection_options(lock, a->selection);
    lock->add_option("--project", a->project_dir,
                     "Project directory: without -m/-r/-f its pyproject.toml (else its "
                     "requirements.txt) is the input; with -m the manifest's requirement files "
                     "are read from here; the lockfile goes to its lockfiles/ (default: the "
                     "current directory)");
    lock->add_option("-o,--output", a->output,
                     "Lockfile to write (default lockfiles/<name>.lock.yml)");
    lock->add_option("--target", a->targets,
                     "OS-ARCH-BACKEND, repeatable (default: the manifest's targets, else this "
                     "machine)")
        ->check(target_id_check());
    lock->add_option("--python", a->python, "Python X.Y or X.Y.Z (default: the manifest's)");
    lock->add_option("--glibc", a->glibc,
                     "X.Y: the newest glibc the Linux targets' machines have; only versions "
                     "whose wheels run there are taken (default: the input's `glibc`, else "
                     "every manylinux level)");
    lock->add_option("--macos", a->macos,
                     "X.Y: the oldest macOS the macOS targets' machines have; only versions "
                     "whose wheels run there are taken (default: 14.0)");
    lock->add_option("--backend", a->backend,
                     "This machine's backend when it is the target (auto = detect); honoured "
                     "or refused, never replaced; default: AITK_ENV_TORCH_BACKEND");
    lock->add_flag("--force", a->force,
                   "With --backend: lock that build even if this machine cannot run it");
    lock->add_flag("--upgrade", a->upgrade, "Ignore the versions of the existing lockfile");
    lock->add_option("--upgrade-package", a->upgrade_packages,
                     "Ignore the locked version of this package (repeatable)");
    lock->add_flag("--check", a->check,
                   "Exit 1 when the lockfile is missing or stale; write nothing (for CI)");
    lock->add_flag("--no-build", a->no_build,
                   "Lock git/sdist/folder requirements as they are written, without fetching or "
                   "building them (their versions and dependencies stay unknown)")
        ->envname("AITK_ENV_NO_BUILD");
    lock->add_flag("--require-hashes", a->require_hashes,
                   "pip's hash-checking mode: every requirement pinned with == and hashes, "
                   "dependencies included (on by itself when any line has a hash)")
        ->envname("AITK_ENV_REQUIRE_HASHES");
    lock->add_flag("--skip-unmapped", a->skip_unmapped,
                   "environment.yml: go on when conda packages have no PyPI name");
    lock->footer(
        "Exit codes: 0 locked (or up to date with --check), 1 failure or stale lockfile, 2 bad "
        "input (file:line:column), 3 unsatisfiable (the derivation says why).");

    Command command;
    command.app = lock;
    command.run = [a, &globals]() -> int {
        app::LockRequest request;
        request.input = input_selection(a->manifest, a->requirements, a->conda_file, a->project_dir,
                                        a->skip_unmapped);
        request.input.require_hashes = a->require_hashes;
        set_install_selection(request.input, a->selection);
        if (a->from.empty() && a->selection.locked) {
            throw util::InputError("--locked checks the uv.lock of --from",
                                   "pass --from uv.lock, or drop --locked");
        }
        request.output = path_or_none(a->output);
        request.targets = a->targets;
        if (!a->python.empty()) request.python = a->python;
        if (!a->glibc.empty()) request.glibc = a->glibc;
        if (!a->macos.empty()) request.macos = a->macos;
        request.upgrade = a->upgrade;
        request.upgrade_packages = a->upgrade_packages;
        request.check = a->check;
        request.sources.inspect = !a->no_build;
        request.indexes = index_settings(globals);
        // What was read comes first, as soon as it is read (setup's rule; cmd_setup.cpp).
        bool announced = false;
        if (!globals.json && globals.verbosity >= 0) {
            request.on_input = [&announced](const std::string& input) {
                std::cerr << "input: " << input << "\n" << std::flush;
                announced = true;
            };
        }
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress));
        app::LockOutcome outcome;
        if (!a->from.empty()) {
            outcome = lock_from(*a, session);
        } else {
            if (a->targets.empty())
                request.machine = probe_this_machine(a->backend, a->force, session.cache_root());
            outcome = app::run_lock(session, request);
        }
        if (progress.transfers() > 0) progress.finish();
        if (globals.json) {
            std::cout << outcome.to_json().dump(2) << "\n";
        } else if (globals.verbosity >= 0) {
            if (!announced && !outcome.input.empty())
                std::cerr << "input: " << outcome.input << "\n";
            for (const auto& note : outcome.notes)
                std::cerr << (note.starts_with("warning: ") ? "" : "note: ") << note << "\n";
            if (a->check) {
                std::cerr << (outcome.up_to_date ? util::utf8_of(outcome.path) + " is up to date"
                                                 : "stale: " + outcome.stale_reason)
                          << "\n";
            } else {
                for (const auto& target : outcome.lockfile.targets) {
                    std::cerr << target.id << ": " << target.packages.size() << " packages (Python "
                              << target.python << floor_summary(target) << ")\n";
                }
                std::cerr << (outcome.written ? "wrote " : "unchanged: ")
                          << util::utf8_of(outcome.path) << "\n";
            }
        }
        return outcome.up_to_date ? 0 : 1;
    };
    return command;
}

}  // namespace aitk::cli
