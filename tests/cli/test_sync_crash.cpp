// `aitk-env sync` swapping one lock state for another (several packages change version, one
// leaves, one arrives, a few hundred files) in a venv without an interpreter: `verify` finds the
// prefix clean and at the lock's versions, a direct reference records where it came from, and a
// no-op sync stages nothing. The same swap killed with SIGKILL at 50 instants, in a venv of a real
// CPython, is in test_kill_matrix.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "http_server.hpp"
#include "run_cli.hpp"
#include "wheel_builder.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// A package of `modules` modules (and a console script), each file naming the version, so
// two versions differ in every file.
WheelSpec package(const std::string& name, const std::string& version, int modules) {
    const std::string module = module_name(name);
    WheelSpec spec;
    spec.name = name;
    spec.version = version;
    spec.files.push_back({module + "/__init__.py", "__version__ = '" + version + "'\n"});
    for (int i = 0; i < modules; ++i) {
        spec.files.push_back(
            {module + "/sub" + std::to_string(i % 4) + "/m" + std::to_string(i) + ".py",
             "# " + name + " " + version + "\nVALUE = " + std::to_string(i) + "\n" +
                 std::string(200 + i, '#') + "\n"});
    }
    // A module only this version has: its folder must go when the version goes.
    spec.files.push_back({module + "/only_" + version.substr(0, 1) + "/x.py", "X = 1\n"});
    spec.console_scripts = {name + "-tool = " + module + ":main"};
    return spec;
}

class SyncCrash : public ::testing::Test {
  protected:
    fs::TempDir work = fs::TempDir::create("aitk-sync-crash");
    HttpServer server;
    stdfs::path prefix = work.path() / "prefix";
    std::map<std::string, std::string> versions_a, versions_b;

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    lock::LockedPackage locked(const BuiltArtifact& built, bool direct) {
        lock::LockedPackage p;
        p.name = built.name;
        p.version = built.version;
        p.index = direct ? "" : "primary";
        p.requested = true;
        p.wheel = lock::LockedFile{built.filename, server.url("/" + built.filename), built.sha256,
                                   built.size};
        return p;
    }

    // One lock state: these wheels in one target.
    void write_lock(const std::string& file, const std::vector<BuiltArtifact>& wheels,
                    const std::string& direct, std::map<std::string, std::string>& versions) {
        lock::Lockfile lock;
        lock.name = "crash";
        lock.generator = "aitk-env 0.1.0";
        lock.input_hash = "sha256:" + std::string(64, file == "a.lock.yml" ? 'a' : 'b');
        lock.python_requires = ">=3.10";
        lock.indexes = {{"primary", server.url("/simple"), lock::IndexKind::simple}};
        lock.default_target = "linux-x86_64-cpu";
        lock::LockedTarget t;
        t.id = "linux-x86_64-cpu";
        t.os = "linux";
        t.arch = "x86_64";
        t.backend = "cpu";
        t.python = "3.12.1";
        t.marker_environment = {{"python_full_version", "3.12.1"},
                                {"python_version", "3.12"},
                                {"sys_platform", "linux"}};
        for (const auto& w : wheels) {
            t.packages.push_back(locked(w, w.name == direct));
            versions[w.name] = w.version;
        }
        std::sort(t.packages.begin(), t.packages.end(),
                  [](const auto& x, const auto& y) { return x.name < y.name; });
        lock.targets = {t};
        fs::write_file_atomic(work.path() / file, lock::write_lockfile(lock));
    }

