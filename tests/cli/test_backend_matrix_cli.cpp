// The backend choice end to end through the real binary: a scenario index with several torch
// releases and backends (2.7 with cu118/cu126/cu128, 2.11 with cu126/cu128/cu130, 2.13 with
// cu126/cu130/rocm7.2, cpu for each), machines described by the stand-in NVML (loaded through
// the real dlopen path) and a stand-in rocm_agent_enumerator, and inputs of every kind: an AI
// Toolkit-like manifest, a kohya-style pinned requirements file, an unpinned torch>=2.5, a
// lerobot-style torchcodec requirement, and a lock made elsewhere. Each cell asserts the exit
// code, the torch build setup installs (its dry-run plan) and the reason text. The five user
// reports of the issue follow as regression tests, with real installs.
#include <gtest/gtest.h>

#include <functional>
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
    struct Release {
        std::string torch, vision;
        std::vector<std::string> backends;
    };
    const std::vector<Release> releases = {
        {"2.7.0", "0.22.0", {"cu118", "cu126", "cu128", "cpu"}},
        {"2.11.0", "0.26.0", {"cu126", "cu128", "cu130", "cpu"}},
        {"2.13.0", "0.28.0", {"cu126", "cu130", "rocm7.2", "cpu"}},
    };
    for (const auto& r : releases) {
        for (const auto& b : r.backends) {
            const std::string index = "whl/" + b;
            s["indexes"][index] = {{"style", "pytorch"}};
            json tags = json::array({linux_tag});
            // A teammate's Windows target (kohya's Windows requirements pin the same build).
            if (r.torch == "2.7.0" && b == "cu128") tags.push_back("cp312-cp312-win_amd64");
            wheels.push_back({{"index", index},
                              {"name", "torch"},
                              {"version", r.torch + "+" + b},
                              {"tags", tags}});
            wheels.push_back({{"index", index},
                              {"name", "torchvision"},
                              {"version", r.vision + "+" + b},
                              {"tags", tags},
                              {"requires_dist", {"torch==" + r.torch}}});
        }
    }
    // xformers and its triton exist on cu128 only: kohya's file cannot be satisfied elsewhere.
    wheels.push_back(
        {{"index", "whl/cu128"},
         {"name", "xformers"},
         {"version", "0.0.30"},
         {"tags", {linux_tag, "cp312-cp312-win_amd64"}},
         {"requires_dist", {"torch==2.7.0", "triton==3.3.0; platform_system == 'Linux'"}}});
    wheels.push_back(
        {{"index", "whl/cu128"}, {"name", "triton"}, {"version", "3.3.0"}, {"tags", {linux_tag}}});
    wheels.push_back({{"index", "simple"}, {"name", "requests"}, {"version", "2.32.3"}});
    // torchcodec is on PyPI only (as lerobot takes it): a family member the backend index lacks.
    for (const char* v : {"0.3.0", "0.11.0"})
        wheels.push_back({{"index", "simple"}, {"name", "torchcodec"}, {"version", v}});
    s["wheels"] = wheels;
    return s;
}

struct MachineCase {
    const char* name;
    const char* nvml;           // the stand-in NVML's config; nullptr: no NVIDIA driver
    const char* gfx = nullptr;  // an AMD GPU (rocm_agent_enumerator prints it)
};

std::string nvml(const char* driver, int cuda, std::vector<std::string> gpus) {
    std::string out = "driver=" + std::string(driver) + "\ncuda=" + std::to_string(cuda) + "\n";
    for (const auto& g : gpus)
        out += "gpu=" + g + "\n";
    return out;
}

const std::string rtx3090 = "NVIDIA GeForce RTX 3090|24576|8.6";
const std::string rtx5090 = "NVIDIA GeForce RTX 5090|32607|12.0";
const std::string gtx1080 = "NVIDIA GeForce GTX 1080 Ti|11264|6.1";
const std::string v100 = "Tesla V100-SXM2-32GB|32768|7.0";
const std::string rtx4090 = "NVIDIA GeForce RTX 4090|24564|8.9";
const std::string h100 = "NVIDIA H100 80GB HBM3|81559|9.0";

