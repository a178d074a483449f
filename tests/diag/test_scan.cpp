// The scan over a folder: which files are libraries, in which order they are reported, how
// findings of many libraries merge, the torch version, bad roots, unreadable files, and a
// prefix-sized folder of two thousand libraries.
#include <gtest/gtest.h>

#include "aitk/diag/scan.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "native_fixtures.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::build_chain_dll;
using aitk::test::build_chain_so;
using aitk::test::write_file;

ScanOptions linux_scan(const fs::path& root) {
    ScanOptions options;
    options.root = root;
    // libc.so.6 from the machine's own cache or glibc's default folders.
    if (fs::exists("/etc/ld.so.cache")) options.linux_search.ld_so_cache = "/etc/ld.so.cache";
    return options;
}

ScanOptions windows_scan(const fs::path& root) {
    ScanOptions options;
    options.os = TargetOs::windows;
    options.root = root;
    return options;
}

std::vector<std::string> names(const ScanReport& report) {
    std::vector<std::string> out;
    for (const auto& f : report.findings)
        out.push_back(std::string(finding_kind_name(f.kind)) + " " + f.name);
    return out;
}

TEST(ScanNames, KindsAndOperatingSystems) {
    EXPECT_EQ(finding_kind_name(FindingKind::missing), "missing");
    EXPECT_EQ(finding_kind_name(FindingKind::wrong_architecture), "wrong-architecture");
    EXPECT_EQ(finding_kind_name(FindingKind::shadowed), "shadowed");
    EXPECT_EQ(finding_kind_name(FindingKind::unreadable), "unreadable");
    EXPECT_EQ(target_os_name(TargetOs::linux_os), "linux");
    EXPECT_EQ(target_os_name(TargetOs::windows), "windows");
    EXPECT_EQ(parse_target_os("windows"), TargetOs::windows);
    EXPECT_EQ(parse_target_os("linux"), TargetOs::linux_os);
    EXPECT_EQ(parse_target_os("macos"), std::nullopt);
}

TEST(Scan, TorchLibComesFirstAndImportersOfOneMissingLibraryMerge) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto gone = build_chain_so(tmp.path() / "build" / "libgone.so.1", {}, "libgone.so.1");
    auto a = build_chain_so(root / "a" / "liba.so", {gone});
    auto z = build_chain_so(root / "site" / "torch" / "lib" / "libz.so", {gone});
    auto b = build_chain_so(root / "b" / "libb.so", {gone});
    fs::remove(gone);

    auto report = scan_native_libraries(linux_scan(root));
    EXPECT_EQ(report.libraries, 3u);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libgone.so.1"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.importers, (std::vector<fs::path>{z, a, b}));
    EXPECT_EQ(f.chain, std::vector<fs::path>{z});
    EXPECT_TRUE(f.message.starts_with("libz.so \u2192 libgone.so.1: not found; searched: "))
        << f.message;
}

TEST(Scan, FindingsAreOrderedByKindThenScanOrder) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto one = build_chain_so(tmp.path() / "build" / "libone.so", {}, "libone.so");
    auto two = build_chain_so(tmp.path() / "build" / "libtwo.so", {}, "libtwo.so");
    build_chain_so(root / "b" / "libneedsone.so", {one});
    write_file(root / "a" / "libbroken.so", std::string("\x7f"
                                                        "ELF\x02",
                                                        5));
    build_chain_so(root / "a" / "libneedstwo.so", {two});
    fs::remove(one);
    fs::remove(two);
    auto report = scan_native_libraries(linux_scan(root));
    EXPECT_EQ(names(report), (std::vector<std::string>{"missing libtwo.so", "missing libone.so",
                                                       "unreadable libbroken.so"}));
}

