// A teammate's uv.lock through the real binary (issue 29, item 3): nari-labs/dia's published
// uv.lock rebuilt as a local index (tests/support/uv_lock_index.hpp: every wheel of its Linux and
// Windows CPython 3.12 sets, and its four sdist-only packages as real sdists built by the tiny
// in-tree PEP 517 backend) and rewritten onto it, beside Dia's own pyproject.toml (its build
// backend replaced by the same in-tree one). `setup -l uv.lock` installs exactly uv's Linux set
// (the project editable, the sdists built) and `verify` passes; `sync -l uv.lock` keeps it;
// `lock --from` converts it for Linux and Windows and `export` writes the Windows target; a
// stale uv.lock is a warning, and --locked makes it exit 1 before anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "../app/source_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "http_server.hpp"
#include "run_cli.hpp"
#include "test_data.hpp"
#include "test_files.hpp"
#include "uv_lock_index.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using app::source_test::SourceProject;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";
const std::vector<std::string> sdist_only = {"argbind", "fire", "julius", "randomname"};

std::string dia_file(const std::string& name) {
    return data_path("realworld/uv/nari-labs_dia__" + name);
}

SourceProject backend_project(const std::string& name, const std::string& version) {
    SourceProject p;
    p.backend.name = distribution_name(name);
    p.backend.version = version;
    p.editable_hook = true;
    return p;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin < text.size()) {
        auto end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        if (end > begin) out.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    return out;
}

class UvLockCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        suite = new fs::TempDir(fs::TempDir::create("aitk-uv-lock-cli"));
        UvLockIndexOptions options;
        pep::TargetPlatform linux_312;
        linux_312.os_version = {2, 28};
        pep::TargetPlatform windows_312;
        windows_312.os = pep::TargetOs::windows;
        options.platforms = {linux_312, windows_312};
        const auto out = suite->path() / "sdists";
        options.sdist_for = [out](const std::string& name,
                                  const std::string& version) -> std::optional<stdfs::path> {
            auto p = backend_project(name, version);
            return app::source_test::write_sdist(
                out, p, app::source_test::pkg_info("2.1", name, version, {}));
        };
        index = new UvLockIndex(suite->path() / "mirror", read_file(dia_file("uv.lock")), options);
    }
    static void TearDownTestSuite() {
        delete index;
        delete suite;
    }

    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        server.serve_directory(index->root());
        project = work.path() / "dia";
        write_file(project / "uv.lock", index->rewritten_lock(server.base_url()));
        // Dia's pyproject.toml with the in-tree backend instead of hatchling (no index has it).
        std::string pyproject = read_file(dia_file("pyproject.toml"));
        const auto begin = pyproject.find("[build-system]");
        const auto end = pyproject.find("\n[", begin + 1);
        pyproject.replace(begin, end - begin,
                          app::source_test::pyproject_text(backend_project("nari-tts", "0.1.0")));
        write_file(project / "pyproject.toml", pyproject);
        write_file(project / "backend" / "testbackend.py",
                   app::source_test::backend_text(backend_project("nari-tts", "0.1.0")));
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // A machine with an RTX 3090-class GPU on a 570 driver: it runs Dia's cu126 torch.
    CliResult run(std::vector<std::string> args, std::vector<std::string> env = {}) {
        args.insert(args.begin(), {"--cache-dir", path("cache"), "--no-progress"});
        std::vector<std::string> full = {"-u http_proxy",
                                         "-u https_proxy",
                                         "-u HTTPS_PROXY",
                                         "-u AITK_ENV_TORCH_BACKEND",
                                         "PATH=" + python_bin + ":/usr/bin:/bin",
                                         "PYENV_ROOT=/nonexistent",
                                         "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
                                         "AITK_ENV_NVIDIA_SMI=/nonexistent",
                                         "AITK_ENV_CUDA_DRIVER_VERSION=570.86.10",
                                         "AITK_ENV_GPU_COMPUTE_CAPABILITY=8.6"};
        full.insert(full.end(), env.begin(), env.end());
        return run_cli(args, "", full);
    }

    std::string uv_lock() const { return (project / "uv.lock").string(); }

    // "name==version" of every distribution in the prefix, sorted.
    std::vector<std::string> installed(const std::string& prefix) {
        auto list = run({"list", "-p", path(prefix), "--json"});
        EXPECT_EQ(list.exit_code, 0) << list.err;
        std::vector<std::string> out;
        for (const auto& d : nlohmann::json::parse(list.out))
            out.push_back(d["name"].get<std::string>() + "==" + d["version"].get<std::string>());
        std::sort(out.begin(), out.end());
        return out;
    }

    void make_stale() {
        std::string text = read_file(project / "pyproject.toml");
        text.replace(text.find("\"numpy>=2.2.4\""), 14, "\"numpy>=2.3\"");
        write_file(project / "pyproject.toml", text);
    }

    static inline fs::TempDir* suite = nullptr;
    static inline UvLockIndex* index = nullptr;
    HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-uv-lock-cli-run");
    stdfs::path project;
};

