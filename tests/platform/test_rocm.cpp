// AMD GPUs: gfx names from kfd topology and rocm_agent_enumerator, from fake roots and a fake
// enumerator on PATH.
#include "aitk/platform/rocm.hpp"

#include <gtest/gtest.h>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::TempDir;
using aitk::test::write_file;

TEST(Gfx, NamesFromTargetVersions) {
    EXPECT_EQ(*gfx_name_from_target_version(110000), "gfx1100");
    EXPECT_EQ(*gfx_name_from_target_version(90010), "gfx90a");
    EXPECT_EQ(*gfx_name_from_target_version(90402), "gfx942");
    EXPECT_EQ(*gfx_name_from_target_version(100300), "gfx1030");
    EXPECT_EQ(*gfx_name_from_target_version(120001), "gfx1201");
    EXPECT_FALSE(gfx_name_from_target_version(0));
    EXPECT_FALSE(gfx_name_from_target_version(91700));
}

TEST(Kfd, ParsesNodeProperties) {
    auto gpu = parse_kfd_properties(
        "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\nvendor_id 4098\n");
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->gfx_target, "gfx1100");
    EXPECT_EQ(gpu->vendor_id, 4098u);
    EXPECT_EQ(gpu->simd_count, 192u);
    auto cpu = parse_kfd_properties("cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
    ASSERT_TRUE(cpu);
    EXPECT_TRUE(cpu->gfx_target.empty());
    auto e = parse_kfd_properties("simd_count 1\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "no gfx_target_version in the kfd node properties");
    e = parse_kfd_properties("gfx_target_version x\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "gfx_target_version is not a number");
    EXPECT_FALSE(parse_kfd_properties("novalue\n"));
}

TEST(Enumerator, DropsTheCpuAgent) {
    EXPECT_EQ(*parse_rocm_agent_enumerator("gfx000\ngfx1100\ngfx1100\n"),
              (std::vector<std::string>{"gfx1100", "gfx1100"}));
    auto e = parse_rocm_agent_enumerator("gfx000\nERROR: something\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "expected a gfx target name such as gfx1100");
    EXPECT_EQ(e.error().position, 7u);
}

TEST(AmdProbe, KfdTopologyWithMemory) {
    TempDir root;
    auto nodes = root.path / "sys/class/kfd/kfd/topology/nodes";
    write_file(nodes / "0/properties", "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
    write_file(nodes / "1/properties",
               "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\n");
    write_file(nodes / "1/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 25753026560\n");
    auto env = aitk::test::isolated_environment(root.path);
    auto r = probe_amd_gpus(env);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    ASSERT_EQ(r.value->size(), 1u);
    EXPECT_EQ(r.value->at(0).gfx_target, "gfx1100");
    EXPECT_EQ(r.value->at(0).vendor, GpuVendor::amd);
    EXPECT_EQ(r.value->at(0).memory_mib, 24560u);
    EXPECT_EQ(r.detail, "kfd topology: 2 nodes");
}

TEST(AmdProbe, FallsBackToTheEnumeratorOnPath) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    EXPECT_EQ(probe_amd_gpus(env).outcome, AttemptOutcome::absent);
    write_file(root.path / "bin/rocm_agent_enumerator", "#!/bin/sh\necho gfx000\necho gfx90a\n");
    std::filesystem::permissions(root.path / "bin/rocm_agent_enumerator",
                                 std::filesystem::perms::owner_all);
    env.env["PATH"] = (root.path / "bin").string() + ":/usr/bin:/bin";
    auto r = probe_amd_gpus(env);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->at(0).gfx_target, "gfx90a");
    EXPECT_EQ(r.detail, (root.path / "bin/rocm_agent_enumerator").string() + ": gfx90a");
}

TEST(AmdProbe, OnlyOnLinux) {
    TempDir root;
    auto env = aitk::test::isolated_environment(root.path);
    env.os = OsKind::windows;
    EXPECT_EQ(probe_amd_gpus(env).detail, "ROCm is Linux only");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
