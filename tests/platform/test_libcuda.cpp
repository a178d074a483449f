// libcuda in a child process: the report protocol, and the whole path against a fake
// libcuda.so.1 run by a helper program (the same function aitk-env runs).
#include "aitk/platform/libcuda.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using namespace std::chrono_literals;
using aitk::test::install_fake_libcuda;
using aitk::test::TempDir;

const std::vector<std::string> helper{AITK_LIBCUDA_PROBE_HELPER};

aitk::util::Environment base_env() {
    return {{"PATH", "/usr/bin:/bin"}};
}

TEST(LibcudaReport, Parses) {
    auto r = parse_libcuda_report(
        "aitk-libcuda-probe 1\nlibrary /x/libcuda.so.1\ndriver 13000\ncount 2\n"
        "device 0 9.0 143771 NVIDIA H200\ndevice 1 - - \nend\n");
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->library, "/x/libcuda.so.1");
    EXPECT_EQ(r->cuda->to_string(), "13.0");
    ASSERT_EQ(r->gpus.size(), 2u);
    EXPECT_EQ(r->gpus[0].name, "NVIDIA H200");
    EXPECT_EQ(r->gpus[0].memory_mib, 143771u);
    EXPECT_EQ(r->gpus[0].compute_capability->to_string(), "9.0");
    EXPECT_FALSE(r->gpus[1].compute_capability);
    EXPECT_FALSE(r->gpus[1].memory_mib);
    EXPECT_TRUE(r->failed_call.empty());

    auto e = parse_libcuda_report(
        "aitk-libcuda-probe 1\nlibrary x\ndriver 12040\nerror cuInit 100 "
        "CUDA_ERROR_NO_DEVICE\nend\n");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->failed_call, "cuInit");
    EXPECT_EQ(e->failed_code, 100);
    EXPECT_EQ(e->failed_name, "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(e->cuda->to_string(), "12.4");
}

TEST(LibcudaReport, RejectsBrokenReports) {
    auto e = parse_libcuda_report("aitk-libcuda-probe 1\ndriver 13000\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the libcuda probe report was cut short (no \"end\" line)");
    e = parse_libcuda_report("hello\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "the libcuda probe report does not start with \"aitk-libcuda-probe 1\"");
    e = parse_libcuda_report("aitk-libcuda-probe 1\ndriver x\nend\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "\"driver\" needs a number");
    EXPECT_EQ(e.error().position, 28u);
    e = parse_libcuda_report("aitk-libcuda-probe 1\ndevice 0 86 1 x\nend\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("device capability: ", 0), 0u);
    EXPECT_FALSE(parse_libcuda_report("aitk-libcuda-probe 1\nbogus line\nend\n"));
    EXPECT_FALSE(parse_libcuda_report("aitk-libcuda-probe 1\nend\nmore\n"));
    EXPECT_FALSE(parse_libcuda_report(""));
    EXPECT_FALSE(parse_libcuda_report("aitk-libcuda-probe 1\ncount 99999\nend\n"));
}

TEST(LibcudaChild, WritesTheProtocolItsParentReads) {
    TempDir dir;
    auto lib =
        install_fake_libcuda(dir.path, "cuda=12080\ngpu=NVIDIA GeForce RTX 5090|32607|12.0\n");
    std::ostringstream out;
    EXPECT_EQ(libcuda_child_main({(dir.path / "none.so").string(), lib.string()}, out), 0);
    EXPECT_EQ(out.str(),
              "aitk-libcuda-probe 1\nlibrary " + lib.string() +
                  "\ndriver 12080\ncount 1\ndevice 0 12.0 32607 NVIDIA GeForce RTX 5090\nend\n");
    std::ostringstream none;
    libcuda_child_main({(dir.path / "none.so").string()}, none);
    auto parsed = parse_libcuda_report(none.str());
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->failed_call, "dlopen");
}