TEST_F(UvLockCli, SetupInstallsUvsLinuxSetAndVerifyPasses) {
    auto setup = run({"setup", "-l", uv_lock(), "-p", path("venv"), "--json"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    auto json = nlohmann::json::parse(setup.out);
    EXPECT_EQ(json["target"], "linux-x86_64-cu126");
    EXPECT_EQ(json["smoke"], "torch 2.6.0+cu126 None None");
    auto expected = lines(read_file(dia_file("linux-x86_64-py3.12.txt")));
    EXPECT_EQ(installed("venv"), expected);
    auto verify = run({"verify", "-p", path("venv")});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    // The project itself is installed editable from its folder.
    auto direct = nlohmann::json::parse(read_file(work.path() / "venv" / "lib" / "python3.12" /
                                                  "site-packages" / "nari_tts-0.1.0.dist-info" /
                                                  "direct_url.json"));
    EXPECT_EQ(direct["dir_info"]["editable"], true) << direct.dump();

    // sync from the same uv.lock: nothing to do.
    auto sync = run({"sync", "-l", uv_lock(), "-p", path("venv"), "--json"});
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    auto plan = nlohmann::json::parse(sync.out);
    EXPECT_TRUE(plan["install"].empty()) << sync.out;
    EXPECT_TRUE(plan["remove"].empty()) << sync.out;
}

TEST_F(UvLockCli, LockFromConvertsForLinuxAndWindowsAndExportWritesWindows) {
    auto locked = run({"lock", "--from", uv_lock(), "--target", "linux-x86_64-cu126", "--target",
                       "windows-x86_64-cu126", "-o", path("x.lock.yml"), "--json"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto json = nlohmann::json::parse(locked.out);
    EXPECT_EQ(json["targets"].size(), 2u);
    EXPECT_EQ(json["targets"][0]["packages"], 123);
    auto exported = run({"export", "-l", path("x.lock.yml"), "--format", "requirements", "--target",
                         "windows-x86_64-cu126"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_NE(exported.out.find("triton-windows==3.2.0.post18"), std::string::npos);
    EXPECT_NE(exported.out.find("torch==2.6.0+cu126"), std::string::npos);
    EXPECT_EQ(exported.out.find("\ntriton=="), std::string::npos);
    // The converted lock is a lock like any other: setup -l installs the same Linux set.
    auto setup = run({"setup", "-l", path("x.lock.yml"), "-p", path("venv2"), "--json"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_EQ(installed("venv2"), lines(read_file(dia_file("linux-x86_64-py3.12.txt"))));
}

TEST_F(UvLockCli, AStaleLockWarnsAndLockedRefusesIt) {
    make_stale();
    auto dry = run({"setup", "-l", uv_lock(), "-p", path("venv"), "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.err.find("warning: " + uv_lock() + " does not match the pyproject.toml"),
              std::string::npos)
        << dry.err;
    EXPECT_NE(dry.err.find("numpy>=2.3"), std::string::npos) << dry.err;
    auto refused = run({"setup", "-l", uv_lock(), "-p", path("venv"), "--locked"});
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("--locked refuses it"), std::string::npos) << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "venv"));
    auto lock_refused = run({"lock", "--from", uv_lock(), "--target", "linux-x86_64-cu126", "-o",
                             path("y.lock.yml"), "--locked"});
    EXPECT_EQ(lock_refused.exit_code, 1) << lock_refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "y.lock.yml"));
}

TEST_F(UvLockCli, ABadUvLockIsExit2AtItsLineAndWritesNothing) {
    std::string text = read_file(project / "uv.lock");
    text.replace(0, text.find('\n'), "version = 2");
    write_file(project / "uv.lock", text);
    auto setup = run({"setup", "-l", uv_lock(), "-p", path("venv")});
    EXPECT_EQ(setup.exit_code, 2) << setup.err;
    EXPECT_NE(setup.err.find(uv_lock() + ":1:11: uv.lock version 2 is newer"), std::string::npos)
        << setup.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "venv"));
    auto lock = run(
        {"lock", "--from", uv_lock(), "--target", "linux-x86_64-cu126", "-o", path("z.lock.yml")});
    EXPECT_EQ(lock.exit_code, 2) << lock.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "z.lock.yml"));
}

// A uv.lock someone hands over reads local sources only under its own folder (issue 33's rule):
// `directory = "../outside"` is refused before anything is made.
TEST(UvLockCliLocalFiles, ASourceOutsideTheLocksFolderIsRefused) {
    fs::TempDir dir = fs::TempDir::create("aitk-uv-lock-outside");
    write_file(dir.path() / "proj" / "uv.lock", R"(version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "outside" },
]

[[package]]
name = "outside"
version = "1.0"
source = { directory = "../outside" }
)");
    stdfs::create_directories(dir.path() / "outside");
    const auto lock = (dir.path() / "proj" / "uv.lock").string();
    auto refused =
        run_cli({"--cache-dir", (dir.path() / "cache").string(), "--no-progress", "setup", "-l",
                 lock, "-p", (dir.path() / "proj" / "venv").string(), "--dry-run"},
                "", {"AITK_ENV_NO_GPU=1"});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("the lock names the file"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("outside"), std::string::npos) << refused.err;
    EXPECT_FALSE(stdfs::exists(dir.path() / "proj" / "venv"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
