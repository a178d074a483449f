// The Windows failures beyond a missing DLL, on real mingw-w64 DLLs: WinError 127 (the DLL
// found lacks an imported function), 1114 (a Visual C++ runtime older than torch's, found
// first), and DLLs a library loads at run time with LoadLibrary that no import table shows.
#include <gtest/gtest.h>

#include <algorithm>

#include "aitk/diag/pe.hpp"
#include "aitk/diag/scan.hpp"
#include "aitk/fs/temp.hpp"
#include "image_bytes.hpp"
#include "msvc_runtime.hpp"  // private: src/diag
#include "pe_fixtures.hpp"
#include "windows_checks.hpp"  // private: src/diag

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::build_chain_dll;
using aitk::test::build_win_dll;
using aitk::test::WinDll;

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

WinDll dll(const fs::path& out, std::vector<std::string> exports,
           std::vector<std::string> imports = {}, std::vector<fs::path> link = {},
           std::string version = {}) {
    return WinDll{out, std::move(exports), std::move(imports), std::move(link),
                  {},  std::move(version)};
}

TEST(WindowsChecks, RuntimeLoadCandidatesLeaveOutWhatCannotFail) {
    using aitk::diag::detail::is_runtime_load_candidate;
    std::unordered_set<std::string> imported = {"self.dll", "c10.dll"};
    EXPECT_TRUE(is_runtime_load_candidate("cudnn_ops64_9.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("c10.dll", imported, false)) << "an import";
    EXPECT_FALSE(is_runtime_load_candidate("self.dll", imported, false)) << "itself";
    EXPECT_FALSE(is_runtime_load_candidate("kernel32.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("api-ms-win-crt-heap-l1-1-0.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("msvcp140.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("python312.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("libgcc_s_dw2-1.dll", imported, false));
    EXPECT_FALSE(is_runtime_load_candidate("nvcuda.dll", imported, false));
    EXPECT_TRUE(is_runtime_load_candidate("nvcuda.dll", imported, true));
}

TEST(WindowsChecks, TheRuntimeMinimumIs14_40FromTorch2_4AndWhenTorchIsUnknown) {
    using aitk::diag::detail::minimum_msvc_runtime;
    using aitk::diag::detail::short_version;
    ASSERT_TRUE(minimum_msvc_runtime(std::nullopt));
    EXPECT_EQ(short_version(*minimum_msvc_runtime(std::nullopt)), "14.40");
    EXPECT_TRUE(minimum_msvc_runtime("2.4.0"));
    EXPECT_TRUE(minimum_msvc_runtime("2.10.1+cu128"));
    EXPECT_TRUE(minimum_msvc_runtime("not-a-version"));
    EXPECT_FALSE(minimum_msvc_runtime("2.3.1"));
    EXPECT_FALSE(minimum_msvc_runtime("1.13.1"));
}

class WindowsErrors : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
        tmp_ = std::make_unique<aitk::fs::TempDir>(aitk::fs::TempDir::create("winerr"));
        root = tmp_->path() / "root";
    }
    fs::path tmp() const { return tmp_->path(); }

    ScanOptions options() const {
        ScanOptions o;
        o.os = TargetOs::windows;
        o.root = root;
        return o;
    }

    // root/app/user.dll importing f1 and f2 from zlibwapi.dll (linked against a full copy,
    // which is then removed); an old zlibwapi.dll exporting only f1 in `old_dir`.
    fs::path user_and_old_zlib(const fs::path& old_dir) {
        auto full = build_win_dll(dll(tmp() / "build" / "zlibwapi.dll", {"f1", "f2"}));
        auto user = build_win_dll(dll(root / "app" / "user.dll", {"g"}, {"f1", "f2"}, {full}));
        fs::remove_all(tmp() / "build");
        build_win_dll(dll(old_dir / "zlibwapi.dll", {"f1"}));
        return user;
    }

    fs::path root;

  private:
    std::unique_ptr<aitk::fs::TempDir> tmp_;
};

TEST_F(WindowsErrors, AnOldDllOnPathThatLacksAFunctionIsWinError127) {
    auto user = user_and_old_zlib(tmp() / "old");
    auto o = options();
    o.windows.path = {tmp() / "old"};
    auto report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing-export zlibwapi.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.win_error, 127);
    EXPECT_EQ(f.chain, std::vector<fs::path>{user});
    EXPECT_EQ(f.importers, std::vector<fs::path>{user});
    EXPECT_EQ(f.found, tmp() / "old" / "zlibwapi.dll");
    EXPECT_EQ(f.found_origin, "PATH");
    EXPECT_EQ(f.found_entry, tmp() / "old");
    EXPECT_EQ(f.symbols, std::vector<std::string>{"f2"});
    EXPECT_EQ(f.symbol_count, 1u);
    EXPECT_FALSE(f.delay_load);
    EXPECT_EQ(f.message, "user.dll \u2192 zlibwapi.dll: " + f.found.string() +
                             " (PATH) does not export f2 (WinError 127: the specified procedure "
                             "could not be found)");
    EXPECT_EQ(f.fix, f.found.string() +
                         " (PATH) is another (likely older) version of zlibwapi.dll than user.dll "
                         "was built with: drop " +
                         (tmp() / "old").string() +
                         " from PATH, or put the folder of the matching zlibwapi.dll before it");
}

TEST_F(WindowsErrors, ABundledCopyWithEveryFunctionIsNamedInTheFix) {
    auto user = user_and_old_zlib(tmp() / "old");
    // The package ships the right copy in a folder the importer does not search.
    auto bundled = build_win_dll(dll(root / "zlib" / "zlibwapi.dll", {"f1", "f2"}));
    auto o = options();
    o.windows.path = {tmp() / "old"};
    auto report = scan_native_libraries(o);
    const Finding* f = find(report, FindingKind::missing_export, "zlibwapi.dll");
    ASSERT_NE(f, nullptr) << names(report).size();
    EXPECT_EQ(f->bundled, bundled);
    EXPECT_EQ(f->fix, f->found.string() +
                          " (PATH) is another version of zlibwapi.dll, found before the bundled "
                          "zlib/zlibwapi.dll: drop " +
                          (tmp() / "old").string() + " from PATH so the bundled copy loads");
    // The PATH copy shadowing the bundled one is named as such too.
    EXPECT_NE(find(report, FindingKind::shadowed, "zlibwapi.dll"), nullptr);
    EXPECT_LT(static_cast<int>(FindingKind::missing_export),
              static_cast<int>(FindingKind::shadowed));
    EXPECT_EQ(report.findings.front().kind, FindingKind::missing_export);
}

TEST_F(WindowsErrors, AnOldCopyInTheOwnFolderSaysTheVersionsDiffer) {
    user_and_old_zlib(root / "app");
    auto report = scan_native_libraries(options());
    const Finding* f = find(report, FindingKind::missing_export, "zlibwapi.dll");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->found_origin, "own folder");
    EXPECT_NE(f->message.find("app/zlibwapi.dll (own folder) does not export f2"),
              std::string::npos)
        << f->message;
    EXPECT_EQ(f->fix,
              "zlibwapi.dll and user.dll come from different versions: reinstall the package "
              "that ships user.dll (aitk-env sync)");
}

