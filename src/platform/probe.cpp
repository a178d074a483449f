#include "aitk/platform/probe.hpp"

#include <algorithm>
#include <cstdio>

#include "aitk/platform/driver_files.hpp"
#include "aitk/platform/gpu_models.hpp"
#include "aitk/platform/libcuda.hpp"
#include "aitk/platform/nvidia_smi.hpp"
#include "aitk/platform/nvml.hpp"
#include "aitk/platform/rocm.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::platform {

std::string_view outcome_name(AttemptOutcome outcome) noexcept {
    switch (outcome) {
        case AttemptOutcome::answered:
            return "answered";
        case AttemptOutcome::absent:
            return "absent";
        case AttemptOutcome::failed:
            return "failed";
        case AttemptOutcome::timed_out:
            return "timed-out";
        case AttemptOutcome::skipped:
            return "skipped";
    }
    return "absent";
}

std::vector<GpuDevice> HardwareProbe::gpus_of(GpuVendor vendor) const {
    std::vector<GpuDevice> out;
    for (const auto& g : gpus) {
        if (g.vendor == vendor) out.push_back(g);
    }
    return out;
}

bool HardwareProbe::has(GpuVendor vendor) const {
    return std::any_of(gpus.begin(), gpus.end(),
                       [&](const GpuDevice& g) { return g.vendor == vendor; });
}

namespace {

struct NvidiaFindings {
    std::optional<NvidiaDriver> driver;
    std::vector<GpuDevice> gpus;
    bool gpu_list_complete = false;  // the answering source enumerated devices itself
};

template <class T>
void record(HardwareProbe& probe, std::string_view source, const SourceResult<T>& r) {
    probe.attempts.push_back(ProbeAttempt{std::string(source), r.outcome, r.detail});
}

void skip(HardwareProbe& probe, std::string_view source, const std::string& why) {
    probe.attempts.push_back(ProbeAttempt{std::string(source), AttemptOutcome::skipped, why});
}

bool lacks_capabilities(const std::vector<GpuDevice>& gpus) {
    return std::any_of(gpus.begin(), gpus.end(),
                       [](const GpuDevice& g) { return !g.compute_capability; });
}

// Fills what `smi` knows into `gpus` where the earlier source had nothing (same device order).
void merge_from_smi(std::vector<GpuDevice>& gpus, const SmiReport& smi) {
    if (gpus.empty()) {
        gpus = smi.gpus;
        return;
    }
    if (gpus.size() != smi.gpus.size()) return;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (!gpus[i].compute_capability)
            gpus[i].compute_capability = smi.gpus[i].compute_capability;
        if (gpus[i].name.empty()) gpus[i].name = smi.gpus[i].name;
        if (!gpus[i].memory_mib) gpus[i].memory_mib = smi.gpus[i].memory_mib;
    }
}

