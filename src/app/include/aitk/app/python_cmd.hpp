#pragma once
// `aitk-env python list|find SPEC|install VERSION`, and the interpreter choice of `setup`
// (ensure_python): a matching interpreter on this machine if there is one, else a standalone
// CPython installed into the cache.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/settings.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/net/url_rewrite.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct PythonOptions {
    std::filesystem::path cache_root;
    util::Environment environment;  // PATH, HOME, PYENV_ROOT, CONDA_PREFIX, AITK_ENV_PYTHON_MIRROR
    // Offline, concurrency, CA bundle and the AITK_ENV_HTTP_* knobs of the standalone download
    // (its downloader is built from these by downloader_options, like every other one).
    NetworkSettings network;
    net::TransferObserver* observer = nullptr;
    std::chrono::milliseconds probe_timeout{10'000};
    // The standalone table (tests); nullptr: the compiled-in one.
    const std::vector<python::StandaloneBuild>* builds = nullptr;
    // Where standalone builds are for; nullopt: this machine.
    std::optional<python::StandalonePlatform> platform;
    // Folders searched after PATH, pyenv and conda; nullopt: the OS defaults (tests narrow it).
    std::optional<std::vector<std::filesystem::path>> system_dirs;
    // Rewrites for standalone downloads; nullopt: AITK_ENV_REWRITE_URL and the config files
    // (setup passes its own merged rules, --rewrite-url first).
    std::optional<net::UrlRewriteRules> rewrite;
};

// Discovery as the CLI runs it: PATH, HOME (USERPROFILE on Windows), PYENV_ROOT from the
// environment, the answers cache under the cache root, and the standalone builds installed in
// the cache as extra candidates.
python::DiscoveryOptions discovery_options(const PythonOptions& options);

// {"version", "implementation", "path", "executable", "standalone", "sys_platform", "machine",
//  "libc", "base_prefix", "markers": {...}}
nlohmann::json interpreter_json(const python::Interpreter& interpreter,
                                const std::filesystem::path& cache_root = {});

struct PythonReport {
    nlohmann::json json;  // --json
    std::string text;     // stdout for people
    std::string error;    // stderr line when exit_code != 0
    int exit_code = 0;
};

// Found interpreters (newest first) and the standalone builds in the cache.
PythonReport python_list(const PythonOptions& options);
// The newest interpreter for SPEC (X.Y, X.Y.Z, a PEP 440 specifier, a path or a program name):
// its path; exit 1 when none matches. Throws util::InputError for a bad SPEC or path.
PythonReport python_find(const PythonOptions& options, std::string_view spec);
// Installs the standalone CPython VERSION (X.Y or X.Y.Z) for this machine into the cache.
PythonReport python_install(const PythonOptions& options, std::string_view version);

struct EnsuredPython {
    python::Interpreter interpreter;
    // Set when no interpreter on the machine matched and a standalone build was installed
    // (or found already unpacked in the cache).
    std::optional<python::StandaloneInstall> standalone;
};

// For `setup --python SPEC`: a path or program must be a Python (util::InputError otherwise);
// for a version or specifier the newest matching CPython on the machine (installed standalone
// builds included), else the newest standalone build the table has that satisfies SPEC
// (util::Error exit 3 when none does). Downloads follow options.offline / mirror / cert.
EnsuredPython ensure_python(const PythonOptions& options, std::string_view spec);

}  // namespace aitk::app