// The machines, by name; the configs are written once per test into their own folders (the
// probe cache keys on the library's path).
const std::map<std::string, std::string>& machine_configs() {
    static const std::map<std::string, std::string> configs = {
        {"d535-sm86", nvml("535.154.05", 12020, {rtx3090})},
        {"d560-sm120", nvml("560.35.03", 12060, {rtx5090})},
        {"d570-sm86", nvml("570.124.06", 12080, {rtx3090})},
        {"d570-sm120", nvml("570.124.06", 12080, {rtx5090})},
        {"d580-sm61", nvml("580.65.06", 13000, {gtx1080})},
        {"d580-sm70", nvml("580.65.06", 13000, {v100})},
        {"d580-sm89", nvml("580.65.06", 13000, {rtx4090})},
        {"d580-sm90", nvml("580.65.06", 13000, {h100})},
        {"d580-sm61+sm120", nvml("580.65.06", 13000, {gtx1080, rtx5090})},
    };
    return configs;
}

class BackendMatrixCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror_dir = new TempDir("backend-matrix-mirror");
        build_mirror(mirror_dir->path, scenario());
    }
    static void TearDownTestSuite() {
        delete mirror_dir;
        mirror_dir = nullptr;
    }

    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        server.serve_directory(mirror_dir->path);
        // AI Toolkit's torch section (torch 2.13.0, cu130 then cu126, ROCm on Linux) over a
        // requirement list this index serves.
        write("manifest.yaml",
              "name: aitk-like\n"
              "python: {requires: \">=3.10,<3.13\", preferred: \"3.12\"}\n"
              "torch:\n"
              "  version: \"2.13.0\"\n"
              "  packages: {torchvision: \"0.28.0\"}\n"
              "  backends: [cu130, cu126, rocm7.1, cpu]\n"
              "  backend_options:\n"
              "    rocm7.1: {os: [linux], arch: [x86_64], experimental: true}\n"
              "requirements: [requests]\n");
        write("requirements.txt", "requests\n");
        // kohya_ss's requirements_linux.txt, with the index it names served here.
        write("kohya.txt",
              "# Custom index URL for specific packages\n"
              "--extra-index-url " +
                  server.url("/whl/cu128") +
                  "\n\n"
                  "torch==2.7.0+cu128\n"
                  "torchvision==0.22.0+cu128\n"
                  "xformers>=0.0.30\n\n"
                  "-r requirements.txt\n");
        write("unpinned.txt", "torch>=2.5\nrequests\n");
        write("lerobot.txt", "torch>=2.2,<2.12\ntorchvision\ntorchcodec>=0.3,<0.12\n");
        write_file(dir.path / "amd" / "rocm_agent_enumerator",
                   "#!/bin/sh\necho gfx000\necho gfx1100\n");
        std::filesystem::permissions(dir.path / "amd" / "rocm_agent_enumerator",
                                     std::filesystem::perms::owner_all);
    }

    void write(const std::string& name, const std::string& text) {
        write_file(work.path / name, text);
    }
    std::string path(const std::string& name) const { return (work.path / name).string(); }

    // The environment of machine `name`: "no-gpu", "amd-gfx1100" or a key of machine_configs().
    std::vector<std::string> machine(const std::string& name) {
        std::string library = "/nonexistent/libnvidia-ml.so.1";
        std::string path_value = python_bin + ":/usr/bin:/bin";
        if (name == "amd-gfx1100") {
            path_value = (dir.path / "amd").string() + ":" + path_value;
        } else if (name != "no-gpu") {
            library = install_fake_nvml(dir.path / name, machine_configs().at(name)).string();
        }
        return {"-u http_proxy",
                "-u https_proxy",
                "-u HTTPS_PROXY",
                "-u AITK_ENV_TORCH_BACKEND",
                "-u AITK_ENV_NO_GPU",
                "-u AITK_ENV_CUDA_DRIVER_VERSION",
                "-u AITK_ENV_GPU_COMPUTE_CAPABILITY",
                "PATH=" + path_value,
                "PYENV_ROOT=/nonexistent",
                "HOME=" + work.path.string(),
                "AITK_ENV_NVIDIA_SOURCES=nvml",
                "AITK_ENV_NVML_LIBRARY=" + library};
    }

    CliResult run(const std::string& machine_name, std::vector<std::string> args,
                  std::vector<std::string> extra_env = {}) {
        args.insert(args.begin(),
                    {"--cache-dir", path("cache"), "--index-url", server.url("/simple/"),
                     "--torch-index-url", server.url("/whl"), "--no-progress"});
        auto env = machine(machine_name);
        env.insert(env.end(), extra_env.begin(), extra_env.end());
        return run_cli(args, "", env);
    }

    // `setup --dry-run --json` of `input_args` on `machine_name`.
    CliResult dry_run(const std::string& machine_name, std::vector<std::string> input_args) {
        std::vector<std::string> args{"setup"};
        args.insert(args.end(), input_args.begin(), input_args.end());
        // -r: the project folder holds the lockfiles (a dry run writes none).
        if (input_args.front() == "-r") args.insert(args.end(), {"--project", work.path.string()});
        args.insert(args.end(), {"-p", path("prefix"), "--dry-run", "--json"});
        return run(machine_name, args);
    }

    // One cell: a machine, and what must happen there.
    struct Cell {
        std::string machine;
        int exit_code;
        std::string torch;   // the build setup installs (exit 0)
        std::string reason;  // part of the reason (exit 0) or of the error and its hint (exit 3)
    };

    void check(const std::vector<Cell>& cells,
               const std::function<CliResult(const std::string&)>& runner) {
        for (const auto& cell : cells) {
            SCOPED_TRACE(cell.machine);
            auto r = runner(cell.machine);
            ASSERT_EQ(r.exit_code, cell.exit_code) << r.err << r.out;
            if (cell.exit_code == 0) {
                auto outcome = json::parse(r.out);
                EXPECT_EQ(planned_torch(outcome), cell.torch) << r.out;
                EXPECT_NE(outcome["reason"].get<std::string>().find(cell.reason), std::string::npos)
                    << outcome["reason"];
            } else {
                EXPECT_NE(r.err.find(cell.reason), std::string::npos) << r.err;
                EXPECT_EQ(r.out, "") << "a refusal installs nothing and prints no plan";
            }
        }
    }

    static std::string planned_torch(const json& outcome) {
        for (const auto& p : outcome["sync"]["install"]) {
            if (p["name"] == "torch") return p["version"];
        }
        return "";
    }

    TempDir work{"backend-matrix-work"};
    TempDir dir{"backend-matrix"};
    HttpServer server;
    static inline TempDir* mirror_dir = nullptr;
};