NvidiaFindings probe_nvidia(const ProbeEnvironment& env, const DetectionOverrides& overrides,
                            HardwareProbe& probe) {
    NvidiaFindings found;
    constexpr const char* kSources[] = {"nvml", "libcuda", "sysfs", "procfs", "nvidia-smi"};
    bool smi_tried = false;
    std::optional<SourceResult<SmiReport>> smi;
    auto run_smi = [&]() -> const SourceResult<SmiReport>& {
        if (!smi) {
            smi_tried = true;
            smi = probe_nvidia_smi(nvidia_smi_candidates(env.os, env.env, overrides.nvidia_smi),
                                   env.env, env.timeouts.nvidia_smi);
            record(probe, "nvidia-smi", *smi);
        }
        return *smi;
    };

    auto allowed = [&](std::string_view source) {
        if (!overrides.nvidia_sources) return true;
        const auto& list = *overrides.nvidia_sources;
        return std::find(list.begin(), list.end(), source) != list.end();
    };
    std::size_t answered_at = std::size(kSources);
    for (std::size_t i = 0; i < std::size(kSources) && !found.driver; ++i) {
        std::string_view source = kSources[i];
        if (!allowed(source)) {
            skip(probe, source, std::string("not in ") + std::string(kEnvNvidiaSources));
            if (source == "nvidia-smi") smi_tried = true;
            continue;
        }
        if (source == "nvml") {
            auto candidates = env.nvml_candidates
                                  ? *env.nvml_candidates
                                  : nvml_candidates(env.os, env.env, overrides.nvml_library);
            auto r = probe_nvml(candidates, env.timeouts.nvml);
            record(probe, source, r);
            if (r.value) {
                found.driver = NvidiaDriver{r.value->driver, r.value->cuda, NvidiaSource::nvml};
                found.gpus = r.value->gpus;
                found.gpu_list_complete = true;
            }
        } else if (source == "libcuda") {
            auto candidates = env.libcuda_candidates
                                  ? *env.libcuda_candidates
                                  : libcuda_candidates(env.os, env.env, overrides.libcuda_library);
            auto r = probe_libcuda(env.libcuda_helper, candidates, env.env, env.timeouts.libcuda);
            record(probe, source, r);
            if (r.value) {
                found.driver = NvidiaDriver{std::nullopt, r.value->cuda, NvidiaSource::libcuda};
                found.gpus = r.value->gpus;
                // cuInit failing for another reason than "no device" leaves the list unknown.
                found.gpu_list_complete =
                    r.value->failed_call.empty() || r.value->failed_code == 100;
            }
        } else if (source == "sysfs" || source == "procfs") {
            if (env.os != OsKind::linux_os) {
                skip(probe, source, "not Linux");
                continue;
            }
            auto r = source == "sysfs" ? probe_sysfs_driver(env) : probe_procfs_driver(env);
            record(probe, source, r);
            if (r.value) {
                found.driver =
                    NvidiaDriver{r.value->driver, std::nullopt,
                                 source == "sysfs" ? NvidiaSource::sysfs : NvidiaSource::procfs};
                found.gpus = r.value->gpus;
            }
        } else {
            const auto& r = run_smi();
            if (r.value) {
                found.driver =
                    NvidiaDriver{r.value->driver, std::nullopt, NvidiaSource::nvidia_smi};
                found.gpus = r.value->gpus;
                found.gpu_list_complete = true;
            }
        }
        if (found.driver) answered_at = i;
    }
    for (std::size_t i = answered_at + 1; i < std::size(kSources); ++i) {
        if (std::string_view(kSources[i]) == "nvidia-smi") break;  // may still run below
        skip(probe, kSources[i], std::string("not needed: ") + kSources[answered_at] + " answered");
    }
    if (!found.driver) return found;

    // libcuda knows the CUDA version but not the kernel driver's: the module's files do.
    if (!found.driver->driver_version && env.os == OsKind::linux_os &&
        (allowed("sysfs") || allowed("procfs"))) {
        if (auto text = read_small_file(env.path("/sys/module/nvidia/version"), 256)) {
            if (auto v = parse_sysfs_driver_version(*text)) found.driver->driver_version = *v;
        } else if (auto proc = read_small_file(env.path("/proc/driver/nvidia/version"), 4096)) {
            if (auto v = parse_proc_driver_version(*proc)) found.driver->driver_version = *v;
        }
    }
    // The driver's files name GPUs but not their compute capabilities: ask nvidia-smi.
    bool need_details = !found.gpu_list_complete || lacks_capabilities(found.gpus);
    if (need_details && !smi_tried && allowed("nvidia-smi")) {
        const auto& r = run_smi();
        if (r.value) {
            merge_from_smi(found.gpus, *r.value);
            if (!found.driver->driver_version) found.driver->driver_version = r.value->driver;
        }
    } else if (!smi_tried) {
        skip(probe, "nvidia-smi",
             allowed("nvidia-smi")
                 ? std::string("not needed: ") + kSources[answered_at] + " answered"
                 : std::string("not in ") + std::string(kEnvNvidiaSources));
    }
    return found;
}

