// Installing a standalone CPython from a python-build-standalone-shaped archive the test makes
// and serves on 127.0.0.1: download with sha256 check, unpack once, mirror rewrite, offline,
// refusals that keep nothing, and one archive made from a real interpreter's tree.
#include "aitk/python/standalone_install.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/python/venv.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "http_server.hpp"
#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using aitk::archive::WriteEntry;

// This machine's kind of build: the tests install what setup would install here. On Windows the
// interpreter is the stand-in (tests/support/windows/standin_python.c), which answers the probe
// as CPython 3.12.1 living where it is; elsewhere python/bin/python3 is a script that runs this
// machine's 3.12.1. Either is enough for the download, unpack and probe logic without copying a
// whole interpreter.
#ifdef _WIN32
const std::string kTriple = "x86_64-pc-windows-msvc";
const StandalonePlatform kHost{"windows", "x86_64", "none"};
const std::string kExe = "python/python.exe";
const std::string kRootName = "3.12.1-20260814-windows-x86_64";
bool interpreter_available() {
    return fs::exists(AITK_STANDIN_PYTHON);
}
std::string interpreter_entry_content() {
    return aitk::fs::read_file(AITK_STANDIN_PYTHON);
}
#else
const std::string kTriple = "x86_64-unknown-linux-gnu";
const StandalonePlatform kHost{"linux", "x86_64", "gnu"};
const std::string kExe = "python/bin/python3";
const std::string kRootName = "3.12.1-20260814-linux-x86_64";
bool interpreter_available() {
    return fs::exists(pyenv_versions / "3.12.1/bin/python3.12");
}
std::string interpreter_entry_content() {
    return "#!/bin/sh\nexec " + (pyenv_versions / "3.12.1/bin/python3.12").string() + " \"$@\"\n";
}
#endif
const StandalonePlatform kLinux{"linux", "x86_64", "gnu"};
const std::string kFile = "cpython-3.12.1+20260814-" + kTriple + "-install_only_stripped.tar.gz";
const std::string kUrlPath =
    "/20260814/cpython-3.12.1%2B20260814-" + kTriple + "-install_only_stripped.tar.gz";

std::string small_archive() {
    return aitk::archive::write_archive_to_memory(
        aitk::archive::Format::tar_gz,
        {WriteEntry::file(kExe, interpreter_entry_content(), 0755),
         WriteEntry::file("python/lib/python3.12/README", "stdlib goes here\n")});
}

StandaloneBuild entry(std::string version, std::string url, std::string sha256,
                      const StandalonePlatform& platform = kHost) {
    return {"cpython",     std::move(version), "20260814",     platform.os,
            platform.arch, platform.libc,      std::move(url), std::move(sha256)};
}

aitk::net::DownloaderOptions quick_downloader() {
    aitk::net::DownloaderOptions o;
    o.retry.max_attempts = 2;
    o.retry.initial_backoff = 10ms;
    o.retry.jitter_seed = 1;
    return o;
}

StandaloneInstallRequest request_for(std::string version) {
    StandaloneInstallRequest r;
    r.version = std::move(version);
    r.platform = kHost;
#ifdef _WIN32
    r.probe_options.windows = true;
    r.probe_options.environment = {{"PATH", "C:\\windows\\system32"}};
#else
    r.probe_options.environment = {{"PATH", "/usr/bin:/bin"}};
#endif
    r.probe_options.timeout = 20s;
    return r;
}

bool has_regular_files(const fs::path& dir) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_regular_file()) return true;
    }
    return false;
}

class StandaloneInstallTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!interpreter_available()) GTEST_SKIP() << "no interpreter for the archive here";
        archive = small_archive();
        sha = aitk::fs::sha256_hex(archive);
        server.add_file("/20260814/" + kFile, archive);
        builds = {entry("3.11.9", server.url("/none.tar.gz"), std::string(64, 'a')),
                  entry("3.12.1", server.url(kUrlPath), sha)};
    }

    TempDir t;
    aitk::test::HttpServer server;
    std::string archive;
    std::string sha;
    std::vector<StandaloneBuild> builds;
};

