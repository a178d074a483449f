// Fake machines whose probes name GPUs but cannot give their compute capabilities (only the
// kernel module's files answer, or an old driver's nvidia-smi): the capability is looked up by
// name, marked as such, and the backend choice applies its architecture rules with it.
#include <gtest/gtest.h>

#include "aitk/platform/backend.hpp"
#include "aitk/platform/gpu_models.hpp"
#include "aitk/platform/probe.hpp"
#include "aitk/platform/probe_cache.hpp"
#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::add_pci_device;
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

const Tables& tables() {
    static const Tables t = *builtin_tables();
    return t;
}

BackendRequest torch(const char* version, std::vector<std::string> preferred) {
    BackendRequest r;
    r.torch = *aitk::pep::Version::parse(version);
    r.preferred = std::move(preferred);
    return r;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// /proc/driver/nvidia/version of a 570 driver and one GPU named only in procfs.
void procfs_machine(const std::filesystem::path& root, const std::string& model) {
    write_file(root / "proc/driver/nvidia/version",
               "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 2025\n");
    write_file(root / "proc/driver/nvidia/gpus/0000:01:00.0/information",
               "Model: \t\t " + model + "\nBus Location: \t 0000:01:00.0\n");
}

// The machine this came from: NVML and libcuda cannot be loaded, the module's files answer.
TEST(ProbeModelNames, H200NamedBySysfsAndProcfsGetsSm90FromTheName) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    write_file(root.path / "sys/module/nvidia/version", "580.159.04\n");
    add_pci_device(root.path, "0000:00:06.0", "0x10de", "0x2335", "0x030200");
    write_file(root.path / "proc/driver/nvidia/gpus/0000:00:06.0/information",
               "Model: \t\t NVIDIA H200\nBus Location: \t 0000:00:06.0\n");
    auto p = probe_hardware(env, linux_host(), {});
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::sysfs);
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].name, "NVIDIA H200");
    ASSERT_TRUE(p.gpus[0].compute_capability);
    EXPECT_EQ(p.gpus[0].compute_capability->sm(), "sm_90");
    EXPECT_EQ(p.gpus[0].compute_capability_source, CapabilitySource::model_name_table);
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:answered procfs:skipped nvidia-smi:absent "
              "model-name-table:answered rocm:absent pci:absent ");
    EXPECT_EQ(p.attempts[5].detail.rfind("GPU 0 (NVIDIA H200): 9.0 from \"H200\" "
                                         "(manifests/gpu-models.yaml:",
                                         0),
              0u)
        << p.attempts[5].detail;

    auto c = choose_backend(linux_host(), p, BackendRequest::ai_toolkit_default(), tables());
    EXPECT_EQ(c.backend, "cu130");
    EXPECT_TRUE(contains(c.reason,
                         "GPU 0 (NVIDIA H200, sm_90 from the model name) is covered by "
                         "cu130 → cu130"))
        << c.reason;
}

TEST(ProbeModelNames, Rtx5090NamedOnlyByProcfsOnDriver570IsNeverGivenCu126) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    procfs_machine(root.path, "NVIDIA GeForce RTX 5090");
    auto p = probe_hardware(env, linux_host(), {});
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->source, NvidiaSource::procfs);
    EXPECT_EQ(p.nvidia->driver_version->text(), "570.133.20");
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].compute_capability->sm(), "sm_120");
    EXPECT_EQ(p.gpus[0].compute_capability_source, CapabilitySource::model_name_table);
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:absent procfs:answered nvidia-smi:absent "
              "model-name-table:answered rocm:absent pci:absent ");

    // AI Toolkit's default (torch 2.13: cu130, then cu126): cu130 needs a newer driver and
    // cu126 has no sm_120 kernels, so nothing runs; the fix is the driver update.
    auto c = choose_backend(linux_host(), p, BackendRequest::ai_toolkit_default(), tables());
    EXPECT_TRUE(c.refused());
    EXPECT_TRUE(c.candidates.empty());  // no silent CPU build on a GPU machine
    EXPECT_TRUE(contains(c.reason,
                         "cu126 has no kernels for sm_120 (GPU 0, NVIDIA GeForce RTX 5090, "
                         "capability from the model name) → refused"))
        << c.reason;
    EXPECT_TRUE(contains(c.reason, "cu130 needs driver ≥ 580")) << c.reason;
    EXPECT_EQ(c.fix.rfind("update the driver to ≥ 580", 0), 0u) << c.fix;
    EXPECT_TRUE(contains(c.fix, "GPU 0 (NVIDIA GeForce RTX 5090, sm_120 from the model name)"))
        << c.fix;

    // A release that offers cu128 runs on this driver: cu128 is chosen, cu126 is not a
    // candidate.
    c = choose_backend(linux_host(), p, torch("2.10.0", {}), tables());
    EXPECT_EQ(c.backend, "cu128");
    EXPECT_EQ(c.candidates, (std::vector<std::string>{"cu128"}));
    ASSERT_EQ(c.verdicts.size(), 3u);
    EXPECT_EQ(c.verdicts[1].backend, "cu126");
    EXPECT_FALSE(c.verdicts[1].runs);
    EXPECT_EQ(c.verdicts[1].why,
              "has no kernels for sm_120 (GPU 0, NVIDIA GeForce RTX 5090, capability from the "
              "model name)");
}

