// The driver's fit decides among the CUDA builds (issue 29): a GPU the driver does not know
// (Blackwell before R570) runs no build at all, and among the builds that run, those the driver
// runs natively (it is at least the driver their toolkit shipped with) come first; when none
// does, the one nearest the driver, since it leans least on minor-version compatibility.
#include <gtest/gtest.h>

#include "aitk/platform/backend.hpp"
#include "backend_test_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

const Tables& tables() {
    return aitk::test::backend_tables();
}

using Machine = aitk::test::BackendMachine;
using aitk::test::host_of;
using aitk::test::probe_of;

// A project whose torch 2.11 offers cu126, cu128 and cu130 (and cpu), with no preference of
// its own: the pyproject extras cpu/cu126/cu128/cu130 of the issue.
BackendChoice choose(const Machine& m, std::optional<std::string> fixed = std::nullopt) {
    BackendRequest r;
    r.torch = *aitk::pep::Version::parse("2.11.0");
    if (fixed) {
        r.fixed = fixed;
        r.fixed_by = "the input";
    }
    return choose_backend(host_of(m), probe_of(m), r, tables());
}

const char* const rtx3090 = "NVIDIA GeForce RTX 3090|8.6";
const char* const rtx4090 = "NVIDIA GeForce RTX 4090|8.9";
const char* const rtx5090 = "NVIDIA GeForce RTX 5090|12.0";
const char* const b200 = "NVIDIA B200|10.0";

TEST(BackendDriverFit, TheFourMachinesOfTheIssue) {
    auto none = choose({});
    EXPECT_EQ(none.backend, "cpu") << none.reason;

    auto d570 = choose({.driver = "570.124.06", .cuda = "12.8", .gpu = rtx4090});
    EXPECT_EQ(d570.backend, "cu128") << d570.reason;
    EXPECT_NE(d570.reason.find("cu130 needs driver ≥ 580 (CUDA 13.x)"), std::string::npos)
        << d570.reason;

    // Neither cu128 nor cu126 runs natively on 535: cu126, the nearest, leans least on
    // compatibility (cu128 was chosen before).
    auto d535 = choose({.driver = "535.154.05", .cuda = "12.2", .gpu = rtx3090});
    EXPECT_EQ(d535.backend, "cu126") << d535.reason;
    EXPECT_NE(d535.reason.find("cu126: runs on driver 535.154.05 through CUDA minor-version "
                               "compatibility (CUDA 12.6 came with 560.28.03)"),
              std::string::npos)
        << d535.reason;
    EXPECT_EQ(d535.candidates, (std::vector<std::string>{"cu126", "cu128"}));

    // Driver 560 does not know Blackwell: no CUDA build runs (cu128 was chosen before).
    auto d560 = choose({.driver = "560.35.03", .cuda = "12.6", .gpu = rtx5090});
    EXPECT_TRUE(d560.refused()) << d560.reason;
    EXPECT_NE(d560.fix.find("update the driver to ≥ 570 (the first driver for Blackwell GPUs: "
                            "GPU 0 (NVIDIA GeForce RTX 5090, sm_120))"),
              std::string::npos)
        << d560.fix;
    EXPECT_NE(d560.reason.find("cu128 needs driver ≥ 570"), std::string::npos) << d560.reason;
}

TEST(BackendDriverFit, ABlackwellGpuNeedsR570ForEveryBuild) {
    // A build the input names is refused too, with the same fix.
    auto pinned = choose({.driver = "565.57.01", .cuda = "12.7", .gpu = b200}, "cu128");
    EXPECT_TRUE(pinned.refused()) << pinned.reason;
    EXPECT_NE(pinned.fix.find("update the driver to ≥ 570"), std::string::npos) << pinned.fix;
    EXPECT_NE(pinned.fix.find("NVIDIA B200, sm_100"), std::string::npos) << pinned.fix;

    EXPECT_EQ(choose({.driver = "570.86.16", .gpu = rtx5090}).backend, "cu128");
    // Windows: 572.16 is the first driver with RTX 50 support.
    auto win = [](const char* driver) {
        Machine m{.os = OsKind::windows, .driver = driver, .gpu = rtx5090};
        return judge_build(host_of(m), probe_of(m), {2, 11}, "cu128", tables());
    };
    EXPECT_FALSE(win("571.96").runs) << win("571.96").why;
    EXPECT_NE(win("571.96").why.find("needs driver ≥ 572.16"), std::string::npos);
    EXPECT_TRUE(win("572.16").runs) << win("572.16").why;
    // Only the driver's CUDA level known (libcuda): R570 reports CUDA 12.8.
    Machine cuda_only{.cuda = "12.6", .gpu = rtx5090};
    auto v = judge_build(host_of(cuda_only), probe_of(cuda_only), {2, 11}, "cu128", tables());
    EXPECT_FALSE(v.runs) << v.why;
    cuda_only.cuda = "12.8";
    EXPECT_TRUE(
        judge_build(host_of(cuda_only), probe_of(cuda_only), {2, 11}, "cu128", tables()).runs);
    // Older architectures have no floor in the table: an Ada card on 535 runs cu126 and cu128.
    Machine ada{.driver = "535.154.05", .gpu = rtx4090};
    EXPECT_TRUE(judge_build(host_of(ada), probe_of(ada), {2, 11}, "cu128", tables()).runs);
}