TEST_F(StandaloneInstallTest, DownloadsVerifiesAndUnpacksOnce) {
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    auto first = install_standalone(request_for("3.12"), builds, cache, downloader);
    EXPECT_TRUE(first.downloaded);
    EXPECT_TRUE(first.unpacked);
    EXPECT_EQ(first.build.version, "3.12.1");
    EXPECT_EQ(first.root, t.path / "cache/v1/python" / kRootName);
    EXPECT_EQ(first.interpreter.path, first.root / kExe);
    EXPECT_EQ(first.interpreter.version, "3.12.1");
    EXPECT_EQ(first.interpreter.implementation, "CPython");
    EXPECT_EQ(read_file(first.root / "python/lib/python3.12/README"), "stdlib goes here\n");
    auto stored = cache.find_artifact(sha, kFile);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->filename(), kFile);

    auto again = install_standalone(request_for("3.12.1"), builds, cache, downloader);
    EXPECT_FALSE(again.downloaded);
    EXPECT_FALSE(again.unpacked);
    EXPECT_EQ(again.root, first.root);
    EXPECT_EQ(server.requests_for("/20260814/" + kFile).size(), 1u);
    EXPECT_FALSE(has_regular_files(cache.temp_dir()));

    auto listed = installed_standalone(cache);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].version, "3.12.1");
    EXPECT_EQ(listed[0].build, "20260814");
    EXPECT_EQ(listed[0].os, kHost.os);
    EXPECT_EQ(listed[0].arch, "x86_64");
    EXPECT_EQ(listed[0].root, first.root);
    EXPECT_EQ(listed[0].executable, first.root / kExe);
}

TEST_F(StandaloneInstallTest, AShaMismatchIsRefusedAndNothingKept) {
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    const std::string wrong(64, 'b');
    builds[1].sha256 = wrong;
    try {
        install_standalone(request_for("3.12"), builds, cache, downloader);
        FAIL() << "no error";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(e.code(), aitk::util::ExitCode::failure);
        EXPECT_EQ(std::string(e.what()),
                  "cannot download CPython 3.12.1: sha256 mismatch for " + server.url(kUrlPath) +
                      ": expected " + wrong + ", got " + sha + " (" +
                      std::to_string(archive.size()) + " bytes); the download was discarded");
    }
    EXPECT_FALSE(fs::exists(cache.base() / "python"));
    EXPECT_FALSE(cache.find_artifact(wrong));
    EXPECT_FALSE(cache.find_artifact(sha));
    EXPECT_FALSE(has_regular_files(cache.temp_dir()));
}