// Without the table's answer the same machine would get cu126: an unknown name stays unknown
// and the reason says coverage was not checked.
TEST(ProbeModelNames, AnUnknownNameLeavesTheCapabilityUnknown) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    procfs_machine(root.path, "NVIDIA Mystery GPU");
    auto p = probe_hardware(env, linux_host(), {});
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_FALSE(p.gpus[0].compute_capability);
    EXPECT_EQ(outcomes(p),
              "nvml:absent libcuda:absent sysfs:absent procfs:answered nvidia-smi:absent "
              "model-name-table:absent rocm:absent pci:absent ");
    EXPECT_EQ(p.attempts[5].detail, "GPU 0 (NVIDIA Mystery GPU): no row matches the name");
    auto c = choose_backend(linux_host(), p, BackendRequest::ai_toolkit_default(), tables());
    EXPECT_EQ(c.backend, "cu126");
    EXPECT_TRUE(contains(c.reason,
                         "GPU 0 (NVIDIA Mystery GPU, compute capability unknown) not "
                         "checked → cu126"))
        << c.reason;
    ASSERT_EQ(c.verdicts.size(), 2u);
    EXPECT_EQ(c.verdicts[1].why, "driver is new enough; GPU coverage not checked");
}

// nvidia-smi of driver 470 has no compute_cap field: the names say Kepler.
TEST(ProbeModelNames, OldNvidiaSmiWithoutComputeCapGetsItFromTheNames) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    env.env["AITK_FAKE_SMI_MODE"] = "old-driver";
    env.env["AITK_FAKE_SMI_OUTPUT_NO_CC"] =
        std::string(AITK_FAKES_DIR) + "/nvidia-smi/old-driver-no-cc.csv";
    DetectionOverrides o;
    o.nvidia_smi = AITK_FAKE_NVIDIA_SMI;
    auto p = probe_hardware(env, linux_host(), o);
    ASSERT_TRUE(p.nvidia);
    EXPECT_EQ(p.nvidia->driver_version->text(), "470.256.02");
    ASSERT_EQ(p.gpus.size(), 2u);
    for (const auto& g : p.gpus) {
        EXPECT_EQ(g.name, "Tesla K80");
        EXPECT_EQ(g.compute_capability->to_string(), "3.7");
        EXPECT_EQ(g.compute_capability_source, CapabilitySource::model_name_table);
    }
    auto c = choose_backend(linux_host(), p, BackendRequest::ai_toolkit_default(), tables());
    EXPECT_TRUE(c.refused());
    EXPECT_TRUE(contains(c.fix, "the newest torch with one is 2.7 (cu118)")) << c.fix;
}

// An override wins over the table, and a probe that reports a capability is never second-guessed.
TEST(ProbeModelNames, OverridesAndReportedValuesWin) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    procfs_machine(root.path, "NVIDIA GeForce RTX 5090");
    auto o = read_overrides({{"AITK_ENV_GPU_COMPUTE_CAPABILITY", "8.9"}});
    ASSERT_TRUE(o);
    auto p = probe_hardware(env, linux_host(), *o);
    ASSERT_EQ(p.gpus.size(), 1u);
    EXPECT_EQ(p.gpus[0].compute_capability->to_string(), "8.9");
    EXPECT_EQ(p.gpus[0].compute_capability_source, CapabilitySource::reported);
    for (const auto& a : p.attempts)
        EXPECT_NE(a.source, "model-name-table");
}

// The probe cache's JSON keeps no origin: doctor stores the reported facts only and infers again
// after loading, which gives back the same GPUs.
TEST(ProbeModelNames, TheCacheRoundTripKeepsTheOrigin) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    procfs_machine(root.path, "NVIDIA GeForce RTX 5090");
    auto p = probe_hardware(env, linux_host(), {});
    auto file = probe_cache_file(root.path / "cache");
    HardwareProbe stored = p;
    forget_inferred_capabilities(stored);
    EXPECT_FALSE(stored.gpus[0].compute_capability);
    ASSERT_TRUE(store_cached_probe(file, "key", stored));
    auto loaded = load_cached_probe(file, "key");
    ASSERT_TRUE(loaded);
    infer_compute_capabilities(*loaded, *builtin_gpu_models());
    EXPECT_EQ(loaded->gpus, p.gpus);
    EXPECT_EQ(loaded->attempts.front().source, "cache");
    EXPECT_EQ(loaded->attempts.back(), p.attempts[5]);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
