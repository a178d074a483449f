// `aitk-env python list|find|install` through the real binary, with PATH, HOME and PYENV_ROOT
// set by the test (fake interpreters in a folder, this machine's pyenv), a cache folder of its
// own, and a local server standing in for the python-build-standalone mirror.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "aitk/app/python_cmd.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/util/utf8.hpp"
#include "app_calls.hpp"
#include "http_server.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

using aitk::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kPyenv = "/root/.pyenv";

struct Sandbox {
    aitk::test::TempDir temp;
    fs::path dir = temp.path;
    explicit Sandbox(const std::string& name) : temp("python-cli-" + name) {
        fs::create_directories(dir / "bin");
        fs::create_directories(dir / "home");
    }
    fs::path cache() const { return dir / "cache"; }

    // A script answering the probe as Python `version` at its own path.
    void fake_python(const std::string& name, const std::string& version) const {
        fs::path p = dir / "bin" / name;
        std::ofstream(p) << "#!/bin/sh\necho aitk-python-probe\n"
                         << "echo '{\"implementation\": \"CPython\", \"version\": \"" << version
                         << "\", \"executable\": \"'\"$0\"'\"}'\n";
        fs::permissions(p, fs::perms::owner_all);
    }

    // PATH is the fake folder plus what `env` and `sh` need; pyenv is this machine's.
    std::vector<std::string> env(bool with_pyenv = true) const {
        // `env` takes its -u options before the assignments.
        return {"-u CONDA_PREFIX",
                "-u AITK_ENV_PYTHON_MIRROR",
                "-u AITK_ENV_CACHE_DIR",
                "PATH=" + (dir / "bin").string() + ":/bin",
                "HOME=" + (dir / "home").string(),
                with_pyenv ? "PYENV_ROOT=" + kPyenv.string() : "PYENV_ROOT=" + dir.string()};
    }
};

bool have_pyenv_312() {
    return fs::exists(kPyenv / "versions/3.12.1/bin/python3.12");
}

aitk::python::StandalonePlatform this_machine() {
    return aitk::python::standalone_platform(
        aitk::platform::probe_host(aitk::platform::ProbeEnvironment::current()));
}

std::string platform_text(const aitk::python::StandalonePlatform& p) {
    return p.os + "-" + p.arch + (p.libc.empty() || p.libc == "none" ? "" : " (" + p.libc + ")");
}

}  // namespace

TEST(PythonCli, FindPrintsTheNewestMatchOrExitsOne) {
    if (!have_pyenv_312()) GTEST_SKIP() << "no pyenv 3.12.1 here";
    Sandbox s("find");
    s.fake_python("python3.12", "3.12.77");
    auto fake = run_cli({"python", "find", "3.12", "--cache-dir", s.cache().string()}, "", s.env());
    ASSERT_EQ(fake.exit_code, 0) << fake.err;
    EXPECT_EQ(fake.out, (s.dir / "bin/python3.12").string() + "\n");

    auto exact =
        run_cli({"python", "find", "3.12.1", "--cache-dir", s.cache().string()}, "", s.env());
    ASSERT_EQ(exact.exit_code, 0) << exact.err;
    EXPECT_EQ(exact.out, (kPyenv / "versions/3.12.1/bin/python3").string() + "\n");

    auto spec =
        run_cli({"--json", "python", "find", ">=3.11,<3.12.50", "--cache-dir", s.cache().string()},
                "", s.env());
    ASSERT_EQ(spec.exit_code, 0) << spec.err;
    auto found = json::parse(spec.out);
    EXPECT_EQ(found["version"], "3.12.1");
    EXPECT_EQ(found["executable"], (kPyenv / "versions/3.12.1/bin/python3.12").string());
    EXPECT_EQ(found["standalone"], false);
    EXPECT_EQ(found["markers"]["python_version"], "3.12");

    auto none = run_cli({"python", "find", "3.99", "--cache-dir", s.cache().string()}, "", s.env());
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, "error: no Python interpreter matches Python 3.99\n");

    auto bad =
        run_cli({"python", "find", "newest", "--cache-dir", s.cache().string()}, "", s.env());
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err,
              "error: \"newest\" is not a Python version (3.12, 3.12.1), a version specifier "
              "(>=3.10,<3.13), a path or a program name (python3.12)\n");

    auto path = run_cli(
        {"python", "find", (s.dir / "bin/nothing").string(), "--cache-dir", s.cache().string()}, "",
        s.env());
    EXPECT_EQ(path.exit_code, 2);
    EXPECT_EQ(path.err.rfind("error: " + (s.dir / "bin/nothing").string() + " does not exist\n", 0),
              0u)
        << path.err;

    // The answers were cached under the cache root.
    EXPECT_TRUE(fs::exists(s.cache() / "v1/interpreters.json"));
}

