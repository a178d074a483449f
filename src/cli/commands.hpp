#pragma once
// One function per top-level command: it declares the command's options and returns how to run
// it. Running happens after parsing, so logging is configured before any command does work.
#include <CLI/CLI.hpp>

#include <functional>

#include "global_options.hpp"

namespace aitk::cli {

// Whether this build runs on Windows: the prefix's layout (Scripts\ or bin/), how a program is
// found on PATH, and the kind of snapshot taken.
inline constexpr bool host_is_windows =
#ifdef _WIN32
    true;
#else
    false;
#endif

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;  // returns the exit code; errors are thrown
    // For a command whose --json prints a result for every outcome: the JSON of a usage error
    // the parser found in its arguments (an unknown flag, a bad value). Empty: none.
    std::function<std::string(const std::string& error)> json_usage_error;
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
Command add_self_command(CLI::App& app, GlobalOptions& globals);

}  // namespace aitk::cli
