#pragma once
// `aitk-env doctor`: what this machine is, which torch backend runs on it and why, which
// interpreters it has, and whether it is ready for the manifest's hardware profiles. One result
// value, its JSON (`doctor --json` in docs/cli.md) and its exit code.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/lock_targets.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/diag/scan.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/platform/backend.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/probe.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/python/discovery.hpp"

namespace aitk::app {

struct DoctorOptions {
    std::filesystem::path manifest;  // empty: the compiled-in AI Toolkit defaults
    std::filesystem::path prefix = ".venv";
    std::string backend = "auto";      // --backend; "auto" defers to AITK_ENV_TORCH_BACKEND
    bool force = false;                // --force
    bool refresh = false;              // --refresh: ignore the probe cache
    std::filesystem::path cache_dir;   // empty: no probe cache
    std::string tool_version = "0";    // part of the probe cache key
    platform::ProbeEnvironment probe;  // what the probes see (environment, roots, helper)
    bool discover_pythons = true;
    // What the backend choice is for, as setup reads it: a project's inputs (-m/-r/-f; none:
    // the built-in manifest), relative paths from `cwd`; and a lockfile whose targets are
    // judged here (doctor -l), as setup -l judges them.
    InputSelection input;
    std::optional<std::filesystem::path> lockfile;
    std::filesystem::path cwd;
    // Scan the prefix's native libraries (when it exists) with this machine's loader rules.
    bool scan_native_libraries = true;
    std::optional<std::filesystem::path> cert;  // --cert: the CA bundle the user names
};

enum class CheckStatus { ok, warn, fail };
std::string_view check_status_name(CheckStatus status) noexcept;  // "ok", "warn", "fail"

struct DoctorCheck {
    std::string id;  // "gpu", "backend", "profile.flux-lora", "disk", ...
    CheckStatus status = CheckStatus::ok;
    std::string message;
};

struct ProfileReadiness {
    std::string id;
    std::string description;
    bool ready = false;
    std::string message;
};

struct DoctorReport {
    platform::HostInfo host;
    platform::HardwareProbe hardware;
    bool probe_from_cache = false;
    // What the backend was judged for ("pyproject.toml (PEP 621 + tool.uv)"); empty for the
    // built-in manifest's profiles alone and for -l.
    std::string input;
    // Where the input takes the chosen backend's torch from ("extra 'cu128' of
    // pyproject.toml:92"); empty when the input lists no backend sources.
    std::string backend_source;
    std::string torch_version;
    std::vector<std::string> preferred_backends;
    platform::BackendChoice choice;
    std::optional<LockTargetJudgement> lock_targets;  // doctor -l
    std::vector<python::Interpreter> pythons;
    std::filesystem::path prefix;
    std::optional<std::uint64_t> disk_free_bytes;
    std::vector<ProfileReadiness> profiles;
    std::vector<DoctorCheck> checks;
    // The prefix's native libraries, when it exists and this OS's loader can be simulated;
    // its findings are also in `checks` (native.*). JSON key "native_libraries".
    std::optional<diag::ScanReport> native_libraries;

    // 3 when no backend can be chosen (docs/cli.md: unsatisfiable), else 1 when a check
    // fails, else 0.
    int exit_code() const;
    nlohmann::json to_json() const;
};

// Runs every probe and check. Throws util::InputError (exit 2) for a bad manifest, an invalid
// override variable or an invalid --backend value.
DoctorReport run_doctor(const DoctorOptions& options);

// The libcuda child probe (`aitk-env doctor --libcuda-probe-child LIB...`): loads the first
// library that opens and writes its report to `out`; returns the exit code.
int run_libcuda_probe_child(const std::vector<std::string>& candidates, std::ostream& out);

// Checks that stand on their own, exposed for tests (Windows decisions run as data on Linux).
std::optional<DoctorCheck> check_cuda_visible_devices(const std::optional<std::string>& value,
                                                      std::size_t gpu_count);
DoctorCheck check_msvc_runtime(const std::filesystem::path& system32);
// Windows: whether paths past MAX_PATH work (`enabled`, as the registry says), and what that
// leaves for the files below `prefix`'s site-packages when they do not.
DoctorCheck check_long_paths(bool enabled, const std::filesystem::path& prefix);
// Which CA certificates verify HTTPS servers (id "tls"): the bundle the user names (--cert,
// SSL_CERT_FILE, REQUESTS_CA_BUNDLE, SSL_CERT_DIR), else the system's as found in the usual
// places; a warning naming the places when there is none; a failure for a named one missing.
// `env` and `is_file` are what the machine has.
DoctorCheck check_tls_trust(const std::optional<std::filesystem::path>& cert,
                            const std::function<std::optional<std::string>(const char*)>& env,
                            const std::function<bool(const std::filesystem::path&)>& is_file = {});

}  // namespace aitk::app