TEST_F(WindowsErrors, AModuleAlreadyLoadedMustExportWhatALaterImporterNeeds) {
    // a.dll loads app/b.dll (f1 only) first; c.dll, found through add_dll_directory, was built
    // against ext/b.dll (f1, f2) beside it, but the loader binds it to the b.dll already loaded.
    auto ext_b = build_win_dll(dll(root / "ext" / "b.dll", {"f1", "f2"}));
    auto c = build_win_dll(dll(root / "ext" / "c.dll", {"c_fn"}, {"f2"}, {ext_b}));
    auto app_b = build_win_dll(dll(root / "app" / "b.dll", {"f1"}));
    auto a = build_win_dll(dll(root / "app" / "a.dll", {"a_fn"}, {"f1", "c_fn"}, {app_b, c}));
    auto o = options();
    o.windows.dll_directories = {root / "ext"};
    auto report = scan_native_libraries(o);
    const Finding* f = find(report, FindingKind::missing_export, "b.dll");
    ASSERT_NE(f, nullptr) << names(report).size();
    EXPECT_EQ(f->chain, (std::vector<fs::path>{a, c}));
    EXPECT_EQ(f->found, app_b);
    EXPECT_EQ(f->found_origin, "already loaded");
    EXPECT_EQ(f->symbols, std::vector<std::string>{"f2"});
    EXPECT_EQ(f->message,
              "a.dll \u2192 c.dll \u2192 b.dll: app/b.dll (already loaded) does not "
              "export f2 (WinError 127: the specified procedure could not be found)");
    EXPECT_EQ(f->fix,
              "the b.dll loaded first, app/b.dll, is another version than the one c.dll needs: "
              "the process must use one copy of it; reinstall the package that ships c.dll "
              "(aitk-env sync)");
}

