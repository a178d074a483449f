#include "global_options.hpp"

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <system_error>

#include "aitk/app/cache.hpp"
#include "aitk/app/rewrite_config.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cli {

std::optional<std::filesystem::path> path_or_none(const std::string& s) {
    if (s.empty()) return std::nullopt;
    return util::path_from_utf8(s);
}

app::InputSelection input_selection(const std::string& manifest, const std::string& requirements,
                                    const std::string& conda_file, const std::string& project_dir,
                                    bool skip_unmapped) {
    app::InputSelection s;
    s.manifest = path_or_none(manifest);
    s.requirements = path_or_none(requirements);
    s.conda_file = path_or_none(conda_file);
    s.project_dir = path_or_none(project_dir);
    s.skip_unmapped = skip_unmapped;
    return s;
}

void add_install_selection_options(CLI::App* command, app::InputSelection& options,
                                   bool reads_pyproject) {
    command->add_option("--extra", options.extras,
                        "An extra to install, of a uv.lock, a pylock.toml or a project's "
                        "pyproject.toml (repeatable; default: none, except per target the extra "
                        "that chooses its torch build)");
    command->add_flag("--all-extras", options.all_extras,
                      "Install every extra of a uv.lock or a project's pyproject.toml (a "
                      "pylock.toml's extras are named with --extra)");
    command->add_option("--group", options.groups,
                        "A dependency group to install too, of a uv.lock, a pylock.toml or a "
                        "project's pyproject.toml (repeatable; its default groups are installed "
                        "too)");
    command->add_flag("--no-default-groups", options.no_default_groups,
                      "Leave out the default dependency groups (\"dev\", [tool.uv] "
                      "default-groups, a pylock.toml's default-groups)");
    command->add_flag("--locked", options.locked,
                      "A uv.lock: exit 1 when it no longer matches the pyproject.toml beside it "
                      "(uv sync --locked); without it, a warning");
    if (!reads_pyproject) return;  // sync reads lock files only
    command->add_flag("--no-install-project", options.no_install_project,
                      "A project's pyproject.toml: install its dependencies but not the project "
                      "itself (otherwise installed editable when it has a build system)");
}

void set_install_selection(app::InputSelection& into, const app::InputSelection& from) {
    into.extras = from.extras;
    into.all_extras = from.all_extras;
    into.groups = from.groups;
    into.no_default_groups = from.no_default_groups;
    into.locked = from.locked;
    into.no_install_project = from.no_install_project;
    into.pyproject.extras = from.extras;
    into.pyproject.all_extras = from.all_extras;
    into.pyproject.groups = from.groups;
    into.pyproject.no_default_groups = from.no_default_groups;
    into.pyproject.install_project = !from.no_install_project;
}

app::DoctorOptions machine_options(const std::string& backend, bool force,
                                   const std::filesystem::path& cache_root) {
    app::DoctorOptions o;
    o.backend = backend.empty() ? std::string("auto") : backend;
    o.force = force;
    o.probe = platform::ProbeEnvironment::current();
    o.cache_dir = cache_root;
    o.tool_version = AITK_ENV_VERSION;
    auto self = util::self_executable_path();
    if (!self.empty())
        o.probe.libcuda_helper = {util::utf8_of(self), "doctor", "--libcuda-probe-child"};
    return o;
}

app::Machine probe_this_machine(const std::string& backend, bool force,
                                const std::filesystem::path& cache_root) {
    return app::probe_machine(machine_options(backend, force, cache_root));
}

app::IndexSettings index_settings(const GlobalOptions& g) {
    app::IndexSettings indexes;
    if (!g.index_url.empty()) indexes.index_url = g.index_url;
    indexes.extra_index_urls = g.extra_index_urls;
    indexes.find_links = g.find_links;
    if (!g.torch_index_url.empty()) indexes.torch_index_url = g.torch_index_url;
    // The option's check admits only the three names.
    if (!g.index_strategy.empty())
        indexes.index_strategy = index::parse_index_strategy(g.index_strategy);
    return indexes;
}

