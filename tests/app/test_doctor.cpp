// The doctor verb on fake machines: probes, backend choice, checks, JSON keys, exit codes, the
// probe cache and input errors.
#include "aitk/app/doctor.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "../platform/fake_machine.hpp"
#include "aitk/net/tls.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk;
using aitk::test::install_fake_nvml;
using aitk::test::TempDir;
using aitk::test::write_file;
using nlohmann::json;

// A fake machine with 64 GiB of RAM and nothing else unless a test adds it.
struct Machine {
    TempDir root{"doctor"};
    app::DoctorOptions options;
    Machine() {
        write_file(root.path / "proc/meminfo", "MemTotal:       67108864 kB\n");
        options.probe = aitk::test::isolated_environment(root.path);
        options.prefix = root.path / "prefix";
        options.discover_pythons = false;
    }
    void nvml(const std::string& config) {
        auto lib = install_fake_nvml(root.path / "nvml", config);
        options.probe.nvml_candidates = std::vector<std::string>{lib.string()};
    }
    const app::DoctorCheck* check(const app::DoctorReport& r, const std::string& id) {
        for (const auto& c : r.checks) {
            if (c.id == id) return &c;
        }
        return nullptr;
    }
};

TEST(Doctor, NoGpuMeansCpuAndNullNvidia) {
    Machine m;
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.exit_code(), 0);
    json j = r.to_json();
    for (const char* key : {"os", "arch", "libc", "memory_gib", "gpus", "nvidia", "backends",
                            "backend", "reason", "pythons", "checks"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["nvidia"], nullptr);
    EXPECT_EQ(j["backend"], "cpu");
    EXPECT_EQ(j["backends"], json::array({"cpu"}));
    EXPECT_EQ(j["gpus"], json::array());
    EXPECT_EQ(j["memory_gib"], 64.0);
    EXPECT_EQ(j["os"], "linux");
    EXPECT_EQ(j["torch"], "2.13.0");
    EXPECT_EQ(m.check(r, "gpu")->status, app::CheckStatus::warn);
    EXPECT_EQ(m.check(r, "backend")->status, app::CheckStatus::ok);
    EXPECT_EQ(m.check(r, "profile.flux-lora")->status, app::CheckStatus::warn);
    EXPECT_NE(m.check(r, "profile.flux-lora")->message.find("needs a GPU with ≥ 24.0 GiB"),
              std::string::npos);
    EXPECT_EQ(m.check(r, "msvc-runtime"), nullptr);  // Linux
    for (const auto& c : j["checks"]) {
        EXPECT_TRUE(c.contains("id") && c.contains("status") && c.contains("message"));
        EXPECT_TRUE(c["status"] == "ok" || c["status"] == "warn" || c["status"] == "fail");
    }
}

TEST(Doctor, H200OnNvmlIsReadyForEveryProfile) {
    Machine m;
    m.nvml("driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n");
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.exit_code(), 0);
    json j = r.to_json();
    EXPECT_EQ(
        j["nvidia"],
        json::parse(R"({"driver_version":"580.159.03","cuda_version":"13.0","source":"nvml"})"));
    EXPECT_EQ(
        j["gpus"][0],
        json::parse(
            R"({"vendor":"nvidia","name":"NVIDIA H200","memory_mib":143771,"compute_capability":"9.0"})"));
    // CPU torch is not a candidate on a GPU machine (only --backend cpu chooses it).
    EXPECT_EQ(j["backends"], json::parse(R"(["cu130","cu126"])"));
    EXPECT_EQ(j["backend"], "cu130");
    EXPECT_EQ(m.check(r, "gpu")->status, app::CheckStatus::ok);
    EXPECT_EQ(
        m.check(r, "gpu")->message,
        "NVIDIA driver 580.159.03, CUDA 13.0 (from nvml); 1 GPU: NVIDIA H200 (sm_90, 140.4 GiB)");
    ASSERT_EQ(r.profiles.size(), 2u);
    EXPECT_TRUE(r.profiles[0].ready) << r.profiles[0].message;
    EXPECT_TRUE(r.profiles[1].ready);
    EXPECT_EQ(m.check(r, "profile.flux-lora")->status, app::CheckStatus::ok);
}

