// The backend choice on Linux aarch64 machines (issue 30): GH200 (sm_90), GB200 (sm_100), DGX
// Spark's GB10 (sm_121: R580 and CUDA 13 builds only) and Jetson Thor (sm_110), judged with the
// aarch64 builds' own kernel lists, which differ from x86_64's.
#include <gtest/gtest.h>

#include "aitk/platform/backend.hpp"
#include "aitk/platform/host.hpp"
#include "backend_test_machine.hpp"
#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

const Tables& tables() {
    return aitk::test::backend_tables();
}

struct Machine {
    const char* driver;
    const char* gpu;  // "name|cc"
    const char* arch = "aarch64";
};

HostInfo host_of(const Machine& m) {
    return aitk::test::host_of({.arch = m.arch, .driver = m.driver, .gpu = m.gpu});
}

HardwareProbe probe_of(const Machine& m) {
    return aitk::test::probe_of({.arch = m.arch, .driver = m.driver, .gpu = m.gpu});
}

// AI Toolkit's torch 2.13 (cu130, then cu126), or `torch` with every build it offers.
BackendChoice choose(const Machine& m, const char* torch = "2.13.0",
                     std::vector<std::string> preferred = {"cu130", "cu126"}) {
    BackendRequest r;
    r.torch = *aitk::pep::Version::parse(torch);
    r.preferred = std::move(preferred);
    return choose_backend(host_of(m), probe_of(m), r, tables());
}

const char* const gh200 = "NVIDIA GH200 480GB|9.0";
const char* const gb200 = "NVIDIA GB200|10.0";
const char* const gb10 = "NVIDIA GB10|12.1";
const char* const thor = "NVIDIA Thor|11.0";

TEST(BackendAarch64, Gh200RunsCu130AndCu126) {
    auto c = choose({"580.95.05", gh200});
    EXPECT_EQ(c.backend, "cu130") << c.reason;
    EXPECT_EQ(c.candidates, (std::vector<std::string>{"cu130", "cu126"}));
    // On R575 (CUDA 12.9) only the 12.x build runs.
    auto older = choose({"575.57.08", gh200});
    EXPECT_EQ(older.backend, "cu126") << older.reason;
}

TEST(BackendAarch64, Gb200HasNoKernelsInTheAarch64Cu126Build) {
    auto c = choose({"580.95.05", gb200});
    EXPECT_EQ(c.backend, "cu130") << c.reason;
    EXPECT_EQ(c.candidates, (std::vector<std::string>{"cu130"}));
    auto v = judge_build(host_of({"580.95.05", gb200}), probe_of({"580.95.05", gb200}), {2, 13},
                         "cu126", tables());
    EXPECT_FALSE(v.runs);
    EXPECT_NE(v.why.find("has no kernels for sm_100"), std::string::npos) << v.why;
}

TEST(BackendAarch64, DgxSparkRunsCuda13BuildsOnR580) {
    auto c = choose({"580.95.05", gb10});
    EXPECT_EQ(c.backend, "cu130") << c.reason;
    EXPECT_EQ(c.candidates, (std::vector<std::string>{"cu130"}));
    // cu128 carries sm_120 kernels, which would load on sm_121, but GB10 is supported from
    // CUDA 13.0 on: a torch without a CUDA 13 build is refused, naming the first one with it.
    auto old = choose({"580.95.05", gb10}, "2.8.0", {});
    EXPECT_TRUE(old.refused()) << old.reason;
    EXPECT_NE(old.reason.find("GB10 GPUs run CUDA ≥ 13.0 builds only"), std::string::npos)
        << old.reason;
    EXPECT_NE(old.fix.find("the newest torch with one is 2.13 (cu130)"), std::string::npos)
        << old.fix;
}

