// The glibc ld.so simulation over real shared objects built with gcc: DT_RUNPATH with $ORIGIN,
// DT_RPATH (and its inheritance from the loading object), LD_LIBRARY_PATH, ld.so.cache, the
// default folders, candidates of the other ELF class, and LD_LIBRARY_PATH shadowing a bundled
// library.
#include <gtest/gtest.h>

#include <cstdlib>

#include "aitk/diag/scan.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "linux_loader.hpp"  // private: src/diag
#include "native_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::build_chain_so;

const fs::path kSystemCache = "/etc/ld.so.cache";

// libc.so.6 and its loader come from the machine's ld.so.cache; nothing else of the machine
// is searched (the default folders are an empty temp folder).
ScanOptions linux_scan(const fs::path& root, const fs::path& empty_default) {
    ScanOptions options;
    options.os = TargetOs::linux_os;
    options.root = root;
    options.linux_search.ld_so_cache = kSystemCache;
    fs::create_directories(empty_default);
    options.linux_search.default_dirs = std::vector<fs::path>{empty_default};
    return options;
}

#define REQUIRE_SYSTEM_CACHE() \
    if (!fs::exists(kSystemCache)) GTEST_SKIP() << "no /etc/ld.so.cache on this machine"

std::vector<std::string> names(const ScanReport& report) {
    std::vector<std::string> out;
    for (const auto& f : report.findings)
        out.push_back(std::string(finding_kind_name(f.kind)) + " " + f.name);
    return out;
}

std::string first_message(const ScanReport& report) {
    return report.findings.empty() ? std::string() : report.findings[0].message;
}

std::vector<std::string> places(const std::vector<SearchedPlace>& searched) {
    std::vector<std::string> out;
    for (const auto& p : searched)
        out.push_back(p.origin + ": " + p.folder.string());
    return out;
}

TEST(LinuxDefaults, GlibcFoldersPerArchitecture) {
    using aitk::diag::detail::glibc_default_dirs;
    auto strings = [](const std::vector<fs::path>& dirs) {
        std::vector<std::string> out;
        for (const auto& d : dirs)
            out.push_back(d.string());
        return out;
    };
    EXPECT_EQ(strings(glibc_default_dirs(kElfMachineX86_64, true)),
              (std::vector<std::string>{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                        "/lib64", "/usr/lib64", "/lib", "/usr/lib"}));
    EXPECT_EQ(strings(glibc_default_dirs(kElfMachineAarch64, true)),
              (std::vector<std::string>{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                                        "/lib64", "/usr/lib64", "/lib", "/usr/lib"}));
    EXPECT_EQ(strings(glibc_default_dirs(kElfMachine386, false)),
              (std::vector<std::string>{"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu", "/lib",
                                        "/usr/lib"}));
}

TEST(LinuxLoader, RunpathWithOriginResolvesTheChain) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    auto c = build_chain_so(root / "lib" / "libc3.so.1", {}, "libc3.so.1");
    build_chain_so(root / "bin" / "libb3.so", {c}, {}, "$ORIGIN/../lib");
    auto report = scan_native_libraries(linux_scan(root, tmp.path() / "default"));
    EXPECT_EQ(report.libraries, 2u);
    EXPECT_EQ(report.architecture, "x86_64");
    EXPECT_TRUE(report.findings.empty()) << first_message(report);
}