TEST(PythonCli, ListShowsInterpretersNewestFirstAndStandaloneBuilds) {
    if (!have_pyenv_312()) GTEST_SKIP() << "no pyenv 3.12.1 here";
    Sandbox s("list");
    s.fake_python("python3.14", "3.14.0");
    // An unpacked standalone build in the cache whose python3 runs this machine's 3.12.1.
    fs::path root = s.cache() / "v1/python/3.12.1-20260814-linux-x86_64";
    fs::create_directories(root / "python/bin");
    std::ofstream(root / "python/bin/python3")
        << "#!/bin/sh\nexec " << (kPyenv / "versions/3.12.1/bin/python3.12").string()
        << " \"$@\"\n";
    fs::permissions(root / "python/bin/python3", fs::perms::owner_all);

    auto r =
        run_cli({"--json", "python", "list", "--cache-dir", s.cache().string()}, "", s.env(false));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto listed = json::parse(r.out);
    ASSERT_GE(listed["interpreters"].size(), 2u) << r.out;
    EXPECT_EQ(listed["interpreters"][0]["version"], "3.14.0");
    EXPECT_EQ(listed["interpreters"][0]["path"], (s.dir / "bin/python3.14").string());
    bool standalone_found = false;
    for (const auto& i : listed["interpreters"]) {
        if (i["path"] == (root / "python/bin/python3").string()) {
            standalone_found = true;
            EXPECT_EQ(i["standalone"], true);
            EXPECT_EQ(i["version"], "3.12.1");
        }
    }
    EXPECT_TRUE(standalone_found) << r.out;
    ASSERT_EQ(listed["standalone"].size(), 1u);
    EXPECT_EQ(listed["standalone"][0], (json{{"version", "3.12.1"},
                                             {"build", "20260814"},
                                             {"os", "linux"},
                                             {"arch", "x86_64"},
                                             {"root", root.string()},
                                             {"path", (root / "python/bin/python3").string()}}));

    auto text = run_cli({"python", "list", "--cache-dir", s.cache().string()}, "", s.env(false));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out.rfind("3.14.0   CPython  " + (s.dir / "bin/python3.14").string() + "\n", 0),
              0u)
        << text.out;
    EXPECT_NE(
        text.out.find("standalone builds in the cache:\n  3.12.1   20260814  linux-x86_64   " +
                      (root / "python/bin/python3").string() + "\n"),
        std::string::npos)
        << text.out;
}

TEST(PythonCli, InstallOfflineWithoutTheArchiveSaysWhatIsMissing) {
    Sandbox s("offline");
    auto r = run_cli({"python", "install", "3.12", "--offline", "--cache-dir", s.cache().string()},
                     "", s.env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("error: offline: 1 of 1 artifact is not in the cache at " +
                              s.cache().string() + ":\n  cpython-3.12.",
                          0),
              0u)
        << r.err;
    EXPECT_NE(r.err.find("run the same command once without --offline"), std::string::npos);

    auto bad =
        run_cli({"python", "install", "3.1", "--cache-dir", s.cache().string()}, "", s.env());
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err.rfind("error: no standalone CPython 3.1 is known for " +
                                platform_text(this_machine()) + "\nhint: known versions: ",
                            0),
              0u)
        << bad.err;
}

TEST(PythonCli, InstallDownloadsFromTheMirrorAndChecksTheSha) {
    Sandbox s("mirror");
    const auto& build = aitk::python::select_standalone_build("3.12", this_machine(),
                                                              aitk::python::standalone_builds());
    const std::string rest =
        build.url.substr(aitk::python::standalone_release_base.size());  // "/20260814/cpython-…"
    aitk::test::HttpServer server;
    // The bytes are not the real archive: the sha256 check must refuse them.
    std::string served_path = "/pbs" + rest;
    auto plus = served_path.find("%2B");
    ASSERT_NE(plus, std::string::npos);
    served_path.replace(plus, 3, "+");
    server.add_file(served_path, "not the archive");
    auto env = s.env();
    env.push_back("AITK_ENV_PYTHON_MIRROR=" + server.url("/pbs/"));
    auto r = run_cli({"python", "install", "3.12", "--cache-dir", aitk::util::utf8_of(s.cache())},
                     "", env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(
        r.err.find("error: cannot download CPython " + build.version + ": sha256 mismatch for " +
                   server.url("/pbs" + rest) + ": expected " + build.sha256),
        std::string::npos)
        << r.err;
    ASSERT_FALSE(server.requests().empty());
    EXPECT_EQ(server.requests()[0].path, served_path);
    EXPECT_FALSE(fs::exists(s.cache() / "v1/python"));
}

// AITK_ENV_HTTP_RETRIES and AITK_ENV_HTTP_RETRY_DELAY_MS reach the standalone download as they
// reach every other one (before the fix its downloader was built apart and kept the
// downloader's own five tries, half a second apart).
TEST(PythonCli, InstallFollowsTheHttpKnobs) {
    Sandbox s("knobs");
    const auto& build = aitk::python::select_standalone_build("3.12", this_machine(),
                                                              aitk::python::standalone_builds());
    std::string served_path =
        "/pbs" + build.url.substr(aitk::python::standalone_release_base.size());
    auto plus = served_path.find("%2B");
    ASSERT_NE(plus, std::string::npos);
    served_path.replace(plus, 3, "+");
    aitk::test::HttpServer server;
    server.add_file(served_path, "not the archive");
    server.set_fault(served_path, aitk::test::Fault::http_status(503, 1000));
    auto env = s.env();
    env.push_back("AITK_ENV_PYTHON_MIRROR=" + server.url("/pbs/"));
    env.push_back("AITK_ENV_HTTP_RETRIES=1");
    env.push_back("AITK_ENV_HTTP_RETRY_DELAY_MS=0");
    auto r = run_cli({"python", "install", "3.12", "--cache-dir", aitk::util::utf8_of(s.cache())},
                     "", env);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("HTTP 503"), std::string::npos) << r.err;
    EXPECT_EQ(server.requests_for(served_path).size(), 2u);
}

