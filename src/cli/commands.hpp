#pragma once
// One function per top-level command: it declares the command's options and returns how to run
// it. Running happens after parsing, so logging is configured before any command does work.
#include <CLI/CLI.hpp>

#include <functional>

#include "global_options.hpp"

namespace aitk::cli {

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;  // returns the exit code; errors are thrown
};

Command add_pep_command(CLI::App& app, GlobalOptions& globals);
Command add_setup_command(CLI::App& app, GlobalOptions& globals);
Command add_cache_command(CLI::App& app, GlobalOptions& globals);
Command add_doctor_command(CLI::App& app, GlobalOptions& globals);
Command add_lock_command(CLI::App& app, GlobalOptions& globals);
Command add_python_command(CLI::App& app, GlobalOptions& globals);
Command add_sync_command(CLI::App& app, GlobalOptions& globals);
Command add_verify_command(CLI::App& app, GlobalOptions& globals);
Command add_list_command(CLI::App& app, GlobalOptions& globals);
Command add_run_command(CLI::App& app, GlobalOptions& globals);
Command add_export_command(CLI::App& app, GlobalOptions& globals);
Command add_bundle_command(CLI::App& app, GlobalOptions& globals);
Command add_mirror_command(CLI::App& app, GlobalOptions& globals);
Command add_snapshot_command(CLI::App& app, GlobalOptions& globals);

}  // namespace aitk::cli