TEST(LinuxLoader, MissingNeededListsEveryFolderInSearchOrder) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    auto dep = build_chain_so(tmp.path() / "build" / "libdep.so.1", {}, "libdep.so.1");
    auto user = build_chain_so(root / "lib" / "libuser.so", {dep}, {}, "$ORIGIN/../deps");
    fs::remove(dep);
    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_library_path = {tmp.path() / "llp"};

    auto report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libdep.so.1"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.chain, std::vector<fs::path>{user});
    EXPECT_EQ(f.importers, std::vector<fs::path>{user});
    std::string runpath = (root / "lib").string() + "/../deps";
    EXPECT_EQ(places(f.searched), (std::vector<std::string>{
                                      "LD_LIBRARY_PATH: " + (tmp.path() / "llp").string(),
                                      "DT_RUNPATH: " + runpath,
                                      "ld.so.cache: ",
                                      "default: " + (tmp.path() / "default").string(),
                                  }));
    EXPECT_EQ(f.message, "libuser.so \u2192 libdep.so.1: not found; searched: " +
                             (tmp.path() / "llp").string() + " (LD_LIBRARY_PATH), " + runpath +
                             " (DT_RUNPATH), ld.so.cache, " + (tmp.path() / "default").string() +
                             " (default)");
    EXPECT_EQ(f.fix, "reinstall the package that ships libuser.so (aitk-env sync)");
}

TEST(LinuxLoader, LdLibraryPathShadowsTheCopyFoundThroughRunpath) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    fs::path cudnn_lib = root / "nvidia" / "cudnn" / "lib";
    auto bundled = build_chain_so(cudnn_lib / "libcudnn.so.9", {}, "libcudnn.so.9");
    auto torch = build_chain_so(root / "torch" / "lib" / "libtorch_cuda.so", {bundled}, {},
                                "$ORIGIN/../../nvidia/cudnn/lib");
    fs::path system_cuda = tmp.path() / "cuda" / "lib64";
    fs::create_directories(system_cuda);
    fs::copy_file(bundled, system_cuda / "libcudnn.so.9");

    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_library_path = {system_cuda};
    auto report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"shadowed libcudnn.so.9"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, system_cuda / "libcudnn.so.9");
    EXPECT_EQ(f.found_origin, "LD_LIBRARY_PATH");
    EXPECT_EQ(f.found_entry, system_cuda);
    EXPECT_EQ(f.bundled, bundled);
    EXPECT_EQ(f.chain, std::vector<fs::path>{torch});
    EXPECT_EQ(f.message, "libcudnn.so.9 found first in " + system_cuda.string() +
                             " (LD_LIBRARY_PATH) instead of nvidia/cudnn/lib");
    EXPECT_EQ(f.fix, "drop " + system_cuda.string() + " from LD_LIBRARY_PATH");
}

TEST(LinuxLoader, RpathComesBeforeLdLibraryPathAndRunpathAfter) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    auto dep = build_chain_so(root / "lib" / "libdep.so.1", {}, "libdep.so.1");
    build_chain_so(root / "app" / "libapp.so", {dep}, {}, {}, "$ORIGIN/../lib");
    fs::create_directories(tmp.path() / "other");
    fs::copy_file(dep, tmp.path() / "other" / "libdep.so.1");
    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_library_path = {tmp.path() / "other"};
    auto report = scan_native_libraries(options);
    EXPECT_TRUE(report.findings.empty()) << first_message(report);

    // The same with DT_RUNPATH: LD_LIBRARY_PATH wins, and shadows the bundled copy.
    build_chain_so(root / "app" / "libapp.so", {dep}, {}, "$ORIGIN/../lib");
    report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"shadowed libdep.so.1"});
    EXPECT_EQ(report.findings[0].bundled, dep);
}

TEST(LinuxLoader, RpathIsInheritedFromTheLoadingObjectUnlessItHasRunpath) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    // libtop (in the root) → libmid (outside, no search path of its own) → libleaf, which only
    // libtop's DT_RPATH names.
    auto leaf = build_chain_so(root / "leaf" / "libleaf.so", {}, "libleaf.so");
    fs::path ext = tmp.path() / "ext";
    auto mid = build_chain_so(ext / "libmid.so", {leaf}, "libmid.so");
    std::string search = ext.string() + ":$ORIGIN/../leaf";
    auto top = build_chain_so(root / "app" / "libtop.so", {mid}, {}, {}, search);
    auto options = linux_scan(root, tmp.path() / "default");
    auto report = scan_native_libraries(options);
    EXPECT_TRUE(report.findings.empty()) << first_message(report);

    // With DT_RUNPATH instead, libtop's folders are for its own needs only.
    build_chain_so(root / "app" / "libtop.so", {mid}, {}, search);
    report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libleaf.so"});
    EXPECT_EQ(report.findings[0].chain, (std::vector<fs::path>{top, ext / "libmid.so"}));
    EXPECT_EQ(report.findings[0].importers, std::vector<fs::path>{ext / "libmid.so"});
    EXPECT_EQ(places(report.findings[0].searched),
              (std::vector<std::string>{"ld.so.cache: ",
                                        "default: " + (tmp.path() / "default").string()}));
}

