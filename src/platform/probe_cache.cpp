#include "aitk/platform/probe_cache.hpp"

#include <chrono>
#include <cstdio>
#include <system_error>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/platform/driver_files.hpp"
#include "aitk/platform/json.hpp"
#include "aitk/platform/libcuda.hpp"
#include "aitk/platform/nvidia_smi.hpp"
#include "aitk/platform/nvml.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/time.h>
#endif

namespace aitk::platform {

namespace {

std::string boot_identity(const ProbeEnvironment& env) {
#if defined(_WIN32)
    (void)env;
    using namespace std::chrono;
    auto boot = system_clock::now() - milliseconds(GetTickCount64());
    // Rounded so two runs in the same boot agree despite clock jitter.
    return "boot@" + std::to_string(duration_cast<seconds>(boot.time_since_epoch()).count() / 60);
#elif defined(__APPLE__)
    (void)env;
    timeval tv{};
    std::size_t size = sizeof tv;
    int mib[2] = {CTL_KERN, KERN_BOOTTIME};
    if (sysctl(mib, 2, &tv, &size, nullptr, 0) == 0) return "boot@" + std::to_string(tv.tv_sec);
    return "boot@unknown";
#else
    return "boot@" +
           read_small_file(env.path("/proc/sys/kernel/random/boot_id"), 128).value_or("unknown");
#endif
}

void add_file_stat(std::string& out, const std::filesystem::path& path) {
    std::error_code ec;
    if (!path.is_absolute() || !std::filesystem::is_regular_file(path, ec)) return;
    auto size = std::filesystem::file_size(path, ec);
    auto mtime = std::filesystem::last_write_time(path, ec);
    out += "file " + util::utf8_of(path) + " " + std::to_string(size) + " " +
           std::to_string(mtime.time_since_epoch().count()) + "\n";
}

std::uint64_t fnv1a64(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

std::string probe_cache_key_material(const ProbeEnvironment& env, std::string_view tool_version) {
    std::string m = "aitk-env " + std::string(tool_version) + "\nos " +
                    std::string(os_name(env.os)) + "\nroot " + util::utf8_of(env.root) + "\n" +
                    boot_identity(env) + "\n";
    for (const char* f : {"/sys/module/nvidia/version", "/proc/driver/nvidia/version"}) {
        m += std::string(f) + " " + read_small_file(env.path(f), 4096).value_or("-") + "\n";
    }
    for (const auto& dev : scan_pci_display_devices(env)) {
        char line[64];
        std::snprintf(line, sizeof line, "pci %s %04x:%04x %06x\n", dev.address.c_str(), dev.vendor,
                      dev.device, dev.class_code);
        m += line;
    }
    // Every override and the lookup paths: a different fake library or PATH is a different probe.
    for (std::string_view name :
         {kEnvDriverVersion, kEnvCudaVersion, kEnvComputeCapability, kEnvNoGpu, kEnvNvmlLibrary,
          kEnvLibcudaLibrary, kEnvNvidiaSmi, kEnvNvidiaSources, std::string_view("PATH")}) {
        m += "env " + std::string(name) + "=" + env.get(name).value_or("") + "\n";
    }
    auto nvml = env.nvml_candidates ? *env.nvml_candidates
                                    : nvml_candidates(env.os, env.env, env.get(kEnvNvmlLibrary));
    for (const auto& c : nvml)
        add_file_stat(m, c);
    auto cuda = env.libcuda_candidates
                    ? *env.libcuda_candidates
                    : libcuda_candidates(env.os, env.env, env.get(kEnvLibcudaLibrary));
    for (const auto& c : cuda)
        add_file_stat(m, c);
    for (const auto& c : nvidia_smi_candidates(env.os, env.env, env.get(kEnvNvidiaSmi)))
        add_file_stat(m, c);
    return m;
}

std::string probe_cache_key(const ProbeEnvironment& env, std::string_view tool_version) {
    char hex[17];
    std::snprintf(
        hex, sizeof hex, "%016llx",
        static_cast<unsigned long long>(fnv1a64(probe_cache_key_material(env, tool_version))));
    return hex;
}

std::filesystem::path probe_cache_file(const std::filesystem::path& cache_dir) {
    return cache_dir / "probe" / "hardware.json";
}

std::optional<HardwareProbe> load_cached_probe(const std::filesystem::path& file,
                                               std::string_view key) {
    auto text = read_small_file(file, 1u << 20);
    if (!text) return std::nullopt;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    auto k = j.find("key");
    auto f = j.find("format");
    if (k == j.end() || !k->is_string() || k->get<std::string>() != key) return std::nullopt;
    if (f == j.end() || *f != 1) return std::nullopt;
    auto p = j.find("probe");
    if (p == j.end()) return std::nullopt;
    auto probe = probe_from_json(*p);
    if (!probe) return std::nullopt;
    probe->attempts.insert(probe->attempts.begin(), ProbeAttempt{"cache", AttemptOutcome::answered,
                                                                 "from " + util::utf8_of(file) +
                                                                     " (--refresh probes again)"});
    return std::move(*probe);
}

bool store_cached_probe(const std::filesystem::path& file, std::string_view key,
                        const HardwareProbe& probe) {
    nlohmann::json j{{"format", 1}, {"key", key}, {"probe", to_json(probe)}};
    try {
        std::error_code ec;
        std::filesystem::create_directories(file.parent_path(), ec);
        fs::write_file_atomic(file, j.dump(2) + "\n");
        return true;
    } catch (const util::Error&) {
        return false;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace aitk::platform