TEST_F(StandaloneInstallTest, OfflineUsesTheCacheOrSaysWhatIsMissing) {
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    auto offline = request_for("3.12");
    offline.offline = true;
    try {
        install_standalone(offline, builds, cache, downloader);
        FAIL() << "no error";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(e.code(), aitk::util::ExitCode::failure);
        EXPECT_EQ(std::string(e.what()),
                  "offline: 1 of 1 artifact is not in the cache at " +
                      aitk::util::utf8_of(cache.root()) + ":\n  " + kFile + " (sha256 " + sha +
                      ") from " + server.url(kUrlPath) +
                      "\nrun the same command once without --offline (or import a bundle) to "
                      "fill the cache");
    }
    EXPECT_TRUE(server.requests().empty());

    auto online = install_standalone(request_for("3.12"), builds, cache, downloader);
    // The unpacked tree is gone but the archive is cached: offline unpacks it again.
    fs::remove_all(online.root);
    auto again = install_standalone(offline, builds, cache, downloader);
    EXPECT_FALSE(again.downloaded);
    EXPECT_TRUE(again.unpacked);
    EXPECT_EQ(again.interpreter.version, "3.12.1");
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(StandaloneInstallTest, TheMirrorReplacesTheReleaseBase) {
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    builds[1].url = std::string(standalone_release_base) + kUrlPath;
    server.add_file("/mirror/20260814/" + kFile, archive);
    auto request = request_for("3.12");
    request.mirror = server.url("/mirror/");
    auto installed = install_standalone(request, builds, cache, downloader);
    EXPECT_TRUE(installed.downloaded);
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_EQ(server.requests()[0].path, "/mirror/20260814/" + kFile);
}

TEST(MirroredUrl, RewritesOnlyTheReleaseBase) {
    const std::string url = std::string(standalone_release_base) + "/20260814/cpython.tar.gz";
    EXPECT_EQ(mirrored_url(url, ""), url);
    EXPECT_EQ(mirrored_url(url, "https://mirror.example/pbs"),
              "https://mirror.example/pbs/20260814/cpython.tar.gz");
    EXPECT_EQ(mirrored_url(url, "file:///srv/pbs//"), "file:///srv/pbs/20260814/cpython.tar.gz");
    EXPECT_EQ(mirrored_url("https://example.com/x.tar.gz", "https://m"),
              "https://example.com/x.tar.gz");
    EXPECT_EQ(mirrored_url(std::string(standalone_release_base) + "-other/x", "https://m"),
              std::string(standalone_release_base) + "-other/x");
}

TEST_F(StandaloneInstallTest, AnArchiveWithoutTheInterpreterIsRefused) {
    std::string other = aitk::archive::write_archive_to_memory(
        aitk::archive::Format::tar_gz, {WriteEntry::file("cpython/bin/python3", "x", 0755)});
    server.add_file("/other.tar.gz", other);
    builds[1] = entry("3.12.1", server.url("/other.tar.gz"), aitk::fs::sha256_hex(other));
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    try {
        install_standalone(request_for("3.12"), builds, cache, downloader);
        FAIL() << "no error";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(std::string(e.what()), "other.tar.gz does not hold " + kExe +
                                             ": not a python-build-standalone install archive");
    }
    EXPECT_FALSE(fs::exists(standalone_root(cache, builds[1])));
    EXPECT_FALSE(has_regular_files(cache.temp_dir()));
}

TEST_F(StandaloneInstallTest, ConcurrentInstallsUnpackOnce) {
    aitk::cache::Cache cache(t.path / "cache");
    auto install = [&] {
        aitk::net::Downloader downloader(quick_downloader());
        aitk::cache::Cache mine(t.path / "cache");
        return install_standalone(request_for("3.12"), builds, mine, downloader);
    };
    auto a = std::async(std::launch::async, install);
    auto b = std::async(std::launch::async, install);
    auto ra = a.get();
    auto rb = b.get();
    EXPECT_EQ(ra.root, rb.root);
    EXPECT_EQ(int(ra.unpacked) + int(rb.unpacked), 1);
    EXPECT_EQ(ra.interpreter.version, "3.12.1");
    EXPECT_EQ(rb.interpreter.version, "3.12.1");
}

TEST(SelectStandaloneBuild, VersionsPlatformsAndErrors) {
    std::vector<StandaloneBuild> builds = {
        entry("3.12.9", "u1", "s", kLinux),
        entry("3.12.11", "u2", "s", kLinux),
        entry("3.13.2", "u3", "s", kLinux),
        {"cpython", "3.12.11", "20260901", "linux", "x86_64", "gnu", "u4", "s"},
        {"cpython", "3.12.11", "20260814", "windows", "x86_64", "none", "w", "s"}};
    EXPECT_EQ(select_standalone_build("3.12", kLinux, builds).url, "u4");
    EXPECT_EQ(select_standalone_build("3.12.9", kLinux, builds).url, "u1");
    EXPECT_EQ(select_standalone_build("3.12", {"windows", "x86_64", "none"}, builds).url, "w");
    try {
        (void)select_standalone_build("3.9", kLinux, builds);
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "no standalone CPython 3.9 is known for linux-x86_64 (gnu)");
        EXPECT_EQ(e.hint(), "known versions: 3.13.2, 3.12.11, 3.12.9");
    }
    try {
        (void)select_standalone_build("latest", kLinux, builds);
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), "\"latest\" is not a Python version: give X.Y or X.Y.Z");
    }
    try {
        (void)select_standalone_build("3.12", {"linux", "riscv64", "gnu"}, builds);
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "no standalone CPython build is known for linux-riscv64 (gnu)");
    }
}