TEST(BackendAarch64, DgxSparkOnR570IsRefusedWithTheDriverToInstall) {
    auto c = choose({"570.133.20", gb10});
    EXPECT_TRUE(c.refused()) << c.reason;
    EXPECT_NE(c.reason.find("needs driver ≥ 580 (the first driver for GB10 GPUs: GPU 0 (NVIDIA "
                            "GB10, sm_121))"),
              std::string::npos)
        << c.reason;
    EXPECT_NE(c.fix.find("update the driver to ≥ 580"), std::string::npos) << c.fix;
    // An RTX 5090 (12.0, plain Blackwell) is content with R570.
    EXPECT_FALSE(
        choose({"570.133.20", "NVIDIA GeForce RTX 5090|12.0", "x86_64"}, "2.11.0", {}).refused());
}

TEST(BackendAarch64, ThorHasKernelsOnlyInTheAarch64Cuda13Build) {
    auto c = choose({"580.00", thor});
    EXPECT_EQ(c.backend, "cu130") << c.reason;
    // The x86_64 cu130 build has no sm_110 kernels (there is no such machine; the tables say so).
    auto x86 = judge_build(host_of({"580.00", thor, "x86_64"}), probe_of({"580.00", thor}), {2, 13},
                           "cu130", tables());
    EXPECT_FALSE(x86.runs) << x86.why;
}