TEST_F(BackendMatrixCli, TheAiToolkitManifest) {
    check({{"d535-sm86", 0, "2.13.0+cu126", "cu130 needs driver ≥ 580 (CUDA 13.x)"},
           {"d560-sm120", 3, "", "update the driver to ≥ 580 (CUDA 13.x)"},
           {"d570-sm86", 0, "2.13.0+cu126",
            "GPU 0 (NVIDIA GeForce RTX 3090, sm_86) is covered by cu126 → cu126"},
           {"d570-sm120", 3, "", "cu126 has no kernels for sm_120"},
           {"d580-sm61", 0, "2.13.0+cu126", "cu130 has no kernels for sm_61"},
           {"d580-sm70", 0, "2.13.0+cu126", "cu130 has no kernels for sm_70"},
           {"d580-sm89", 0, "2.13.0+cu130", "is covered by cu130 → cu130"},
           {"d580-sm90", 0, "2.13.0+cu130", "is covered by cu130 → cu130"},
           {"d580-sm61+sm120", 3, "", "select GPUs with CUDA_VISIBLE_DEVICES"},
           {"no-gpu", 0, "2.13.0+cpu", "no GPU found; torch 2.13.0 → cpu"},
           {"amd-gfx1100", 0, "2.13.0+rocm7.2", "AMD GPU gfx1100 found"}},
          [&](const std::string& m) {
              return dry_run(m, {"-m", path("manifest.yaml")});
          });
}

