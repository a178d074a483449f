// `aitk-env setup` through the real binary: a lockfile with cu130, cu126 and cpu targets, and
// machines described by doctor's detection overrides (a driver and a GPU), so the backend is
// chosen the way a user's machine would choose it; then `verify`, `list`, `run` and `sync`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

class SetupCli : public TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        TorchMirrorTest::SetUp();
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
        auto locked = run({"lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"),
                           "--python", "3.12.1", "--target", "linux-x86_64-cu130", "--target",
                           "linux-x86_64-cu126", "--target", "linux-x86_64-cpu"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    CliResult run(std::vector<std::string> args, std::vector<std::string> env = {}) {
        // Global options go first: they are accepted before the command, and `run -- CMD`
        // passes everything after `--` to CMD.
        args.insert(args.begin(),
                    {"--cache-dir", path("cache"), "--index-url", server.url("/simple/"),
                     "--torch-index-url", server.url("/whl"), "--no-progress"});
        std::vector<std::string> full_env = {"-u http_proxy",
                                             "-u https_proxy",
                                             "-u HTTPS_PROXY",
                                             "-u AITK_ENV_TORCH_BACKEND",
                                             "PATH=" + python_bin + ":/usr/bin:/bin",
                                             "PYENV_ROOT=/nonexistent",
                                             "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
                                             "AITK_ENV_NVIDIA_SMI=/nonexistent"};
        full_env.insert(full_env.end(), env.begin(), env.end());
        return run_cli(args, "", full_env);
    }

    CliResult setup(const std::string& prefix, std::vector<std::string> gpu) {
        return run({"setup", "-l", path("env.lock.yml"), "-p", path(prefix), "--json"},
                   std::move(gpu));
    }

    fs::TempDir work = fs::TempDir::create("aitk-setup-cli");
};

TEST_F(SetupCli, EachMachineGetsTheBuildItRuns) {
    auto blackwell = setup(
        "new", {"AITK_ENV_CUDA_DRIVER_VERSION=580.65.06", "AITK_ENV_GPU_COMPUTE_CAPABILITY=12.0"});
    ASSERT_EQ(blackwell.exit_code, 0) << blackwell.err;
    auto json = nlohmann::json::parse(blackwell.out);
    EXPECT_EQ(json["target"], "linux-x86_64-cu130");
    EXPECT_EQ(json["smoke"], "torch 2.9.0+cu130 None None");

    auto older_driver = setup(
        "old", {"AITK_ENV_CUDA_DRIVER_VERSION=560.35.03", "AITK_ENV_GPU_COMPUTE_CAPABILITY=8.6"});
    ASSERT_EQ(older_driver.exit_code, 0) << older_driver.err;
    EXPECT_EQ(nlohmann::json::parse(older_driver.out)["target"], "linux-x86_64-cu126");

    auto no_gpu = setup("cpu", {"AITK_ENV_NO_GPU=1"});
    ASSERT_EQ(no_gpu.exit_code, 0) << no_gpu.err;
    json = nlohmann::json::parse(no_gpu.out);
    EXPECT_EQ(json["target"], "linux-x86_64-cpu");
    EXPECT_EQ(json["smoke"], "torch 2.9.0+cpu None None");
}

TEST_F(SetupCli, VerifyListRunAndSyncWorkOnThePrefix) {
    ASSERT_EQ(setup("p", {"AITK_ENV_NO_GPU=1"}).exit_code, 0);
    auto clean = run({"verify", "-p", path("p")});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    EXPECT_NE(clean.out.find("clean"), std::string::npos);

    auto list = run({"list", "-p", path("p"), "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    bool torch = false;
    for (const auto& d : nlohmann::json::parse(list.out)) {
        torch |= d["name"] == "torch" && d["version"] == "2.9.0+cpu";
    }
    EXPECT_TRUE(torch) << list.out;

    auto env = run({"run", "-p", path("p"), "--", "env"}, {"PYTHONPATH=/elsewhere"});
    ASSERT_EQ(env.exit_code, 0) << env.err;
    EXPECT_NE(env.out.find("VIRTUAL_ENV=" + path("p")), std::string::npos) << env.out;
    EXPECT_EQ(env.out.find("PYTHONPATH="), std::string::npos) << env.out;

    // A deleted file is drift (exit 4); sync puts it back.
    auto site = work.path() / "p" / "lib" / "python3.12" / "site-packages";
    std::filesystem::remove(site / "requests" / "__init__.py");
    auto drift = run({"verify", "-p", path("p"), "--json"});
    EXPECT_EQ(drift.exit_code, 4) << drift.out;
    EXPECT_EQ(nlohmann::json::parse(drift.out)["files"][0]["path"], "requests/__init__.py");
    auto sync = run({"sync", "-l", path("env.lock.yml"), "-p", path("p")});
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    EXPECT_EQ(run({"verify", "-p", path("p")}).exit_code, 0);
}

// --python PATH of another minor than the default: the lock setup makes is resolved for that
// interpreter's version, and the prefix is made with it (it used to lock for the default
// Python and then refuse the interpreter).
TEST_F(SetupCli, APythonPathIsLockedForThatInterpretersVersion) {
    const std::string python311 = "/root/.pyenv/versions/3.11.7/bin/python3.11";
    if (!std::filesystem::exists(python311)) GTEST_SKIP() << "no 3.11.7";
    fs::write_file_atomic(work.path() / "pure.txt", "requests\n");
    auto made = run({"setup", "-r", path("pure.txt"), "--project", work.path().string(), "-p",
                     path("p311"), "--python", python311, "--json"},
                    {"AITK_ENV_NO_GPU=1"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    EXPECT_EQ(nlohmann::json::parse(made.out)["python"], python311) << made.out;
    auto lock_text = fs::read_file(work.path() / "lockfiles" / "pure.lock.yml");
    EXPECT_NE(lock_text.find("3.11.7"), std::string::npos) << lock_text;
    EXPECT_TRUE(std::filesystem::exists(work.path() / "p311" / "lib" / "python3.11"));

    auto broken = run({"setup", "-r", path("pure.txt"), "--project", work.path().string(), "-p",
                       path("none"), "--python", path("no-such-python")},
                      {"AITK_ENV_NO_GPU=1"});
    EXPECT_EQ(broken.exit_code, 2) << broken.err;
    EXPECT_NE(broken.err.find("--python " + path("no-such-python")), std::string::npos)
        << broken.err;
}

TEST_F(SetupCli, BadOptionsAreUsageErrors) {
    EXPECT_EQ(run({"setup", "--no-such-option"}).exit_code, 2);
    EXPECT_EQ(run({"setup", "--link-mode", "teleport"}).exit_code, 2);
    auto not_prefix = run({"verify", "-p", path("nothing-here")});
    EXPECT_EQ(not_prefix.exit_code, 2);
    EXPECT_NE(not_prefix.err.find("is not a prefix"), std::string::npos) << not_prefix.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