TEST(LinuxLoader, AnotherClassIsSkippedAndTheSearchGoesOn) {
    REQUIRE_SYSTEM_CACHE();
    if (!aitk::test::have_gcc_m32()) GTEST_SKIP() << "gcc cannot build -m32 here";
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    auto dep = build_chain_so(root / "lib" / "libdep.so.1", {}, "libdep.so.1");
    build_chain_so(root / "app" / "libuser.so", {dep}, {}, "$ORIGIN/../lib");
    aitk::test::ElfBuild m32;
    m32.out = tmp.path() / "lib32" / "libdep.so.1";
    m32.c_source = "int dep_fn(void) { return 1; }\n";
    m32.soname = "libdep.so.1";
    m32.m32 = true;
    aitk::test::build_elf(m32);

    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_library_path = {tmp.path() / "lib32"};
    auto report = scan_native_libraries(options);
    EXPECT_TRUE(report.findings.empty()) << first_message(report);

    fs::remove(dep);
    report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"missing libdep.so.1"});
    EXPECT_EQ(
        report.findings[0].message,
        "libuser.so \u2192 libdep.so.1: not found; searched: " + (tmp.path() / "lib32").string() +
            " (LD_LIBRARY_PATH), " + (root / "app").string() +
            "/../lib (DT_RUNPATH), ld.so.cache, " + (tmp.path() / "default").string() +
            " (default); skipped " + m32.out.string() + " (32-bit)");
}

TEST(LinuxLoader, AFileThatIsNotElfStopsTheSearch) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    auto dep = build_chain_so(root / "lib" / "libdep.so.1", {}, "libdep.so.1");
    auto user = build_chain_so(root / "app" / "libuser.so", {dep}, {}, "$ORIGIN/../lib");
    fs::create_directories(tmp.path() / "junk");
    aitk::fs::write_file_atomic(tmp.path() / "junk" / "libdep.so.1", "not a library\n");
    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_library_path = {tmp.path() / "junk"};
    auto report = scan_native_libraries(options);
    // glibc's open_verify fails the whole load with "invalid ELF header" here.
    ASSERT_EQ(names(report), std::vector<std::string>{"unreadable libdep.so.1"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, tmp.path() / "junk" / "libdep.so.1");
    EXPECT_EQ(f.found_entry, tmp.path() / "junk");
    EXPECT_EQ(f.importers, std::vector<fs::path>{user});
    EXPECT_EQ(f.message,
              "libuser.so \u2192 libdep.so.1: " + (tmp.path() / "junk" / "libdep.so.1").string() +
                  " cannot be loaded: neither a PE image nor an ELF object (at byte "
                  "0x0)");
    EXPECT_EQ(f.fix, "drop " + (tmp.path() / "junk").string() + " from LD_LIBRARY_PATH");
}