TEST(Scan, WindowsImportersOfOneMissingDllMerge) {
    if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto gone = build_chain_dll(tmp.path() / "build" / "gone.dll");
    auto x = build_chain_dll(root / "x" / "x.pyd", {gone});
    auto y = build_chain_dll(root / "Y" / "y.DLL", {gone});
    build_chain_dll(root / "z" / "notalib.txt");  // not a library by name
    fs::remove(gone);
    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.libraries, 2u);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing gone.dll"});
    EXPECT_EQ(report.findings[0].importers, (std::vector<fs::path>{y, x}));  // "Y" < "x"
    EXPECT_EQ(report.findings[0].chain, std::vector<fs::path>{y});
}

TEST(Scan, UnreadableDllAndBrokenSharedObject) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    write_file(root / "pkg" / "bad.dll", "this is not a DLL\n");
    auto report = scan_native_libraries(windows_scan(root));
    EXPECT_EQ(report.libraries, 1u);
    ASSERT_EQ(names(report), std::vector<std::string>{"unreadable bad.dll"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, root / "pkg" / "bad.dll");
    EXPECT_EQ(f.chain, std::vector<fs::path>{root / "pkg" / "bad.dll"});
    EXPECT_EQ(f.message, "pkg/bad.dll: neither a PE image nor an ELF object (at byte 0x0)");
    EXPECT_EQ(f.fix, "reinstall the package that ships pkg/bad.dll (aitk-env sync)");

    // On Linux a .so is a library only when it is ELF (libc.so may be a linker script); one
    // that starts like ELF and breaks off is unreadable.
    fs::path lroot = tmp.path() / "lroot";
    write_file(lroot / "libscript.so", "/* GNU ld script */\nGROUP ( x )\n");
    write_file(lroot / "libcut.so.1", std::string("\x7f"
                                                  "ELF\x02\x01",
                                                  6));
    report = scan_native_libraries(linux_scan(lroot));
    EXPECT_EQ(report.libraries, 1u);
    ASSERT_EQ(names(report), std::vector<std::string>{"unreadable libcut.so.1"});
    EXPECT_EQ(report.findings[0].message.substr(0, 13), "libcut.so.1: ");
    EXPECT_GT(report.findings[0].message.size(), 13u);
}

TEST(Scan, LinksAreFollowedByLookupsButNotScannedTwice) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto real = build_chain_so(root / "lib" / "libx.so.1.2", {}, "libx.so.1");
    fs::create_symlink("libx.so.1.2", root / "lib" / "libx.so.1");
    build_chain_so(root / "lib" / "libuser.so", {root / "lib" / "libx.so.1"}, {}, "$ORIGIN");
    fs::create_directories(root / "linked");
    fs::create_directory_symlink(root / "lib", root / "linked" / "again");  // not followed
    auto report = scan_native_libraries(linux_scan(root));
    EXPECT_EQ(report.libraries, 2u);
    EXPECT_TRUE(report.findings.empty()) << report.findings[0].message;
}

TEST(Scan, AMissingLibraryTheRootShipsElsewhereSaysWhere) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto shared = build_chain_so(root / "pkga" / "libshared.so.1", {}, "libshared.so.1");
    build_chain_so(root / "pkgb" / "libuser.so", {shared});
    auto report = scan_native_libraries(linux_scan(root));
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libshared.so.1"});
    EXPECT_EQ(report.findings[0].bundled, shared);
    EXPECT_EQ(report.findings[0].fix,
              "pkga/libshared.so.1 is not on libuser.so's search path: reinstall the package "
              "that ships libuser.so (aitk-env sync)");
}

TEST(Scan, TheDriverLibraryComesWithTheDriver) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    auto cuda = build_chain_so(tmp.path() / "build" / "libcuda.so.1", {}, "libcuda.so.1");
    build_chain_so(root / "libuses_cuda.so", {cuda});
    fs::remove(cuda);
    // Nothing of the machine is searched, whatever driver it has.
    ScanOptions options;
    options.root = root;
    fs::create_directories(tmp.path() / "empty");
    options.linux_search.default_dirs = std::vector<fs::path>{tmp.path() / "empty"};
    auto report = scan_native_libraries(options);
    const Finding* cuda_finding = nullptr;
    for (const auto& f : report.findings)
        if (f.name == "libcuda.so.1") cuda_finding = &f;
    ASSERT_NE(cuda_finding, nullptr);
    EXPECT_EQ(cuda_finding->kind, FindingKind::missing);
    EXPECT_EQ(cuda_finding->fix,
              "libcuda.so.1 comes with the NVIDIA driver: install or repair the driver");
}

