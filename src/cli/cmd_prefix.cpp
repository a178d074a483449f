// The verbs on an existing prefix: `sync`, `verify`, `list`, `run`.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/cache.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/app/sync.hpp"
#include "aitk/app/torch_choice.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {
namespace {}  // namespace

Command add_sync_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string lock, prefix = ".venv", target, link_mode = "auto", backend = "auto";
        bool dry_run = false, compile_bytecode = false, no_build = false, force = false;
        std::vector<std::string> rewrite_urls;
        app::InputSelection selection;  // --extra … --locked (add_install_selection_options)
    };
    auto a = std::make_shared<Args>();
    auto* sync = app.add_subcommand("sync", "Make the prefix match the lock exactly");
    sync->add_option(
        "--backend", a->backend,
        "Backend of the target to install when --target is not given (cpu allows "
        "a CPU target on a GPU machine; default: AITK_ENV_TORCH_BACKEND); honoured or refused");
    sync->add_flag("--force", a->force, "Install the target even if this machine cannot run it");
    sync->add_option("-l,--lock", a->lock,
                     "Lockfile: aitk-env's, a uv.lock or a PEP 751 pylock.toml")
        ->required();
    add_install_selection_options(sync, a->selection, /*reads_pyproject=*/false);
    sync->add_option("-p,--prefix", a->prefix, "Prefix (default .venv)");
    sync->add_option("--target", a->target,
                     "Lock target (default: the one the prefix was set up for)")
        ->check(target_id_check());
    sync->add_option("--link-mode", a->link_mode, "auto, reflink, hardlink or copy")
        ->check(CLI::IsMember({"auto", "reflink", "hardlink", "copy"}));
    sync->add_flag("--dry-run", a->dry_run, "Print the plan; change nothing");
    sync->add_flag("--compile-bytecode", a->compile_bytecode,
                   "Compile the installed .py files to .pyc (faster first import)")
        ->envname("AITK_ENV_COMPILE_BYTECODE");
    sync->add_flag("--no-build", a->no_build,
                   "Skip git/sdist/folder packages instead of building them")
        ->envname("AITK_ENV_NO_BUILD");
    sync->add_option("--rewrite-url", a->rewrite_urls,
                     "FROM=TO: download a locked URL starting with FROM from TO + the rest "
                     "(repeatable; the first match wins; then AITK_ENV_REWRITE_URL, "
                     "~/.config/aitk-env/config.yaml, /etc/aitk-env/config.yaml)");
    Command command;
    command.app = sync;
    command.run = [a, &globals]() -> int {
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress, a->rewrite_urls));
        auto layout = app::open_prefix(util::path_from_utf8(a->prefix), host_is_windows);
        std::optional<std::string> own;
        std::optional<std::string> recorded_python;
        if (auto recorded = app::read_prefix_lock(layout)) {
            own = recorded->target;
            if (const auto* t = recorded->lock.find_target(recorded->target)) {
                recorded_python = t->python;
            }
        }
        app::SyncRequest request;
        auto machine = probe_this_machine(a->backend, a->force, session.cache_root());
        // A pylock.toml or a uv.lock is converted for the target asked for, else for this
        // machine (every build it offers, among which the prefix's own target is found), for
        // the Python the prefix runs.
        auto read_options = app::lock_read_options(a->selection, machine.os, machine.arch);
        if (!a->target.empty()) read_options.targets = {a->target};
        read_options.python = recorded_python;
        if (!read_options.python && !layout.python_version.empty())
            read_options.python = layout.python_version;
        auto read = app::read_any_lock(util::path_from_utf8(a->lock), read_options);
        const auto& lockfile = read.lock;
        if (globals.verbosity >= 0) {
            for (const auto& note : read.notes)
                std::cerr << (note.starts_with("warning: ") ? "" : "note: ") << note << "\n";
        }
        std::string reason;
        std::optional<std::string> wanted;
        if (!a->target.empty()) wanted = a->target;
        const auto* target = &app::choose_sync_target(lockfile, machine, wanted, own, reason);
        request.lock = &lockfile;
        request.target = target;
        request.layout = layout;
        request.link_mode = *install::parse_link_mode(a->link_mode);
        request.dry_run = a->dry_run;
        request.compile_bytecode = a->compile_bytecode;
        request.build_sources = !a->no_build;
        request.artifact_sources.rewrite = session.network().rewrite;
        // Index URLs given with the lock say where its files are now (a mirror of it).
        if (!globals.index_url.empty() || !globals.extra_index_urls.empty()) {
            request.artifact_sources.indexes = index_settings(globals);
        }
        request.artifact_sources.local_files = app::LocalFileRule::for_lock(
            session.cwd(), util::path_from_utf8(a->lock), index_settings(globals));
        auto outcome = app::sync_prefix(session, request);
        if (progress.transfers() > 0) progress.finish();
        if (globals.json) {
            std::cout << outcome.to_json().dump(2) << "\n";
        } else if (a->dry_run) {
            std::cout << outcome.plan.describe();  // the plan is the result, as for setup
        } else if (globals.verbosity >= 0) {
            std::cerr << outcome.plan.describe();
        }
        if (globals.verbosity >= 1 && !a->dry_run) std::cerr << outcome.timeline.describe();
        return 0;
    };
    return command;
}