TEST(Doctor, SixteenGigabyteCardRunsOnlyTheLowVramProfile) {
    Machine m;
    m.nvml("driver=570.133.20\ncuda=12080\ngpu=NVIDIA GeForce RTX 4080|16376|8.9\n");
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.choice.backend, "cu126");
    EXPECT_FALSE(r.profiles[0].ready);
    EXPECT_EQ(
        r.profiles[0].message,
        "FLUX.1 LoRA training (flux-lora): needs ≥ 24.0 GiB of GPU memory (largest: 16.0 GiB)");
    EXPECT_TRUE(r.profiles[1].ready) << r.profiles[1].message;
    EXPECT_EQ(r.exit_code(), 0);  // readiness is a warning
}

TEST(Doctor, BlackwellOnAnOldDriverIsUnsatisfiable) {
    Machine m;
    m.options.probe.env["AITK_ENV_CUDA_DRIVER_VERSION"] = "560.35.03";
    m.options.probe.env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "12.0";
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.exit_code(), 3);
    json j = r.to_json();
    EXPECT_EQ(j["backend"], nullptr);
    EXPECT_EQ(j["nvidia"]["source"], "override");
    EXPECT_NE(j["fix"].get<std::string>().find("update the driver to ≥ 580"), std::string::npos);
    EXPECT_EQ(m.check(r, "backend")->status, app::CheckStatus::fail);
    EXPECT_EQ(m.check(r, "overrides")->status, app::CheckStatus::warn);
    EXPECT_EQ(m.check(r, "overrides")->message,
              "detection overridden: AITK_ENV_CUDA_DRIVER_VERSION=560.35.03 "
              "AITK_ENV_GPU_COMPUTE_CAPABILITY=12.0");
}

TEST(Doctor, ForcedBackends) {
    Machine m;
    m.nvml("driver=580.65.06\ncuda=13000\ngpu=NVIDIA GeForce GTX 1080 Ti|11264|6.1\n");
    m.options.backend = "cu130";
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.exit_code(), 3);
    EXPECT_NE(r.choice.reason.find("--backend cu130, but cu130 has no kernels for sm_61"),
              std::string::npos);
    m.options.force = true;
    r = app::run_doctor(m.options);
    EXPECT_EQ(r.exit_code(), 0);
    EXPECT_EQ(r.choice.backend, "cu130");
    EXPECT_EQ(m.check(r, "backend")->status, app::CheckStatus::warn);

    // The environment variable forces too, and says so.
    m.options.backend = "auto";
    m.options.force = false;
    m.options.probe.env["AITK_ENV_TORCH_BACKEND"] = "cpu";
    r = app::run_doctor(m.options);
    EXPECT_EQ(r.choice.backend, "cpu");
    EXPECT_EQ(r.choice.reason, "AITK_ENV_TORCH_BACKEND cpu (runs anywhere) → cpu");
}

TEST(Doctor, BadInputIsExitTwo) {
    Machine m;
    m.options.backend = "cuda";
    try {
        app::run_doctor(m.options);
        FAIL() << "no error";
    } catch (const util::InputError& e) {
        EXPECT_EQ(e.code(), util::ExitCode::bad_input);
        EXPECT_EQ(std::string(e.what()).rfind("--backend: \"cuda\" is not a torch backend", 0), 0u)
            << e.what();
    }
    m.options.backend = "auto";
    m.options.probe.env["AITK_ENV_GPU_COMPUTE_CAPABILITY"] = "86";
    try {
        app::run_doctor(m.options);
        FAIL() << "no error";
    } catch (const util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "AITK_ENV_GPU_COMPUTE_CAPABILITY: expected '.' after the major compute "
                  "capability (write 8.6, not "
                  "86) (at column 3 of '86')");
    }
}

