// A uv.lock installed on the machine the suite runs on, Linux or Windows (issue 29, item 3): the
// same small lock, rebuilt as a local index (tests/support/uv_lock_index.hpp), gives each host
// its own set: on Windows (the cross-built aitk-env.exe under Wine, .ci/windows) the win_amd64
// wheels and tqdm's `sys_platform == 'win32'` edge to colorama, in the Windows layout; on Linux
// the manylinux wheels and no colorama. Every registry file's sha256 is checked: a file the lock
// hashes otherwise is refused and nothing is made.
//
// The interpreter: on Windows the stand-in (tests/support/windows/standin_python.c, CPython
// 3.12.1 for win32 that runs no Python, so --no-smoke-test); on Linux pyenv's CPython 3.12.1.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"
#include "http_server.hpp"
#include "run_cli.hpp"
#include "uv_lock_index.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// A virtual root (uv's non-package project) with a CPU torch from PyTorch's index, numpy's
// platform wheels, and tqdm, whose colorama edge holds on Windows only. Hashes and URLs are uv's;
// the index rewrites them.
constexpr const char* small_lock = R"(version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "colorama"
version = "0.4.6"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://files.pythonhosted.org/packages/d8/53/6f443c9a4a8358a93a6792e2acffb9d9d5cb0a5cfd8802644b7b1c9a02e4/colorama-0.4.6.tar.gz", hash = "sha256:08695f5cb7ed6e0531a20572697297273c47b8cae5a63ffc6d6ed5c201be6e44", size = 27697 }
wheels = [
    { url = "https://files.pythonhosted.org/packages/d1/d6/3965ed04c63042e047cb6a3e6ed1a63a35087b6a609aa3a15ed8ac56c221/colorama-0.4.6-py2.py3-none-any.whl", hash = "sha256:4f1d9991f5acc0ca119f9d443620b77f9d6b33703e51011c16baf57afb285fc6", size = 25335 },
]

[[package]]
name = "demo"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    { name = "numpy" },
    { name = "torch" },
    { name = "tqdm" },
]

[package.metadata]
requires-dist = [
    { name = "numpy" },
    { name = "torch", index = "https://download.pytorch.org/whl/cpu" },
    { name = "tqdm" },
]

[[package]]
name = "numpy"
version = "2.2.5"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://files.pythonhosted.org/packages/dc/b2/ce4b867d8cd9c0ee84938ae1e6a6f7926ebf928c9090d036fc3c6a04f946/numpy-2.2.5.tar.gz", hash = "sha256:a9c0d994680cd991b1cb772e8b297340085466a6fe964bc9d4e80f5e2f43c291", size = 20273920 }
wheels = [
    { url = "https://files.pythonhosted.org/packages/b0/d9/7c338b923c53d431bc837b5b787052fef9ae68a56fe91e325aac0d48226e/numpy-2.2.5-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:3a801fef99668f309b88640e28d261991bfad9617c27beda4a3aec4f217ea073", size = 16135742 },
    { url = "https://files.pythonhosted.org/packages/8b/09/4ffb4d6cfe7ca6707336187951992bd8a8b9142cf345d87ab858d2d7636a/numpy-2.2.5-cp312-cp312-win_amd64.whl", hash = "sha256:ced69262a8278547e63409b2653b372bf4baff0870c57efa76c5703fd6543282", size = 12645715 },
]

[[package]]
name = "torch"
version = "2.8.0+cpu"
source = { registry = "https://download.pytorch.org/whl/cpu" }
wheels = [
    { url = "https://download.pytorch.org/whl/cpu/torch-2.8.0%2Bcpu-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "sha256:cb9a8ba8137ab24e36bf1742cb79a1294bd374db570f09fc15a5e1318160db4e" },
    { url = "https://download.pytorch.org/whl/cpu/torch-2.8.0%2Bcpu-cp312-cp312-win_amd64.whl", hash = "sha256:2be20b2c05a0cce10430cc25f32b689259640d273232b2de357c35729132256d" },
]

[[package]]
name = "tqdm"
version = "4.67.1"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "colorama", marker = "sys_platform == 'win32'" },
]
sdist = { url = "https://files.pythonhosted.org/packages/a8/4b/29b4ef32e036bb34e4ab51796dd745cdba7ed47ad142a9f4a1eb8e0c744d/tqdm-4.67.1.tar.gz", hash = "sha256:f8aef9c52c08c13a65f30ea34f4e5aac3fd1a34959879d7e59e63027286627f2", size = 169737 }
wheels = [
    { url = "https://files.pythonhosted.org/packages/d0/30/dc54f88dd4a2b5dc8a0279bdd7270e735851848b762aeb1c1184ed1f6b14/tqdm-4.67.1-py3-none-any.whl", hash = "sha256:26445eca388f82e72884e0d580d5464cd801a3ea01e63e5601bdff9ba6a48de2", size = 78540 },
]
)";