Command add_verify_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string lock, prefix = ".venv", target;
    };
    auto a = std::make_shared<Args>();
    auto* verify =
        app.add_subcommand("verify", "Compare the prefix with its lock and RECORD hashes");
    verify->add_option("-p,--prefix", a->prefix, "Prefix (default .venv)");
    verify->add_option("-l,--lock", a->lock, "Lockfile (default: the prefix's own copy)");
    verify->add_option("--target", a->target, "Lock target (default: the prefix's)")
        ->check(target_id_check());
    verify->footer(
        "Exit codes: 0 clean, 1 failure (I/O), 2 bad input, 4 drift or incomplete (a setup or "
        "change that did not finish).");
    Command command;
    command.app = verify;
    command.json_usage_error = [](const std::string& error) {
        return app::verify_error_json(static_cast<int>(util::ExitCode::bad_input), error,
                                      "run `aitk-env verify --help` for the options")
            .dump(2);
    };
    command.run = [a, &globals]() -> int {
        auto verify_and_print = [&]() -> int {
            auto layout = app::open_prefix(util::path_from_utf8(a->prefix), host_is_windows);
            std::optional<lock::Lockfile> lockfile;
            if (!a->lock.empty()) {
                lockfile = app::read_lockfile(util::path_from_utf8(a->lock));
            }
            auto report = app::verify_prefix(layout, lockfile, a->target, a->lock);
            if (globals.json) {
                std::cout << report.to_json().dump(2) << "\n";
            } else {
                std::cout << report.text();
            }
            return report.clean() ? 0 : static_cast<int>(util::ExitCode::drift);
        };
        if (!globals.json) return verify_and_print();
        // With --json, a failure is a result too: stdout gets its object, stderr the error.
        try {
            return verify_and_print();
        } catch (const util::Error& e) {
            std::cout
                << app::verify_error_json(static_cast<int>(e.code()), e.what(), e.hint()).dump(2)
                << "\n";
            throw;
        } catch (const std::exception& e) {
            std::cout << app::verify_error_json(static_cast<int>(util::ExitCode::failure), e.what(),
                                                "")
                             .dump(2)
                      << "\n";
            throw;
        }
    };
    return command;
}

Command add_list_command(CLI::App& app, GlobalOptions& globals) {
    auto prefix = std::make_shared<std::string>(".venv");
    auto* list = app.add_subcommand("list", "Installed distributions");
    list->add_option("-p,--prefix", *prefix, "Prefix (default .venv)");
    Command command;
    command.app = list;
    command.run = [prefix, &globals]() -> int {
        auto layout = app::open_prefix(util::path_from_utf8(*prefix), host_is_windows);
        auto dists = install::installed_distributions(layout);
        if (globals.json) {
            std::cout << app::list_json(dists).dump(2) << "\n";
        } else {
            std::cout << app::list_text(dists);
        }
        return 0;
    };
    return command;
}

Command add_run_command(CLI::App& app, GlobalOptions& /*globals*/) {
    struct Args {
        std::string prefix = ".venv";
        std::vector<std::string> command;
    };
    auto a = std::make_shared<Args>();
    auto* run =
        app.add_subcommand("run", "Run a command in the prefix's environment (as the shims do)");
    run->add_option("-p,--prefix", a->prefix, "Prefix (default .venv)");
    run->add_option("command", a->command, "Command and its arguments (after --)")->required();
    run->prefix_command();
    Command command;
    command.app = run;
    command.run = [a]() -> int {
        auto layout = app::open_prefix(util::path_from_utf8(a->prefix), host_is_windows);
        auto env = app::run_environment(layout, util::current_environment());
        auto path = util::environment_lookup(env, "PATH").value_or("");
        auto program = util::find_program(a->command[0], path, host_is_windows);
        if (!program) {
            throw util::Error(util::ExitCode::failure,
                              a->command[0] + ": not found in the prefix or on PATH");
        }
#ifdef _WIN32
        util::ProcessRequest request;
        request.argv = a->command;
        request.argv[0] = program->string();
        request.environment = env;
        request.timeout = std::chrono::hours(24 * 365);
        auto result = util::run_process(request);
        if (!result) throw util::Error(util::ExitCode::failure, result.error().message);
        std::cout << result->out;
        std::cerr << result->err;
        return result->exit_code;
#else
        std::vector<std::string> env_strings;
        for (const auto& [k, v] : env)
            env_strings.push_back(k + "=" + v);
        std::vector<char*> argv, envp;
        std::string exe = program->string();
        for (auto& arg : a->command)
            argv.push_back(arg.data());
        argv.push_back(nullptr);
        for (auto& e : env_strings)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        std::cout.flush();
        ::execve(exe.c_str(), argv.data(), envp.data());
        throw util::Error(util::ExitCode::failure,
                          "cannot run " + exe + ": " + std::strerror(errno));
#endif
    };
    return command;
}

}  // namespace aitk::cli