TEST(BackendDriverFit, NativeBuildsComeFirstNewestFirst) {
    // 565 runs CUDA 12.6 natively, 12.8 only through compatibility: cu126 (cu128 before).
    auto d565 = choose({.driver = "565.57.01", .cuda = "12.7", .gpu = rtx3090});
    EXPECT_EQ(d565.backend, "cu126") << d565.reason;
    EXPECT_NE(d565.reason.find("cu128 (CUDA 12.8 came with 570.26) runs on driver 565.57.01 only "
                               "through CUDA minor-version compatibility, so cu126, which it runs "
                               "natively, comes first"),
              std::string::npos)
        << d565.reason;
    EXPECT_EQ(d565.candidates, (std::vector<std::string>{"cu126", "cu128"}));
    // 550 runs neither natively: the nearest (cu128 before).
    EXPECT_EQ(choose({.driver = "550.54.14", .cuda = "12.4", .gpu = rtx3090}).backend, "cu126");
    // 575 runs both natively: the newest, as before.
    auto d575 = choose({.driver = "575.51.03", .cuda = "12.9", .gpu = rtx3090});
    EXPECT_EQ(d575.backend, "cu128") << d575.reason;
    EXPECT_EQ(d575.reason.find("minor-version compatibility"), std::string::npos) << d575.reason;
    // A build the input names is still honoured where it runs.
    EXPECT_EQ(choose({.driver = "535.154.05", .gpu = rtx3090}, "cu128").backend, "cu128");
}

TEST(BackendDriverFit, RunsNatively) {
    Machine d565{.driver = "565.57.01", .gpu = rtx3090};
    auto host = host_of(d565);
    auto probe = probe_of(d565);
    EXPECT_TRUE(runs_natively(host, probe, "cu126", tables()));
    EXPECT_FALSE(runs_natively(host, probe, "cu128", tables()));
    EXPECT_FALSE(runs_natively(host, probe, "cpu", tables()));
    // A branch (an override such as AITK_ENV_CUDA_DRIVER_VERSION=580) is compared as a branch.
    Machine branch{.driver = "580"};
    EXPECT_TRUE(runs_natively(host_of(branch), probe_of(branch), "cu130", tables()));
    branch.driver = "570";
    EXPECT_FALSE(runs_natively(host_of(branch), probe_of(branch), "cu130", tables()));
    EXPECT_TRUE(runs_natively(host_of(branch), probe_of(branch), "cu128", tables()));
    // No toolkit driver listed (13.0 on Windows, 13.2 anywhere): the driver's CUDA level.
    Machine win{.os = OsKind::windows, .driver = "581.57", .cuda = "13.0"};
    EXPECT_TRUE(runs_natively(host_of(win), probe_of(win), "cu130", tables()));
    EXPECT_FALSE(runs_natively(host_of(win), probe_of(win), "cu132", tables()));
    EXPECT_EQ(cuda_version_of("cu126"), (CudaVersion{12, 6}));
    EXPECT_EQ(cuda_version_of("cu130"), (CudaVersion{13, 0}));
    EXPECT_EQ(cuda_version_of("rocm7.2"), std::nullopt);
}

TEST(BackendDriverFit, RankByDriverFitReordersOnlyCudaBuilds) {
    Machine d565{.driver = "565.57.01"};
    std::vector<std::string> builds{"cu129", "cu128", "rocm7.2", "cu126", "cpu"};
    std::vector<std::string> ranked;
    for (std::size_t i : rank_by_driver_fit(builds, host_of(d565), probe_of(d565), tables()))
        ranked.push_back(builds[i]);
    EXPECT_EQ(ranked, (std::vector<std::string>{"cu126", "cu128", "rocm7.2", "cu129", "cpu"}));
    // A judged build that runs through compatibility says so.
    Machine d535{.driver = "535.154.05", .gpu = rtx3090};
    auto v = judge_build(host_of(d535), probe_of(d535), {2, 11}, "cu128", tables());
    EXPECT_TRUE(v.runs);
    EXPECT_EQ(v.why, "runs (through CUDA minor-version compatibility: CUDA 12.8 came with 570.26)");
}

TEST(DriverTable, ArchitectureFloors) {
    const auto& d = tables().drivers;
    const auto* blackwell = d.arch_floor({12, 0});
    ASSERT_NE(blackwell, nullptr);
    EXPECT_EQ(blackwell, d.arch_floor({10, 0}));
    EXPECT_EQ(blackwell->name, "Blackwell");
    EXPECT_EQ(blackwell->linux_min_driver.text(), "570");
    EXPECT_EQ(blackwell->windows_min_driver.text(), "572.16");
    EXPECT_EQ(blackwell->cuda, (CudaVersion{12, 8}));
    EXPECT_FALSE(blackwell->source.empty());
    EXPECT_EQ(d.arch_floor({8, 9}), nullptr);
    EXPECT_EQ(d.toolkit_driver({12, 6}, OsKind::linux_os)->text(), "560.28.03");
    EXPECT_EQ(d.toolkit_driver({13, 0}, OsKind::windows), nullptr);

    auto e = parse_driver_table(
        "format: 1\nfamilies: []\narch_min_drivers:\n"
        "  - {name: A, compute_capability_majors: [\"10\", \"10\"], min_driver: {linux: \"570\", "
        "windows: \"572.16\"}, source: s}\n",
        "t.yaml");
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("t.yaml:4:"), std::string::npos) << e.error().message;
    EXPECT_NE(e.error().message.find("compute capability 10.x is listed twice"), std::string::npos)
        << e.error().message;
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
