// The Windows loader simulation over real DLLs built with mingw-w64: the search order, KnownDLLs
// and API sets, modules already loaded, case-insensitive names, delay-load imports, machines
// that do not match, shadowing PATH folders and the fbgemm.dll failure of torch 2.4.0.
#include <gtest/gtest.h>

#include <algorithm>

#include "aitk/diag/pe.hpp"
#include "aitk/diag/scan.hpp"
#include "aitk/fs/mapped_file.hpp"
#include "aitk/fs/temp.hpp"
#include "native_fixtures.hpp"
#include "windows_loader.hpp"  // private: src/diag

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::build_chain_dll;
using aitk::test::have_mingw;

#define REQUIRE_MINGW(bits) \
    if (!have_mingw(bits)) GTEST_SKIP() << "mingw-w64 (" << (bits) << "-bit) is not installed"

ScanOptions windows_scan(const fs::path& root) {
    ScanOptions options;
    options.os = TargetOs::windows;
    options.root = root;
    return options;
}

std::vector<std::string> places(const std::vector<SearchedPlace>& searched) {
    std::vector<std::string> out;
    for (const auto& p : searched)
        out.push_back(p.origin + ": " + p.folder.string());
    return out;
}

std::vector<std::string> names(const ScanReport& report) {
    std::vector<std::string> out;
    for (const auto& f : report.findings)
        out.push_back(std::string(finding_kind_name(f.kind)) + " " + f.name);
    return out;
}

const Finding* find(const ScanReport& report, FindingKind kind, std::string_view name) {
    for (const auto& f : report.findings)
        if (f.kind == kind && f.name == name) return &f;
    return nullptr;
}

std::vector<std::string> pe_imports(const fs::path& file) {
    auto mapped = aitk::fs::map_file(file);
    if (!mapped) throw std::runtime_error(mapped.error());
    auto pe = read_pe(mapped->bytes());
    if (!pe) throw std::runtime_error(pe.error().describe());
    return pe->imports;
}

const std::string kVcRedistX64 =
    "install the Visual C++ 2015\u20132022 Redistributable (x64): "
    "https://aka.ms/vs/17/release/vc_redist.x64.exe";

TEST(WindowsNames, ApiSetsKnownDllsAndTheSystemListIgnoreCase) {
    using namespace aitk::diag::detail;
    EXPECT_TRUE(is_api_set("API-MS-WIN-CRT-runtime-l1-1-0.dll"));
    EXPECT_TRUE(is_api_set("ext-ms-win-ntuser-window-l1-1-0.dll"));
    EXPECT_FALSE(is_api_set("api-ms.dll"));
    EXPECT_TRUE(is_known_dll("KERNEL32.dll"));
    EXPECT_TRUE(is_known_dll("ntdll.dll"));
    EXPECT_TRUE(is_known_dll("WS2_32.dll"));
    EXPECT_FALSE(is_known_dll("crypt32.dll"));  // in every System32, but not a KnownDLL
    EXPECT_TRUE(is_windows_system_dll("crypt32.dll"));
    EXPECT_TRUE(is_windows_system_dll("UCRTBASE.dll"));
    EXPECT_TRUE(is_windows_system_dll("dbghelp.dll"));
    for (std::string_view msvc :
         {"msvcp140.dll", "VCRUNTIME140.dll", "vcruntime140_1.dll", "vcomp140.dll", "concrt140.dll",
          "msvcp140_1.dll", "msvcp140_2.dll"}) {
        EXPECT_TRUE(is_msvc_runtime(msvc)) << msvc;
        EXPECT_FALSE(is_windows_system_dll(msvc)) << msvc;
    }
    EXPECT_TRUE(is_python_dll("python311.dll"));
    EXPECT_TRUE(is_python_dll("PYTHON3.DLL"));
    EXPECT_FALSE(is_python_dll("python3x.dll"));
}