#ifdef _WIN32
const std::vector<std::string> interpreter_args = {"--python", AITK_STANDIN_PYTHON,
                                                   "--no-smoke-test"};
const std::string host_target = "windows-x86_64-cpu";
const std::vector<std::string> host_set = {"colorama==0.4.6", "numpy==2.2.5", "torch==2.8.0+cpu",
                                           "tqdm==4.67.1"};
const char* const numpy_wheel_tag = "win_amd64";
#else
const std::string linux_python = "/root/.pyenv/versions/3.12.1/bin/python3.12";
const std::vector<std::string> interpreter_args = {"--python", linux_python};
const std::string host_target = "linux-x86_64-cpu";
const std::vector<std::string> host_set = {"numpy==2.2.5", "torch==2.8.0+cpu", "tqdm==4.67.1"};
const char* const numpy_wheel_tag = "manylinux_2_17_x86_64";
#endif

class UvLockTargetCli : public ::testing::Test {
  protected:
    void SetUp() override {
#ifndef _WIN32
        if (!stdfs::exists(linux_python)) GTEST_SKIP() << "no CPython 3.12.1";
#endif
        pep::TargetPlatform linux_312;
        linux_312.os_version = {2, 28};
        pep::TargetPlatform windows_312;
        windows_312.os = pep::TargetOs::windows;
        UvLockIndexOptions options;
        options.platforms = {linux_312, windows_312};
        index.emplace(work.path() / "mirror", small_lock, options);
        server.serve_directory(index->root());
        stdfs::create_directories(work.path() / "demo");
        fs::write_file_atomic(work.path() / "demo" / "uv.lock",
                              index->rewritten_lock(server.base_url()));
    }

    // Through the one UTF-8 conversion (on Windows `work.path() / name` reads the code page).
    std::string path(const std::string& name) const {
        return util::utf8_of(work.path() / util::path_from_utf8(name));
    }
    std::string uv_lock() const {
        return path("demo/uv.lock");
    }

    CliResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {"--cache-dir", path("cache"), "--no-progress"});
        return run_cli(args, "",
                       {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                        "-u AITK_ENV_TORCH_BACKEND", "AITK_ENV_NO_GPU=1"});
    }

    CliResult setup(const std::string& prefix) {
        std::vector<std::string> args = {"setup", "-l", uv_lock(), "-p", path(prefix), "--json"};
        args.insert(args.end(), interpreter_args.begin(), interpreter_args.end());
        return run(args);
    }

    std::vector<std::string> installed(const std::string& prefix) {
        auto list = run({"list", "-p", path(prefix), "--json"});
        EXPECT_EQ(list.exit_code, 0) << list.err;
        std::vector<std::string> out;
        for (const auto& d : nlohmann::json::parse(list.out))
            out.push_back(d["name"].get<std::string>() + "==" + d["version"].get<std::string>());
        std::sort(out.begin(), out.end());
        return out;
    }

    fs::TempDir work = fs::TempDir::create("aitk-uv-lock-target");
    std::optional<UvLockIndex> index;
    HttpServer server;
};

TEST_F(UvLockTargetCli, SetupInstallsThisHostsSetAndVerifyPasses) {
    auto done = setup("env");
    ASSERT_EQ(done.exit_code, 0) << done.err;
    EXPECT_EQ(nlohmann::json::parse(done.out)["target"], host_target) << done.out;
    EXPECT_EQ(installed("env"), host_set);
    auto verify = run({"verify", "-p", path("env")});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
#ifdef _WIN32
    EXPECT_TRUE(stdfs::is_regular_file(work.path() / "env" / "Scripts" / "python.exe"));
#endif
    // sync -l from the same uv.lock: nothing to do.
    auto sync = run({"sync", "-l", uv_lock(), "-p", path("env"), "--json"});
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    auto plan = nlohmann::json::parse(sync.out);
    EXPECT_TRUE(plan["install"].empty()) << sync.out;
    EXPECT_TRUE(plan["remove"].empty()) << sync.out;
}