TEST_F(WindowsErrors, ManyMissingFunctionsAreCappedAndCounted) {
    std::vector<std::string> wanted;
    for (int i = 0; i < 12; ++i)
        wanted.push_back("fn" + std::to_string(i));
    auto full = build_win_dll(dll(tmp() / "build" / "libiomp5md.dll", wanted));
    auto user = build_win_dll(dll(root / "torch" / "lib" / "torch_cpu.dll", {"g"}, wanted, {full}));
    // A second importer of the same old copy adds what it misses to the same finding.
    auto full2 = build_win_dll(dll(tmp() / "build2" / "libiomp5md.dll", {"extra"}));
    auto other =
        build_win_dll(dll(root / "torch" / "lib" / "other.dll", {"h"}, {"extra"}, {full2}));
    fs::remove_all(tmp() / "build");
    fs::remove_all(tmp() / "build2");
    build_win_dll(dll(tmp() / "conda" / "Library" / "bin" / "libiomp5md.dll", {"fn0"}));
    auto o = options();
    o.windows.path = {tmp() / "conda" / "Library" / "bin"};
    auto report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing-export libiomp5md.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.symbol_count, 12u) << "extra, fn1..fn11";
    ASSERT_EQ(f.symbols.size(), kMaxListedSymbols);
    // other.dll is scanned first (path order): its "extra", then torch_cpu.dll's in lookup
    // table order, which GNU ld sorts by name (fn1, fn10, fn11, fn2, ...).
    EXPECT_EQ(f.symbols.front(), "extra");
    EXPECT_EQ(f.symbols.back(), "fn7");
    EXPECT_EQ(f.importers, (std::vector<fs::path>{other, user}));
    EXPECT_NE(f.message.find("does not export 12 imported functions: "), std::string::npos)
        << f.message;
    EXPECT_NE(f.message.find(" and 2 more (WinError 127"), std::string::npos) << f.message;
}

TEST_F(WindowsErrors, AMissingOrdinalIsNamedByNumber) {
    auto implib =
        aitk::test::ordinal_import_library(tmp() / "libord.a", "ord.dll", {{"f1", 5}, {"f2", 9}});
    auto user = build_win_dll(dll(root / "user.dll", {"g"}, {"f1", "f2"}, {implib}));
    fs::path def = tmp() / "ord.def";
    aitk::fs::write_file_atomic(def, "EXPORTS\n  f1 @5 NONAME\n");
    auto old = build_win_dll(WinDll{tmp() / "path" / "ord.dll", {"f1"}, {}, {def}, {}, {}});
    auto o = options();
    o.windows.path = {tmp() / "path"};
    auto report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing-export ord.dll"});
    EXPECT_EQ(report.findings[0].symbols, std::vector<std::string>{"ordinal 9"});
    EXPECT_EQ(report.findings[0].found, old);
    EXPECT_EQ(report.findings[0].chain, std::vector<fs::path>{user});
}

TEST_F(WindowsErrors, MatchingExportsAndUnknownSystemDllsAreNoFinding) {
    auto lib = build_win_dll(dll(root / "lib.dll", {"f1", "f2"}));
    build_win_dll(dll(root / "user.dll", {"g"}, {"f1", "f2"}, {lib}));
    // KERNEL32 / msvcrt (KnownDLLs): present, never checked.
    auto report = scan_native_libraries(options());
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;
}

