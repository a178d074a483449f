#pragma once
// Options every command accepts (docs/cli.md "Global options").
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include <iostream>

#include "aitk/app/doctor.hpp"
#include "aitk/app/machine.hpp"
#include "aitk/app/progress.hpp"
#include "aitk/app/session.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::cli {

struct GlobalOptions {
    std::string cache_dir;
    std::string index_url;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;
    std::string torch_index_url;
    std::string index_strategy;  // uv's name; empty: the input's own tool's
    bool offline = false;
    std::size_t concurrency = 8;  // parallel transfers
    std::string cert;             // CA bundle; empty: SSL_CERT_FILE, REQUESTS_CA_BUNDLE, system
    bool json = false;
    int verbosity = 0;  // -v raises, -q lowers
    bool no_progress = false;
    std::string color = "auto";
};

void add_global_options(CLI::App& app, GlobalOptions& globals);

// The check of every --target value: a lock target id is a plain name (util::path_name_problem),
// never a path such as ../../x.
CLI::Validator target_id_check();
// The check of --index-strategy (and AITK_ENV_INDEX_STRATEGY): one of uv's three names.
CLI::Validator index_strategy_check();

// After parsing, on Windows: every option of `app` (and of its subcommands) that CLI11 filled
// from its environment variable is parsed again from the variable read as UTF-16. CLI11 reads
// variables through getenv, in the ANSI code page, which turns "C:\Users\Zoë\cache" into
// another folder. `argv` is the UTF-8 command line: a flag given there wins, as it did in the
// parse. Nothing elsewhere.
void reread_environment_as_utf8(CLI::App& app, const std::vector<std::string>& argv);

// The index and network parts of the global options, as every downloading command takes them.
app::IndexSettings index_settings(const GlobalOptions& globals);
// AITK_ENV_HTTP_RETRIES, AITK_ENV_HTTP_TIMEOUT and AITK_ENV_HTTP_RETRY_DELAY_MS come from
// `environment` (the process's by default); a bad value throws util::InputError naming it.
app::NetworkSettings network_settings(const GlobalOptions& globals,
                                      const util::Environment& environment);
app::NetworkSettings network_settings(const GlobalOptions& globals);
// One command's session (app/session.hpp): the cache root (--cache-dir, AITK_ENV_CACHE_DIR or
// the default), this process's working directory and environment, the network settings with
// every rewrite rule (`rewrite_urls`, the command's --rewrite-url values, first; then
// AITK_ENV_REWRITE_URL and the config files) and the progress observer.
app::SessionSettings session_settings(const GlobalOptions& globals, net::TransferObserver* observer,
                                      const std::vector<std::string>& rewrite_urls = {});
// Progress bars on a terminal stderr unless -q or --no-progress, else plain lines or nothing.
app::ProgressStyle progress_style(const GlobalOptions& globals);

// A command's outcome: its JSON on stdout with --json, else its summary on stderr unless -q.
template <class Outcome>
int print_outcome(const GlobalOptions& globals, const Outcome& outcome) {
    if (globals.json) {
        std::cout << outcome.to_json().dump(2) << "\n";
    } else if (globals.verbosity >= 0) {
        std::cerr << outcome.summary();
    }
    return 0;
}
// A report with `json`, `text` and `exit_code` (cache, python, self): its JSON on stdout with
// --json, else its text there; returns its exit code.
template <class Report>
int print_report(const GlobalOptions& globals, const Report& report) {
    if (globals.json) {
        std::cout << report.json.dump() << "\n";
    } else {
        std::cout << report.text;
    }
    return report.exit_code;
}
void apply_logging(const GlobalOptions& globals);

// "" → nullopt, else the path.
std::optional<std::filesystem::path> path_or_none(const std::string& s);
// -m / -r / -f / --project as the input commands take them.
app::InputSelection input_selection(const std::string& manifest, const std::string& requirements,
                                    const std::string& conda_file, const std::string& project_dir,
                                    bool skip_unmapped);

// --extra, --all-extras, --group, --no-default-groups and --locked (uv sync's names), as the
// commands that install from an input recording several installs (uv.lock, pylock.toml, a
// project's pyproject.toml) take them; `options` receives them.
// `reads_pyproject`: the command reads a project's pyproject.toml too, so it takes
// --no-install-project as well.
void add_install_selection_options(CLI::App* command, app::InputSelection& options,
                                   bool reads_pyproject = true);
// What add_install_selection_options read into `from`, set on the input selection `into`.
void set_install_selection(app::InputSelection& into, const app::InputSelection& from);

// How every command probes this machine, as doctor does: this process's environment, the
// probe cache under `cache_root` (empty: none), the libcuda child probe, and --backend (auto:
// AITK_ENV_TORCH_BACKEND) / --force.
app::DoctorOptions machine_options(const std::string& backend, bool force,
                                   const std::filesystem::path& cache_root);
// probe_machine with those options.
app::Machine probe_this_machine(const std::string& backend, bool force,
                                const std::filesystem::path& cache_root);

}  // namespace aitk::cli
