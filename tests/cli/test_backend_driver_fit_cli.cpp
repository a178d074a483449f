// Issue 29, "what it must show": a project whose torch comes as cpu, cu126, cu128 and cu130
// builds, on the four machines of the issue, described by the stand-in NVML. No GPU: cpu.
// Driver 570 + sm_89: cu128 (its own toolkit driver; cu130 needs 580). Driver 535 + sm_86:
// cu126, the build nearest the driver, since none runs natively. An RTX 5090 on driver 560:
// exit 3, because no driver before R570 knows a Blackwell GPU, with the fix. The same choice
// for a lock made elsewhere with all four targets.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../platform/fake_machine.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

using json = nlohmann::json;
const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";
const std::string linux_tag = "cp312-cp312-manylinux_2_28_x86_64";

json scenario() {
    json s;
    s["indexes"] = {{"simple", json::object()}};
    json wheels = json::array();
    for (const char* b : {"cpu", "cu126", "cu128", "cu130"}) {
        const std::string index = std::string("whl/") + b;
        s["indexes"][index] = {{"style", "pytorch"}};
        wheels.push_back({{"index", index},
                          {"name", "torch"},
                          {"version", std::string("2.11.0+") + b},
                          {"tags", {linux_tag}}});
    }
    wheels.push_back({{"index", "simple"}, {"name", "requests"}, {"version", "2.32.3"}});
    s["wheels"] = wheels;
    return s;
}

std::string nvml(const char* driver, int cuda, const std::string& gpu) {
    return "driver=" + std::string(driver) + "\ncuda=" + std::to_string(cuda) + "\ngpu=" + gpu +
           "\n";
}

class BackendDriverFitCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror_dir = new TempDir("driver-fit-mirror");
        build_mirror(mirror_dir->path, scenario());
    }
    static void TearDownTestSuite() {
        delete mirror_dir;
        mirror_dir = nullptr;
    }

    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        server.serve_directory(mirror_dir->path);
        write_file(work.path / "requirements.txt", "torch==2.11.0\nrequests\n");
    }

    std::string path(const std::string& name) const { return (work.path / name).string(); }

    // The four machines: "no-gpu" or a stand-in NVML config.
    std::vector<std::string> machine(const std::string& name) {
        static const std::map<std::string, std::string> configs = {
            {"d570-sm89", nvml("570.124.06", 12080, "NVIDIA GeForce RTX 4090|24564|8.9")},
            {"d535-sm86", nvml("535.154.05", 12020, "NVIDIA GeForce RTX 3090|24576|8.6")},
            {"d560-sm120", nvml("560.35.03", 12060, "NVIDIA GeForce RTX 5090|32607|12.0")},
        };
        std::string library = "/nonexistent/libnvidia-ml.so.1";
        if (name != "no-gpu")
            library = install_fake_nvml(dir.path / name, configs.at(name)).string();
        return {"-u http_proxy",
                "-u https_proxy",
                "-u HTTPS_PROXY",
                "-u AITK_ENV_TORCH_BACKEND",
                "-u AITK_ENV_NO_GPU",
                "-u AITK_ENV_CUDA_DRIVER_VERSION",
                "-u AITK_ENV_GPU_COMPUTE_CAPABILITY",
                "PATH=" + python_bin + ":/usr/bin:/bin",
                "PYENV_ROOT=/nonexistent",
                "HOME=" + work.path.string(),
                "AITK_ENV_NVIDIA_SOURCES=nvml",
                "AITK_ENV_NVML_LIBRARY=" + library};
    }

    CliResult run(const std::string& machine_name, std::vector<std::string> args) {
        args.insert(args.begin(),
                    {"--cache-dir", path("cache"), "--index-url", server.url("/simple/"),
                     "--torch-index-url", server.url("/whl"), "--no-progress"});
        return run_cli(args, "", machine(machine_name));
    }

    // `setup --dry-run --json` of `input` on `machine_name`.
    CliResult dry_run(const std::string& machine_name, std::vector<std::string> input) {
        std::vector<std::string> args{"setup"};
        args.insert(args.end(), input.begin(), input.end());
        // -r: the project folder holds the lockfiles (a dry run writes none).
        if (input.front() == "-r") args.insert(args.end(), {"--project", work.path.string()});
        args.insert(args.end(), {"-p", path("prefix"), "--dry-run", "--json"});
        return run(machine_name, args);
    }

    static std::string planned_torch(const CliResult& r) {
        const json outcome = json::parse(r.out);
        for (const auto& p : outcome["sync"]["install"]) {
            if (p["name"] == "torch") return p["version"];
        }
        return "";
    }

    TempDir work{"driver-fit-work"};
    TempDir dir{"driver-fit"};
    HttpServer server;
    static inline TempDir* mirror_dir = nullptr;
};

