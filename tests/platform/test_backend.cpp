// Backend choice, table-driven: every scenario of issue 3 and the rules behind it (driver
// family, compute-capability coverage with SASS and PTX, forced backends, overrides).
#include "aitk/platform/backend.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

const Tables& tables() {
    static const Tables t = *builtin_tables();
    return t;
}

struct Gpu {
    const char* name;
    const char* cc;  // nullptr: unknown
};

struct Machine {
    OsKind os = OsKind::linux_os;
    std::string arch = "x86_64";
    const char* driver = nullptr;
    const char* cuda = nullptr;
    NvidiaSource source = NvidiaSource::nvml;
    std::vector<Gpu> nvidia;
    std::vector<std::string> amd;
    bool intel = false;
    bool apple = false;
    bool ignored = false;
};

HostInfo host_of(const Machine& m) {
    HostInfo h;
    h.os = m.os;
    h.arch = m.arch;
    return h;
}

HardwareProbe probe_of(const Machine& m) {
    HardwareProbe p;
    p.gpus_ignored = m.ignored;
    if (m.driver || m.cuda) {
        NvidiaDriver d;
        if (m.driver) d.driver_version = *DriverVersion::parse(m.driver);
        if (m.cuda) d.cuda_version = *CudaVersion::parse(m.cuda);
        d.source = m.source;
        p.nvidia = d;
    }
    for (const auto& g : m.nvidia) {
        GpuDevice d;
        d.name = g.name;
        if (g.cc) d.compute_capability = *ComputeCapability::parse(g.cc);
        p.gpus.push_back(d);
    }
    for (const auto& gfx : m.amd) {
        GpuDevice d;
        d.vendor = GpuVendor::amd;
        d.gfx_target = gfx;
        d.name = "AMD " + gfx;
        p.gpus.push_back(d);
    }
    if (m.intel) {
        GpuDevice d;
        d.vendor = GpuVendor::intel;
        d.name = "Intel Arc";
        p.gpus.push_back(d);
    }
    if (m.apple) {
        GpuDevice d;
        d.vendor = GpuVendor::apple;
        p.gpus.push_back(d);
    }
    return p;
}

BackendRequest request(const char* torch = "2.13.0",
                       std::vector<std::string> preferred = {"cu130", "cu126"}) {
    BackendRequest r;
    r.torch = *aitk::pep::Version::parse(torch);
    r.preferred = std::move(preferred);
    return r;
}

BackendChoice choose(const Machine& m, const BackendRequest& r = request()) {
    return choose_backend(host_of(m), probe_of(m), r, tables());
}

using List = std::vector<std::string>;

struct Scenario {
    const char* title;
    Machine machine;
    BackendRequest req;
    const char* backend;  // nullptr: refused
    List candidates;
    std::vector<std::string> reason_has;
    const char* fix_has;
};

void PrintTo(const Scenario& s, std::ostream* os) {
    *os << s.title;
}

class BackendScenarios : public ::testing::TestWithParam<Scenario> {};

TEST_P(BackendScenarios, ChoosesWhatRuns) {
    const Scenario& s = GetParam();
    BackendChoice c = choose(s.machine, s.req);
    SCOPED_TRACE(c.reason + " | fix: " + c.fix);
    if (s.backend) {
        ASSERT_TRUE(c.backend);
        EXPECT_EQ(*c.backend, s.backend);
    } else {
        EXPECT_TRUE(c.refused());
    }
    EXPECT_EQ(c.candidates, s.candidates);
    for (const auto& part : s.reason_has)
        EXPECT_NE(c.reason.find(part), std::string::npos) << part;
    if (s.fix_has) {
        EXPECT_NE(c.fix.find(s.fix_has), std::string::npos) << s.fix_has;
    }
}

Machine nvidia(const char* driver, std::vector<Gpu> gpus, OsKind os = OsKind::linux_os) {
    Machine m;
    m.driver = driver;
    m.nvidia = std::move(gpus);
    m.os = os;
    return m;
}