TEST(Doctor, ManifestSetsTorchBackendsAndProfiles) {
    Machine m;
    // An R570 driver, the first for Blackwell GPUs: 572.16 is its first Windows release.
#ifdef _WIN32
    m.nvml("driver=572.16\ncuda=12080\ngpu=NVIDIA GeForce RTX 5090|32607|12.0\n");
#else
    m.nvml("driver=570.124.06\ncuda=12080\ngpu=NVIDIA GeForce RTX 5090|32607|12.0\n");
#endif
    auto manifest = m.root.path / "manifest.yaml";
    write_file(
        manifest,
        "name: demo\ntorch:\n  version: \"2.7.1\"\n  backends: [cu128, cu126]\nhardware_profiles:\n"
        "  - {id: sdxl-lora, description: SDXL LoRA, min_ram_gib: 16, min_vram_gib: 12}\n");
    m.options.manifest = manifest;
    auto r = app::run_doctor(m.options);
    EXPECT_EQ(r.torch_version, "2.7.1");
    EXPECT_EQ(r.choice.backend, "cu128");
    EXPECT_EQ(r.choice.candidates, (std::vector<std::string>{"cu128"}));
    ASSERT_EQ(r.profiles.size(), 1u);
    EXPECT_EQ(r.profiles[0].id, "sdxl-lora");
    EXPECT_TRUE(r.profiles[0].ready);

    write_file(manifest, "torch:\n  version: [2.7]\n");
    try {
        app::run_doctor(m.options);
        FAIL();
    } catch (const util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  manifest.string() + ":2:12: torch.version: expected a string");
    }
    m.options.manifest = m.root.path / "missing.yaml";
    EXPECT_THROW(app::run_doctor(m.options), util::InputError);
}

TEST(Doctor, ProbeIsCachedUntilRefresh) {
    Machine m;
    m.nvml("driver=580.159.03\ncuda=13000\ngpu=NVIDIA H200|143771|9.0\n");
    m.options.cache_dir = m.root.path / "cache";
    auto first = app::run_doctor(m.options);
    EXPECT_FALSE(first.probe_from_cache);
    auto second = app::run_doctor(m.options);
    EXPECT_TRUE(second.probe_from_cache);
    EXPECT_EQ(second.hardware.gpus, first.hardware.gpus);
    EXPECT_EQ(second.to_json()["probe"]["cached"], true);
    m.options.refresh = true;
    EXPECT_FALSE(app::run_doctor(m.options).probe_from_cache);
    // An override changes the key: no stale answer.
    m.options.refresh = false;
    m.options.probe.env["AITK_ENV_NO_GPU"] = "1";
    auto ignored = app::run_doctor(m.options);
    EXPECT_FALSE(ignored.probe_from_cache);
    EXPECT_EQ(ignored.choice.backend, "cpu");
}

TEST(Doctor, TimedOutProbesAreNotCached) {
    Machine m;
    m.options.cache_dir = m.root.path / "cache";
    m.options.probe.env["AITK_ENV_NVIDIA_SMI"] = AITK_FAKE_NVIDIA_SMI;
    m.options.probe.env["AITK_FAKE_SMI_MODE"] = "hang";
    m.options.probe.env["AITK_ENV_PROBE_TIMEOUT"] = "0.3";
    auto begin = std::chrono::steady_clock::now();
    auto r = app::run_doctor(m.options);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
    EXPECT_EQ(m.check(r, "probe")->status, app::CheckStatus::warn);
    EXPECT_NE(m.check(r, "probe")->message.find("did not finish within 300 ms"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(m.options.cache_dir / "probe" / "hardware.json"));
}

TEST(Doctor, WindowsChecksRunAsData) {
    Machine m;
    m.options.probe.os = platform::OsKind::windows;
    m.options.probe.env["SystemRoot"] = (m.root.path / "Windows").string();
    std::filesystem::create_directories(m.root.path / "Windows" / "System32");
    auto r = app::run_doctor(m.options);
    const auto* c = m.check(r, "msvc-runtime");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->status, app::CheckStatus::fail);
    EXPECT_EQ(r.exit_code(), 1);
    EXPECT_NE(c->message.find("https://aka.ms/vs/17/release/vc_redist.x64.exe"), std::string::npos);
}