namespace {

// A whole number in [low, high] from the environment variable `name`; nullopt when unset or
// empty. Anything else is a usage error naming the variable, so that a typo never silently
// means "the default".
std::optional<long long> env_number(const util::Environment& env, const std::string& name,
                                    long long low, long long high, std::string_view unit) {
    auto it = env.find(name);
    if (it == env.end() || it->second.empty()) return std::nullopt;
    const std::string& text = it->second;
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) {
        throw util::InputError(name + "='" + text + "' is not a whole number of " +
                                   std::string(unit) + " from " + std::to_string(low) + " to " +
                                   std::to_string(high),
                               "set " + name + " to such a number, or unset it");
    }
    return value;
}

}  // namespace

app::NetworkSettings network_settings(const GlobalOptions& g, const util::Environment& env) {
    app::NetworkSettings network;
    network.concurrency = g.concurrency;
    if (!g.cert.empty()) network.cert = g.cert;
    network.offline = g.offline;
    if (auto n = env_number(env, "AITK_ENV_HTTP_RETRIES", 0, 100, "retries")) {
        network.retries = static_cast<int>(*n);
    }
    if (auto n = env_number(env, "AITK_ENV_HTTP_TIMEOUT", 1, 86'400, "seconds")) {
        network.timeout = std::chrono::seconds(*n);
    }
    if (auto n = env_number(env, "AITK_ENV_HTTP_RETRY_DELAY_MS", 0, 600'000, "milliseconds")) {
        network.retry_delay = std::chrono::milliseconds(*n);
    }
    return network;
}

app::NetworkSettings network_settings(const GlobalOptions& g) {
    return network_settings(g, util::current_environment());
}

app::SessionSettings session_settings(const GlobalOptions& g, net::TransferObserver* observer,
                                      const std::vector<std::string>& rewrite_urls) {
    app::SessionSettings settings;
    settings.environment = util::current_environment();
    settings.cache_root = app::resolve_cache_root(g.cache_dir, settings.environment);
    settings.cwd = std::filesystem::current_path();
    settings.network = network_settings(g, settings.environment);
    settings.network.rewrite = app::configured_rewrite_rules(rewrite_urls);
    settings.observer = observer;
    return settings;
}

app::ProgressStyle progress_style(const GlobalOptions& g) {
#ifdef _WIN32
    const bool terminal = _isatty(_fileno(stderr)) != 0;
#else
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
#endif
    return app::choose_progress_style(terminal, g.verbosity < 0, g.no_progress);
}

void reread_environment_as_utf8([[maybe_unused]] CLI::App& app,
                                [[maybe_unused]] const std::vector<std::string>& argv) {
#ifdef _WIN32
    for (CLI::Option* option : app.get_options()) {
        const std::string name = option->get_envname();
        if (name.empty()) continue;
        // A flag on the command line won over the variable in the parse: it still does.
        const bool given = std::any_of(argv.begin(), argv.end(), [&](const std::string& a) {
            for (const auto& l : option->get_lnames()) {
                if (a == "--" + l || a.rfind("--" + l + "=", 0) == 0) return true;
            }
            for (const auto& s : option->get_snames()) {
                if (a.rfind("-" + s, 0) == 0) return true;
            }
            return false;
        });
        if (given) continue;
        const auto value = util::env_utf8(name.c_str());
        // ASCII reads the same through getenv; anything else is parsed again from UTF-16.
        if (!value ||
            std::all_of(value->begin(), value->end(), [](unsigned char c) { return c < 0x80; }))
            continue;
        option->clear();
        option->add_result(*value);
        option->run_callback();
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        reread_environment_as_utf8(*sub, argv);
#endif
}

CLI::Validator index_strategy_check() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (index::parse_index_strategy(text)) return {};
            return "'" + text +
                   "' is not an index strategy (--index-strategy, AITK_ENV_INDEX_STRATEGY): use " +
                   std::string(index::index_strategy_names());
        },
        "STRATEGY");
}

