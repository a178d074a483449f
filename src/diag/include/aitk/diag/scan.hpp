#pragma once
// Why a native library would fail to load, decided without loading anything: every native
// library under a folder (a prefix, or a Windows torch\lib copied to Linux) is read as data, each
// import is looked up the way the target OS's loader would, and every problem becomes a Finding
// with the chain that leads to it, where the loader looked, and the fix.
//
// Search orders simulated (the loaders themselves live in windows_loader / linux_loader):
// - Windows (how CPython 3.8+ loads an extension and its DLLs): API sets (api-ms-win-*,
//   ext-ms-*) and KnownDLLs are present; then a module already loaded by that name; then the
//   importing DLL's own folder, the os.add_dll_directory folders (aitk-env's .pth), System32,
//   PATH. Names compare case-insensitively. A DLL of the wrong architecture stops the search
//   (the loader fails with ERROR_BAD_EXE_FORMAT). The DLL found must export every function
//   the importer asks it for, by name or ordinal (else WinError 127); a Visual C++ runtime DLL
//   found must not be older than the one torch was built with (else c10.dll's initialisation
//   fails: WinError 1114). DLL names in a scanned DLL's read-only data that its import tables
//   lack are what it may LoadLibrary at run time: named when not found.
// - Linux (glibc ld.so): an object already loaded with that SONAME; a name with '/' is a path;
//   DT_RPATH of the importer and its loaders (only when the importer has no DT_RUNPATH),
//   LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN expanded), ld.so.cache, the default folders. An object
//   of the wrong class or machine is skipped and the search goes on.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aitk::diag {

enum class TargetOs { linux_os, windows };
std::string_view target_os_name(TargetOs os) noexcept;  // "linux", "windows"
std::optional<TargetOs> parse_target_os(std::string_view name) noexcept;

struct WindowsSearch {
    std::vector<std::filesystem::path> dll_directories;  // os.add_dll_directory, in order
    // nullopt: not known (a folder copied from Windows). Then KnownDLLs, API sets and the DLLs
    // every Windows 10+ System32 holds count as present, but never the MSVC runtime, whose
    // absence is the commonest cause of WinError 126.
    std::optional<std::filesystem::path> system32;
    std::vector<std::filesystem::path> path;  // PATH entries, in order
};

struct LinuxSearch {
    std::vector<std::filesystem::path> ld_library_path;  // in order, empty entries dropped
    std::optional<std::filesystem::path> ld_so_cache;    // nullopt: no cache
    // nullopt: glibc's defaults for the object's architecture (e.g. /lib/x86_64-linux-gnu,
    // /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64, /lib, /usr/lib); tests point elsewhere.
    std::optional<std::vector<std::filesystem::path>> default_dirs;
};

struct ScanOptions {
    TargetOs os = TargetOs::linux_os;
    std::filesystem::path root;  // the folder scanned, recursively (symlinked folders not followed)
    WindowsSearch windows;
    LinuxSearch linux_search;
    // The architecture every library should have ("x86_64", "arm64", ...); empty: the one most
    // scanned libraries have.
    std::string expected_architecture;
    std::size_t max_libraries = 100000;  // more than this: InputError naming the folder
};

enum class FindingKind {
    missing,             // an import is found nowhere (WinError 126)
    missing_export,      // the DLL found lacks functions the importer imports (WinError 127)
    wrong_architecture,  // WinError 193
    outdated_runtime,    // a Visual C++ runtime older than the minimum (WinError 1114)
    shadowed,
    unreadable,
    runtime_load,  // informational: a DLL named in read-only data, not found (LoadLibrary)
};
// "missing", "missing-export", "wrong-architecture", "outdated-runtime", "shadowed",
// "unreadable", "runtime-load"
std::string_view finding_kind_name(FindingKind kind) noexcept;

// How many missing functions a missing-export finding lists (symbol_count says how many).
inline constexpr std::size_t kMaxListedSymbols = 10;

struct SearchedPlace {
    // "own folder", "add_dll_directory", "System32", "PATH", "already loaded", "DT_RPATH",
    // "LD_LIBRARY_PATH", "DT_RUNPATH", "ld.so.cache", "default"
    std::string origin;
    std::filesystem::path folder;  // empty for ld.so.cache
};

struct Finding {
    FindingKind kind = FindingKind::missing;
    std::string name;  // the DLL / DT_NEEDED name concerned ("libomp140.x86_64.dll")
    // Scanned library first, then each import down to the one that imports `name`:
    // {torch/lib/fbgemm.dll} or {a.dll, b.dll} for a.dll → b.dll → c.dll.
    std::vector<std::filesystem::path> chain;
    // Every scanned library that imports `name` directly and hits this same finding, in scan
    // order (findings are merged by kind, name and `found`).
    std::vector<std::filesystem::path> importers;
    bool delay_load = false;  // only delay-load imports need it: fails at first call, not load
    std::vector<SearchedPlace> searched;  // missing, runtime_load: every place tried, in order
    // shadowed / wrong_architecture / missing_export / outdated_runtime: what the loader takes
    std::filesystem::path found;
    std::string found_origin;  // its SearchedPlace::origin
    // The PATH / LD_LIBRARY_PATH entry that supplied `found` (what to drop); empty otherwise.
    std::filesystem::path found_entry;
    std::filesystem::path bundled;  // shadowed: the copy inside the root that should load
    std::string architecture;       // wrong_architecture: what `found` is ("x86")
    std::string expected_architecture;
    // missing_export: the functions `found` lacks ("f2", "ordinal 7"), the first
    // kMaxListedSymbols of symbol_count, over every importer merged into the finding.
    std::vector<std::string> symbols;
    std::size_t symbol_count = 0;
    // outdated_runtime: the FileVersion of `found` and the minimum ("14.29.30133.0", "14.40").
    std::string version;
    std::string minimum_version;
    // The Windows error code Python shows for it (OSError: [WinError 126]): 126, 127, 193,
    // 1114; 0 for none (Linux, shadowed, unreadable).
    int win_error = 0;
    std::string message;  // one line: "fbgemm.dll → libomp140.x86_64.dll: not found; searched: …"
    std::string fix;      // what to do; empty when nothing specific is known
};

struct ScanReport {
    TargetOs os = TargetOs::linux_os;
    std::filesystem::path root;
    std::size_t libraries = 0;                 // native libraries read
    std::string architecture;                  // the expected architecture used
    std::optional<std::string> torch_version;  // from a torch-*.dist-info beside a scanned torch/
    // Ordered as FindingKind (missing, missing_export, wrong_architecture, outdated_runtime,
    // shadowed, unreadable, runtime_load); within a kind, scan order
    // (libraries under a torch/lib folder first, then the rest by path).
    std::vector<Finding> findings;
};

// Throws util::InputError when `root` is not a folder or holds more than max_libraries.
ScanReport scan_native_libraries(const ScanOptions& options);

}  // namespace aitk::diag