TEST(StandalonePlatform, FromHostFacts) {
    aitk::platform::HostInfo host;
    host.os = aitk::platform::OsKind::macos;
    host.arch = "arm64";
    EXPECT_EQ(standalone_platform(host), (StandalonePlatform{"darwin", "aarch64", "none"}));
    host.os = aitk::platform::OsKind::linux_os;
    host.arch = "x86_64";
    host.libc = {"glibc", "2.36"};
    EXPECT_EQ(standalone_platform(host), (StandalonePlatform{"linux", "x86_64", "gnu"}));
    host.libc = {"musl", "1.2.4"};
    EXPECT_EQ(standalone_platform(host).libc, "musl");
    host.os = aitk::platform::OsKind::windows;
    EXPECT_EQ(standalone_platform(host), (StandalonePlatform{"windows", "x86_64", "none"}));
    EXPECT_EQ(standalone_executable("/r", true), fs::path("/r/python/python.exe"));
    EXPECT_EQ(standalone_executable("/r", false), fs::path("/r/python/bin/python3"));
}

// The stdlib of a real interpreter (without its tests and the modules nobody imports at start)
// and its binary, laid out as python-build-standalone does.
std::vector<WriteEntry> real_tree_entries(const fs::path& root) {
    std::vector<WriteEntry> out;
    const std::vector<std::string> skipped = {"test",    "site-packages", "__pycache__",
                                              "idlelib", "tkinter",       "ensurepip",
                                              "lib2to3", "turtledemo"};
    const fs::path lib = root / "lib/python3.12";
    for (auto it = fs::recursive_directory_iterator(lib); it != fs::recursive_directory_iterator();
         ++it) {
        std::string name = it->path().filename().string();
        if (std::find(skipped.begin(), skipped.end(), name) != skipped.end() ||
            name.rfind("config-", 0) == 0) {
            it.disable_recursion_pending();
            continue;
        }
        std::string rel = "python/" + it->path().lexically_relative(root).generic_string();
        if (it->is_symlink()) {
            out.push_back(WriteEntry::symlink(rel, fs::read_symlink(it->path()).string()));
        } else if (it->is_regular_file()) {
            WriteEntry e;
            e.path = rel;
            e.source = it->path();
            e.mode = 0644;
            out.push_back(std::move(e));
        }
    }
    WriteEntry exe;
    exe.path = "python/bin/python3.12";
    exe.source = root / "bin/python3.12";
    exe.mode = 0755;
    out.push_back(std::move(exe));
    out.push_back(WriteEntry::symlink("python/bin/python3", "python3.12"));
    return out;
}

TEST(StandaloneInstallRealTree, InstallsAndHostsAVenv) {
    const fs::path root = pyenv_versions / "3.12.1";
    if (!fs::exists(root / "bin/python3.12")) GTEST_SKIP() << "no pyenv 3.12.1 here";
    TempDir t;
    aitk::archive::WriteOptions fast;
    fast.compression_level = 1;
    const fs::path archive_path = t.path / "pbs.tar.gz";
    aitk::archive::write_archive(archive_path, aitk::archive::Format::tar_gz,
                                 real_tree_entries(root), fast);
    aitk::test::HttpServer server;
    server.serve_directory(t.path, "/");
    std::vector<StandaloneBuild> builds = {
        entry("3.12.1", server.url("/pbs.tar.gz"), aitk::fs::sha256_file_hex(archive_path))};
    aitk::cache::Cache cache(t.path / "cache");
    aitk::net::Downloader downloader(quick_downloader());
    auto installed = install_standalone(request_for("3.12"), builds, cache, downloader);
    const fs::path home = installed.root / "python";
    EXPECT_EQ(installed.interpreter.executable, home / "bin/python3.12");
    EXPECT_EQ(installed.interpreter.base_prefix, home);
    EXPECT_EQ(installed.interpreter.version, "3.12.1");

    const fs::path prefix = t.path / "env";
    create_venv({prefix, installed.interpreter, false, ""});
    aitk::util::ProcessRequest req;
    req.argv = {(prefix / "bin/python").string(), "-c",
                "import sys; print(sys.prefix); print(sys.base_prefix)"};
    req.environment = aitk::util::Environment{{"PATH", "/usr/bin:/bin"}};
    req.timeout = 30s;
    auto r = aitk::util::run_process(req);
    ASSERT_TRUE(r && r->succeeded()) << (r ? r->err : r.error().message);
    EXPECT_EQ(r->out, prefix.string() + "\n" + home.string() + "\n");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