TEST(LibcudaProbe, RunsInAChildWithCudaVisibleDevicesUnset) {
    TempDir dir;
    auto lib =
        install_fake_libcuda(dir.path,
                             "cuda=13000\nhonour_visible_devices=1\ngpu=NVIDIA H200|143771|9.0\n"
                             "gpu=NVIDIA H200|143771|9.0\n");
    auto env = base_env();
    env["CUDA_VISIBLE_DEVICES"] = "";  // would make cuInit fail with CUDA_ERROR_NO_DEVICE
    auto r = probe_libcuda(helper, {lib.string()}, env, 10s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->cuda->to_string(), "13.0");
    ASSERT_EQ(r.value->gpus.size(), 2u);
    EXPECT_EQ(r.value->gpus[1].compute_capability->sm(), "sm_90");
    EXPECT_EQ(r.detail, lib.string() + ": CUDA 13.0, 2 GPUs");
}

TEST(LibcudaProbe, FakeHonoursAnEmptyVisibleDevicesListLikeTheRealOne) {
    // The premise of the test above: with the variable kept, cuInit does fail.
    TempDir dir;
    auto lib =
        install_fake_libcuda(dir.path, "cuda=13000\nhonour_visible_devices=1\ngpu=x|1|9.0\n");
    aitk::util::ProcessRequest req;
    req.argv = {AITK_LIBCUDA_PROBE_HELPER, lib.string()};
    req.environment = base_env();
    req.environment_changes = {{"CUDA_VISIBLE_DEVICES", ""}};
    auto run = aitk::util::run_process(req);
    ASSERT_TRUE(run);
    auto report = parse_libcuda_report(run->out);
    ASSERT_TRUE(report);
    EXPECT_EQ(report->failed_call, "cuInit");
    EXPECT_EQ(report->failed_name, "CUDA_ERROR_NO_DEVICE");
}

TEST(LibcudaProbe, NoDeviceStillGivesTheDriverApiVersion) {
    TempDir dir;
    auto lib = install_fake_libcuda(dir.path, "cuda=12040\ninit_result=100\n");
    auto r = probe_libcuda(helper, {lib.string()}, base_env(), 10s);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered);
    EXPECT_EQ(r.value->cuda->to_string(), "12.4");
    EXPECT_TRUE(r.value->gpus.empty());
    EXPECT_EQ(r.detail, lib.string() + ": CUDA 12.4, cuInit returned CUDA_ERROR_NO_DEVICE");
}

TEST(LibcudaProbe, ACrashIsAFailureNotOurs) {
    TempDir dir;
    auto lib = install_fake_libcuda(dir.path, "cuda=12040\ncrash_in_init=1\n");
    auto r = probe_libcuda(helper, {lib.string()}, base_env(), 10s);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    EXPECT_EQ(r.detail, "the libcuda probe was killed by signal 11");
}

TEST(LibcudaProbe, AHangIsKilledAtTheTimeout) {
    TempDir dir;
    auto lib = install_fake_libcuda(dir.path, "cuda=12040\ninit_sleep_ms=30000\n");
    auto begin = std::chrono::steady_clock::now();
    auto r = probe_libcuda(helper, {lib.string()}, base_env(), 300ms);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 3s);
    EXPECT_EQ(r.outcome, AttemptOutcome::timed_out);
    EXPECT_EQ(r.detail, "the libcuda probe did not finish within 300 ms and was killed");
}

TEST(LibcudaProbe, AbsentLibraryAndMissingHelper) {
    auto r = probe_libcuda(helper, {"/nonexistent/libcuda.so.1"}, base_env(), 10s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
    EXPECT_NE(r.detail.find("/nonexistent/libcuda.so.1"), std::string::npos);
    r = probe_libcuda({}, {"libcuda.so.1"}, base_env(), 10s);
    EXPECT_EQ(r.outcome, AttemptOutcome::skipped);
    r = probe_libcuda({"/nonexistent/helper"}, {"libcuda.so.1"}, base_env(), 10s);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    r = probe_libcuda(helper, {}, base_env(), 10s);
    EXPECT_EQ(r.outcome, AttemptOutcome::absent);
}

TEST(LibcudaProbe, CandidatesPerOs) {
    EXPECT_EQ(libcuda_candidates(OsKind::linux_os, {}, std::nullopt),
              (std::vector<std::string>{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}));
    EXPECT_EQ(libcuda_candidates(OsKind::windows, {{"SYSTEMROOT", "C:\\W"}}, std::string("x.dll")),
              (std::vector<std::string>{"x.dll", "C:\\W\\System32\\nvcuda.dll"}));
    EXPECT_TRUE(libcuda_candidates(OsKind::macos, {}, std::nullopt).empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
