// `aitk-env python list|find SPEC|install VERSION`.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "aitk/app/cache.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/util/subprocess.hpp"
#include "commands.hpp"

namespace aitk::cli {

Command add_python_command(CLI::App& app, GlobalOptions& globals) {
    auto* python = app.add_subcommand("python", "Find and install Python interpreters");
    python->require_subcommand(1);
    struct Args {
        std::string spec;
        std::string version;
    };
    auto args = std::make_shared<Args>();
    auto* list = python->add_subcommand(
        "list",
        "Interpreters on this machine (PATH, pyenv, conda, system folders) and the "
        "standalone builds in the cache");
    auto* find = python->add_subcommand(
        "find", "Print the path of the newest interpreter that matches SPEC (exit 1: none)");
    find->add_option("SPEC", args->spec,
                     "3.12 (any 3.12.x), 3.12.1, a PEP 440 specifier such as \">=3.10,<3.13\", "
                     "a path, or a program name such as python3.11")
        ->required();
    auto* install = python->add_subcommand(
        "install",
        "Download a python-build-standalone CPython into the cache (sha256-checked; "
        "AITK_ENV_PYTHON_MIRROR replaces the GitHub release URL prefix)");
    install->add_option("VERSION", args->version, "3.12 (the newest 3.12.x known) or 3.12.1")
        ->required();
    python->footer("Exit codes: 0 ok, 1 nothing found or a failed download, 2 bad input.");

    Command command;
    command.app = python;
    command.run = [=, &globals]() -> int {
        auto style = progress_style(globals);
        app::DownloadProgress progress(std::cerr, style, 1, 0);
        app::Session session(session_settings(globals, &progress));

        app::PythonReport report;
        if (list->parsed()) report = app::python_list(session);
        if (find->parsed()) report = app::python_find(session, args->spec);
        if (install->parsed()) {
            report = app::python_install(session, args->version);
            if (progress.transfers() > 0) progress.finish();
        }
        const int exit_code = print_report(globals, report);
        if (!report.error.empty()) std::cerr << "error: " << report.error << "\n";
        return exit_code;
    };
    return command;
}

}  // namespace aitk::cli