TEST_F(BackendDriverFitCli, TheFourMachinesOfTheIssue) {
    const std::vector<std::string> input{"-r", path("requirements.txt")};
    struct Case {
        const char* machine;
        const char* torch;
        const char* reason;
    };
    for (const Case& c : {
             Case{"no-gpu", "2.11.0+cpu", "→ cpu"},
             Case{"d570-sm89", "2.11.0+cu128", "is covered by cu128 → cu128"},
             Case{"d535-sm86", "2.11.0+cu126",
                  "cu126: runs on driver 535.154.05 through CUDA minor-version compatibility"},
         }) {
        SCOPED_TRACE(c.machine);
        auto r = dry_run(c.machine, input);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(planned_torch(r), c.torch) << r.out;
        EXPECT_NE(json::parse(r.out)["reason"].get<std::string>().find(c.reason), std::string::npos)
            << r.out;
    }
    auto r = dry_run("d560-sm120", input);
    EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("update the driver to ≥ 570 (the first driver for Blackwell GPUs: GPU 0 "
                         "(NVIDIA GeForce RTX 5090, sm_120))"),
              std::string::npos)
        << r.err;
    // doctor agrees, and says which builds were considered.
    auto doctor = run("d560-sm120", {"doctor", "-r", path("requirements.txt"), "--json"});
    EXPECT_EQ(doctor.exit_code, 3) << doctor.err;
}

TEST_F(BackendDriverFitCli, ALockWithEveryBuildPicksTheSame) {
    auto locked =
        run("no-gpu", {"lock", "-r", path("requirements.txt"), "-o", path("team.lock.yml"),
                       "--target", "linux-x86_64-cu130", "--target", "linux-x86_64-cu128",
                       "--target", "linux-x86_64-cu126", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const std::vector<std::string> input{"-l", path("team.lock.yml")};
    for (const auto& [m, torch] :
         std::vector<std::pair<std::string, std::string>>{{"no-gpu", "2.11.0+cpu"},
                                                          {"d570-sm89", "2.11.0+cu128"},
                                                          {"d535-sm86", "2.11.0+cu126"}}) {
        SCOPED_TRACE(m);
        auto r = dry_run(m, input);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(planned_torch(r), torch) << r.out;
    }
    auto r = dry_run("d535-sm86", input);
    EXPECT_NE(json::parse(r.out)["reason"].get<std::string>().find(
                  "this machine runs linux-x86_64-cu126 (torch 2.11.0+cu126): runs (through CUDA "
                  "minor-version compatibility: CUDA 12.6 came with 560.28.03)"),
              std::string::npos)
        << r.out;
    r = dry_run("d560-sm120", input);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("update the driver to ≥ 570"), std::string::npos) << r.err;
    // An explicit choice that runs is still honoured: cu128 on driver 535.
    auto forced = run("d535-sm86", {"setup", "-l", path("team.lock.yml"), "-p", path("prefix"),
                                    "--backend", "cu128", "--dry-run", "--json"});
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(planned_torch(forced), "2.11.0+cu128") << forced.out;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