TEST(LinuxLoader, LdSoCacheSuppliesWhatNoFolderHas) {
    fs::path ldconfig;
    for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig"})
        if (fs::exists(p)) ldconfig = p;
    if (ldconfig.empty()) GTEST_SKIP() << "no ldconfig to write a cache with";
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    fs::path cached = tmp.path() / "cached";
    auto lib = build_chain_so(cached / "libcached.so.1", {}, "libcached.so.1");
    auto user = build_chain_so(root / "app" / "libuser.so", {lib});
    aitk::fs::write_file_atomic(tmp.path() / "ld.so.conf", cached.string() + "\n");
    fs::path cache = tmp.path() / "ld.so.cache";
    std::string command = ldconfig.string() + " -X -C " + cache.string() + " -f " +
                          (tmp.path() / "ld.so.conf").string() + " 2>/dev/null";
    if (std::system(command.c_str()) != 0 || !fs::exists(cache))
        GTEST_SKIP() << "ldconfig could not write " << cache;

    auto options = linux_scan(root, tmp.path() / "default");
    options.linux_search.ld_so_cache = cache;
    auto report = scan_native_libraries(options);
    EXPECT_TRUE(report.findings.empty()) << first_message(report);

    // The root ships its own copy in a scanned folder that libuser.so never searches: the
    // cache's copy shadows it.
    fs::create_directories(root / "vendored");
    fs::copy_file(lib, root / "vendored" / "libcached.so.1");
    report = scan_native_libraries(options);
    ASSERT_EQ(names(report), std::vector<std::string>{"shadowed libcached.so.1"});
    const Finding& f = report.findings[0];
    EXPECT_EQ(f.found, lib);
    EXPECT_EQ(f.found_origin, "ld.so.cache");
    EXPECT_TRUE(f.found_entry.empty());
    EXPECT_EQ(f.bundled, root / "vendored" / "libcached.so.1");
    EXPECT_EQ(f.importers, std::vector<fs::path>{user});
    EXPECT_EQ(f.message, "libcached.so.1 found first in " + cached.string() +
                             " (ld.so.cache) instead of vendored");
    EXPECT_EQ(f.fix, "");
}

TEST(LinuxLoader, TheGlibcDefaultFoldersAreUsedWhenNoneAreGiven) {
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    build_chain_so(root / "libplain.so");
    ScanOptions options;
    options.root = root;
    auto report = scan_native_libraries(options);  // no cache: libc.so.6 from /lib/<triplet>
    if (!fs::exists("/lib/x86_64-linux-gnu/libc.so.6") && !fs::exists("/lib64/libc.so.6"))
        GTEST_SKIP() << "not an x86_64 glibc layout";
    EXPECT_TRUE(report.findings.empty()) << first_message(report);
}

TEST(LinuxLoader, AlreadyLoadedSonameIsReused) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path root = tmp.path() / "root";
    // libtop loads libshared through its RUNPATH; libother (outside, no search path) needs
    // libshared by the same SONAME and gets the object already loaded.
    auto shared = build_chain_so(root / "deps" / "libshared.so.2", {}, "libshared.so.2");
    auto other = build_chain_so(tmp.path() / "ext" / "libother.so", {shared}, "libother.so");
    build_chain_so(root / "app" / "libtop.so", {shared, other}, {},
                   "$ORIGIN/../deps:" + (tmp.path() / "ext").string());
    auto report = scan_native_libraries(linux_scan(root, tmp.path() / "default"));
    EXPECT_TRUE(report.findings.empty()) << first_message(report);
}

TEST(LinuxLoader, ACycleOfNeedsEndsWithoutFindings) {
    REQUIRE_SYSTEM_CACHE();
    auto tmp = aitk::fs::TempDir::create("linload");
    fs::path lib = tmp.path() / "root" / "lib";
    // libx needs liby needs libx: liby is linked against a first libx, then libx is rebuilt
    // to need liby.
    auto x = build_chain_so(lib / "libx.so", {}, "libx.so");
    auto y = build_chain_so(lib / "liby.so", {x}, "liby.so", "$ORIGIN");
    auto cyclic = build_chain_so(tmp.path() / "build" / "libx.so", {y}, "libx.so", "$ORIGIN");
    fs::copy_file(cyclic, x, fs::copy_options::overwrite_existing);
    auto report = scan_native_libraries(linux_scan(tmp.path() / "root", tmp.path() / "default"));
    EXPECT_EQ(report.libraries, 2u);
    EXPECT_TRUE(report.findings.empty()) << first_message(report);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