// `setup --python SPEC`'s choice, called directly: a matching CPython on the machine, else a
// standalone build from the table (here one served locally), found again afterwards.
TEST(EnsurePython, UsesAMatchingInterpreterElseInstallsAStandaloneBuild) {
    if (!have_pyenv_312()) GTEST_SKIP() << "no pyenv 3.12.1 here";
    Sandbox s("ensure");
    s.fake_python("python3.11", "3.11.40");
    const std::string archive = aitk::archive::write_archive_to_memory(
        aitk::archive::Format::tar_gz,
        {aitk::archive::WriteEntry::file(
            "python/bin/python3",
            "#!/bin/sh\nexec " + (kPyenv / "versions/3.12.1/bin/python3.12").string() + " \"$@\"\n",
            0755)});
    aitk::test::HttpServer server;
    server.add_file("/cpython-3.12.1.tar.gz", archive);
    const aitk::python::StandalonePlatform here{"linux", "x86_64", "gnu"};
    std::vector<aitk::python::StandaloneBuild> table = {
        {"cpython", "3.12.1", "20260814", "linux", "x86_64", "gnu",
         server.url("/cpython-3.12.1.tar.gz"), aitk::fs::sha256_hex(archive)},
        {"cpython", "3.13.5", "20260814", "linux", "x86_64", "gnu", server.url("/none"),
         std::string(64, 'c')}};
    aitk::test::PythonCall o;
    o.cache_root = s.cache();
    o.environment = {{"PATH", (s.dir / "bin").string() + ":/bin"},
                     {"HOME", (s.dir / "home").string()}};
    o.builds = &table;
    o.platform = here;
    o.system_dirs = std::vector<fs::path>{};

    auto on_machine = aitk::test::ensure_python(o, "3.11");
    EXPECT_EQ(on_machine.interpreter.path, s.dir / "bin/python3.11");
    EXPECT_FALSE(on_machine.standalone);

    auto installed = aitk::test::ensure_python(o, ">=3.12,<3.13");
    ASSERT_TRUE(installed.standalone);
    EXPECT_EQ(installed.standalone->build.version, "3.12.1");
    EXPECT_TRUE(installed.standalone->downloaded);
    EXPECT_EQ(installed.interpreter.version, "3.12.1");
    const fs::path exe = s.cache() / "v1/python/3.12.1-20260814-linux-x86_64/python/bin/python3";
    EXPECT_EQ(installed.interpreter.path, exe);

    // Now the installed build is on the machine: found, not installed again.
    auto again = aitk::test::ensure_python(o, "3.12");
    EXPECT_FALSE(again.standalone);
    EXPECT_EQ(again.interpreter.path, exe);
    EXPECT_EQ(server.requests().size(), 1u);

    try {
        (void)aitk::test::ensure_python(o, "3.10");
        FAIL() << "no error";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(e.code(), aitk::util::ExitCode::unsatisfiable);
        EXPECT_EQ(std::string(e.what()),
                  "no CPython on this machine matches Python 3.10, and no standalone build for "
                  "linux-x86_64 does (known: 3.13.5, 3.12.1)");
    }
    EXPECT_THROW((void)aitk::test::ensure_python(o, (s.dir / "nothing").string()),
                 aitk::util::InputError);
    EXPECT_THROW((void)aitk::test::ensure_python(o, "python3.4"), aitk::util::InputError);
}

}  // namespace AITK_FILE_LOCAL