void apply_capability_override(std::vector<GpuDevice>& gpus,
                               const std::vector<ComputeCapability>& ccs) {
    if (gpus.size() != ccs.size()) {
        gpus.clear();
        for (std::size_t i = 0; i < ccs.size(); ++i) {
            GpuDevice g;
            g.vendor = GpuVendor::nvidia;
            gpus.push_back(std::move(g));
        }
    }
    for (std::size_t i = 0; i < ccs.size(); ++i)
        gpus[i].compute_capability = ccs[i];
}

std::string hex4(std::uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04x", static_cast<unsigned>(v));
    return buf;
}

}  // namespace

HardwareProbe probe_hardware(const ProbeEnvironment& env, const HostInfo& host,
                             const DetectionOverrides& overrides) {
    HardwareProbe probe;
    if (overrides.no_gpu) {
        probe.gpus_ignored = true;
        probe.attempts.push_back(
            ProbeAttempt{"override", AttemptOutcome::answered,
                         std::string(kEnvNoGpu) + " is set: every GPU is ignored"});
        return probe;
    }

    std::vector<GpuDevice> nvidia_gpus;
    if (overrides.driver_version || overrides.cuda_version) {
        probe.nvidia = NvidiaDriver{overrides.driver_version, overrides.cuda_version,
                                    NvidiaSource::override_env};
        probe.attempts.push_back(
            ProbeAttempt{"override", AttemptOutcome::answered, util::join(overrides.active, " ")});
        for (const char* s : {"nvml", "libcuda", "sysfs", "procfs", "nvidia-smi"}) {
            skip(probe, s, "not needed: overridden");
        }
    } else {
        NvidiaFindings found = probe_nvidia(env, overrides, probe);
        probe.nvidia = found.driver;
        nvidia_gpus = std::move(found.gpus);
    }
    if (overrides.compute_capabilities) {
        apply_capability_override(nvidia_gpus, *overrides.compute_capabilities);
        if (!probe.nvidia || probe.nvidia->source != NvidiaSource::override_env) {
            probe.attempts.push_back(ProbeAttempt{
                "override", AttemptOutcome::answered,
                std::string(kEnvComputeCapability) + " sets the GPUs' compute capabilities"});
        }
    }
    probe.gpus = std::move(nvidia_gpus);
    // What no source could say, the GPU's name may: the backend choice needs a capability to
    // apply its architecture rules.
    if (const auto& models = builtin_gpu_models()) {
        infer_compute_capabilities(probe, *models);
    } else {
        probe.attempts.push_back(ProbeAttempt{std::string(kModelNameTableSource),
                                              AttemptOutcome::failed, models.error().message});
    }

    if (env.os == OsKind::linux_os) {
        auto amd = probe_amd_gpus(env);
        record(probe, "rocm", amd);
        if (amd.value) probe.gpus.insert(probe.gpus.end(), amd.value->begin(), amd.value->end());

        std::size_t intel = 0;
        for (const auto& dev : scan_pci_display_devices(env)) {
            if (!is_intel_discrete(dev)) continue;
            GpuDevice gpu;
            gpu.vendor = GpuVendor::intel;
            gpu.name = "Intel GPU (PCI device " + hex4(dev.device) + ")";
            gpu.pci_address = dev.address;
            probe.gpus.push_back(std::move(gpu));
            ++intel;
        }
        probe.attempts.push_back(
            ProbeAttempt{"pci", intel ? AttemptOutcome::answered : AttemptOutcome::absent,
                         intel ? std::to_string(intel) + " discrete Intel GPU(s)"
                               : "no discrete Intel GPU on PCI"});
    }
    if (host.os == OsKind::macos && host.arch == "arm64" && env.os == OsKind::macos) {
        GpuDevice gpu;
        gpu.vendor = GpuVendor::apple;
        gpu.name = "Apple Silicon GPU (MPS)";
        gpu.integrated = true;
        probe.gpus.push_back(std::move(gpu));
        probe.attempts.push_back(
            ProbeAttempt{"apple", AttemptOutcome::answered, "arm64 macOS: Metal (MPS) GPU"});
    }
    return probe;
}

}  // namespace aitk::platform