TEST(WindowsLoader, MissingDllAtTheEndOfAChainListsEveryFolderInSearchOrder) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    auto c = build_chain_dll(tmp.path() / "build" / "c.dll");
    auto b = build_chain_dll(root / "pkg" / "b.dll", {c});
    auto a = build_chain_dll(root / "pkg" / "a.dll", {b});
    fs::remove(c);
    for (const char* dir : {"dlls1", "dlls2", "sys32", "path1", "path2"})
        fs::create_directories(tmp.path() / dir);

    auto options = windows_scan(root);
    options.windows.dll_directories = {tmp.path() / "dlls1", tmp.path() / "dlls2"};
    options.windows.system32 = tmp.path() / "sys32";
    options.windows.path = {tmp.path() / "path1", tmp.path() / "path2"};
    auto report = scan_native_libraries(options);

    EXPECT_EQ(report.libraries, 2u);
    EXPECT_EQ(report.architecture, "x86_64");
    ASSERT_EQ(names(report), std::vector<std::string>{"missing c.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.chain, (std::vector<fs::path>{a, b}));
    EXPECT_EQ(f.importers, std::vector<fs::path>{b});
    EXPECT_FALSE(f.delay_load);
    EXPECT_EQ(places(f.searched), (std::vector<std::string>{
                                      "own folder: " + (root / "pkg").string(),
                                      "add_dll_directory: " + (tmp.path() / "dlls1").string(),
                                      "add_dll_directory: " + (tmp.path() / "dlls2").string(),
                                      "System32: " + (tmp.path() / "sys32").string(),
                                      "PATH: " + (tmp.path() / "path1").string(),
                                      "PATH: " + (tmp.path() / "path2").string(),
                                  }));
    EXPECT_EQ(f.message,
              "a.dll \u2192 b.dll \u2192 c.dll: not found; searched: " + (root / "pkg").string() +
                  " (own folder), " + (tmp.path() / "dlls1").string() + " (add_dll_directory), " +
                  (tmp.path() / "dlls2").string() + " (add_dll_directory), " +
                  (tmp.path() / "sys32").string() + " (System32), " +
                  (tmp.path() / "path1").string() + " (PATH), " + (tmp.path() / "path2").string() +
                  " (PATH)");
    EXPECT_EQ(f.fix, "reinstall the package that ships b.dll (aitk-env sync)");
}

TEST(WindowsLoader, EachLaterFolderCanSupplyTheDll) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    auto c = build_chain_dll(tmp.path() / "build" / "c.dll");
    build_chain_dll(root / "pkg" / "b.dll", {c});
    fs::remove(c);
    auto options = windows_scan(root);
    options.windows.system32 = tmp.path() / "sys32";
    for (fs::path where : {tmp.path() / "dlls", tmp.path() / "sys32", tmp.path() / "path"}) {
        fs::create_directories(tmp.path() / "sys32");
        fs::remove_all(tmp.path() / "dlls");
        fs::remove_all(tmp.path() / "path");
        fs::remove(tmp.path() / "sys32" / "c.dll");
        build_chain_dll(where / "c.dll");
        options.windows.dll_directories = {tmp.path() / "dlls"};
        options.windows.path = {tmp.path() / "path"};
        EXPECT_TRUE(scan_native_libraries(options).findings.empty()) << where;
    }
}

TEST(WindowsLoader, NamesCompareCaseInsensitively) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    // Built as C.DLL, so the importer records "C.DLL"; then renamed to lower case.
    auto upper = build_chain_dll(root / "pkg" / "C.DLL");
    auto b = build_chain_dll(root / "pkg" / "b.dll", {upper});
    fs::rename(upper, root / "pkg" / "c.dll");
    auto imports = pe_imports(b);
    ASSERT_NE(std::find(imports.begin(), imports.end(), "C.DLL"), imports.end());

    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.libraries, 2u);
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;
}

TEST(WindowsLoader, KnownDllsAndApiSetsAreNeverFindings) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    fs::path build = tmp.path() / "build";
    std::vector<fs::path> imports = {
        build_chain_dll(build / "api-ms-win-crt-runtime-l1-1-0.dll"),
        build_chain_dll(build / "ext-ms-win-ntuser-window-l1-1-0.dll"),
        build_chain_dll(build / "SHLWAPI.dll"),
        build_chain_dll(build / "ws2_32.dll"),
        build_chain_dll(build / "dbghelp.dll"),
    };
    build_chain_dll(root / "x.pyd", imports);
    fs::remove_all(build);

    // System32 unknown: KnownDLLs, API sets and what every Windows 10+ holds are there.
    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;

    // A System32 that lacks dbghelp.dll: only dbghelp is missing.
    fs::create_directories(tmp.path() / "sys32");
    auto options = windows_scan(root);
    options.windows.system32 = tmp.path() / "sys32";
    report = scan_native_libraries(options);
    EXPECT_EQ(names(report), std::vector<std::string>{"missing dbghelp.dll"});
}

