// NVML through the real dlopen path, against a fake libnvidia-ml.so.1 built by the tests.
#include "aitk/platform/nvml.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using namespace std::chrono_literals;
using aitk::test::install_fake_nvml;
using aitk::test::TempDir;

TEST(Nvml, ReadsDriverCudaAndEveryGpu) {
    TempDir dir;
    auto log = dir.path / "calls.log";
    auto lib = install_fake_nvml(dir.path,
                                 "driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n"
                                 "gpu=NVIDIA H200|143771|9.0\nlog=" +
                                     log.string() + "\n");
    auto r = probe_nvml({lib.string()}, 5s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    ASSERT_TRUE(r.value);
    EXPECT_EQ(r.value->library, lib.string());
    EXPECT_EQ(r.value->driver.text(), "580.159.03");
    EXPECT_EQ(r.value->cuda->to_string(), "13.0");
    ASSERT_EQ(r.value->gpus.size(), 2u);
    EXPECT_EQ(r.value->gpus[0].name, "NVIDIA H200");
    EXPECT_EQ(r.value->gpus[0].memory_mib, 143771u);
    EXPECT_EQ(r.value->gpus[0].compute_capability->to_string(), "9.0");
    EXPECT_EQ(r.value->gpus[0].vendor, GpuVendor::nvidia);
    EXPECT_TRUE(r.value->device_errors.empty());
    EXPECT_EQ(r.detail, lib.string() + ": driver 580.159.03, 2 GPUs");
    // NVML is initialised once and shut down again.
    EXPECT_EQ(aitk::test::read_file(log),
              "nvmlInit_v2\nnvmlSystemGetDriverVersion\nnvmlShutdown\n");
}

TEST(Nvml, KeepsGoingPastFailingDevices) {
    TempDir dir;
    auto lib =
        install_fake_nvml(dir.path,
                          "driver=535.154.05\ncuda=12020\ngpu=NVIDIA GeForce RTX 3090|24576|8.6\n"
                          "gpu=NVIDIA Tesla K80|11441|-\ngpu=lost|0|9.0|15\n");
    auto r = probe_nvml({lib.string()}, 5s);
    ASSERT_TRUE(r.value) << r.detail;
    ASSERT_EQ(r.value->gpus.size(), 3u);
    EXPECT_EQ(r.value->cuda->to_string(), "12.2");
    EXPECT_FALSE(r.value->gpus[1].compute_capability);
    EXPECT_EQ(r.value->gpus[2].name, "");
    EXPECT_EQ(r.value->device_errors,
              (std::vector<std::string>{
                  "GPU 1 compute capability: NVML_ERROR_NOT_SUPPORTED (Unknown Error)",
                  "GPU 2: NVML_ERROR_GPU_IS_LOST (GPU is lost)"}));
}

TEST(Nvml, MissingCudaVersionIsNotFatal) {
    TempDir dir;
    auto lib = install_fake_nvml(dir.path, "driver=470.256.02\ngpu=Tesla K80|11441|3.7\n");
    auto r = probe_nvml({lib.string()}, 5s);
    ASSERT_TRUE(r.value);
    EXPECT_FALSE(r.value->cuda);
    EXPECT_EQ(r.value->gpus[0].compute_capability->sm(), "sm_37");
}

TEST(Nvml, InitFailureIsReportedByName) {
    TempDir dir;
    auto lib = install_fake_nvml(dir.path, "init_result=9\ndriver=580\n");
    auto r = probe_nvml({lib.string()}, 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    EXPECT_EQ(
        r.detail,
        lib.string() + ": nvmlInit_v2 returned NVML_ERROR_DRIVER_NOT_LOADED (Driver Not Loaded)");
    lib = install_fake_nvml(dir.path / "b", "init_result=18\n");
    r = probe_nvml({lib.string()}, 5s);
    EXPECT_NE(r.detail.find("NVML_ERROR_LIB_RM_VERSION_MISMATCH"), std::string::npos);
}

TEST(Nvml, UnreadableDriverVersionFails) {
    TempDir dir;
    auto lib = install_fake_nvml(dir.path, "driver=banana\n");
    auto r = probe_nvml({lib.string()}, 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    EXPECT_NE(r.detail.find("unreadable driver version"), std::string::npos);
}

TEST(Nvml, AHungInitIsAbandonedAtTheTimeout) {
    TempDir dir;
    auto lib = install_fake_nvml(dir.path, "init_sleep_ms=4000\ndriver=580\n");
    auto begin = std::chrono::steady_clock::now();
    auto r = probe_nvml({lib.string()}, 200ms);
    auto took = std::chrono::steady_clock::now() - begin;
    EXPECT_EQ(r.outcome, AttemptOutcome::timed_out);
    EXPECT_EQ(
        r.detail,
        "NVML did not answer within 200 ms (the driver may be wedged); its thread was abandoned");
    EXPECT_LT(took, 2s);
}

TEST(Nvml, TriesCandidatesInOrder) {
    TempDir dir;
    auto lib = install_fake_nvml(dir.path, "driver=560.35.03\ncuda=12060\n");
    // Something that loads but is not NVML (the fake libcuda) is passed over as well.
    auto not_nvml = aitk::test::install_fake_library(AITK_FAKE_LIBCUDA, dir.path / "other",
                                                     "libnvidia-ml.so.1", "");
    auto r =
        probe_nvml({(dir.path / "missing.so.1").string(), not_nvml.string(), lib.string()}, 5s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->library, lib.string());
    EXPECT_TRUE(r.value->gpus.empty());

    r = probe_nvml({(dir.path / "missing.so.1").string(), not_nvml.string()}, 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
    EXPECT_EQ(r.detail.rfind("NVML not found (", 0), 0u);
    EXPECT_NE(r.detail.find("missing.so.1"), std::string::npos);
    EXPECT_NE(r.detail.find("not a usable NVML"), std::string::npos);

    r = probe_nvml({}, 5s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
    EXPECT_EQ(r.detail, "no NVML on this OS");
}

TEST(Nvml, CandidatesPerOs) {
    EXPECT_EQ(nvml_candidates(OsKind::linux_os, {}, std::string("/opt/x/libnvidia-ml.so.1")),
              (std::vector<std::string>{"/opt/x/libnvidia-ml.so.1", "libnvidia-ml.so.1",
                                        "/usr/lib/wsl/lib/libnvidia-ml.so.1"}));
    EXPECT_EQ(nvml_candidates(OsKind::windows,
                              {{"SystemRoot", "D:\\Win"}, {"ProgramFiles", "E:\\Programs"}},
                              std::nullopt),
              (std::vector<std::string>{"D:\\Win\\System32\\nvml.dll",
                                        "E:\\Programs\\NVIDIA Corporation\\NVSMI\\nvml.dll"}));
    EXPECT_EQ(nvml_candidates(OsKind::windows, {}, std::nullopt).front(),
              "C:\\Windows\\System32\\nvml.dll");
    EXPECT_TRUE(nvml_candidates(OsKind::macos, {}, std::nullopt).empty());
}

TEST(Nvml, ErrorNames) {
    EXPECT_EQ(nvml_error_name(0), "NVML_SUCCESS");
    EXPECT_EQ(nvml_error_name(9), "NVML_ERROR_DRIVER_NOT_LOADED");
    EXPECT_EQ(nvml_error_name(999), "NVML_ERROR_UNKNOWN");
    EXPECT_EQ(nvml_error_name(-3), "NVML error -3");
    EXPECT_EQ(nvml_error_name(50), "NVML error 50");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