CLI::Validator target_id_check() {
    return CLI::Validator(
        [](std::string& id) -> std::string {
            if (auto problem = util::path_name_problem(id)) {
                return "'" + id + "' is not a target id: " + *problem +
                       " (targets are written OS-ARCH-BACKEND, such as linux-x86_64-cu130)";
            }
            return {};
        },
        "OS-ARCH-BACKEND");
}

void add_global_options(CLI::App& app, GlobalOptions& g) {
    const char* group = "Global options";
    app.add_option("--cache-dir", g.cache_dir, "Cache root")
        ->envname("AITK_ENV_CACHE_DIR")
        ->group(group);
    app.add_option("--index-url", g.index_url, "Primary simple index")
        ->envname("AITK_ENV_INDEX_URL")
        ->group(group);
    app.add_option("--extra-index-url", g.extra_index_urls, "More indexes, lower priority")
        ->envname("AITK_ENV_EXTRA_INDEX_URL")
        ->delimiter(' ')
        ->group(group);
    app.add_option("--find-links", g.find_links, "Flat folders or pages of wheels")
        ->envname("AITK_ENV_FIND_LINKS")
        ->delimiter(' ')
        ->group(group);
    app.add_option("--torch-index-url", g.torch_index_url,
                   "Base of the backend indexes (backend B lives at URL/B/)")
        ->envname("AITK_ENV_TORCH_INDEX_URL")
        ->group(group);
    app.add_option("--index-strategy", g.index_strategy,
                   "Which indexes a package may come from when several list it: first-index, "
                   "unsafe-first-match or unsafe-best-match (uv's names; default: as the input's "
                   "own tool, pip's unsafe-best-match for requirements files, uv's first-index for "
                   "a pyproject.toml)")
        ->envname("AITK_ENV_INDEX_STRATEGY")
        ->check(index_strategy_check())
        ->group(group);
    app.add_flag("--offline", g.offline, "Never touch the network")
        ->envname("AITK_ENV_OFFLINE")
        ->group(group);
    app.add_option("--concurrency", g.concurrency, "Parallel downloads (default 8)")
        ->envname("AITK_ENV_CONCURRENCY")
        ->check(CLI::Range(1, 256))
        ->group(group);
    app.add_option("--cert", g.cert,
                   "CA bundle for TLS (default: SSL_CERT_FILE, REQUESTS_CA_BUNDLE, the system's)")
        ->check(CLI::ExistingFile)
        ->group(group);
    app.add_flag("--json", g.json, "Machine-readable result on stdout")->group(group);
    app.add_flag(
           "-v,--verbose", [&g](std::int64_t n) { g.verbosity += static_cast<int>(n); },
           "More output")
        ->group(group);
    app.add_flag(
           "-q,--quiet", [&g](std::int64_t n) { g.verbosity -= static_cast<int>(n); },
           "Less output")
        ->group(group);
    app.add_flag("--no-progress", g.no_progress, "No progress bars")->group(group);
    app.add_option("--color", g.color, "Colour output")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->group(group);
}

void apply_logging(const GlobalOptions& g) {
    auto logger = spdlog::stderr_color_mt("aitk-env");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("%^%l%$: %v");
    if (g.verbosity >= 2) {
        spdlog::set_level(spdlog::level::trace);
    } else if (g.verbosity == 1) {
        spdlog::set_level(spdlog::level::debug);
    } else if (g.verbosity < 0) {
        spdlog::set_level(spdlog::level::err);
    } else {
        spdlog::set_level(spdlog::level::info);
    }
    bool no_color = g.color == "never" || (g.color == "auto" && std::getenv("NO_COLOR"));
    if (no_color) {
        logger->set_pattern("%l: %v");
    }
}

}  // namespace aitk::cli
