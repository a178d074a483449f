// `aitk-env doctor` through the real binary, on this machine and on fake GPUs: JSON keys and
// values, the human report, exit codes, and that no probe can hang it.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../platform/fake_machine.hpp"
#include "aitk/util/subprocess.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace std::chrono_literals;
using aitk::test::install_fake_libcuda;
using aitk::test::install_fake_nvml;
using aitk::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

struct DoctorRun {
    int exit_code = -1;
    std::string out, err;
    std::chrono::milliseconds took{0};
    json j() const { return json::parse(out); }
};

// Runs aitk-env with a small, private environment: its own cache and HOME, a PATH without
// interpreters (fast), and only the NVIDIA sources a scenario allows.
class DoctorCli : public ::testing::Test {
  protected:
    TempDir dir{"doctor-cli"};
    aitk::util::Environment env;

    void SetUp() override {
        fs::create_directories(dir.path / "bin");
        env = {{"PATH", (dir.path / "bin").string()},
               {"HOME", dir.path.string()},
               {"AITK_ENV_CACHE_DIR", (dir.path / "cache").string()},
               {"AITK_ENV_PROBE_TIMEOUT", "10"}};
    }

    DoctorRun run(std::vector<std::string> args) {
        aitk::util::ProcessRequest req;
        req.argv = {AITK_ENV_EXE};
        req.argv.insert(req.argv.end(), args.begin(), args.end());
        req.environment = env;
        req.timeout = 60s;
        auto r = aitk::util::run_process(req);
        DoctorRun out;
        if (!r) {
            ADD_FAILURE() << r.error().message;
            return out;
        }
        EXPECT_EQ(r->end, aitk::util::ProcessEnd::exited) << r->describe();
        out.exit_code = r->exit_code;
        out.out = r->out;
        out.err = r->err;
        out.took = r->elapsed;
        return out;
    }

    // Keeps the machine's own NVIDIA software out of a fake scenario.
    void only(const std::string& sources) { env["AITK_ENV_NVIDIA_SOURCES"] = sources; }
    void smi(const std::string& mode, const std::string& output = {},
             const std::string& no_cc = {}) {
        env["AITK_ENV_NVIDIA_SMI"] = AITK_FAKE_NVIDIA_SMI;
        env["AITK_FAKE_SMI_MODE"] = mode;
        if (!output.empty())
            env["AITK_FAKE_SMI_OUTPUT"] = std::string(AITK_FAKES_DIR) + "/nvidia-smi/" + output;
        if (!no_cc.empty())
            env["AITK_FAKE_SMI_OUTPUT_NO_CC"] =
                std::string(AITK_FAKES_DIR) + "/nvidia-smi/" + no_cc;
    }
};

bool machine_has_nvidia() {
    return fs::exists("/proc/driver/nvidia/version") || fs::exists("/sys/module/nvidia/version") ||
           fs::exists("/dev/nvidia0") || fs::exists("/usr/lib/wsl/lib/libcuda.so.1");
}