TEST_F(UvLockTargetCli, LockFromGivesEachTargetItsOwnWheels) {
    auto locked = run({"lock", "--from", uv_lock(), "--target", "windows-x86_64-cpu", "--target",
                       "linux-x86_64-cpu", "--python", "3.12", "-o", path("demo.lock.yml")});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    for (const std::string target : {"windows-x86_64-cpu", "linux-x86_64-cpu"}) {
        auto exported = run({"export", "-l", path("demo.lock.yml"), "--format", "requirements",
                             "--target", target});
        ASSERT_EQ(exported.exit_code, 0) << exported.err;
        const bool windows = target.starts_with("windows");
        EXPECT_EQ(exported.out.find("colorama==0.4.6") != std::string::npos, windows)
            << exported.out;
        EXPECT_NE(exported.out.find("torch==2.8.0+cpu"), std::string::npos) << exported.out;
        EXPECT_NE(exported.out.find("--hash=sha256:"), std::string::npos) << exported.out;
    }
    // The converted lock installs the same set on this host as the uv.lock does.
    std::vector<std::string> args = {"setup", "-l",         path("demo.lock.yml"),
                                     "-p",    path("env3"), "--json"};
    args.insert(args.end(), interpreter_args.begin(), interpreter_args.end());
    auto converted = run(args);
    ASSERT_EQ(converted.exit_code, 0) << converted.err;
    EXPECT_EQ(installed("env3"), host_set);
}

TEST_F(UvLockTargetCli, AFileWhoseHashDiffersIsRefusedAndNothingIsMade) {
    // The lock names numpy's wheel of this host with another file's sha256: uv.lock's hash is
    // checked against the downloaded bytes, as every lockfile hash is.
    std::string text = fs::read_file(work.path() / "demo" / "uv.lock");
    const auto wheel = text.find(numpy_wheel_tag);
    ASSERT_NE(wheel, std::string::npos);
    const auto hash = text.find("sha256:", wheel) + 7;
    text.replace(hash, 64, std::string(64, 'a'));
    fs::write_file_atomic(work.path() / "demo" / "uv.lock", text);
    auto refused = setup("env");
    EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("numpy"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("sha256"), std::string::npos) << refused.err;
    // Nothing at all: on Windows, an empty folder left would make the next setup's prefix an
    // existing one, kept when that setup failed too.
    EXPECT_FALSE(stdfs::exists(work.path() / "env"));
}

TEST_F(UvLockTargetCli, AFileWithoutAHashIsExit2AtItsLineAndNothingIsMade) {
    // uv writes a hash for every registry file; one without is refused where it is written,
    // before anything is downloaded or made.
    std::string text = fs::read_file(work.path() / "demo" / "uv.lock");
    const auto wheel = text.find(numpy_wheel_tag);
    ASSERT_NE(wheel, std::string::npos);
    const auto hash = text.rfind(", hash = \"sha256:", text.find("sha256:", wheel));
    text.erase(hash, std::string(", hash = \"sha256:\"").size() + 64);
    fs::write_file_atomic(work.path() / "demo" / "uv.lock", text);
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(wheel), '\n');
    auto refused = setup("env");
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find(uv_lock() + ":" + std::to_string(line) + ":"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("has no hash in the lock"), std::string::npos) << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "env"));
    auto locked =
        run({"lock", "--from", uv_lock(), "--target", host_target, "-o", path("demo.lock.yml")});
    EXPECT_EQ(locked.exit_code, 2) << locked.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "demo.lock.yml"));
}

// What `setup` reads in a project's folder (issue 29, item 5): the uv.lock the project ships,
// when it matches its pyproject.toml, before the pyproject.toml itself; a stale one is exit 1
// with --locked, as `uv sync --locked` is, and nothing is made.
TEST_F(UvLockTargetCli, SetupInAProjectFolderReadsTheUvLockThatMatchesItsPyproject) {
    const std::string pyproject = R"([project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["numpy", "torch", "tqdm"]

[tool.uv.sources]
torch = { index = "pytorch-cpu" }

[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true
)";
    fs::write_file_atomic(work.path() / "demo" / "pyproject.toml", pyproject);
    std::vector<std::string> args = {"setup", "--project", path("demo"),
                                     "-p",    path("env"), "--json"};
    args.insert(args.end(), interpreter_args.begin(), interpreter_args.end());
    auto done = run(args);
    ASSERT_EQ(done.exit_code, 0) << done.err;
    auto outcome = nlohmann::json::parse(done.out);
    EXPECT_EQ(outcome["input"], "uv.lock (uv lock)") << done.out;
    EXPECT_EQ(outcome["target"], host_target) << done.out;
    EXPECT_EQ(installed("env"), host_set);

    // The project asks for more than the lock recorded: --locked refuses it, nothing is made.
    std::string stale = pyproject;
    stale.replace(stale.find("\"tqdm\""), 6, "\"tqdm>=4.60\"");
    fs::write_file_atomic(work.path() / "demo" / "pyproject.toml", stale);
    args[4] = path("env2");
    args.push_back("--locked");
    auto refused = run(args);
    EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("does not match the pyproject.toml beside it"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("--locked refuses it"), std::string::npos) << refused.err;
    EXPECT_FALSE(stdfs::exists(work.path() / "env2"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
