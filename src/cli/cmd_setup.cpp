// `aitk-env setup`: the whole job, from nothing to a working prefix with shims.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "aitk/app/cache.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_setup_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string manifest, lock, requirements, env_file, bundle, project,
            prefix = ".venv", backend = "auto", python, link_mode = "auto", target, glibc, macos;
        bool dry_run = false, no_smoke_test = false, skip_unmapped = false,
             compile_bytecode = false, no_build = false, force = false, require_hashes = false;
        std::vector<std::string> rewrite_urls;
        app::InputSelection selection;  // --extra … --locked (add_install_selection_options)
    };
    auto args = std::make_shared<Args>();
    auto* setup = app.add_subcommand("setup", "From nothing to a working prefix with shims");
    auto* m =
        setup->add_option("-m,--manifest", args->manifest, "Manifest (default: AI Toolkit's)");
    auto* l = setup->add_option(
        "-l,--lock", args->lock,
        "Lockfile to install (no resolver, no index pages): aitk-env's, a uv.lock or a PEP "
        "751 pylock.toml");
    auto* r =
        setup->add_option("-r,--requirements", args->requirements, "requirements.txt to install");
    auto* f = setup->add_option("-f,--file", args->env_file, "environment.yml to install");
    auto* b = setup->add_option("--bundle", args->bundle, "Offline bundle to install from");
    m->excludes(l)->excludes(r)->excludes(f)->excludes(b);
    l->excludes(r)->excludes(f)->excludes(b);
    r->excludes(f)->excludes(b);
    f->excludes(b);
    add_install_selection_options(setup, args->selection);
    setup->add_option("--project", args->project, "Project directory (see `lock --project`)");
    setup->add_option("-p,--prefix", args->prefix, "Prefix to create (default .venv)");
    setup->add_option(
        "--backend", args->backend,
        "Use this torch backend (auto = decide from the project's torch and this "
        "machine; default: AITK_ENV_TORCH_BACKEND); honoured or refused, never replaced");
    setup
        ->add_option("--target", args->target,
                     "OS-ARCH-BACKEND: the lock target to install (with -l) or to lock for; "
                     "honoured or refused, never replaced")
        ->check(target_id_check());
    setup->add_flag("--force", args->force,
                    "With --backend or --target: install that build even if this machine cannot "
                    "run it (e.g. to prepare a prefix for another machine)");
    setup->add_option("--python", args->python, "Interpreter version X.Y or path");
    setup->add_option("--glibc", args->glibc,
                      "X.Y: lock for machines with this glibc or newer (see `lock --glibc`); "
                      "not with -l or --bundle");
    setup->add_option("--macos", args->macos,
                      "X.Y: lock for machines with this macOS or newer (see `lock --macos`); "
                      "not with -l or --bundle");
    setup->add_option("--link-mode", args->link_mode, "auto, reflink, hardlink or copy")
        ->check(CLI::IsMember({"auto", "reflink", "hardlink", "copy"}));
    setup->add_flag("--dry-run", args->dry_run, "Print the plan; change nothing");
    setup->add_flag("--no-smoke-test", args->no_smoke_test, "Skip the import check at the end");
    setup
        ->add_flag("--compile-bytecode", args->compile_bytecode,
                   "Compile the installed .py files to .pyc (faster first import)")
        ->envname("AITK_ENV_COMPILE_BYTECODE");
    setup
        ->add_flag("--no-build", args->no_build,
                   "Do not fetch or build git/sdist/folder requirements (they are skipped)")
        ->envname("AITK_ENV_NO_BUILD");
    setup->add_option("--rewrite-url", args->rewrite_urls,
                      "FROM=TO: download a locked URL starting with FROM from TO + the rest "
                      "(repeatable; the first match wins; then AITK_ENV_REWRITE_URL, "
                      "~/.config/aitk-env/config.yaml, /etc/aitk-env/config.yaml)");
    setup
        ->add_flag("--require-hashes", args->require_hashes,
                   "pip's hash-checking mode for -r/-f/-m (every requirement pinned with == and "
                   "hashes, dependencies included; on by itself when any line has a hash); "
                   "with -l: every locked file must have a sha256")
        ->envname("AITK_ENV_REQUIRE_HASHES");
    setup->add_flag("--skip-unmapped", args->skip_unmapped,
                    "environment.yml: go on when conda packages have no PyPI name");
    setup->footer(
        "Exit codes: 0 ready, 1 failure (download, hash, smoke test), 2 bad input, 3 no lock "
        "target or backend this machine runs.");

    Command command;
    command.app = setup;
    command.run = [args, &globals]() -> int {
        app::SetupRequest request;
        request.input = input_selection(args->manifest, args->requirements, args->env_file,
                                        args->project, args->skip_unmapped);
        request.input.require_hashes = args->require_hashes;
        set_install_selection(request.input, args->selection);
        request.lockfile = path_or_none(args->lock);
        request.bundle = path_or_none(args->bundle);
        if (!args->target.empty()) request.target = args->target;
        request.prefix = util::path_from_utf8(args->prefix);
        if (!args->python.empty()) request.python = args->python;
        if (!args->glibc.empty()) request.glibc = args->glibc;
        if (!args->macos.empty()) request.macos = args->macos;
        request.link_mode = *install::parse_link_mode(args->link_mode);
        request.dry_run = args->dry_run;
        request.smoke_test = !args->no_smoke_test;
        request.compile_bytecode = args->compile_bytecode;
        request.build_sources = !args->no_build;
        // What setup reads is its first line, printed as soon as it is known (a failure later
        // on still follows it); --json and --quiet keep stderr for errors.
        bool announced = false;
        if (!globals.json && globals.verbosity >= 0) {
            request.on_input = [&announced](const std::string& input) {
                std::cerr << "input: " << input << "\n" << std::flush;
                announced = true;
            };
        }
        request.indexes = index_settings(globals);
#ifdef _WIN32
        request.windows = true;
#endif
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress, args->rewrite_urls));
        request.machine = probe_this_machine(args->backend, args->force, session.cache_root());
        request.machine.require_target_os();
        auto outcome = app::run_setup(session, request);
        if (progress.transfers() > 0) progress.finish();
        if (globals.json) {
            std::cout << outcome.to_json().dump(2) << "\n";
        } else if (args->dry_run) {
            // The plan goes to stdout; what the import or the lock decided (an environment.yml's
            // mapping, a skipped package) still belongs beside it.
            std::cout << outcome.sync.plan.describe();
            for (const auto& note : outcome.notes)
                std::cerr << (note.starts_with("warning: ") ? "" : "note: ") << note << "\n";
        } else if (globals.verbosity >= 0) {
            std::cerr << outcome.summary(!announced);
        }
        // Where the time went goes to stderr, beside --json's stdout too.
        if (globals.verbosity >= 1 && !args->dry_run) {
            if (!outcome.stages.empty()) std::cerr << "stages   " << outcome.stages << "\n";
            std::cerr << outcome.sync.timeline.describe();
        }
        return 0;
    };
    return command;
}

}  // namespace aitk::cli