TEST_F(DoctorCli, ThisMachineReportsItsBackendWithEveryContractKey) {
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    json j = r.j();
    for (const char* key : {"os", "arch", "libc", "memory_gib", "gpus", "nvidia", "backends",
                            "backend", "reason", "pythons", "checks"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["os"], "linux");
    EXPECT_TRUE(j["libc"].get<std::string>().rfind("glibc ", 0) == 0) << j["libc"];
    EXPECT_GT(j["memory_gib"].get<double>(), 0.1);
    if (!machine_has_nvidia()) {
        EXPECT_EQ(j["nvidia"], nullptr);
        EXPECT_EQ(j["backend"], "cpu");
        EXPECT_EQ(j["backends"], json::array({"cpu"}));
        EXPECT_EQ(j["reason"], "no GPU found; torch 2.13.0 → cpu");
    }
    EXPECT_TRUE(r.err.empty()) << r.err;  // --json: nothing but JSON, on stdout
}

// The CA bundle doctor names is the one downloads use: --cert, then SSL_CERT_FILE; a named file
// that is missing fails the check (exit 1) with its source.
TEST_F(DoctorCli, TheTlsCheckNamesTheCaBundle) {
    const auto tls_check = [](const json& report) {
        for (const auto& check : report["checks"])
            if (check["id"] == "tls") return check;
        return json();
    };
    const auto bundle = dir.path / "ca.pem";
    { std::ofstream(bundle) << "x"; }
    env["SSL_CERT_FILE"] = bundle.string();
    auto r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(tls_check(r.j())["status"], "ok");
    EXPECT_EQ(tls_check(r.j())["message"],
              "CA bundle: " + bundle.string() + " (from SSL_CERT_FILE)");
    r = run({"--cert", bundle.string(), "doctor", "--json"});
    EXPECT_EQ(tls_check(r.j())["message"], "CA bundle: " + bundle.string() + " (from --cert)");
    env["SSL_CERT_FILE"] = "/nonexistent/ca.pem";
    r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(tls_check(r.j())["status"], "fail");
    EXPECT_NE(tls_check(r.j())["message"].get<std::string>().find("(from SSL_CERT_FILE)"),
              std::string::npos);
}

TEST_F(DoctorCli, FakeNvmlH200) {
    only("nvml");
    auto lib = install_fake_nvml(dir.path / "nvml",
                                 "driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n");
    env["AITK_ENV_NVML_LIBRARY"] = lib.string();
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    EXPECT_EQ(
        j["nvidia"],
        json::parse(R"({"driver_version":"580.159.03","cuda_version":"13.0","source":"nvml"})"));
    EXPECT_EQ(j["gpus"][0]["name"], "NVIDIA H200");
    EXPECT_EQ(j["gpus"][0]["memory_mib"], 143771);
    EXPECT_EQ(j["gpus"][0]["compute_capability"], "9.0");
    // CPU torch is not a candidate on a GPU machine (only --backend cpu chooses it).
    EXPECT_EQ(j["backends"], json::parse(R"(["cu130","cu126"])"));
    EXPECT_EQ(j["backend"], "cu130");
}

TEST_F(DoctorCli, FakeLibcudaThroughTheChildProbeWithABadVisibleDevicesList) {
    only("libcuda");
    auto lib = install_fake_libcuda(dir.path / "cuda",
                                    "cuda=12060\nhonour_visible_devices=1\n"
                                    "gpu=NVIDIA GeForce RTX 3090|24576|8.6\n");
    env["AITK_ENV_LIBCUDA_LIBRARY"] = lib.string();
    env["CUDA_VISIBLE_DEVICES"] = "";
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    EXPECT_EQ(j["nvidia"]["source"], "libcuda");
    EXPECT_EQ(j["nvidia"]["cuda_version"], "12.6");
    EXPECT_EQ(j["gpus"][0]["compute_capability"], "8.6");
    EXPECT_EQ(j["backend"], "cu126");
    bool warned = false;
    for (const auto& c : j["checks"]) {
        if (c["id"] == "cuda-visible-devices") warned = c["status"] == "warn";
    }
    EXPECT_TRUE(warned);
}

TEST_F(DoctorCli, FakeNvidiaSmiPascal) {
    only("nvidia-smi");
    smi("ok", "pascal.csv");
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    EXPECT_EQ(j["nvidia"]["source"], "nvidia-smi");
    EXPECT_EQ(j["nvidia"]["driver_version"], "580.65.06");
    EXPECT_EQ(j["backend"], "cu126");
    EXPECT_NE(j["reason"].get<std::string>().find(
                  "cu130 has no kernels for sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti)"),
              std::string::npos);
}

TEST_F(DoctorCli, FakeNvidiaSmiMultiGpu) {
    only("nvidia-smi");
    smi("ok", "multi-gpu.csv");
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    ASSERT_EQ(j["gpus"].size(), 2u);
    EXPECT_EQ(j["gpus"][1]["name"], "NVIDIA RTX A6000");
    EXPECT_EQ(j["backend"], "cu126");  // driver 570 runs CUDA 12.x only
}

TEST_F(DoctorCli, OldDriverWithoutComputeCapIsRefusedWithTheNewestUsableTorch) {
    only("nvidia-smi");
    env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "3.7,3.7";  // what the 470 driver cannot tell
    smi("old-driver", "h200.csv", "old-driver-no-cc.csv");
    auto r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    json j = r.j();
    EXPECT_EQ(j["nvidia"]["driver_version"], "470.256.02");
    EXPECT_EQ(j["backend"], nullptr);
    EXPECT_NE(j["fix"].get<std::string>().find("the newest torch with one is 2.7 (cu118)"),
              std::string::npos)
        << j["fix"];
}

TEST_F(DoctorCli, NoDevicesFound) {
    only("nvidia-smi");
    smi("no-devices");
    auto r = run({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    EXPECT_EQ(j["nvidia"], nullptr);
    EXPECT_EQ(j["backend"], "cpu");
}

TEST_F(DoctorCli, AHungNvidiaSmiCannotHangDoctor) {
    only("nvidia-smi");
    smi("hang");
    env["AITK_ENV_PROBE_TIMEOUT"] = "0.5";
    auto r = run({"doctor", "--json"});
    EXPECT_LT(r.took, 10s);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = r.j();
    EXPECT_EQ(j["backend"], "cpu");
    bool warned = false;
    for (const auto& c : j["checks"]) {
        if (c["id"] == "probe")
            warned = c["message"].get<std::string>().find("did not finish within 500 ms") !=
                     std::string::npos;
    }
    EXPECT_TRUE(warned) << r.out;
}

TEST_F(DoctorCli, BlackwellOnDriver560IsExitThreeWithTheFix) {
    env["AITK_ENV_CUDA_DRIVER_VERSION"] = "560.35.03";
    env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "12.0";
    auto r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 3);
    json j = r.j();
    EXPECT_EQ(j["backend"], nullptr);
    EXPECT_EQ(j["nvidia"]["source"], "override");
    EXPECT_NE(j["fix"].get<std::string>().find("update the driver to ≥ 580"), std::string::npos);

    env["AITK_ENV_CUDA_DRIVER_VERSION"] = "580.65.06";
    r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.j()["backend"], "cu130");
}

TEST_F(DoctorCli, ForcedBackendNeedsForceWhenTheHardwareCannotRunIt) {
    env["AITK_ENV_CUDA_DRIVER_VERSION"] = "580.65.06";
    env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "6.1";
    auto r = run({"doctor", "--json", "--backend", "cu130"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    r = run({"doctor", "--backend", "cu130", "--force", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.j()["backend"], "cu130");
    EXPECT_EQ(r.j()["forced"], true);
    env["AITK_ENV_TORCH_BACKEND"] = "cu126";
    r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.j()["backend"], "cu126");
}

TEST_F(DoctorCli, RocmOverridesAndNoGpu) {
    env["AITK_ENV_NO_GPU"] = "1";
    env["AITK_ENV_CUDA_DRIVER_VERSION"] = "580";
    auto r = run({"doctor", "--json"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.j()["backend"], "cpu");
    EXPECT_EQ(r.j()["gpus"], json::array());
    EXPECT_EQ(r.j()["nvidia"], nullptr);
}

TEST_F(DoctorCli, BadInputIsExitTwo) {
    auto r = run({"doctor", "--backend", "cuda12"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--backend: \"cuda12\" is not a torch backend"), std::string::npos)
        << r.err;
    env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "86";
    r = run({"doctor"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("AITK_ENV_GPU_COMPUTE_CAPABILITY: expected '.'"), std::string::npos)
        << r.err;
    env.erase("AITK_ENV_GPU_COMPUTE_CAPABILITY");
    r = run({"doctor", "-m", (dir.path / "missing.yaml").string()});
    EXPECT_EQ(r.exit_code, 2);
    aitk::test::write_file(dir.path / "bad.yaml", "torch: [\n");
    r = run({"doctor", "-m", (dir.path / "bad.yaml").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find((dir.path / "bad.yaml").string() + ":"), std::string::npos) << r.err;
}

TEST_F(DoctorCli, HumanReportIsAlignedAndColouredOnlyWhenAsked) {
    env["AITK_ENV_CUDA_DRIVER_VERSION"] = "560.35.03";
    env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "8.6";
    auto r = run({"doctor"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  backend   cu126\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  reason    driver 560.35.03 (override) supports CUDA ≤ 12.x;"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Checks\n"), std::string::npos);
    EXPECT_NE(r.out.find("  ok    backend"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\x1b["), std::string::npos);  // not a terminal: no colour
    r = run({"doctor", "--color", "always"});
    EXPECT_NE(r.out.find("\x1b[32mok\x1b[0m"), std::string::npos);
}

TEST_F(DoctorCli, ProbeIsCachedAndRefreshed) {
    only("nvml");
    auto lib = install_fake_nvml(dir.path / "nvml",
                                 "driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n");
    env["AITK_ENV_NVML_LIBRARY"] = lib.string();
    EXPECT_EQ(run({"doctor", "--json"}).j()["probe"]["cached"], false);
    EXPECT_EQ(run({"doctor", "--json"}).j()["probe"]["cached"], true);
    EXPECT_EQ(run({"doctor", "--json", "--refresh"}).j()["probe"]["cached"], false);
    EXPECT_TRUE(fs::exists(dir.path / "cache" / "probe" / "hardware.json"));
}

TEST_F(DoctorCli, HelpDocumentsOptionsAndExitCodes) {
    auto r = run({"doctor", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* text : {"--manifest", "--prefix", "--backend", "--force", "--refresh",
                             "Exit codes", "AITK_ENV_CUDA_DRIVER_VERSION"}) {
        EXPECT_NE(r.out.find(text), std::string::npos) << text;
    }
    EXPECT_EQ(r.out.find("libcuda-probe-child"), std::string::npos);  // internal
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
