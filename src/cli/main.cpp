// aitk-env entry point: parse the command line, run one verb, map every error to an exit code.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <iostream>
#include <vector>

#include "aitk/util/error.hpp"
#include "commands.hpp"
#include "global_options.hpp"
#include "utf8_arguments.hpp"

int main(int raw_argc, char** raw_argv) {
    using aitk::util::ExitCode;
    aitk::cli::use_utf8_console();
    aitk::cli::Utf8Arguments arguments(raw_argc, raw_argv);
    CLI::App app{"aitk-env: correct, reproducible Python + PyTorch environments for AI training",
                 "aitk-env"};
    app.set_version_flag("--version", std::string("aitk-env ") + AITK_ENV_VERSION);
    app.require_subcommand(1);
    app.fallthrough();  // global options are accepted before or after the command

    aitk::cli::GlobalOptions globals;
    aitk::cli::add_global_options(app, globals);
    std::vector<aitk::cli::Command> commands;
    commands.push_back(aitk::cli::add_pep_command(app, globals));
    commands.push_back(aitk::cli::add_setup_command(app, globals));
    commands.push_back(aitk::cli::add_cache_command(app, globals));
    commands.push_back(aitk::cli::add_doctor_command(app, globals));
    commands.push_back(aitk::cli::add_lock_command(app, globals));
    commands.push_back(aitk::cli::add_python_command(app, globals));
    commands.push_back(aitk::cli::add_sync_command(app, globals));
    commands.push_back(aitk::cli::add_verify_command(app, globals));
    commands.push_back(aitk::cli::add_list_command(app, globals));
    commands.push_back(aitk::cli::add_run_command(app, globals));
    commands.push_back(aitk::cli::add_export_command(app, globals));
    commands.push_back(aitk::cli::add_bundle_command(app, globals));
    commands.push_back(aitk::cli::add_mirror_command(app, globals));
    commands.push_back(aitk::cli::add_snapshot_command(app, globals));
    commands.push_back(aitk::cli::add_self_command(app, globals));

    try {
        app.parse(arguments.argc(), arguments.argv());
        aitk::cli::reread_environment_as_utf8(
            app, std::vector<std::string>(arguments.argv(), arguments.argv() + arguments.argc()));
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        if (rc != 0) {
            // --json promises a result object to the commands that offer one, usage errors too.
            const std::vector<std::string> args(arguments.argv(),
                                                arguments.argv() + arguments.argc());
            const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
            for (const auto& command : commands) {
                if (json && command.json_usage_error && command.app->parsed()) {
                    std::cout << command.json_usage_error(e.what()) << "\n";
                }
            }
        }
        return rc == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
    }
    try {
        aitk::cli::apply_logging(globals);
        for (auto& command : commands) {
            if (command.app->parsed()) return command.run();
        }
        return static_cast<int>(ExitCode::bad_input);
    } catch (const aitk::util::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        if (!e.hint().empty()) std::cerr << "hint: " << e.hint() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return static_cast<int>(ExitCode::failure);
    }
}
