// The whole hardware probe on fake machines: which source answers, what is skipped, how
// details are filled in, overrides, and the JSON round trip.
#include "aitk/platform/probe.hpp"

#include <gtest/gtest.h>

#include "aitk/platform/json.hpp"
#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using namespace std::chrono_literals;
using aitk::test::add_pci_device;
using aitk::test::install_fake_libcuda;
using aitk::test::install_fake_nvml;
using aitk::test::TempDir;
using aitk::test::write_file;

HostInfo linux_host() {
    HostInfo h;
    h.os = OsKind::linux_os;
    h.arch = "x86_64";
    return h;
}

std::string outcomes(const HardwareProbe& p) {
    std::string out;
    for (const auto& a : p.attempts)
        out += a.source + ":" + std::string(outcome_name(a.outcome)) + " ";
    return out;
}

DetectionOverrides none() {
    return {};
}

TEST(Probe, NothingFoundMeansNoNvidia) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto p = probe_hardware(env, linux_host(), none());
    EXPECT_FALSE(p.nvidia);
    EXPECT_TRUE(p.gpus.empty());
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:absent procfs:absent nvidia-smi:absent rocm:absent "
              "pci:absent ");
}

TEST(Probe, NvmlAnswersAndTheRestIsSkipped) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto lib = install_fake_nvml(root.path / "lib",
                                 "driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n");
    env.nvml_candidates = std::vector<std::string>{lib.string()};
    write_file(root.path / "sys/module/nvidia/version", "999.0\n");  // must not be used
    auto p = probe_hardware(env, linux_host(), none());
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::nvml);
    EXPECT_EQ(p.nvidia->driver_version->text(), "580.159.03");
    EXPECT_EQ(p.nvidia->cuda_version->to_string(), "13.0");
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].name, "NVIDIA H200");
    EXPECT_EQ(outcomes(p),
              "nvml:answered libcuda:skipped sysfs:skipped procfs:skipped nvidia-smi:skipped "
              "rocm:absent pci:absent ");
    EXPECT_EQ(p.attempts[1].detail, "not needed: nvml answered");
}

TEST(Probe, LibcudaAnswersAndSysfsSuppliesTheDriverVersion) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    env.nvml_candidates = std::vector<std::string>{(root.path / "missing.so").string()};
    auto lib = install_fake_libcuda(root.path / "lib",
                                    "cuda=12060\ngpu=NVIDIA GeForce RTX 3090|24576|8.6\n");
    env.libcuda_candidates = std::vector<std::string>{lib.string()};
    env.libcuda_helper = {AITK_LIBCUDA_PROBE_HELPER};
    write_file(root.path / "sys/module/nvidia/version", "560.35.03\n");
    auto p = probe_hardware(env, linux_host(), none());
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::libcuda);
    EXPECT_EQ(p.nvidia->cuda_version->to_string(), "12.6");
    EXPECT_EQ(p.nvidia->driver_version->text(), "560.35.03");
    EXPECT_EQ(p.gpus[0].compute_capability->sm(), "sm_86");
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:answered sysfs:skipped procfs:skipped nvidia-smi:skipped "
              "rocm:absent pci:absent ");
}

TEST(Probe, SysfsAnswersAndNvidiaSmiFillsInCapabilities) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    write_file(root.path / "sys/module/nvidia/version", "570.133.20\n");
    add_pci_device(root.path, "0000:01:00.0", "0x10de", "0x2684", "0x030000");
    add_pci_device(root.path, "0000:02:00.0", "0x10de", "0x2230", "0x030000");
    env.env["AITK_FAKE_SMI_OUTPUT"] = std::string(AITK_FAKES_DIR) + "/nvidia-smi/multi-gpu.csv";
    DetectionOverrides o;
    o.nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    auto p = probe_hardware(env, linux_host(), o);
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::sysfs);
    EXPECT_EQ(p.nvidia->driver_version->text(), "570.133.20");
    ASSERT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.gpus[0].name, "NVIDIA GeForce RTX 4090");
    EXPECT_EQ(p.gpus[0].pci_address, "0000:01:00.0");
    EXPECT_EQ(p.gpus[1].compute_capability->to_string(), "8.6");
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:answered procfs:skipped nvidia-smi:answered "
              "rocm:absent pci:absent ");
}