TEST(BackendAarch64, TheArchTableKeepsX86AndAarch64RowsApart) {
    const auto& archs = tables().archs;
    const ArchRow* x86 = archs.find("cu126", {2, 13});
    const ArchRow* arm = archs.find("cu126", {2, 13}, "aarch64");
    ASSERT_NE(x86, nullptr);
    ASSERT_NE(arm, nullptr);
    EXPECT_EQ(x86->arch, "");
    EXPECT_EQ(arm->arch, "aarch64");
    EXPECT_EQ(arm->sass, (std::vector<ComputeCapability>{{8, 0}, {9, 0}}));
    EXPECT_EQ(archs.find("cu126", {2, 7}, "aarch64")->sass,
              (std::vector<ComputeCapability>{{9, 0}}));
    EXPECT_EQ(archs.find("cu118", {2, 7}, "aarch64"), nullptr);  // no aarch64 cu118 build

    auto bad = parse_arch_table(
        "format: 1\nvariants:\n  - {variant: cu130, arch: arm, torch_from: \"2.9\", sass: [], "
        "ptx: [], source: s}\n",
        "t.yaml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("t.yaml:3:"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("write aarch64"), std::string::npos) << bad.error().message;
}

TEST(Jetson, TheBoardIsReadFromItsReleaseFileAndDeviceTree) {
    auto orin = parse_jetson(
        "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, DATE: "
        "Wed Jan  8 01:49:37 UTC 2025\n",
        std::string_view("NVIDIA Jetson AGX Orin Developer Kit\0", 38));
    ASSERT_TRUE(orin);
    EXPECT_EQ(orin->model, "NVIDIA Jetson AGX Orin Developer Kit");
    EXPECT_EQ(orin->l4t, "36.4.3");
    EXPECT_EQ(orin->jetpack(), "JetPack 6");
    EXPECT_FALSE(orin->runs_sbsa_builds());
    auto thor = parse_jetson("# R38 (release), REVISION: 2.0, GCID: 1\n", "");
    ASSERT_TRUE(thor);
    EXPECT_TRUE(thor->runs_sbsa_builds());
    EXPECT_EQ(thor->jetpack(), "JetPack 7");
    // A model naming Jetson is enough (a container without /etc/nv_tegra_release).
    EXPECT_TRUE(parse_jetson("", "NVIDIA Jetson Orin Nano Developer Kit"));
    EXPECT_FALSE(parse_jetson("", "Raspberry Pi 5 Model B Rev 1.0"));
    EXPECT_FALSE(parse_jetson("", ""));
}

TEST(Jetson, TheHostProbeReadsTheBoardFromItsRoot) {
#ifdef _WIN32
    GTEST_SKIP() << "Jetson boards run Linux; the Windows probe reads no /etc";
#endif
    aitk::test::TempDir dir;
    aitk::test::write_file(dir.path / "etc/nv_tegra_release",
                           "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic\n");
    aitk::test::write_file(dir.path / "proc/device-tree/model",
                           std::string("NVIDIA Jetson Orin Nano Developer Kit\0", 38));
    auto host = probe_host(aitk::test::isolated_environment(dir.path));
    ASSERT_TRUE(host.jetson);
    EXPECT_EQ(host.jetson->model, "NVIDIA Jetson Orin Nano Developer Kit");
    EXPECT_EQ(host.jetson->l4t, "36.4.3");
    EXPECT_FALSE(probe_host(aitk::test::isolated_environment(dir.path / "elsewhere")).jetson);
}

HostInfo orin_host() {
    HostInfo h = host_of({"540.4.0", "Orin|8.7"});
    h.jetson =
        parse_jetson("# R36 (release), REVISION: 4.3\n", "NVIDIA Jetson AGX Orin Developer Kit");
    return h;
}

TEST(Jetson, OrinIsNeverGivenCpuTorchSilently) {
    // JetPack 6 has no NVML: the probes find no GPU, only the board.
    HardwareProbe nothing;
    BackendRequest r;
    r.torch = *aitk::pep::Version::parse("2.13.0");
    r.preferred = {"cu130", "cu126"};
    auto c = choose_backend(orin_host(), nothing, r, tables());
    EXPECT_TRUE(c.refused()) << c.reason;
    EXPECT_NE(c.reason.find("cu126 is built for aarch64 servers (SBSA), not for the integrated GPU "
                            "of NVIDIA Jetson AGX Orin Developer Kit (L4T R36.4.3, JetPack 6)"),
              std::string::npos)
        << c.reason;
    EXPECT_NE(c.fix.find("https://pypi.jetson-ai-lab.io/jp6/cu126"), std::string::npos) << c.fix;
    EXPECT_NE(c.fix.find("--torch-index-url https://pypi.jetson-ai-lab.io/jp6 --backend cu126 "
                         "--force"),
              std::string::npos)
        << c.fix;
    EXPECT_NE(c.fix.find("https://developer.download.nvidia.com/compute/redist/jp/"),
              std::string::npos);
    EXPECT_TRUE(has_usable_gpu(orin_host(), nothing));
    // Asked for by name, CPU torch is fine; so is JetPack's build with --force.
    r.forced = "cpu";
    EXPECT_EQ(choose_backend(orin_host(), nothing, r, tables()).backend, "cpu");
    r.forced = "cu126";
    r.force = true;
    EXPECT_EQ(choose_backend(orin_host(), nothing, r, tables()).backend, "cu126");
}

TEST(DriverTable, AnExactCapabilityFloorWinsOverItsMajor) {
    const auto& d = tables().drivers;
    ASSERT_NE(d.arch_floor({12, 1}), nullptr);
    EXPECT_EQ(d.arch_floor({12, 1})->name, "GB10");
    EXPECT_EQ(d.arch_floor({12, 1})->min_build_cuda, (CudaVersion{13, 0}));
    EXPECT_EQ(d.arch_floor({12, 0})->name, "Blackwell");
    EXPECT_EQ(d.arch_floor({11, 0})->name, "Thor");

    auto both = parse_driver_table(
        "format: 1\nfamilies: []\narch_min_drivers:\n"
        "  - {name: A, compute_capabilities: [\"12.1\"], compute_capability_majors: [\"12\"], "
        "min_driver: {linux: \"580\", windows: \"580\"}, source: s}\n",
        "t.yaml");
    ASSERT_FALSE(both);
    EXPECT_NE(both.error().message.find("either compute_capability_majors or compute_capabilities"),
              std::string::npos)
        << both.error().message;
    auto twice = parse_driver_table(
        "format: 1\nfamilies: []\narch_min_drivers:\n"
        "  - {name: A, compute_capabilities: [\"12.1\"], min_driver: {linux: \"580\", windows: "
        "\"580\"}, source: s}\n"
        "  - {name: B, compute_capabilities: [\"12.1\"], min_driver: {linux: \"580\", windows: "
        "\"580\"}, source: s}\n",
        "t.yaml");
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("compute capability 12.1 is listed twice"),
              std::string::npos)
        << twice.error().message;
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
