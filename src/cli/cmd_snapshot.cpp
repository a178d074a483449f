// `aitk-env snapshot`: the lockfile of what an existing prefix holds.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "aitk/app/cache.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/snapshot.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {
namespace {}  // namespace

Command add_snapshot_command(CLI::App& app, GlobalOptions& globals) {
    struct Args {
        std::string prefix = ".venv", output;
        bool allow_unlocked = false, all = false;
    };
    auto a = std::make_shared<Args>();
    auto* snapshot = app.add_subcommand(
        "snapshot",
        "Write a lockfile of what an existing prefix holds (pip-installed packages included), "
        "for `setup -l` elsewhere");
    snapshot->add_option("-p,--prefix", a->prefix, "Prefix (default .venv)");
    snapshot->add_option("-o,--output", a->output, "Lockfile to write (default: standard output)");
    snapshot->add_flag("--allow-unlocked", a->allow_unlocked,
                       "Leave out, with a warning, packages whose file is found nowhere "
                       "(default: an error)");
    snapshot->add_flag("--all", a->all,
                       "Keep pip, setuptools, wheel and distribute even when nothing needs them");
    snapshot->footer(
        "Each file comes from aitk-env's receipt, the package's direct_url.json (PEP 610), the "
        "indexes (--index-url, --extra-index-url, --find-links; default the prefix lock's, "
        "else PyPI) or the cache; stderr says which.\n"
        "Exit codes: 0 written, 1 a package's file was found nowhere (or network failure), 2 "
        "bad input (not a prefix).");

    Command command;
    command.app = snapshot;
    command.run = [a, &globals]() -> int {
        app::SnapshotRequest request;
        request.prefix = util::path_from_utf8(a->prefix);
        request.windows = host_is_windows;
        request.allow_unlocked = a->allow_unlocked;
        request.keep_installer_tools = a->all;
        request.indexes = index_settings(globals);
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 0, 0);
        app::Session session(session_settings(globals, &progress));

        auto machine = probe_this_machine("auto", false, session.cache_root());
        if (machine.os.empty()) {
            throw util::Error(util::ExitCode::unsatisfiable,
                              "this machine cannot be a lock target: " + machine.unsupported);
        }
        request.os = machine.os;
        request.arch = machine.arch;

        auto outcome = app::snapshot_prefix(session, request);
        if (progress.transfers() > 0) progress.finish();

        auto text = lock::write_lockfile(outcome.lockfile);
        if (!a->output.empty()) {
            std::filesystem::path path = util::path_from_utf8(a->output);
            std::error_code ec;
            if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
            fs::write_file_atomic(path, text);
        }
        if (globals.json) {
            auto json = outcome.to_json();
            json["lockfile"] =
                a->output.empty() ? nlohmann::json(nullptr) : nlohmann::json(a->output);
            if (a->output.empty()) json["text"] = text;
            std::cout << json.dump(2) << "\n";
        } else if (a->output.empty()) {
            std::cout << text;
        }
        if (globals.verbosity >= 0 && !globals.json) {
            std::cerr << outcome.summary();
            const auto& target = outcome.lockfile.targets.front();
            std::cerr << target.id << ": " << target.packages.size() << " packages (Python "
                      << target.python << ")" << (a->output.empty() ? "" : ", wrote " + a->output)
                      << "\n";
        }
        return 0;
    };
    return command;
}

}  // namespace aitk::cli