TEST(Probe, NvidiaSmiAloneAnswers) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    env.env["AITK_FAKE_SMI_OUTPUT"] = std::string(AITK_FAKES_DIR) + "/nvidia-smi/pascal.csv";
    DetectionOverrides o;
    o.nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    auto p = probe_hardware(env, linux_host(), o);
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::nvidia_smi);
    EXPECT_FALSE(p.nvidia->cuda_version);
    EXPECT_EQ(p.gpus[0].compute_capability->sm(), "sm_61");
}

TEST(Probe, AHungNvidiaSmiCannotHangTheProbe) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    env.timeouts.nvidia_smi = 300ms;
    env.env["AITK_FAKE_SMI_MODE"] = "hang";
    DetectionOverrides o;
    o.nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    auto begin = std::chrono::steady_clock::now();
    auto p = probe_hardware(env, linux_host(), o);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 3s);
    EXPECT_FALSE(p.nvidia);
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:absent procfs:absent nvidia-smi:timed-out "
              "rocm:absent pci:absent ");
}

TEST(Probe, SourcesCanBeRestricted) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto lib =
        install_fake_nvml(root.path / "lib", "driver=580.159.03\ngpu=NVIDIA H200|143771|9.0\n");
    env.nvml_candidates = std::vector<std::string>{lib.string()};
    write_file(root.path / "sys/module/nvidia/version", "570.133.20\n");
    env.env["AITK_FAKE_SMI_OUTPUT"] = std::string(AITK_FAKES_DIR) + "/nvidia-smi/multi-gpu.csv";
    auto o = read_overrides({{"AITK_ENV_NVIDIA_SOURCES", "sysfs"}});
    o->nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    auto p = probe_hardware(env, linux_host(), *o);
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::sysfs);
    EXPECT_EQ(p.gpus.size(),
              0u);  // no PCI devices in this root, and nvidia-smi may not fill them in
    EXPECT_EQ(outcomes(p),
              "nvml:skipped libcuda:skipped sysfs:answered procfs:skipped nvidia-smi:skipped "
              "rocm:absent pci:absent ");
    EXPECT_EQ(p.attempts[0].detail, "not in AITK_ENV_NVIDIA_SOURCES");

    o = read_overrides({{"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"}});
    o->nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    p = probe_hardware(env, linux_host(), *o);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::nvidia_smi);
    EXPECT_EQ(p.gpus.size(), 2u);
}

TEST(Probe, DriverOverridesReplaceDetection) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto o = read_overrides({{"AITK_ENV_CUDA_DRIVER_VERSION", "560.35.03"},
                             {"AITK_ENV_GPU_COMPUTE_CAPABILITY", "12.0,8.6"}});
    ASSERT_TRUE(o);
    auto p = probe_hardware(env, linux_host(), *o);
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::override_env);
    EXPECT_EQ(p.nvidia->driver_version->text(), "560.35.03");
    EXPECT_FALSE(p.nvidia->cuda_version);
    ASSERT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.gpus[0].compute_capability->sm(), "sm_120");
    EXPECT_EQ(p.attempts[0].detail,
              "AITK_ENV_CUDA_DRIVER_VERSION=560.35.03 AITK_ENV_GPU_COMPUTE_CAPABILITY=12.0,8.6");
    EXPECT_EQ(outcomes(p),
              "override:answered nvml:skipped libcuda:skipped sysfs:skipped procfs:skipped "
              "nvidia-smi:skipped "
              "rocm:absent pci:absent ");
}

TEST(Probe, CapabilityOverrideOnTopOfNvml) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto lib = install_fake_nvml(root.path / "lib",
                                 "driver=580.65.06\ncuda=13000\ngpu=Mystery GPU|8000|-\n");
    env.nvml_candidates = std::vector<std::string>{lib.string()};
    auto o = read_overrides({{"AITK_ENV_GPU_COMPUTE_CAPABILITY", "7.5"}});
    auto p = probe_hardware(env, linux_host(), *o);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::nvml);
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].name, "Mystery GPU");
    EXPECT_EQ(p.gpus[0].compute_capability->to_string(), "7.5");
}