TEST(Scan, TorchVersionComesFromTheDistInfoBesideTorch) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path site = tmp.path() / "root" / "lib" / "python3.11" / "site-packages";
    fs::create_directories(site / "torch-2.4.0.dist-info");
    auto report = scan_native_libraries(linux_scan(tmp.path() / "root"));
    EXPECT_EQ(report.torch_version, std::nullopt);  // no torch/ beside it
    EXPECT_EQ(report.libraries, 0u);
    fs::create_directories(site / "torch" / "lib");
    fs::create_directories(site / "torch_tensorrt-2.4.0.dist-info");
    report = scan_native_libraries(linux_scan(tmp.path() / "root"));
    EXPECT_EQ(report.torch_version, std::optional<std::string>("2.4.0"));
}

TEST(Scan, BadRootsAreInputErrors) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path missing = tmp.path() / "nowhere";
    try {
        scan_native_libraries(linux_scan(missing));
        FAIL() << "no error for a missing root";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot scan " + missing.string() + ": no such folder");
        EXPECT_FALSE(e.hint().empty());
    }
    write_file(tmp.path() / "file", "x");
    try {
        scan_native_libraries(linux_scan(tmp.path() / "file"));
        FAIL() << "no error for a file as root";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot scan " + (tmp.path() / "file").string() + ": not a folder");
    }
}

TEST(Scan, MoreLibrariesThanTheLimitIsAnInputError) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    for (const char* name : {"a.dll", "b.dll", "c.pyd"})
        write_file(root / name, "MZ");
    auto options = windows_scan(root);
    options.max_libraries = 3;
    EXPECT_EQ(scan_native_libraries(options).libraries, 3u);
    options.max_libraries = 2;
    try {
        scan_native_libraries(options);
        FAIL() << "no error past the limit";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot scan " + root.string() + ": it holds more than 2 native libraries");
    }
}

// Two thousand extension modules that each need five shared libraries and one that is gone:
// the shape of a large prefix. One finding with every importer, in scan order.
TEST(Scan, TwoThousandLibrariesGiveOneMergedFinding) {
    auto tmp = aitk::fs::TempDir::create("scan");
    fs::path root = tmp.path() / "root";
    fs::path core = root / "core";
    std::vector<fs::path> needed;
    for (int i = 0; i < 5; ++i) {
        std::string name = "libcore" + std::to_string(i) + ".so";
        needed.push_back(build_chain_so(core / name, needed, name, "$ORIGIN"));
    }
    needed.push_back(build_chain_so(tmp.path() / "build" / "libgone.so", {}, "libgone.so"));
    auto module = build_chain_so(tmp.path() / "build" / "mod.so", needed, {}, "$ORIGIN/../../core");
    fs::remove(needed.back());
    constexpr int kModules = 2000;
    std::vector<fs::path> modules;
    for (int i = 0; i < kModules; ++i) {
        char dir[16];
        std::snprintf(dir, sizeof dir, "pkg%04d", i);
        fs::path out = root / "site" / dir / ("_ext" + std::to_string(i) + ".so");
        fs::create_directories(out.parent_path());
        fs::copy_file(module, out);
        modules.push_back(out);
    }
    auto report = scan_native_libraries(linux_scan(root));
    EXPECT_EQ(report.libraries, kModules + 5u);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libgone.so"});
    EXPECT_EQ(report.findings[0].importers, modules);
    EXPECT_EQ(report.findings[0].chain, std::vector<fs::path>{modules.front()});
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