BackendRequest forced(const char* backend, bool force = false, const char* torch = "2.13.0") {
    BackendRequest r = request(torch);
    r.forced = backend;
    r.force = force;
    return r;
}

const Scenario kScenarios[] = {
    {"Pascal on a new driver gets cu126",
     nvidia("580.65.06", {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}}),
     request(),
     "cu126",
     {"cu126"},
     {"cu130 has no kernels for sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti)",
      "GPU 0 (NVIDIA GeForce GTX 1080 Ti, sm_61) is covered by cu126 → cu126"},
     nullptr},
    {"Blackwell on a 560 driver is refused with the driver fix",
     nvidia("560.35.03", {{"NVIDIA GeForce RTX 5090", "12.0"}}),
     request(),
     nullptr,
     {},
     {"driver 560.35.03 (nvml) supports CUDA ≤ 12.x", "cu130 needs driver ≥ 580 (CUDA 13.x)",
      // Issue 29: no driver before R570 knows a Blackwell GPU, so cu126 misses that too.
      "cu126 needs driver ≥ 570 (the first driver for Blackwell GPUs: GPU 0 (NVIDIA GeForce RTX "
      "5090, sm_120)) and has no kernels for sm_120 (GPU 0, NVIDIA GeForce RTX 5090)",
      "→ refused"},
     "update the driver to ≥ 580 (CUDA 13.x): cu130 is the only build of torch 2.13.0 with kernels "
     "for GPU 0 "
     "(NVIDIA GeForce RTX 5090, sm_120)"},
    {"Blackwell on 580 gets cu130",
     nvidia("580.65.06", {{"NVIDIA B200", "10.0"}}),
     request(),
     "cu130",
     {"cu130"},
     {"GPU 0 (NVIDIA B200, sm_100) is covered by cu130 → cu130"},
     nullptr},
    {"Hopper on 535 gets cu126",
     nvidia("535.154.05", {{"NVIDIA H100 80GB HBM3", "9.0"}}),
     request(),
     "cu126",
     {"cu126"},
     {"cu130 needs driver ≥ 580 (CUDA 13.x)", "→ cu126"},
     nullptr},
    {"H200 on 580 lists both CUDA builds, as in the contract example",
     nvidia("580.159.03", {{"NVIDIA H200", "9.0"}}),
     request(),
     "cu130",
     {"cu130", "cu126"},
     {"driver 580.159.03 (nvml) supports CUDA ≤ 13.x"},
     nullptr},
    {"No GPU gets cpu",
     Machine{},
     request(),
     "cpu",
     {"cpu"},
     {"no GPU found; torch 2.13.0 → cpu"},
     nullptr},
    {"ROCm gfx1100 gets rocm",
     [] {
         Machine m;
         m.amd = {"gfx1100"};
         return m;
     }(),
     request(),
     "rocm7.2",
     {"rocm7.2"},
     {"AMD GPU gfx1100 found; torch 2.13.0 offers rocm7.2", "→ rocm7.2"},
     nullptr},
    {"Overridden driver and capability",
     [] {
         Machine m = nvidia("560.35.03", {{"", "8.6"}});
         m.source = NvidiaSource::override_env;
         return m;
     }(),
     request(),
     "cu126",
     {"cu126"},
     {"driver 560.35.03 (override) supports CUDA ≤ 12.x", "GPU 0 (sm_86) is covered by cu126"},
     nullptr},
    {"Overridden driver alone: coverage not checked",
     [] {
         Machine m;
         m.driver = "580";
         m.source = NvidiaSource::override_env;
         return m;
     }(),
     request(),
     "cu130",
     {"cu130", "cu126"},
     {"compute capability is not checked (set AITK_ENV_GPU_COMPUTE_CAPABILITY) → cu130"},
     nullptr},
    {"Volta is gone from cu130",
     nvidia("580.65.06", {{"Tesla V100-SXM2-32GB", "7.0"}}),
     request(),
     "cu126",
     {"cu126"},
     {"cu130 has no kernels for sm_70"},
     nullptr},
    {"Ada is covered by the 8.6 SASS",
     nvidia("550.54.14", {{"NVIDIA GeForce RTX 4090", "8.9"}}),
     request(),
     "cu126",
     {"cu126"},
     {"GPU 0 (NVIDIA GeForce RTX 4090, sm_89) is covered by cu126"},
     nullptr},
    {"Kepler has no build in 2.13: the newest torch with one is named",
     nvidia("470.256.02", {{"Tesla K80", "3.7"}}),
     request(),
     nullptr,
     {},
     {"cu130 needs driver ≥ 580 (CUDA 13.x) and has no kernels for sm_37 (GPU 0, Tesla K80)",
      "cu126 needs driver ≥ 525.60.13 (CUDA 12.x) and has no kernels for sm_37 (GPU 0, Tesla K80) "
      "→ refused"},
     "the newest torch with one is 2.7 (cu118)"},
    {"Pascal and Blackwell together have no single build",
     nvidia("580.65.06",
            {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}, {"NVIDIA GeForce RTX 5090", "12.0"}}),
     request(),
     nullptr,
     {},
     {"cu130 has no kernels for sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti)"},
     "select GPUs with CUDA_VISIBLE_DEVICES"},
    {"Windows needs 528.33 for CUDA 12.x",
     nvidia("528.24", {{"NVIDIA GeForce RTX 3090", "8.6"}}, OsKind::windows),
     request(),
     nullptr,
     {},
     {"cu126 needs driver ≥ 528.33 (CUDA 12.x)"},
     "update the driver to ≥ 528.33 (CUDA 12.x)"},
    {"The same driver is enough on Linux",
     nvidia("528.24", {{"NVIDIA GeForce RTX 3090", "8.6"}}),
     request(),
     "cu126",
     {"cu126"},
     {},
     nullptr},
    {"Only the CUDA driver API version is known",
     [] {
         Machine m;
         m.cuda = "12.4";
         m.source = NvidiaSource::libcuda;
         m.nvidia = {{"NVIDIA A100-SXM4-80GB", "8.0"}};
         return m;
     }(),
     request(),
     "cu126",
     {"cu126"},
     {"CUDA driver API 12.4 (libcuda) supports CUDA ≤ 12.x",
      "cu130 needs CUDA 13.x but the driver reports CUDA 12.4"},
     nullptr},
    {"Unknown capability is not checked",
     [] {
         Machine m = nvidia("580.65.06", {{"NVIDIA GeForce RTX 3090", nullptr}});
         m.source = NvidiaSource::sysfs;
         return m;
     }(),
     request(),
     "cu130",
     {"cu130", "cu126"},
     {"GPU 0 (NVIDIA GeForce RTX 3090, compute capability unknown) not checked"},
     nullptr},
    {"A future architecture runs through PTX",
     nvidia("590.10", {{"Future GPU", "13.0"}}),
     request(),
     "cu130",
     {"cu130"},
     {"covered by cu130 (through PTX JIT compilation: slow first start)"},
     nullptr},
    {"No preference: stable builds newest first, experimental last",
     nvidia("580.65.06", {{"NVIDIA H200", "9.0"}}),
     request("2.13.0", {}),
     "cu130",
     {"cu130", "cu126", "cu132"},
     {"torch 2.13.0 offers cu126, cu130 (experimental: cu132)"},
     nullptr},
    {"A preferred build the release lacks is named",
     nvidia("580.65.06", {{"NVIDIA H200", "9.0"}}),
     request("2.13.0", {"cu128", "cu126"}),
     "cu126",
     {"cu126"},
     {"cu128 (preferred) is not offered by torch 2.13.0"},
     nullptr},
    {"Blackwell on torch 2.7 needs the cu128 build",
     nvidia("570.124.06", {{"NVIDIA GeForce RTX 5090", "12.0"}}),
     request("2.7.1", {}),
     "cu128",
     {"cu128"},
     {"cu126 has no kernels for sm_120", "→ cu128"},
     nullptr},
    {"Blackwell on torch 2.6 points at a newer torch",
     nvidia("570.124.06", {{"NVIDIA GeForce RTX 5090", "12.0"}}),
     request("2.6.0", {}),
     nullptr,
     {},
     {},
     "the newest torch with one is 2.13 (cu130)"},
    {"An NVIDIA driver without GPUs gets cpu",
     [] {
         Machine m;
         m.cuda = "12.4";
         m.source = NvidiaSource::libcuda;
         return m;
     }(),
     request(),
     "cpu",
     {"cpu"},
     {"but no NVIDIA GPU was found", "torch 2.13.0 → cpu"},
     nullptr},
    {"Apple Silicon gets mps",
     [] {
         Machine m;
         m.os = OsKind::macos;
         m.arch = "arm64";
         m.apple = true;
         return m;
     }(),
     request(),
     "mps",
     {"mps"},
     {"Apple Silicon (arm64 macOS): torch 2.13.0 from PyPI runs on MPS → mps"},
     nullptr},
    {"Intel Mac gets cpu",
     [] {
         Machine m;
         m.os = OsKind::macos;
         return m;
     }(),
     request(),
     "cpu",
     {"cpu"},
     {},
     nullptr},
    {"ROCm is Linux only",
     [] {
         Machine m;
         m.os = OsKind::windows;
         m.amd = {"gfx1100"};
         return m;
     }(),
     request(),
     nullptr,
     {},
     {"torch's ROCm builds are Linux only → refused"},
     "use --backend cpu to run without the GPU"},
    {"Discrete Intel GPU gets xpu",
     [] {
         Machine m;
         m.intel = true;
         return m;
     }(),
     request(),
     "xpu",
     {"xpu", "cpu"},
     {"discrete Intel GPU found; torch 2.13.0 offers xpu → xpu"},
     nullptr},
    {"NVIDIA and AMD: CUDA first, ROCm listed after",
     [] {
         Machine m = nvidia("580.65.06", {{"NVIDIA H200", "9.0"}});
         m.amd = {"gfx942"};
         return m;
     }(),
     request(),
     "cu130",
     {"cu130", "cu126", "rocm7.2"},
     {},
     nullptr},
    {"AITK_ENV_NO_GPU gets cpu",
     [] {
         Machine m;
         m.ignored = true;
         return m;
     }(),
     request(),
     "cpu",
     {"cpu"},
     {"AITK_ENV_NO_GPU is set: every GPU is ignored; torch 2.13.0 → cpu"},
     nullptr},
    {"Forced backend the release lacks is refused even with --force",
     nvidia("580.65.06", {{"NVIDIA H200", "9.0"}}),
     forced("cu128", true),
     nullptr,
     {},
     {"--backend cu128, but torch 2.13.0 has no cu128 build (it offers cu126, cu130, cu132 "
      "(experimental), rocm7.2, "
      "xpu, cpu) → refused"},
     "choose one of the backends torch 2.13.0 offers"},
    {"Forced backend the GPU cannot run is refused",
     nvidia("580.65.06", {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}}),
     forced("cu130"),
     nullptr,
     {},
     {"--backend cu130, but cu130 has no kernels for sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti) on "
      "this machine → "
      "refused"},
     "drop --backend (detection picks cu126), or add --force to use cu130 anyway"},
    {"... unless --force",
     nvidia("580.65.06", {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}}),
     forced("cu130", true),
     "cu130",
     {"cu130"},
     {"--backend cu130 with --force although cu130 has no kernels for sm_61"},
     "meant for another machine"},
    {"Forced cpu on a GPU machine",
     nvidia("580.65.06", {{"NVIDIA H200", "9.0"}}),
     forced("cpu"),
     "cpu",
     {"cpu"},
     {"--backend cpu (runs anywhere) → cpu"},
     nullptr},
    {"Forced runnable CUDA build",
     nvidia("580.65.06", {{"NVIDIA H200", "9.0"}}),
     forced("cu126"),
     "cu126",
     {"cu126"},
     {"--backend cu126 (runs) → cu126"},
     nullptr},
    {"Forced ROCm without an AMD GPU",
     Machine{},
     forced("rocm7.2"),
     nullptr,
     {},
     {"rocm7.2 cannot run: no AMD GPU found on this machine → refused"},
     "detection picks cpu"},
    {"Forced CUDA on a machine without a driver",
     Machine{},
     forced("cu126"),
     nullptr,
     {},
     {"cu126 cannot run: no NVIDIA driver found"},
     nullptr},
    {"A torch release missing from the tables",
     Machine{},
     request("3.0.0"),
     nullptr,
     {},
     {"torch 3.0.0 is not in aitk-env's backend table (it knows 2.0 … 2.15) → refused"},
     "use a torch release from 2.0 … 2.15"},
    {"... accepted with a forced backend and --force",
     Machine{},
     forced("cu130", true, "3.0.0"),
     "cu130",
     {"cu130"},
     {"--backend cu130 with --force → cu130"},
     nullptr},
};

