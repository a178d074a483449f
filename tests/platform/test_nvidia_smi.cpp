// nvidia-smi: the CSV parser on recorded outputs, and the probe against a fake nvidia-smi
// program (multi-GPU, an old driver without compute_cap, no devices, a hang).
#include "aitk/platform/nvidia_smi.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using namespace std::chrono_literals;
using aitk::test::TempDir;
using aitk::test::write_file;

std::string recorded(const std::string& name) {
    return std::string(AITK_FAKES_DIR) + "/nvidia-smi/" + name;
}

aitk::util::Environment smi_env(const std::string& mode, const std::string& output = {},
                                const std::string& output_no_cc = {}) {
    aitk::util::Environment env{{"PATH", "/usr/bin:/bin"}, {"AITK_FAKE_SMI_MODE", mode}};
    if (!output.empty()) env["AITK_FAKE_SMI_OUTPUT"] = recorded(output);
    if (!output_no_cc.empty()) env["AITK_FAKE_SMI_OUTPUT_NO_CC"] = recorded(output_no_cc);
    return env;
}

const std::vector<std::filesystem::path> fake{AITK_FAKE_NVIDIA_SMI};

TEST(SmiCsv, ParsesRecordedOutputs) {
    auto r = parse_nvidia_smi_csv(aitk::test::read_file(recorded("multi-gpu.csv")), true);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->driver.text(), "570.133.20");
    ASSERT_EQ(r->gpus.size(), 2u);
    EXPECT_EQ(r->gpus[0].name, "NVIDIA GeForce RTX 4090");
    EXPECT_EQ(r->gpus[0].memory_mib, 24564u);
    EXPECT_EQ(r->gpus[0].compute_capability->to_string(), "8.9");
    EXPECT_EQ(r->gpus[1].name, "NVIDIA RTX A6000");

    r = parse_nvidia_smi_csv(aitk::test::read_file(recorded("old-driver-no-cc.csv")), false);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->gpus.size(), 2u);
    EXPECT_FALSE(r->gpus[0].compute_capability);
    EXPECT_FALSE(r->compute_cap_queried);

    r = parse_nvidia_smi_csv(aitk::test::read_file(recorded("memory-na.csv")), true);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->gpus[0].name, "NVIDIA GH200 480GB");
    EXPECT_FALSE(r->gpus[0].memory_mib);
}

TEST(SmiCsv, KeepsCommasInNamesAndHandlesUnavailableValues) {
    auto r = parse_nvidia_smi_csv(
        "560.35.03, Quadro RTX 8000, Special, Edition, 48601 MiB, [N/A]\r\n", true);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->gpus[0].name, "Quadro RTX 8000, Special, Edition");
    EXPECT_FALSE(r->gpus[0].compute_capability);
    EXPECT_EQ(r->gpus[0].memory_mib, 48601u);
}

TEST(SmiCsv, RejectsWithPreciseErrors) {
    auto e = parse_nvidia_smi_csv("580.65.06, NVIDIA H200\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "expected 4 comma-separated fields per GPU, got 2");
    e = parse_nvidia_smi_csv("580.65.06, A, 1 MiB, 9.0\n570.1, B, 1 MiB, 9.0\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "GPUs report different driver versions");
    EXPECT_EQ(e.error().position, 25u);
    e = parse_nvidia_smi_csv("580.65.06, A, lots, 9.0\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "memory.total \"lots\" is not a size in MiB");
    e = parse_nvidia_smi_csv("580.65.06, A, 1 MiB, 90\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("compute_cap \"90\": ", 0), 0u);
    e = parse_nvidia_smi_csv(
        "Failed to initialize NVML: Driver/library version mismatch, x, y, z\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(
        e.error().message.rfind(
            "driver_version \"Failed to initialize NVML: Driver/library version mismatch\"", 0),
        0u);
    e = parse_nvidia_smi_csv("\n\n", true);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "nvidia-smi printed no GPU lines");
}

TEST(SmiProbe, AsksForExactlyTheDocumentedQuery) {
    TempDir dir;
    auto env = smi_env("ok", "h200.csv");
    env["AITK_FAKE_SMI_ARGS_LOG"] = (dir.path / "args").string();
    auto r = probe_nvidia_smi(fake, env, 5s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->driver.text(), "580.159.03");
    EXPECT_EQ(r.value->gpus[0].memory_mib, 143771u);
    EXPECT_EQ(aitk::test::read_file(dir.path / "args"),
              "--query-gpu=driver_version,name,memory.total,compute_cap --format=csv,noheader\n");
}