TEST_F(BackendMatrixCli, AKohyaStylePinnedFile) {
    const std::string asks = "torch==2.7.0+cu128 (" + path("kohya.txt") + ":4:1) asks for cu128";
    check({{"d535-sm86", 0, "2.7.0+cu128", asks},
           // Issue 29: no driver before R570 knows a Blackwell GPU (cu128 was installed).
           {"d560-sm120", 3, "", "update the driver to ≥ 570 (the first driver for Blackwell GPUs"},
           {"d570-sm86", 0, "2.7.0+cu128", asks},
           {"d570-sm120", 0, "2.7.0+cu128", asks},
           {"d580-sm61", 3, "", "cu128 has no kernels for sm_61"},
           {"d580-sm70", 3, "", "cu128 has no kernels for sm_70"},
           {"d580-sm89", 0, "2.7.0+cu128", asks},
           {"d580-sm90", 0, "2.7.0+cu128", asks},
           {"d580-sm61+sm120", 3, "", "cu128 has no kernels for sm_61"},
           {"no-gpu", 3, "", "no NVIDIA driver found"},
           {"amd-gfx1100", 3, "", "no NVIDIA driver found"}},
          [&](const std::string& m) {
              return dry_run(m, {"-r", path("kohya.txt")});
          });
}

TEST_F(BackendMatrixCli, AnUnpinnedTorch) {
    check({{"d535-sm86", 0, "2.13.0+cu126", "torch 2.14: "},
           // Issue 29: no build runs on a Blackwell GPU before R570 (2.11.0+cu128 was chosen).
           {"d560-sm120", 3, "", "update the driver to ≥ 580 (CUDA 13.x)"},
           {"d570-sm86", 0, "2.13.0+cu126", "torch>=2.5 allows torch 2.15, 2.14"},
           {"d570-sm120", 0, "2.11.0+cu128", "is covered by cu128 → cu128"},
           {"d580-sm61", 0, "2.13.0+cu126", "cu132 has no kernels for sm_61"},
           {"d580-sm70", 0, "2.13.0+cu126", "cu130 has no kernels for sm_70"},
           // Issue 29: cu132 runs on driver 580 (CUDA 13.0) only through minor-version
           // compatibility, so cu130 is tried first (cu132, not on this index, was tried first
           // and passed over).
           {"d580-sm89", 0, "2.13.0+cu130",
            "cu132 (CUDA 13.2 is newer than the driver's CUDA 13.0) runs on driver 580.65.06 only "
            "through CUDA minor-version compatibility, so cu130, which it runs natively, comes "
            "first"},
           {"d580-sm90", 0, "2.13.0+cu130", "is covered by cu130 → cu130"},
           {"d580-sm61+sm120", 3, "", "has one build with kernels for every GPU"},
           {"no-gpu", 0, "2.13.0+cpu", "→ cpu"},
           {"amd-gfx1100", 0, "2.13.0+rocm7.2", "AMD GPU gfx1100 found"}},
          [&](const std::string& m) {
              return dry_run(m, {"-r", path("unpinned.txt")});
          });
}