INSTANTIATE_TEST_SUITE_P(Issue3, BackendScenarios, ::testing::ValuesIn(kScenarios),
                         [](const ::testing::TestParamInfo<Scenario>& info) {
                             return "case" + std::to_string(info.index);
                         });

TEST(BackendReason, ReadsAsOneParagraphLikeTheIssueExample) {
    BackendChoice c = choose(nvidia("560.35.03", {{"NVIDIA GeForce RTX 3090", "8.6"}}));
    EXPECT_EQ(c.reason,
              "driver 560.35.03 (nvml) supports CUDA ≤ 12.x; torch 2.13.0 offers cu126, cu130 "
              "(experimental: cu132); "
              "preferred order cu130, cu126; cu130 needs driver ≥ 580 (CUDA 13.x); GPU 0 (NVIDIA "
              "GeForce RTX 3090, "
              "sm_86) is covered by cu126 → cu126");
    ASSERT_EQ(c.verdicts.size(), 2u);
    EXPECT_FALSE(c.verdicts[0].runs);
    EXPECT_TRUE(c.verdicts[1].runs);
}

TEST(BackendReason, OldDriverNamesTheOldestFamily) {
    BackendChoice c = choose(nvidia("418.87.01", {{"Tesla T4", "7.5"}}));
    EXPECT_TRUE(c.refused());
    EXPECT_NE(c.reason.find("driver 418.87.01 (nvml) is older than every CUDA family torch builds "
                            "use (11.x needs ≥ "
                            "450.80.02)"),
              std::string::npos)
        << c.reason;
    EXPECT_NE(c.fix.find("update the driver to ≥ 525.60.13 (CUDA 12.x)"), std::string::npos)
        << c.fix;
}