TEST_F(WindowsErrors, AnOldVisualCppRuntimeOnPathIsWinError1114) {
    auto msvcp = build_win_dll(dll(tmp() / "build" / "msvcp140.dll", {"msvcp_fn"}));
    auto c10 =
        build_win_dll(dll(root / "torch" / "lib" / "c10.dll", {"c10_fn"}, {"msvcp_fn"}, {msvcp}));
    fs::remove_all(tmp() / "build");
    fs::path anaconda = tmp() / "Anaconda3";
    auto old = build_win_dll(dll(anaconda / "msvcp140.dll", {"msvcp_fn"}, {}, {}, "14,29,30133,0"));
    fs::path system32 = tmp() / "System32";
    build_win_dll(dll(system32 / "msvcp140.dll", {"msvcp_fn"}, {}, {}, "14,42,34433,0"));
    auto o = options();
    o.windows.path = {anaconda};
    o.windows.system32 = system32;
    // PATH comes after System32: with the new one in System32, nothing is wrong.
    auto report = scan_native_libraries(o);
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;

    // An old one in System32, the newer one only on PATH: System32 wins, and is too old.
    fs::remove(system32 / "msvcp140.dll");
    build_win_dll(dll(system32 / "msvcp140.dll", {"msvcp_fn"}, {}, {}, "14,29,30133,0"));
    report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"outdated-runtime msvcp140.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.win_error, 1114);
    EXPECT_EQ(f.version, "14.29.30133.0");
    EXPECT_EQ(f.minimum_version, "14.40");
    EXPECT_EQ(f.found_origin, "System32");
    EXPECT_EQ(f.chain, std::vector<fs::path>{c10});
    EXPECT_EQ(f.message, "c10.dll \u2192 msvcp140.dll: " + (system32 / "msvcp140.dll").string() +
                             " (System32) is version 14.29.30133.0, older than the 14.40 Visual "
                             "C++ runtime torch 2.4 and later is built with (WinError 1114: a "
                             "dynamic link library (DLL) initialization routine failed)");
    EXPECT_EQ(f.fix,
              "install the latest Microsoft Visual C++ Redistributable (x64) from "
              "https://aka.ms/vs/17/release/vc_redist.x64.exe");

    // The old copy beside the importer is found first: remove or rename it.
    fs::copy_file(old, root / "torch" / "lib" / "msvcp140.dll");
    report = scan_native_libraries(o);
    const Finding* own = find(report, FindingKind::outdated_runtime, "msvcp140.dll");
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->found_origin, "own folder");
    EXPECT_EQ(own->fix,
              "install the latest Microsoft Visual C++ Redistributable (x64) from "
              "https://aka.ms/vs/17/release/vc_redist.x64.exe, and remove or rename the older "
              "copy at " +
                  (root / "torch" / "lib" / "msvcp140.dll").string());
}

TEST_F(WindowsErrors, TheRuntimeMinimumFollowsTheTorchVersion) {
    auto vcrt = build_win_dll(dll(tmp() / "build" / "vcruntime140.dll", {"vc_fn"}));
    fs::path site = root;
    build_win_dll(dll(site / "torch" / "lib" / "c10.dll", {"c10_fn"}, {"vc_fn"}, {vcrt}));
    fs::remove_all(tmp() / "build");
    build_win_dll(dll(tmp() / "path" / "vcruntime140.dll", {"vc_fn"}, {}, {}, "14,36,32532,0"));
    auto o = options();
    o.windows.path = {tmp() / "path"};
    fs::create_directories(site / "torch-2.3.1.dist-info");
    auto report = scan_native_libraries(o);
    EXPECT_EQ(report.torch_version, "2.3.1");
    EXPECT_TRUE(report.findings.empty()) << "no known minimum before torch 2.4";

    fs::remove_all(site / "torch-2.3.1.dist-info");
    fs::create_directories(site / "torch-2.5.1.dist-info");
    report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"outdated-runtime vcruntime140.dll"});
    const Finding& f = report.findings[0];
    EXPECT_NE(f.message.find("older than the 14.40 Visual C++ runtime torch 2.5.1 is built with"),
              std::string::npos)
        << f.message;
    EXPECT_EQ(f.fix,
              "install the latest Microsoft Visual C++ Redistributable (x64) from "
              "https://aka.ms/vs/17/release/vc_redist.x64.exe, and remove or rename the older "
              "copy at " +
                  (tmp() / "path" / "vcruntime140.dll").string() + " (found through PATH entry " +
                  (tmp() / "path").string() + ")");
}

TEST_F(WindowsErrors, MissingVcruntime140_1BesideAnOldVcruntime140NamesTheRedistributable) {
    auto one = build_win_dll(dll(tmp() / "build" / "vcruntime140_1.dll", {"fh4"}));
    build_win_dll(dll(root / "torch" / "lib" / "c10.dll", {"c10_fn"}, {"fh4"}, {one}));
    fs::remove_all(tmp() / "build");
    build_win_dll(dll(tmp() / "python" / "vcruntime140.dll", {"vc_fn"}));
    auto o = options();
    o.windows.path = {tmp() / "python"};
    auto report = scan_native_libraries(o);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing vcruntime140_1.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.win_error, 126);
    EXPECT_EQ(f.fix,
              "install the Visual C++ 2015\u20132022 Redistributable (x64): "
              "https://aka.ms/vs/17/release/vc_redist.x64.exe (" +
                  (tmp() / "python" / "vcruntime140.dll").string() +
                  " is from a Visual C++ runtime before 2019, which had no vcruntime140_1.dll)");
}