    void SetUp() override {
        const stdfs::path wheels = work.path() / "wheels";
        auto build = [&](const WheelSpec& spec) { return build_wheel(spec, wheels); };
        const auto shared = build(package("shared", "1.0", 40));
        write_lock("a.lock.yml",
                   {build(package("alpha", "1.0", 120)), build(package("beta", "1.0", 80)), shared,
                    build(package("only-a", "1.0", 60))},
                   "", versions_a);
        write_lock("b.lock.yml",
                   {build(package("alpha", "2.0", 130)), build(package("beta", "2.0", 70)), shared,
                    build(package("only-b", "1.0", 60))},
                   "only-b", versions_b);
        server.serve_directory(wheels);
        // A venv as sync expects it; no interpreter runs here.
        stdfs::create_directories(prefix / "lib" / "python3.12" / "site-packages");
        stdfs::create_directories(prefix / "bin");
        fs::write_file_atomic(prefix / "pyvenv.cfg",
                              "home = /usr/bin\ninclude-system-site-packages = false\n"
                              "version = 3.12.1\n");
    }

    std::vector<std::string> sync_args(const std::string& lock) const {
        return {"--cache-dir", path("cache"), "--no-progress", "sync", "-l",
                path(lock),    "-p",          prefix.string()};
    }

    CliResult run(std::vector<std::string> args) {
        return run_cli(args, "", {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY"});
    }

    void sync_to_completion(const std::string& lock, const std::string& context) {
        auto r = run(sync_args(lock));
        ASSERT_EQ(r.exit_code, 0) << context << "\n" << r.err;
    }

    // `verify` is clean (files and versions against the prefix's lock copy and against
    // `lock`), and `list` shows exactly the lock's versions.
    void expect_synced(const std::string& lock, const std::map<std::string, std::string>& want,
                       const std::string& context) {
        SCOPED_TRACE(context);
        auto own = run({"verify", "-p", prefix.string()});
        EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
        auto against = run({"verify", "-p", prefix.string(), "-l", path(lock)});
        EXPECT_EQ(against.exit_code, 0) << against.out << against.err;
        auto list = run({"list", "-p", prefix.string(), "--json"});
        ASSERT_EQ(list.exit_code, 0) << list.err;
        std::map<std::string, std::string> got;
        for (const auto& d : nlohmann::json::parse(list.out))
            got[d["name"]] = d["version"];
        EXPECT_EQ(got, want);
        EXPECT_FALSE(stdfs::exists(prefix / ".aitk-env" / "txn"));
    }
};

TEST_F(SyncCrash, SwapsBetweenTwoLocksAndRecordsDirectReferences) {
    sync_to_completion("a.lock.yml", "first sync");
    expect_synced("a.lock.yml", versions_a, "first sync");
    sync_to_completion("b.lock.yml", "second sync");
    expect_synced("b.lock.yml", versions_b, "second sync");
    // The direct reference records where it came from (PEP 610).
    auto direct = nlohmann::json::parse(fs::read_file(
        prefix / "lib/python3.12/site-packages/only_b-1.0.dist-info/direct_url.json"));
    EXPECT_EQ(direct["url"], server.url("/only_b-1.0-py3-none-any.whl"));
    EXPECT_EQ(direct["archive_info"]["hash"].get<std::string>().substr(0, 7), "sha256=");
    sync_to_completion("a.lock.yml", "back to a");
    expect_synced("a.lock.yml", versions_a, "back to a");
}

#ifndef _WIN32  // inode numbers: POSIX stat
TEST_F(SyncCrash, ANoOpSyncStagesNothing) {
    sync_to_completion("a.lock.yml", "first sync");
    // A rewrite (temporary file renamed over) would give the receipt another inode.
    auto inode = [&](const char* name) {
        struct stat st {};
        EXPECT_EQ(::stat((prefix / ".aitk-env" / name).c_str(), &st), 0) << name;
        return st.st_ino;
    };
    const auto receipt = inode("receipt.json");
    const auto lock_copy = inode("lock.yml");
    auto again = run(sync_args("a.lock.yml"));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(inode("receipt.json"), receipt);
    EXPECT_EQ(inode("lock.yml"), lock_copy);
    EXPECT_FALSE(stdfs::exists(prefix / ".aitk-env" / "txn"));
    EXPECT_TRUE(stdfs::exists(prefix / ".aitk-env" / "lock"));  // but the lock was taken
    expect_synced("a.lock.yml", versions_a, "no-op sync");
}
#endif

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