TEST(CudaFamily, FromBackendNames) {
    EXPECT_EQ(cuda_family_of("cu126"), 12u);
    EXPECT_EQ(cuda_family_of("cu118"), 11u);
    EXPECT_EQ(cuda_family_of("cu130"), 13u);
    EXPECT_EQ(cuda_family_of("cpu"), std::nullopt);
    EXPECT_EQ(cuda_family_of("rocm6.3"), std::nullopt);
    EXPECT_EQ(cuda_family_of("cu1x6"), std::nullopt);
}

TEST(Default, IsAiToolkits) {
    auto r = BackendRequest::ai_toolkit_default();
    EXPECT_EQ(r.torch.to_string(), "2.13.0");
    EXPECT_EQ(r.preferred, (List{"cu130", "cu126"}));
    EXPECT_FALSE(r.forced);
}

// The 2.15 plan drops cu126, the last build with kernels for GPUs older than Turing: such a
// GPU is refused there, and the fix names the release to pin below.
TEST(BackendReleases, APreTuringGpuIsRefusedByTorch215WithThePinFix) {
    BackendChoice c =
        choose(nvidia("580.65.06", {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}}), request("2.15.0", {}));
    ASSERT_TRUE(c.refused()) << c.reason;
    EXPECT_TRUE(c.candidates.empty());
    EXPECT_NE(c.reason.find("cu130 has no kernels for sm_61"), std::string::npos) << c.reason;
    EXPECT_NE(c.fix.find("the newest torch with one is 2.14 (cu126): pin torch<2.15"),
              std::string::npos)
        << c.fix;
}