TEST(Checks, LongPathsSayWhatIsLeftBelowSitePackagesAndHowToTurnThemOn) {
    EXPECT_EQ(app::check_long_paths(true, "x").status, app::CheckStatus::ok);
#ifdef _WIN32
    const std::filesystem::path prefix = "C:\\p";
    const std::string site = "C:\\p\\Lib\\site-packages\\";
#else
    const std::filesystem::path prefix = "/p";
    const std::string site = "/p/Lib/site-packages/";
#endif
    auto off = app::check_long_paths(false, prefix);
    EXPECT_EQ(off.status, app::CheckStatus::warn);
    EXPECT_NE(off.message.find("which leaves " + std::to_string(259 - site.size()) +
                               " for the files below " + site + " "),
              std::string::npos)
        << off.message;
    EXPECT_NE(off.message.find("reg add HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem /v "
                               "LongPathsEnabled /t REG_DWORD /d 1 /f"),
              std::string::npos)
        << off.message;
    // A prefix that uses up the limit leaves nothing (not a wrapped-around count).
    EXPECT_NE(app::check_long_paths(false, prefix / std::string(300, 'x'))
                  .message.find("which leaves 0 for"),
              std::string::npos);
}

TEST(Checks, MsvcRuntime) {
    TempDir dir;
    auto c = app::check_msvc_runtime(dir.path);
    EXPECT_EQ(c.status, app::CheckStatus::fail);
    EXPECT_EQ(c.message,
              "msvcp140.dll, vcruntime140.dll, vcruntime140_1.dll, vcomp140.dll missing from " +
                  dir.path.string() +
                  ": `import torch` fails with WinError 126 (fbgemm.dll); install the Visual C++ "
                  "2015-2022 Redistributable: https://aka.ms/vs/17/release/vc_redist.x64.exe");
    for (const char* dll :
         {"msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll", "vcomp140.dll"}) {
        write_file(dir.path / dll, "MZ");
    }
    EXPECT_EQ(app::check_msvc_runtime(dir.path).status, app::CheckStatus::ok);
}

TEST(Checks, CudaVisibleDevices) {
    using app::check_cuda_visible_devices;
    EXPECT_FALSE(check_cuda_visible_devices(std::nullopt, 2));
    auto c = check_cuda_visible_devices(std::string(""), 2);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, app::CheckStatus::warn);
    EXPECT_EQ(c->message.rfind("CUDA_VISIBLE_DEVICES is set but empty", 0), 0u);
    c = check_cuda_visible_devices(std::string("0,1"), 4);
    EXPECT_EQ(c->status, app::CheckStatus::ok);
    EXPECT_EQ(c->message, "CUDA_VISIBLE_DEVICES=0,1 selects 2 of 4 GPUs");
    c = check_cuda_visible_devices(std::string("-1"), 2);
    EXPECT_EQ(c->status, app::CheckStatus::warn);
    EXPECT_EQ(c->message,
              "CUDA_VISIBLE_DEVICES=-1 hides every GPU: its first entry (-1) is a negative index");
    c = check_cuda_visible_devices(std::string("0,2,1"), 2);
    EXPECT_EQ(c->message,
              "CUDA_VISIBLE_DEVICES=0,2,1: entry 2 (2) is not a GPU of this machine (2 GPUs); CUDA "
              "ignores it and "
              "every entry after it, so only GPU 0 is visible");
    c = check_cuda_visible_devices(std::string("3"), 1);
    EXPECT_EQ(c->message,
              "CUDA_VISIBLE_DEVICES=3 hides every GPU: its first entry (3) is not a GPU of this "
              "machine (1 GPU)");
    c = check_cuda_visible_devices(std::string("1,0,1"), 2);
    EXPECT_EQ(
        c->message,
        "CUDA_VISIBLE_DEVICES=1,0,1: entry 3 (1) names a GPU already listed; remove the repeat");
    c = check_cuda_visible_devices(std::string("gpu0"), 2);
    EXPECT_EQ(c->message,
              "CUDA_VISIBLE_DEVICES=gpu0 hides every GPU: its first entry (gpu0) is not a GPU of "
              "this machine (2 GPUs)");
    c = check_cuda_visible_devices(std::string("GPU-3c5ae1f0-aaaa,MIG-1"), 1);
    EXPECT_EQ(c->status, app::CheckStatus::ok);
    EXPECT_FALSE(check_cuda_visible_devices(std::string("0"), 0));  // no NVIDIA GPU: nothing to say
}

}  // namespace