TEST(WindowsLoader, AModuleLoadedEarlierInTheSameLoadIsReused) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    // a.dll loads core.dll from its own folder; wrapper.dll, from an add_dll_directory folder
    // outside the root, imports core.dll too and gets the one already loaded.
    auto core = build_chain_dll(root / "app" / "core.dll");
    auto wrapper = build_chain_dll(tmp.path() / "ext" / "wrapper.dll", {core});
    auto a = build_chain_dll(root / "app" / "a.dll", {core, wrapper});
    auto imports = pe_imports(a);
    auto core_at = std::find(imports.begin(), imports.end(), "core.dll");
    ASSERT_LT(core_at, std::find(imports.begin(), imports.end(), "wrapper.dll"));
    auto options = windows_scan(root);
    options.windows.dll_directories = {tmp.path() / "ext"};
    auto report = scan_native_libraries(options);
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;

    // Loaded on its own (scanned as a root), wrapper.dll does not find core.dll.
    report = scan_native_libraries(windows_scan(tmp.path() / "ext"));
    ASSERT_EQ(names(report), std::vector<std::string>{"missing core.dll"});
    EXPECT_EQ(report.findings[0].chain, std::vector<fs::path>{wrapper});
}

TEST(WindowsLoader, DelayLoadImportOfAnAbsentDllIsFlagged) {
    if (!aitk::test::have_delay_load_tools()) GTEST_SKIP() << "lld-link-14 / llvm-dlltool-14";
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    aitk::test::PeBuild d;
    d.out = root / "d.dll";
    d.c_source = "int lazy_fn(void);\n__declspec(dllexport) int d_fn(void) { return lazy_fn(); }\n";
    d.delay_imports = {"lazy.dll"};
    aitk::test::build_pe(d);

    auto report = scan_native_libraries(windows_scan(root));
    ASSERT_EQ(names(report), std::vector<std::string>{"missing lazy.dll"});
    const Finding& f = report.findings[0];
    EXPECT_TRUE(f.delay_load);
    EXPECT_EQ(f.chain, std::vector<fs::path>{d.out});
    EXPECT_EQ(f.message, "d.dll \u2192 lazy.dll: not found; searched: " + root.string() +
                             " (own folder), System32 (delay-load: fails when first used)");
}

TEST(WindowsLoader, AnImportAtLoadOutranksADelayLoadOfTheSameMissingDll) {
    if (!aitk::test::have_delay_load_tools()) GTEST_SKIP() << "lld-link-14 / llvm-dlltool-14";
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    aitk::test::PeBuild d;
    d.out = root / "d.dll";
    d.c_source = "int lazy_fn(void);\n__declspec(dllexport) int d_fn(void) { return lazy_fn(); }\n";
    d.delay_imports = {"lazy.dll"};
    aitk::test::build_pe(d);
    auto lazy = build_chain_dll(tmp.path() / "build" / "lazy.dll");
    auto e = build_chain_dll(root / "e.dll", {lazy});
    fs::remove(lazy);

    auto report = scan_native_libraries(windows_scan(root));
    ASSERT_EQ(names(report), std::vector<std::string>{"missing lazy.dll"});
    const Finding& f = report.findings[0];
    EXPECT_FALSE(f.delay_load);
    EXPECT_EQ(f.chain, std::vector<fs::path>{e});
    EXPECT_EQ(f.importers, (std::vector<fs::path>{d.out, e}));
    EXPECT_EQ(f.message.find("delay-load"), std::string::npos);
}