TEST(Probe, NoGpuIgnoresEverything) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto lib = install_fake_nvml(root.path / "lib", "driver=580.65.06\ngpu=NVIDIA H200|1|9.0\n");
    env.nvml_candidates = std::vector<std::string>{lib.string()};
    auto o = read_overrides({{"AITK_ENV_NO_GPU", "1"}});
    auto p = probe_hardware(env, linux_host(), *o);
    EXPECT_FALSE(p.nvidia);
    EXPECT_TRUE(p.gpus.empty());
    EXPECT_TRUE(p.gpus_ignored);
    EXPECT_EQ(outcomes(p), "override:answered ");
}

TEST(Probe, AmdAndIntelDiscreteGpus) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    write_file(root.path / "sys/class/kfd/kfd/topology/nodes/1/properties",
               "gfx_target_version 110000\n");
    add_pci_device(root.path, "0000:00:02.0", "0x8086", "0x4680", "0x030000");
    add_pci_device(root.path, "0000:03:00.0", "0x8086", "0x56a0", "0x030000");
    auto p = probe_hardware(env, linux_host(), none());
    ASSERT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.gpus[0].vendor, GpuVendor::amd);
    EXPECT_EQ(p.gpus[0].gfx_target, "gfx1100");
    EXPECT_EQ(p.gpus[1].vendor, GpuVendor::intel);
    EXPECT_EQ(p.gpus[1].name, "Intel GPU (PCI device 56a0)");
    EXPECT_TRUE(p.has(GpuVendor::amd));
    EXPECT_FALSE(p.has(GpuVendor::nvidia));
}

TEST(ProbeJson, RoundTripsAndUsesContractKeys) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    auto lib =
        install_fake_nvml(root.path / "lib",
                          "driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\ngpu=x|1|-\n");
    env.nvml_candidates = std::vector<std::string>{lib.string()};
    write_file(root.path / "sys/class/kfd/kfd/topology/nodes/1/properties",
               "gfx_target_version 90010\n");
    auto p = probe_hardware(env, linux_host(), none());
    auto j = to_json(p);
    EXPECT_EQ(j["nvidia"],
              nlohmann::json::parse(
                  R"({"driver_version":"580.159.03","cuda_version":"13.0","source":"nvml"})"));
    EXPECT_EQ(
        j["gpus"][0],
        nlohmann::json::parse(
            R"({"vendor":"nvidia","name":"NVIDIA H200","memory_mib":143771,"compute_capability":"9.0"})"));
    EXPECT_TRUE(j["gpus"][1]["compute_capability"].is_null());
    EXPECT_EQ(j["gpus"][2]["gfx_target"], "gfx90a");
    auto back = probe_from_json(nlohmann::json::parse(j.dump()));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, p);
    EXPECT_EQ(to_json(std::optional<NvidiaDriver>()), nullptr);
}

TEST(ProbeJson, RejectsBadInput) {
    using nlohmann::json;
    EXPECT_FALSE(probe_from_json(json::array()));
    EXPECT_FALSE(probe_from_json(json::parse(R"({"gpus":{}})")));
    EXPECT_FALSE(probe_from_json(json::parse(R"({"gpus":[{"vendor":"matrox"}]})")));
    EXPECT_FALSE(probe_from_json(
        json::parse(R"({"gpus":[{"vendor":"nvidia","compute_capability":"86"}]})")));
    EXPECT_FALSE(probe_from_json(json::parse(R"({"gpus":[],"nvidia":{"source":"magic"}})")));
    EXPECT_FALSE(probe_from_json(json::parse(R"({"gpus":[{"vendor":"nvidia","memory_mib":-1}]})")));
    auto e = probe_from_json(
        json::parse(R"({"gpus":[],"attempts":[{"source":"x","outcome":"maybe"}]})"));
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "probe JSON: unknown attempt outcome \"maybe\"");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
