#pragma once
// The native-library part of `doctor`: which folder to scan and with which search paths (a
// prefix on this machine, or any folder with `--scan DIR [--os windows|linux]`, e.g. a Windows
// torch\lib copied to Linux), the findings as doctor checks, JSON and text, and the fixes
// completed with what aitk-env's shims do about a shadowing PATH / LD_LIBRARY_PATH entry.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/doctor.hpp"
#include "aitk/diag/scan.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct NativeScanRequest {
    std::filesystem::path root;
    diag::TargetOs os = diag::TargetOs::linux_os;
    // Whether `os` is this machine's OS: then the search paths come from `environment` (PATH,
    // LD_LIBRARY_PATH, SystemRoot) and the system folders (/etc/ld.so.cache, System32).
    bool host_os = true;
    util::Environment environment;
    // --system32 DIR: the System32 folder to simulate (Windows); nullopt: this machine's when
    // host_os, else unknown.
    std::optional<std::filesystem::path> system32;
    // --search-path DIR…: PATH (Windows) or LD_LIBRARY_PATH (Linux) entries to simulate instead
    // of the environment's.
    std::optional<std::vector<std::filesystem::path>> search_path;
    std::filesystem::path ld_so_cache = "/etc/ld.so.cache";  // used when host_os and it exists
};

// The options the scan runs with: for a prefix (a venv) on Windows, the os.add_dll_directory
// folders its aitk_env_dll_paths.pth adds (torch\lib, nvidia\*\bin, Library\bin and the extra
// folders setup named) when that .pth is there.
diag::ScanOptions native_scan_options(const NativeScanRequest& request);

// Scans and completes each fix: a shadowing entry aitk-env's shims drop says so (programs
// started through the shims are safe, a bare `python` is not); one they keep says to remove it.
diag::ScanReport run_native_scan(const NativeScanRequest& request);

// fail: a missing import or missing exported function (not delay-load), a wrong architecture,
// an outdated Visual C++ runtime, a shadowing entry the shims keep; warn: a delay-load import,
// a shadowing entry the shims drop, an unreadable file, a run-time LoadLibrary name not found
// (informational: it never fails doctor by itself).
CheckStatus finding_status(const diag::Finding& finding);

// One check per finding ("native.missing", "native.shadowed", …), or one ok check
// ("native-libraries: 42 libraries, no problem found").
std::vector<DoctorCheck> native_scan_checks(const diag::ScanReport& report);

// {"root", "os", "architecture", "libraries", "torch_version", "findings": [{"kind", "status",
// "name", "chain", "importers", "delay_load", "searched": [{"origin", "folder"}], "found",
// "found_origin", "found_entry", "bundled", "architecture", "expected_architecture",
// "symbols", "symbol_count", "version", "minimum_version", "win_error" (null when none),
// "message", "fix"}]}; empty strings and lists are kept so consumers see every key.
nlohmann::json native_scan_json(const diag::ScanReport& report);

// 1 when a finding fails, else 0.
int native_scan_exit_code(const diag::ScanReport& report);

}  // namespace aitk::app