TEST_F(BackendMatrixCli, ALerobotStyleTorchcodecFromPyPI) {
    // Issue 29: on 535 neither cu126 nor cu128 runs natively; cu126 is nearer (cu128 before).
    check({{"d535-sm86", 0, "2.11.0+cu126",
            "cu126: runs on driver 535.154.05 through CUDA minor-version compatibility"},
           {"d570-sm86", 0, "2.11.0+cu128", "is covered by cu128 → cu128"},
           {"d570-sm120", 0, "2.11.0+cu128", "is covered by cu128 → cu128"},
           {"d580-sm61", 0, "2.11.0+cu126", "is covered by cu126 → cu126"},
           {"d580-sm70", 0, "2.11.0+cu128", "cu130 has no kernels for sm_70"},
           {"d580-sm90", 0, "2.11.0+cu130", "is covered by cu130 → cu130"},
           {"no-gpu", 0, "2.11.0+cpu", "→ cpu"}},
          [&](const std::string& m) {
              return dry_run(m, {"-r", path("lerobot.txt")});
          });
    // torchcodec came from the primary index, and the output says so.
    auto r = dry_run("d570-sm86", {"-r", path("lerobot.txt")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    bool noted = false;
    const auto outcome = json::parse(r.out);
    for (const auto& n : outcome["notes"])
        noted |= n.get<std::string>().find("torchcodec: not on torch cu128; taken from primary") !=
                 std::string::npos;
    EXPECT_TRUE(noted) << r.out << r.err;
}

TEST_F(BackendMatrixCli, ALockMadeElsewhere) {
    // The teammate's lock: kohya's pins for Linux and Windows, made on a machine without a GPU.
    auto locked =
        run("no-gpu", {"lock", "-r", path("kohya.txt"), "-o", path("team.lock.yml"), "--target",
                       "linux-x86_64-cu128", "--target", "windows-x86_64-cu128"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const std::string runs = "this machine runs linux-x86_64-cu128 (torch 2.7.0+cu128): runs";
    check({{"d535-sm86", 0, "2.7.0+cu128", runs},
           // Issue 29: no driver before R570 knows a Blackwell GPU (it ran before).
           {"d560-sm120", 3, "", "linux-x86_64-cu128 (torch 2.7.0+cu128): needs driver ≥ 570"},
           {"d570-sm86", 0, "2.7.0+cu128", runs},
           {"d570-sm120", 0, "2.7.0+cu128", runs},
           {"d580-sm61", 3, "", "linux-x86_64-cu128 (torch 2.7.0+cu128): has no kernels for sm_61"},
           {"d580-sm70", 3, "", "has no kernels for sm_70"},
           {"d580-sm89", 0, "2.7.0+cu128", runs},
           {"d580-sm90", 0, "2.7.0+cu128", runs},
           {"d580-sm61+sm120", 3, "", "has no kernels for sm_61"},
           {"no-gpu", 3, "", "no NVIDIA driver found"},
           {"amd-gfx1100", 3, "", "windows-x86_64-cu128 (torch 2.7.0+cu128): for windows-x86_64"}},
          [&](const std::string& m) {
              return dry_run(m, {"-l", path("team.lock.yml")});
          });
}

// --- The user reports of issue 17, with real installs ---------------------------------------

// 1. kohya_ss's requirements_linux.txt on an RTX 3090: it locked for cu126 (driver 570) or
// cu130 (driver 580) and failed for want of triton there. The pin names cu128, which runs on
// both.
TEST_F(BackendMatrixCli, KohyasPinnedFileSetsUpOnDrivers570And580) {
    for (const char* m : {"d570-sm86", "d580-sm90"}) {
        SCOPED_TRACE(m);
        auto r = run(m, {"setup", "-r", path("kohya.txt"), "--project", work.path.string(), "-p",
                         path(std::string("kohya-") + m), "--json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto outcome = json::parse(r.out);
        EXPECT_EQ(outcome["target"], "linux-x86_64-cu128");
        EXPECT_EQ(outcome["smoke"], "torch 2.7.0+cu128 None None");
        std::map<std::string, std::string> installed;
        for (const auto& p : outcome["sync"]["install"])
            installed[p["name"]] = p["version"];
        EXPECT_EQ(installed["xformers"], "0.0.30");
        EXPECT_EQ(installed["triton"], "3.3.0");
        EXPECT_EQ(installed["torchvision"], "0.22.0+cu128");
    }
}

// 2. A teammate's lock with linux-x86_64-cu128 and windows-x86_64-cu128 on driver 570 + sm_86:
// refused with "this machine runs cu126, cpu" although its torch runs there.
// 3. --backend cu128 became cpu (setup -l: "runs cpu"; setup -r: a cpu lock).
TEST_F(BackendMatrixCli, ATeammatesCu128LockAndAnExplicitBackendAreHonoured) {
    ASSERT_EQ(run("no-gpu", {"lock", "-r", path("kohya.txt"), "-o", path("team.lock.yml"),
                             "--target", "linux-x86_64-cu128", "--target", "windows-x86_64-cu128"})
                  .exit_code,
              0);
    auto r = run("d570-sm86", {"setup", "-l", path("team.lock.yml"), "-p", path("team"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["target"], "linux-x86_64-cu128");
    EXPECT_EQ(json::parse(r.out)["smoke"], "torch 2.7.0+cu128 None None");

    r = run("d570-sm86", {"setup", "-l", path("team.lock.yml"), "-p", path("team"), "--backend",
                          "cu128", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(json::parse(r.out)["reason"].get<std::string>().find("--backend cu128: "),
              std::string::npos);

    r = run("d570-sm86", {"setup", "-r", path("kohya.txt"), "--project", work.path.string(), "-p",
                          path("kohya"), "--backend", "cu128", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["target"], "linux-x86_64-cu128");

    // Refused, never replaced: a backend against the pin, a target the lock lacks, a target
    // for another OS; the same through AITK_ENV_TORCH_BACKEND.
    r = run("d570-sm86", {"setup", "-r", path("kohya.txt"), "--project", work.path.string(), "-p",
                          path("kohya"), "--backend", "cu126"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("--backend cu126, but torch==2.7.0+cu128"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pins the cu128 build → refused"), std::string::npos) << r.err;
    r = run("d570-sm86", {"setup", "-l", path("team.lock.yml"), "-p", path("team")},
            {"AITK_ENV_TORCH_BACKEND=cu130"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("AITK_ENV_TORCH_BACKEND cu130, but the lockfile has no target "
                         "linux-x86_64-cu130"),
              std::string::npos)
        << r.err;
    r = run("d570-sm86", {"setup", "-l", path("team.lock.yml"), "-p", path("team"), "--target",
                          "windows-x86_64-cu128"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("--target windows-x86_64-cu128, but windows-x86_64-cu128 (torch "
                         "2.7.0+cu128): for windows-x86_64"),
              std::string::npos)
        << r.err;
}

// 4. An RTX 5090 on driver 560 with a cu130/cu126/cpu lock: setup -l installed 2.13.0+cpu and
// exited 0, while doctor refused. Now every command refuses alike, with the driver fix, and
// CPU torch comes only with --backend cpu.
TEST_F(BackendMatrixCli, NoSilentCpuTorchOnAnRtx5090WithDriver560) {
    ASSERT_EQ(run("no-gpu", {"lock", "-m", path("manifest.yaml"), "-o", path("aitk.lock.yml"),
                             "--target", "linux-x86_64-cu130", "--target", "linux-x86_64-cu126",
                             "--target", "linux-x86_64-cpu"})
                  .exit_code,
              0);
    const std::string fix = "update the driver to ≥ 580 (CUDA 13.x)";
    auto setup = run("d560-sm120", {"setup", "-l", path("aitk.lock.yml"), "-p", path("p")});
    EXPECT_EQ(setup.exit_code, 3) << setup.err;
    EXPECT_NE(setup.err.find("no target of the lockfile runs on this machine"), std::string::npos)
        << setup.err;
    EXPECT_NE(setup.err.find("linux-x86_64-cpu (torch 2.13.0+cpu): CPU build on a machine with "
                             "GPU 0 (NVIDIA GeForce RTX 5090): only with --backend cpu"),
              std::string::npos)
        << setup.err;
    EXPECT_NE(setup.err.find(fix), std::string::npos) << setup.err;
    EXPECT_FALSE(std::filesystem::exists(path("p")));

    auto doctor = run("d560-sm120", {"doctor", "-l", path("aitk.lock.yml"), "--json"});
    EXPECT_EQ(doctor.exit_code, 3) << doctor.err;
    auto report = json::parse(doctor.out);
    EXPECT_EQ(report["lock"]["chosen"], nullptr);
    EXPECT_NE(report["lock"]["fix"].get<std::string>().find(fix), std::string::npos)
        << report["lock"];
    EXPECT_EQ(run("d560-sm120", {"doctor", "-m", path("manifest.yaml")}).exit_code, 3);
    // This manifest names no targets: lock is for this machine, and refuses alike.
    auto lock =
        run("d560-sm120", {"lock", "-m", path("manifest.yaml"), "-o", path("mine.lock.yml")});
    EXPECT_EQ(lock.exit_code, 3) << lock.err;
    EXPECT_NE(lock.err.find(fix), std::string::npos) << lock.err;
    EXPECT_FALSE(std::filesystem::exists(path("mine.lock.yml")));
    auto mine = run("d560-sm120", {"lock", "-r", path("unpinned.txt"), "-o", path("m.lock.yml")});
    // Issue 29: torch>=2.5 has no build that runs here either (2.11's cu128 needs driver 570).
    EXPECT_EQ(mine.exit_code, 3) << mine.err;
    EXPECT_FALSE(std::filesystem::exists(path("m.lock.yml")));
    auto pinned213 = run("d560-sm120", {"setup", "-m", path("manifest.yaml"), "-p", path("p")});
    EXPECT_EQ(pinned213.exit_code, 3) << pinned213.err;
    EXPECT_NE(pinned213.err.find(fix), std::string::npos) << pinned213.err;

    // Asked for by name, CPU torch is installed; sync keeps it only when asked again.
    auto cpu = run("d560-sm120", {"setup", "-l", path("aitk.lock.yml"), "-p", path("p"),
                                  "--backend", "cpu", "--json"});
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_EQ(json::parse(cpu.out)["smoke"], "torch 2.13.0+cpu None None");
    auto sync = run("d560-sm120", {"sync", "-l", path("aitk.lock.yml"), "-p", path("p")});
    EXPECT_EQ(sync.exit_code, 3) << sync.err;
    EXPECT_NE(sync.err.find("--backend cpu to keep the CPU build"), std::string::npos) << sync.err;
    EXPECT_EQ(run("d560-sm120",
                  {"sync", "-l", path("aitk.lock.yml"), "-p", path("p"), "--backend", "cpu"})
                  .exit_code,
              0);
}

// 5. lerobot-style torchcodec from PyPI: exit 3, because every family name was taken only from
// the backend index. torchcodec now comes from the primary index, and the lock says so.
TEST_F(BackendMatrixCli, TorchcodecFromPyPIInstalls) {
    auto r = run("d570-sm86", {"setup", "-r", path("lerobot.txt"), "--project", work.path.string(),
                               "-p", path("lerobot"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["smoke"], "torch 2.11.0+cu128 None None");
    auto text = read_file(work.path / "lockfiles" / "lerobot.lock.yml");
    EXPECT_NE(text.find("- name: torchcodec\n          version: 0.11.0\n          requested: "
                        "true\n          index: primary"),
              std::string::npos)
        << text;
}

// kohya's Windows file pins +cu128 from the same index: it locks for windows-x86_64-cu128 on
// any host (here one without a GPU).
TEST_F(BackendMatrixCli, APinnedWindowsFileLocksForWindowsOnAnyHost) {
    write("kohya-windows.txt", "--extra-index-url " + server.url("/whl/cu128") +
                                   "\ntorch==2.7.0+cu128\ntorchvision==0.22.0+cu128\n"
                                   "xformers>=0.0.30\n");
    auto r = run("no-gpu", {"lock", "-r", path("kohya-windows.txt"), "-o", path("win.lock.yml"),
                            "--target", "windows-x86_64-cu128", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto text = read_file(work.path / "win.lock.yml");
    EXPECT_NE(text.find("torch-2.7.0+cu128-cp312-cp312-win_amd64.whl"), std::string::npos) << text;
    EXPECT_EQ(text.find("triton"), std::string::npos) << "triton is Linux-only here";
}

// doctor -r shows setup's decision for the same input, with every build considered.
TEST_F(BackendMatrixCli, DoctorShowsTheSameDecisionWithEveryCandidate) {
    auto r = run("d570-sm120", {"doctor", "-r", path("unpinned.txt"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto report = json::parse(r.out);
    EXPECT_EQ(report["backend"], "cu128");
    EXPECT_EQ(report["torch"], ">=2.5");
    bool passed_cu126 = false, took_cu128 = false;
    for (const auto& c : report["considered"]) {
        if (c["torch"] == "2.13" && c["backend"] == "cu126" && !c["runs"].get<bool>())
            passed_cu126 =
                c["why"].get<std::string>().find("no kernels for sm_120") != std::string::npos;
        if (c["torch"] == "2.11" && c["backend"] == "cu128") took_cu128 = c["runs"];
    }
    EXPECT_TRUE(passed_cu126) << report["considered"];
    EXPECT_TRUE(took_cu128) << report["considered"];
    auto dry = dry_run("d570-sm120", {"-r", path("unpinned.txt")});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_EQ(json::parse(dry.out)["target"], "linux-x86_64-cu128");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
