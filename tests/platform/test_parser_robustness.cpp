// Every parser of the platform layer on mutated and random input: it answers (a value or an
// error) and never crashes or reads out of bounds (run under the sanitizer build as well). The
// libFuzzer targets of a later issue go further; this keeps the basic property in every build.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aitk/platform/driver_files.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/libcuda.hpp"
#include "aitk/platform/nvidia_smi.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/platform/rocm.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/platform/types.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

struct Rng {
    std::uint64_t state;
    std::uint64_t next() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    }
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

// Byte flips, inserts of interesting characters, deletions and truncations of `seed`.
std::string mutate(const std::string& seed, Rng& rng) {
    static const std::string interesting = ".,:|-[] \n\r\t0123456789x\xff\xc2\xa0";
    std::string s = seed;
    std::size_t edits = 1 + rng.below(4);
    for (std::size_t i = 0; i < edits; ++i) {
        switch (rng.below(5)) {
            case 0:
                if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.next());
                break;
            case 1:
                s.insert(s.begin() + static_cast<std::ptrdiff_t>(rng.below(s.size() + 1)),
                         interesting[rng.below(interesting.size())]);
                break;
            case 2:
                if (!s.empty()) s.erase(rng.below(s.size()), 1 + rng.below(3));
                break;
            case 3:
                s.resize(rng.below(s.size() + 1));
                break;
            default:
                s += s.substr(rng.below(s.size() + 1));
        }
    }
    return s;
}

struct Target {
    const char* name;
    std::vector<std::string> seeds;
    std::function<void(const std::string&)> parse;
};

std::vector<Target> targets() {
    return {
        {"compute capability",
         {"8.6", "12.0", " 9.0 "},
         [](const std::string& s) { (void)ComputeCapability::parse(s); }},
        {"driver version",
         {"580.65.06", "535.154.05", "580"},
         [](const std::string& s) { (void)DriverVersion::parse(s); }},
        {"cuda version", {"12.4", "13"}, [](const std::string& s) { (void)CudaVersion::parse(s); }},
        {"meminfo",
         {"MemTotal:       24511044 kB\nMemFree: 1 kB\n"},
         [](const std::string& s) { (void)parse_meminfo_total(s); }},
        {"musl banner",
         {"musl libc (x86_64)\nVersion 1.2.4\nDynamic Program Loader\n"},
         [](const std::string& s) { (void)parse_musl_loader_banner(s); }},
        {"glibc", {"glibc 2.36"}, [](const std::string& s) { (void)parse_gnu_libc_version(s); }},
        {"proc driver version",
         {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
          "(dvs)  Tue Jul 15\n"
          "GCC version:  gcc version 13.3.0\n"},
         [](const std::string& s) { (void)parse_proc_driver_version(s); }},
        {"proc gpu information",
         {"Model: \t\t NVIDIA GeForce RTX 3090\nBus Location: \t 0000:01:00.0\n"},
         [](const std::string& s) { (void)parse_proc_gpu_information(s); }},
        {"nvidia-smi csv",
         {"570.133.20, NVIDIA GeForce RTX 4090, 24564 MiB, 8.9\n570.133.20, NVIDIA RTX A6000, "
          "49140 MiB, 8.6\n",
          "575.57.08, NVIDIA GH200 480GB, [N/A], 9.0\n"},
         [](const std::string& s) {
             (void)parse_nvidia_smi_csv(s, true);
             (void)parse_nvidia_smi_csv(s, false);
         }},
        {"libcuda report",
         {"aitk-libcuda-probe 1\nlibrary /x\ndriver 13000\ncount 2\ndevice 0 9.0 143771 NVIDIA "
          "H200\ndevice 1 - - \n"
          "error cuInit 100 CUDA_ERROR_NO_DEVICE\nend\n"},
         [](const std::string& s) { (void)parse_libcuda_report(s); }},
        {"kfd properties",
         {"cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\nvendor_id 4098\n"},
         [](const std::string& s) { (void)parse_kfd_properties(s); }},
        {"rocm_agent_enumerator",
         {"gfx000\ngfx1100\ngfx90a\n"},
         [](const std::string& s) { (void)parse_rocm_agent_enumerator(s); }},
        {"backend name",
         {"cu126", "rocm6.2.4", "cpu"},
         [](const std::string& s) { (void)parse_backend_name(s); }},
        {"overrides",
         {"8.6,12.0", "550.54.14"},
         [](const std::string& s) {
             (void)read_overrides({{"AITK_ENV_GPU_COMPUTE_CAPABILITY", s},
                                   {"AITK_ENV_CUDA_DRIVER_VERSION", s},
                                   {"AITK_ENV_CUDA_VERSION", s},
                                   {"AITK_ENV_NO_GPU", s},
                                   {"AITK_ENV_PROBE_TIMEOUT", s},
                                   {"AITK_ENV_NVIDIA_SOURCES", s},
                                   {"AITK_ENV_TORCH_BACKEND", s}});
         }},
        {"manifest hardware",
         {"torch:\n  version: \"2.13.0\"\n  backends: [cu130, cu126]\nhardware_profiles:\n"
          "  - {id: a, min_ram_gib: 32, min_vram_gib: 24}\n"},
         [](const std::string& s) { (void)parse_manifest_hardware(s, "m.yaml"); }},
    };
}

TEST(ParserRobustness, MutatedInputNeverCrashes) {
    Rng rng{0x9e3779b97f4a7c15ull};
    for (const auto& t : targets()) {
        SCOPED_TRACE(t.name);
        for (const auto& seed : t.seeds) {
            t.parse(seed);
            for (int i = 0; i < 1500; ++i)
                t.parse(mutate(seed, rng));
        }
        t.parse("");
        t.parse(std::string(1, '\0'));
        t.parse(std::string(100000, '9'));
    }
}

TEST(ParserRobustness, RandomBytesNeverCrash) {
    Rng rng{42};
    for (const auto& t : targets()) {
        SCOPED_TRACE(t.name);
        for (int i = 0; i < 300; ++i) {
            std::string s(rng.below(64), '\0');
            for (char& c : s)
                c = static_cast<char>(rng.next());
            t.parse(s);
        }
    }
}

TEST(ParserRobustness, SeedsStillParse) {
    // The seeds are valid inputs: the mutation test starts from real accepted text.
    EXPECT_TRUE(parse_nvidia_smi_csv(targets()[8].seeds[0], true));
    EXPECT_TRUE(parse_libcuda_report(targets()[9].seeds[0]));
    EXPECT_TRUE(parse_manifest_hardware(targets()[14].seeds[0], "m.yaml"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
