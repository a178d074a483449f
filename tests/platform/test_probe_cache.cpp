// The probe cache: stored and loaded under a key that changes with what the probe would see.
#include "aitk/platform/probe_cache.hpp"

#include <gtest/gtest.h>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::add_pci_device;
using aitk::test::TempDir;
using aitk::test::write_file;

HardwareProbe sample() {
    HardwareProbe p;
    p.nvidia = NvidiaDriver{*DriverVersion::parse("580.65.06"), *CudaVersion::parse("13.0"),
                            NvidiaSource::nvml};
    GpuDevice g;
    g.name = "NVIDIA H200";
    g.memory_mib = 143771;
    g.compute_capability = *ComputeCapability::parse("9.0");
    p.gpus.push_back(g);
    p.attempts.push_back(ProbeAttempt{"nvml", AttemptOutcome::answered, "ok"});
    return p;
}

TEST(ProbeCache, KeyChangesWithDriverDevicesBootAndOverrides) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    write_file(root.path / "proc/sys/kernel/random/boot_id", "b1\n");
    std::string k0 = probe_cache_key(env, "0.1.0");
    EXPECT_EQ(k0.size(), 16u);
    EXPECT_EQ(probe_cache_key(env, "0.1.0"), k0);  // stable
    EXPECT_NE(probe_cache_key(env, "0.2.0"), k0);

    write_file(root.path / "sys/module/nvidia/version", "580.65.06\n");
    std::string k1 = probe_cache_key(env, "0.1.0");
    EXPECT_NE(k1, k0);
    write_file(root.path / "sys/module/nvidia/version", "580.76.05\n");  // driver update
    std::string k2 = probe_cache_key(env, "0.1.0");
    EXPECT_NE(k2, k1);
    add_pci_device(root.path, "0000:01:00.0", "0x10de", "0x2335", "0x030200");  // GPU added
    std::string k3 = probe_cache_key(env, "0.1.0");
    EXPECT_NE(k3, k2);
    write_file(root.path / "proc/sys/kernel/random/boot_id", "b2\n");  // reboot
    std::string k4 = probe_cache_key(env, "0.1.0");
#ifndef _WIN32
    EXPECT_NE(k4, k3);  // Windows' boot identity is the running system's, not procfs'
#endif
    env.env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "8.6";
    EXPECT_NE(probe_cache_key(env, "0.1.0"), k4);
    env.env.erase("AITK_ENV_GPU_COMPUTE_CAPABILITY");
    EXPECT_EQ(probe_cache_key(env, "0.1.0"), k4);
    // A different NVML library file (or the same one rebuilt) is a different probe.
    write_file(root.path / "nvml.so", "a");
    env.nvml_candidates = std::vector<std::string>{(root.path / "nvml.so").string()};
    std::string k5 = probe_cache_key(env, "0.1.0");
    EXPECT_NE(k5, k4);
    write_file(root.path / "nvml.so", "abc");
    EXPECT_NE(probe_cache_key(env, "0.1.0"), k5);
}

TEST(ProbeCache, StoresAndLoadsUnderItsKey) {
    TempDir dir;
    auto file = probe_cache_file(dir.path);
    EXPECT_EQ(file, dir.path / "probe" / "hardware.json");
    EXPECT_FALSE(load_cached_probe(file, "k"));
    ASSERT_TRUE(store_cached_probe(file, "k", sample()));
    auto loaded = load_cached_probe(file, "k");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->nvidia, sample().nvidia);
    EXPECT_EQ(loaded->gpus, sample().gpus);
    ASSERT_EQ(loaded->attempts.size(), 2u);
    EXPECT_EQ(loaded->attempts[0].source, "cache");
    EXPECT_EQ(loaded->attempts[0].detail, "from " + file.string() + " (--refresh probes again)");
    EXPECT_FALSE(load_cached_probe(file, "other-key"));
}

TEST(ProbeCache, CorruptOrUnwritableFilesAreIgnored) {
    TempDir dir;
    auto file = probe_cache_file(dir.path);
    write_file(file, "{not json");
    EXPECT_FALSE(load_cached_probe(file, "k"));
    write_file(file, R"({"format":1,"key":"k","probe":{"gpus":"no"}})");
    EXPECT_FALSE(load_cached_probe(file, "k"));
    write_file(file, R"({"format":2,"key":"k","probe":{"gpus":[]}})");
    EXPECT_FALSE(load_cached_probe(file, "k"));
    write_file(dir.path / "blocker", "a file where a folder should be");
    EXPECT_FALSE(
        store_cached_probe(dir.path / "blocker" / "probe" / "hardware.json", "k", sample()));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