// Several releases: the newest with a build that runs wins; the others' builds stay pairs.
TEST(BackendReleases, SeveralReleasesGiveTheNewestThatRunsAndEveryPair) {
    BackendRequest r = request("2.13.0", {});
    r.releases = releases_allowing(*aitk::pep::SpecifierSet::parse(">=2.10"), tables());
    ASSERT_EQ(r.releases.size(), 6u);  // 2.15 … 2.10
    r.torch_text = "torch>=2.10";
    BackendChoice c = choose(nvidia("570.124.06", {{"NVIDIA GeForce RTX 5090", "12.0"}}), r);
    ASSERT_EQ(c.backend, "cu128") << c.reason;
    EXPECT_EQ(c.release->to_string(), "2.11");
    EXPECT_NE(c.reason.find("torch>=2.10 allows torch 2.15, 2.14, 2.13, 2.12, 2.11, 2.10"),
              std::string::npos)
        << c.reason;
    EXPECT_NE(c.reason.find("torch 2.13: "), std::string::npos) << "passed over, with why";
    EXPECT_EQ(c.candidates, (List{"cu128"}));
    EXPECT_EQ(c.releases_of("cu128").size(), 2u);  // 2.11 and 2.10
}

TEST(BackendReleases, SpecifiersSelectReleases) {
    auto keys = [](const char* spec) {
        std::vector<std::string> out;
        for (const auto& k : releases_allowing(*aitk::pep::SpecifierSet::parse(spec), tables()))
            out.push_back(k.to_string());
        return out;
    };
    EXPECT_EQ(keys("==2.7.0+cu128"), (List{"2.7"}));
    EXPECT_EQ(keys("==2.11.*"), (List{"2.11"}));
    EXPECT_EQ(keys(">=2.12,<2.14"), (List{"2.13", "2.12"}));
    EXPECT_EQ(keys("~=2.9.1"), (List{"2.9"}));
    EXPECT_TRUE(keys("<2.0").empty());
    EXPECT_EQ(keys("").size(), tables().releases.size());
}

TEST(BackendReleases, CpuIsOfferedOnlyWhereNoGpuWouldIdle) {
    Machine amd_windows;
    amd_windows.os = OsKind::windows;
    amd_windows.amd = {"gfx1100"};
    EXPECT_TRUE(has_usable_gpu(host_of(amd_windows), probe_of(amd_windows)));
    auto v = judge_build(host_of(amd_windows), probe_of(amd_windows), *ReleaseKey::parse("2.13"),
                         "cpu", tables());
    EXPECT_FALSE(v.runs);
    EXPECT_NE(v.why.find("only with --backend cpu"), std::string::npos) << v.why;
    EXPECT_TRUE(judge_build(host_of(amd_windows), probe_of(amd_windows), *ReleaseKey::parse("2.13"),
                            "cpu", tables(), true)
                    .runs);
    Machine none;
    EXPECT_TRUE(
        judge_build(host_of(none), probe_of(none), *ReleaseKey::parse("2.13"), "cpu", tables())
            .runs);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
