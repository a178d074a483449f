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

#include "aitk/app/session.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

// The session gives the cache root, the environment (PATH, HOME, PYENV_ROOT, CONDA_PREFIX,
// AITK_ENV_PYTHON_MIRROR), the network settings and the rewrite rules of the standalone
// download; these are what tests and callers may narrow.
struct PythonOptions {
    std::chrono::milliseconds probe_timeout{10'000};
    // The standalone table (tests); nullptr: the compiled-in one.
    const std::vector<python::StandaloneBuild>* builds = nullptr;
    // Where standalone builds are for; nullopt: this machine.
    std::optional<python::StandalonePlatform> platform;
    // Folders searched after PATH, pyenv and conda; nullopt: the OS defaults (tests narrow it).
    std::optional<std::vector<std::filesystem::path>> system_dirs;
};

// Discovery as the CLI runs it: PATH, HOME (USERPROFILE on Windows), PYENV_ROOT from the
// environment, the answers cache under the cache root, and the standalone builds installed in
// the cache as extra candidates.
python::DiscoveryOptions discovery_options(const Session& session,
                                           const PythonOptions& options = {});

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
PythonReport python_list(Session& session, const PythonOptions& options = {});
// The newest interpreter for SPEC (X.Y, X.Y.Z, a PEP 440 specifier, a path or a program name):
// its path; exit 1 when none matches. Throws util::InputError for a bad SPEC or path.
PythonReport python_find(Session& session, std::string_view spec,
                         const PythonOptions& options = {});
// Installs the standalone CPython VERSION (X.Y or X.Y.Z) for this machine into the cache.
PythonReport python_install(Session& session, std::string_view version,
                            const PythonOptions& options = {});

struct EnsuredPython {
    python::Interpreter interpreter;
    // Set when no interpreter on the machine matched and a standalone build was installed
    // (or found already unpacked in the cache).
    std::optional<python::StandaloneInstall> standalone;
};

// For `setup --python SPEC`: a path or program must be a Python (util::InputError otherwise);
// for a version or specifier the newest matching CPython on the machine (installed standalone
// builds included), else the newest standalone build the table has that satisfies SPEC
// (util::Error exit 3 when none does). Downloads go through the session (offline, mirror,
// CA bundle, AITK_ENV_HTTP_*).
EnsuredPython ensure_python(Session& session, std::string_view spec,
                            const PythonOptions& options = {});

}  // namespace aitk::app
