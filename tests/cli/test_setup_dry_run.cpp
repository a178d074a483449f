// `setup --dry-run` and `sync --dry-run` through the real binary: the plan is printed (one line
// per action) and nothing a user owns changes on disk: no prefix, no lockfile, an existing
// prefix byte for byte and file for file as it was.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";
const std::vector<std::string> no_gpu = {"AITK_ENV_NO_GPU=1"};
const std::vector<std::string> blackwell = {"AITK_ENV_CUDA_DRIVER_VERSION=580.65.06",
                                            "AITK_ENV_GPU_COMPUTE_CAPABILITY=12.0"};

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Every path under `root` with its size and modification time: what a dry run must not touch.
std::map<std::string, std::string> snapshot(const std::filesystem::path& root) {
    std::map<std::string, std::string> files;
    for (auto it = std::filesystem::recursive_directory_iterator(root);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
        auto status = it->symlink_status();
        std::string what = std::to_string(static_cast<int>(status.type()));
        if (status.type() == std::filesystem::file_type::regular) {
            what += " " + std::to_string(it->file_size()) + " " +
                    std::to_string(it->last_write_time().time_since_epoch().count());
        }
        files[std::filesystem::relative(it->path(), root).string()] = what;
    }
    return files;
}

class SetupDryRun : public TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        TorchMirrorTest::SetUp();
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // The binary run in the work folder (where setup writes lockfiles/ by default), on a machine
    // described by `machine` (doctor's overrides), with CPython 3.12 on PATH and no proxy.
    Outcome aitk(std::vector<std::string> args, const std::vector<std::string>& machine) const {
        util::ProcessRequest request;
        request.argv = {AITK_ENV_EXE,       "--cache-dir",          path("cache"),
                        "--index-url",      server.url("/simple/"), "--torch-index-url",
                        server.url("/whl"), "--no-progress"};
        request.argv.insert(request.argv.end(), args.begin(), args.end());
        util::Environment env = {{"PATH", python_bin + ":/usr/bin:/bin"},
                                 {"HOME", work.path().string()},
                                 {"PYENV_ROOT", "/nonexistent"},
                                 {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
                                 {"AITK_ENV_NVIDIA_SMI", "/nonexistent"}};
        for (const auto& setting : machine) {
            auto eq = setting.find('=');
            env[setting.substr(0, eq)] = setting.substr(eq + 1);
        }
        request.environment = env;
        request.working_directory = work.path();
        request.timeout = std::chrono::minutes(5);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err};
    }

    void lock_two_targets() {
        auto locked =
            aitk({"lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"), "--python",
                  "3.12.1", "--target", "linux-x86_64-cu130", "--target", "linux-x86_64-cpu"},
                 no_gpu);
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
    }

    static bool has_line(const std::string& text, const std::string& line) {
        return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
    }

    fs::TempDir work = fs::TempDir::create("aitk-dry-run");
};

TEST_F(SetupDryRun, SetupFromRequirementsPrintsThePlanAndWritesNoPrefixAndNoLockfile) {
    auto dry = aitk({"setup", "-r", "requirements.txt", "-p", "prefix", "--dry-run"}, no_gpu);
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_TRUE(has_line(dry.out, "install    torch 2.9.0+cpu")) << dry.out;
    EXPECT_TRUE(has_line(dry.out, "install    requests 2.32.3")) << dry.out;
    EXPECT_TRUE(has_line(dry.out, "install    idna 3.10")) << dry.out;
    EXPECT_TRUE(has_line(dry.out, "0 unchanged")) << dry.out;
    EXPECT_EQ(dry.out.find("reinstall"), std::string::npos) << dry.out;

    // The work folder holds what it held, and the cache (index pages, metadata) besides: no
    // prefix, no lockfiles/, no unpacked wheel.
    std::set<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(work.path()))
        entries.insert(e.path().filename().string());
    EXPECT_EQ(entries, (std::set<std::string>{"cache", "requirements.txt"}));
    EXPECT_FALSE(std::filesystem::exists(work.path() / "cache" / "v1" / "unpacked"));

    // With a lockfile already there, the dry run keeps it as it was, and plans what a real
    // setup would: the new requirement on top of the locked pins.
    auto locked = aitk(
        {"lock", "-r", "requirements.txt", "--target", "linux-x86_64-cpu", "--python", "3.12.1"},
        no_gpu);
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto lock_path = work.path() / "lockfiles" / "requirements.lock.yml";
    auto before = fs::read_file(lock_path);
    auto lock_time = std::filesystem::last_write_time(lock_path);
    fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\ndatapkg\n");
    auto again = aitk({"setup", "-r", "requirements.txt", "-p", "prefix", "--dry-run"}, no_gpu);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_TRUE(has_line(again.out, "install    datapkg 1.0.0")) << again.out;
    EXPECT_EQ(fs::read_file(lock_path), before);
    EXPECT_EQ(std::filesystem::last_write_time(lock_path), lock_time);
    EXPECT_FALSE(std::filesystem::exists(work.path() / "prefix"));
}

TEST_F(SetupDryRun, SetupFromALockfilePrintsThePlanAndCreatesNothing) {
    lock_two_targets();
    auto dry =
        aitk({"setup", "-l", path("env.lock.yml"), "-p", path("prefix"), "--dry-run", "--json"},
             blackwell);
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    auto json = nlohmann::json::parse(dry.out);
    EXPECT_EQ(json["target"], "linux-x86_64-cu130");
    EXPECT_EQ(json["smoke"], "");
    EXPECT_EQ(json["sync"]["downloaded"], 0);
    bool torch = false;
    for (const auto& p : json["sync"]["install"]) {
        torch |= p["name"] == "torch" && p["version"] == "2.9.0+cu130";
    }
    EXPECT_TRUE(torch) << dry.out;
    EXPECT_FALSE(std::filesystem::exists(work.path() / "prefix"));
    EXPECT_FALSE(std::filesystem::exists(work.path() / "cache" / "v1" / "artifacts"));
}

TEST_F(SetupDryRun, SwitchingTargetsListsReinstallsAndRemovalsAndLeavesThePrefixAsItWas) {
    lock_two_targets();
    auto real = aitk({"setup", "-l", path("env.lock.yml"), "-p", path("prefix")}, blackwell);
    ASSERT_EQ(real.exit_code, 0) << real.err;
    auto before = snapshot(work.path() / "prefix");
    ASSERT_GT(before.size(), 20u);

    auto sync = aitk({"sync", "-l", path("env.lock.yml"), "-p", path("prefix"), "--target",
                      "linux-x86_64-cpu", "--dry-run"},
                     no_gpu);
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    EXPECT_TRUE(has_line(sync.out, "reinstall  torch 2.9.0+cpu")) << sync.out;
    EXPECT_TRUE(has_line(sync.out, "remove     nvidia-cuda-runtime 13.0.96")) << sync.out;
    EXPECT_EQ(sync.out.find("install    "), std::string::npos) << sync.out;
    EXPECT_EQ(snapshot(work.path() / "prefix"), before);

    // setup on the same prefix from a machine without a GPU plans the same switch.
    auto setup =
        aitk({"setup", "-l", path("env.lock.yml"), "-p", path("prefix"), "--dry-run"}, no_gpu);
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_TRUE(has_line(setup.out, "reinstall  torch 2.9.0+cpu")) << setup.out;
    EXPECT_TRUE(has_line(setup.out, "remove     nvidia-cuda-runtime 13.0.96")) << setup.out;
    EXPECT_EQ(snapshot(work.path() / "prefix"), before);

    auto verify = aitk({"verify", "-p", path("prefix"), "--json"}, no_gpu);
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