namespace {

// An environment of `values` only, for the tls check.
std::function<std::optional<std::string>(const char*)> env_of(
    std::map<std::string, std::string> values) {
    return [values](const char* name) -> std::optional<std::string> {
        const auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

}  // namespace

// doctor names the CA certificates that verify servers: the system's, found where the
// distribution keeps them (the portable binary's own OpenSSL only knows Debian's place), or
// the ones the user names; none is a warning with the fix, a named one missing a failure.
TEST(Checks, TlsNamesTheCaBundleItUses) {
    using app::CheckStatus;
    const auto fedora = [](const std::filesystem::path& path) {
        return path == "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem";
    };
    const auto nothing = [](const std::filesystem::path&) { return false; };
    if (net::trusts_system_store()) {
        const auto store = app::check_tls_trust(std::nullopt, env_of({}), nothing);
        EXPECT_EQ(store.status, CheckStatus::ok);
        EXPECT_NE(store.message.find("Windows certificate store"), std::string::npos);
    } else {
        const auto system = app::check_tls_trust(std::nullopt, env_of({}), fedora);
        EXPECT_EQ(system.id, "tls");
        EXPECT_EQ(system.status, CheckStatus::ok);
        EXPECT_NE(
            system.message.find("CA bundle: /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem "
                                "(the system's, where RHEL, Fedora"),
            std::string::npos)
            << system.message;
        const auto none = app::check_tls_trust(std::nullopt, env_of({}), nothing);
        EXPECT_EQ(none.status, CheckStatus::warn);
        EXPECT_NE(none.message.find("/etc/ssl/ca-bundle.pem"), std::string::npos) << none.message;
        EXPECT_NE(none.message.find("ca-certificates package"), std::string::npos);
    }
    TempDir dir;
    write_file(dir.path / "corp.pem", "x");
    const auto named = app::check_tls_trust(dir.path / "corp.pem", env_of({}), fedora);
    EXPECT_EQ(named.status, CheckStatus::ok);
    EXPECT_NE(named.message.find("corp.pem (from --cert)"), std::string::npos) << named.message;
    const auto from_env = app::check_tls_trust(
        std::nullopt, env_of({{"SSL_CERT_DIR", aitk::util::utf8_of(dir.path)}}), nothing);
    EXPECT_EQ(from_env.status, CheckStatus::ok);
    EXPECT_NE(from_env.message.find("(from SSL_CERT_DIR)"), std::string::npos) << from_env.message;
    const auto missing = app::check_tls_trust(
        std::nullopt, env_of({{"SSL_CERT_FILE", "/nonexistent/ca.pem"}}), fedora);
    EXPECT_EQ(missing.status, CheckStatus::fail);
    EXPECT_NE(missing.message.find("'/nonexistent/ca.pem' (from SSL_CERT_FILE) does not exist"),
              std::string::npos)
        << missing.message;
}

}  // namespace AITK_FILE_LOCAL