TEST(WindowsLoader, A32BitDllAmong64BitOnesIsTheWrongArchitecture) {
    REQUIRE_MINGW(64);
    REQUIRE_MINGW(32);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    build_chain_dll(root / "a.dll");
    build_chain_dll(root / "b.dll");
    auto x86 = build_chain_dll(root / "sub" / "old.dll", {}, 32);

    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.architecture, "x86_64");
    ASSERT_EQ(names(report), std::vector<std::string>{"wrong-architecture old.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, x86);
    EXPECT_EQ(f.architecture, "x86");
    EXPECT_EQ(f.expected_architecture, "x86_64");
    EXPECT_TRUE(f.importers.empty());
    EXPECT_EQ(f.message,
              "old.dll is x86 but the other libraries are x86_64 (WinError 193: %1 is not a "
              "valid Win32 application)");
    EXPECT_EQ(f.win_error, 193);
    EXPECT_EQ(f.fix, "replace sub/old.dll with its x86_64 build");
}

TEST(WindowsLoader, AnX86DllImportedByAn64BitDllStopsTheSearch) {
    REQUIRE_MINGW(64);
    REQUIRE_MINGW(32);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    // Linked against a 64-bit b.dll, which an x86 build then replaces; a good 64-bit copy on
    // PATH is never reached, as the loader stops at the first file of that name.
    auto b = build_chain_dll(root / "pkg" / "b.dll");
    auto a = build_chain_dll(root / "pkg" / "a.dll", {b});
    build_chain_dll(root / "pkg" / "b.dll", {}, 32);
    build_chain_dll(tmp.path() / "path" / "b.dll");

    auto options = windows_scan(root);
    options.expected_architecture = "amd64";
    options.windows.path = {tmp.path() / "path"};
    auto report = scan_native_libraries(options);
    EXPECT_EQ(report.architecture, "x86_64");
    ASSERT_EQ(names(report), std::vector<std::string>{"wrong-architecture b.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, b);
    EXPECT_EQ(f.found_origin, "own folder");
    EXPECT_EQ(f.importers, std::vector<fs::path>{a});
    EXPECT_EQ(f.chain, std::vector<fs::path>{a});
    EXPECT_EQ(f.architecture, "x86");
    EXPECT_EQ(f.expected_architecture, "x86_64");
    EXPECT_EQ(f.message,
              "b.dll is x86 but a.dll is x86_64 (WinError 193: %1 is not a valid Win32 "
              "application)");
    EXPECT_EQ(f.win_error, 193);
    EXPECT_EQ(f.fix, "replace pkg/b.dll with its x86_64 build");
}

TEST(WindowsLoader, AWrongArchitectureDllOnPathSaysWhichEntryToDrop) {
    REQUIRE_MINGW(64);
    REQUIRE_MINGW(32);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    auto dep = build_chain_dll(tmp.path() / "build" / "dep.dll");
    build_chain_dll(root / "a.dll", {dep});
    fs::remove(dep);
    auto x86 = build_chain_dll(tmp.path() / "x86bin" / "dep.dll", {}, 32);
    auto options = windows_scan(root);
    options.windows.path = {tmp.path() / "x86bin"};
    auto report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"wrong-architecture dep.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, x86);
    EXPECT_EQ(f.found_origin, "PATH");
    EXPECT_EQ(f.found_entry, tmp.path() / "x86bin");
    EXPECT_EQ(f.fix, "drop " + (tmp.path() / "x86bin").string() + " from PATH");
}

TEST(WindowsLoader, ACopyOnPathShadowsTheOneTorchShips) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    fs::path cuda_bin = tmp.path() / "CUDA" / "bin";
    auto outside = build_chain_dll(cuda_bin / "cudnn64_9.dll");
    fs::create_directories(root / "torch" / "lib");
    fs::copy_file(outside, root / "torch" / "lib" / "cudnn64_9.dll");
    auto pyd = build_chain_dll(root / "pkg" / "x.pyd", {outside});

    auto options = windows_scan(root);
    options.windows.path = {tmp.path() / "elsewhere", cuda_bin};
    auto report = scan_native_libraries(options);
    EXPECT_EQ(report.libraries, 2u);
    ASSERT_EQ(names(report), std::vector<std::string>{"shadowed cudnn64_9.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, cuda_bin / "cudnn64_9.dll");
    EXPECT_EQ(f.found_origin, "PATH");
    EXPECT_EQ(f.found_entry, cuda_bin);
    EXPECT_EQ(f.bundled, root / "torch" / "lib" / "cudnn64_9.dll");
    EXPECT_EQ(f.chain, std::vector<fs::path>{pyd});
    EXPECT_EQ(f.importers, std::vector<fs::path>{pyd});
    EXPECT_EQ(f.message,
              "cudnn64_9.dll found first in " + cuda_bin.string() + " (PATH) instead of torch/lib");
    EXPECT_EQ(f.fix, "drop " + cuda_bin.string() + " from PATH");

    // With torch/lib added as a DLL directory, the bundled copy comes first.
    options.windows.dll_directories = {root / "torch" / "lib"};
    EXPECT_TRUE(scan_native_libraries(options).findings.empty());
}

TEST(WindowsLoader, Torch240FbgemmNeedsLibompAndTheMsvcRuntime) {
    REQUIRE_MINGW(64);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    fs::path build = tmp.path() / "build";
    fs::path lib = root / "torch" / "lib";
    auto libomp = build_chain_dll(build / "libomp140.x86_64.dll");
    auto vcruntime = build_chain_dll(build / "vcruntime140_1.dll");
    auto msvcp = build_chain_dll(build / "msvcp140.dll");
    auto fbgemm = build_chain_dll(lib / "fbgemm.dll", {libomp, vcruntime, msvcp});
    build_chain_dll(lib / "torch_cpu.dll", {fbgemm});
    fs::create_directories(root / "torch-2.4.0.dist-info");
    fs::create_directories(tmp.path() / "sys32");
    fs::copy_file(vcruntime, tmp.path() / "sys32" / "vcruntime140_1.dll");
    fs::copy_file(msvcp, tmp.path() / "sys32" / "msvcp140.dll");
    fs::remove_all(build);

    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.torch_version, std::optional<std::string>("2.4.0"));
    ASSERT_EQ(report.findings.size(), 3u);
    const Finding* omp = find(report, FindingKind::missing, "libomp140.x86_64.dll");
    ASSERT_NE(omp, nullptr);
    EXPECT_EQ(omp->chain, std::vector<fs::path>{fbgemm});  // fbgemm.dll sorts before torch_cpu
    EXPECT_EQ(omp->importers, std::vector<fs::path>{fbgemm});
    EXPECT_EQ(omp->message, "fbgemm.dll \u2192 libomp140.x86_64.dll: not found; searched: " +
                                lib.string() + " (own folder), System32");
    EXPECT_EQ(omp->fix,
              "torch 2.4.0's Windows wheels import libomp140.x86_64.dll without shipping it: "
              "install torch 2.4.1 or later (this folder has torch 2.4.0)");
    for (const char* name : {"vcruntime140_1.dll", "msvcp140.dll"}) {
        const Finding* f = find(report, FindingKind::missing, name);
        ASSERT_NE(f, nullptr) << name;
        EXPECT_EQ(f->chain, std::vector<fs::path>{fbgemm});
        EXPECT_EQ(f->fix, kVcRedistX64);
    }

    // A System32 holding the Visual C++ runtime: only libomp is left.
    auto options = windows_scan(root);
    options.windows.system32 = tmp.path() / "sys32";
    report = scan_native_libraries(options);
    EXPECT_EQ(names(report), std::vector<std::string>{"missing libomp140.x86_64.dll"});
}

TEST(WindowsLoader, AnX86ImporterGetsTheX86Redistributable) {
    REQUIRE_MINGW(32);
    auto tmp = aitk::fs::TempDir::create("winload");
    fs::path root = tmp.path() / "root";
    auto msvcp = build_chain_dll(tmp.path() / "build" / "MSVCP140.dll", {}, 32);
    build_chain_dll(root / "old.pyd", {msvcp}, 32);
    fs::remove(msvcp);
    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.architecture, "x86");
    ASSERT_EQ(names(report), std::vector<std::string>{"missing MSVCP140.dll"});
    EXPECT_EQ(report.findings[0].fix,
              "install the Visual C++ 2015\u20132022 Redistributable (x86): "
              "https://aka.ms/vs/17/release/vc_redist.x86.exe");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