TEST(SmiProbe, OldDriverIsAskedAgainWithoutComputeCap) {
    TempDir dir;
    auto env = smi_env("old-driver", "h200.csv", "old-driver-no-cc.csv");
    env["AITK_FAKE_SMI_ARGS_LOG"] = (dir.path / "args").string();
    auto r = probe_nvidia_smi(fake, env, 5s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->driver.text(), "470.256.02");
    EXPECT_EQ(r.value->gpus.size(), 2u);
    EXPECT_FALSE(r.value->gpus[0].compute_capability);
    EXPECT_NE(r.detail.find("this driver does not report compute_cap"), std::string::npos);
    EXPECT_EQ(aitk::test::read_file(dir.path / "args"),
              "--query-gpu=driver_version,name,memory.total,compute_cap --format=csv,noheader\n"
              "--query-gpu=driver_version,name,memory.total --format=csv,noheader\n");
}

TEST(SmiProbe, NoDevicesAndDriverFailures) {
    auto r = probe_nvidia_smi(fake, smi_env("no-devices"), 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
    EXPECT_EQ(r.detail, std::string(AITK_FAKE_NVIDIA_SMI) + ": No devices were found");
    r = probe_nvidia_smi(fake, smi_env("driver-failure"), 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    EXPECT_NE(r.detail.find("exited with status 9: NVIDIA-SMI has failed"), std::string::npos);
}

TEST(SmiProbe, AHangIsKilledWithItsChildren) {
    auto begin = std::chrono::steady_clock::now();
    auto r = probe_nvidia_smi(fake, smi_env("hang"), 300ms);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 3s);
    EXPECT_EQ(r.outcome, AttemptOutcome::timed_out);
    EXPECT_EQ(r.detail,
              std::string(AITK_FAKE_NVIDIA_SMI) + " did not finish within 300 ms and was killed");
}

TEST(SmiProbe, MissingProgram) {
    auto r = probe_nvidia_smi({}, smi_env("ok"), 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
    r = probe_nvidia_smi({"/nonexistent/nvidia-smi"}, smi_env("ok"), 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
}

TEST(SmiCandidates, LinuxOverrideThenPath) {
    TempDir dir;
    write_file(dir.path / "bin/nvidia-smi", "#!/bin/sh\n");
    std::filesystem::permissions(dir.path / "bin/nvidia-smi", std::filesystem::perms::owner_all);
    auto c = nvidia_smi_candidates(OsKind::linux_os, {{"PATH", (dir.path / "bin").string()}},
                                   std::string("/x/smi"));
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[0], "/x/smi");
    EXPECT_EQ(c[1], dir.path / "bin/nvidia-smi");
    EXPECT_TRUE(nvidia_smi_candidates(OsKind::linux_os, {{"PATH", (dir.path / "none").string()}},
                                      std::nullopt)
                    .empty() ||
                std::filesystem::exists("/usr/lib/wsl/lib/nvidia-smi"));
}

TEST(SmiCandidates, WindowsSearchOffPathAsData) {
    TempDir dir;
    auto windows = dir.path / "Windows";
    auto program_files = dir.path / "Program Files";
    write_file(program_files / "NVIDIA Corporation/NVSMI/nvidia-smi.exe", "MZ");
    write_file(windows / "System32/DriverStore/FileRepository/nvlti.inf_amd64_b/nvidia-smi.exe",
               "MZ");
    write_file(windows / "System32/DriverStore/FileRepository/nvamui.inf_amd64_a/nvidia-smi.exe",
               "MZ");
    write_file(windows / "System32/DriverStore/FileRepository/realtek.inf_amd64/nvidia-smi.exe",
               "MZ");
    aitk::util::Environment env{{"Path", (dir.path / "empty").string()},
                                {"SystemRoot", windows.string()},
                                {"ProgramFiles", program_files.string()}};
    auto c = nvidia_smi_candidates(OsKind::windows, env, std::nullopt);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c[0], program_files / "NVIDIA Corporation" / "NVSMI" / "nvidia-smi.exe");
    EXPECT_EQ(c[1],
              windows / "System32/DriverStore/FileRepository/nvamui.inf_amd64_a/nvidia-smi.exe");
    EXPECT_EQ(c[2],
              windows / "System32/DriverStore/FileRepository/nvlti.inf_amd64_b/nvidia-smi.exe");

    write_file(windows / "System32/nvidia-smi.exe", "MZ");
    write_file(dir.path / "onpath/nvidia-smi.exe", "MZ");
    env["Path"] = (dir.path / "onpath").string();
    c = nvidia_smi_candidates(OsKind::windows, env, std::nullopt);
    ASSERT_EQ(c.size(), 5u);
    // PATH first (case-insensitive "Path"); on Windows the file may be spelt with PATHEXT's
    // ".EXE".
    EXPECT_TRUE(std::filesystem::equivalent(c[0], dir.path / "onpath" / "nvidia-smi.exe")) << c[0];
    EXPECT_EQ(c[1], windows / "System32" / "nvidia-smi.exe");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