TEST_F(WindowsErrors, ADllNameInReadOnlyDataThatIsFoundNowhereIsARuntimeLoad) {
    std::string source =
        "#include <windows.h>\n"
        "__declspec(dllexport) void* load_ops(void) { return LoadLibraryA(\"cudnn_ops64_9.dll\"); "
        "}\n"
        "__declspec(dllexport) void* load_adv(void) { return LoadLibraryA(\"cudnn_adv64_9.dll\"); "
        "}\n"
        "__declspec(dllexport) void* load_k(void) { return LoadLibraryA(\"kernel32.dll\"); }\n";
    auto cudnn = build_win_dll(
        WinDll{root / "nvidia" / "cudnn" / "bin" / "cudnn64_9.dll", {"f"}, {}, {}, source, {}});
    build_win_dll(dll(root / "nvidia" / "cudnn" / "bin" / "cudnn_adv64_9.dll", {"adv"}));
    auto report = scan_native_libraries(options());
    ASSERT_EQ(names(report), std::vector<std::string>{"runtime-load cudnn_ops64_9.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.chain, std::vector<fs::path>{cudnn});
    EXPECT_EQ(f.importers, std::vector<fs::path>{cudnn});
    EXPECT_EQ(f.win_error, 126);
    EXPECT_EQ(f.message,
              "cudnn64_9.dll \u2192 cudnn_ops64_9.dll: loaded at run time with "
              "LoadLibrary, not in the import tables: not found; searched: " +
                  cudnn.parent_path().string() + " (own folder), System32");
    EXPECT_EQ(f.fix,
              "only what loads it fails, when first used (WinError 126 then); if that is "
              "needed, install the cuDNN cudnn64_9.dll was built with (nvidia-cudnn-cu12 / -cu13 "
              "on pip), or add its folder with os.add_dll_directory");

    // The driver's DLL is not named while System32 is not known; with a System32 lacking it,
    // it is.
    build_win_dll(WinDll{root / "cudart64_12.dll",
                         {"r"},
                         {},
                         {},
                         "#include <windows.h>\n__declspec(dllexport) void* drv(void) { return "
                         "LoadLibraryA(\"nvcuda.dll\"); }\n",
                         {}});
    report = scan_native_libraries(options());
    EXPECT_EQ(names(report), std::vector<std::string>{"runtime-load cudnn_ops64_9.dll"});
    auto with_system32 = options();
    fs::create_directories(tmp() / "System32");
    with_system32.windows.system32 = tmp() / "System32";
    report = scan_native_libraries(with_system32);
    // Scan order: root/cudart64_12.dll before root/nvidia/....
    ASSERT_EQ(names(report), (std::vector<std::string>{"runtime-load nvcuda.dll",
                                                       "runtime-load cudnn_ops64_9.dll"}));
    EXPECT_EQ(report.findings[0].fix,
              "nvcuda.dll comes with the NVIDIA driver: install or repair the driver");
    fs::remove(root / "cudart64_12.dll");

    // On a PATH entry it is found: nothing to say.
    build_win_dll(dll(tmp() / "cudnn" / "cudnn_ops64_9.dll", {"ops"}));
    auto o = options();
    o.windows.path = {tmp() / "cudnn"};
    report = scan_native_libraries(o);
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;
}

TEST_F(WindowsErrors, ImportNamesInRdataAsLldAndMsvcLinkThemAreNoRuntimeLoad) {
    if (!aitk::test::have_delay_load_tools()) GTEST_SKIP() << "lld-link-14 / llvm-dlltool-14";
    // lld-link, like MSVC's link.exe, puts the import names and the export directory in .rdata,
    // beside the string constants.
    auto b = build_chain_dll(root / "bee.dll");
    aitk::test::PeBuild x;
    x.out = root / "xdep.dll";
    x.c_source =
        "__declspec(dllimport) int bee_fn(void);\nint lazy_fn(void);\n"
        "__declspec(dllexport) int x_fn(void) { return bee_fn() + lazy_fn(); }\n"
        "__declspec(dllexport) const char* ops(void) { return \"cudnn_ops64_9.dll\"; }\n";
    x.imports = {b};
    x.delay_imports = {"lazy.dll"};
    aitk::test::build_pe(x);
    auto pe = read_pe(aitk::test::load(x.out));
    ASSERT_TRUE(pe) << pe.error().describe();
    auto has = [&](std::string_view name) {
        return std::find(pe->dll_name_strings.begin(), pe->dll_name_strings.end(), name) !=
               pe->dll_name_strings.end();
    };
    EXPECT_TRUE(has("bee.dll")) << "the import names are in .rdata";
    EXPECT_TRUE(has("cudnn_ops64_9.dll"));
    EXPECT_FALSE(has("xdep.dll")) << "the export directory's own name is skipped";
    auto report = scan_native_libraries(options());
    EXPECT_EQ(names(report),
              (std::vector<std::string>{"missing lazy.dll", "runtime-load cudnn_ops64_9.dll"}));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
