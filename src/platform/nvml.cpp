#include "aitk/platform/nvml.hpp"

#include <cstring>
#include <iterator>

#include "dynamic_library.hpp"
#include "run_with_timeout.hpp"

namespace aitk::platform {

namespace {

// The NVML ABI subset we call (nvml.h): every function returns an nvmlReturn_t (an int enum)
// and uses the platform's default C calling convention.
using NvmlDevice = void*;
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
using InitFn = int (*)();
using ShutdownFn = int (*)();
using DriverVersionFn = int (*)(char*, unsigned int);
using CudaVersionFn = int (*)(int*);
using CountFn = int (*)(unsigned int*);
using HandleFn = int (*)(unsigned int, NvmlDevice*);
using NameFn = int (*)(NvmlDevice, char*, unsigned int);
using MemoryFn = int (*)(NvmlDevice, NvmlMemory*);
using CapabilityFn = int (*)(NvmlDevice, int*, int*);
using ErrorStringFn = const char* (*)(int);

constexpr int kSuccess = 0;
constexpr unsigned kSystemDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned kDeviceNameBufferSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlMaxDevices = 64;

struct Api {
    InitFn init = nullptr;
    ShutdownFn shutdown = nullptr;
    DriverVersionFn driver_version = nullptr;
    CudaVersionFn cuda_version = nullptr;
    CountFn count = nullptr;
    HandleFn handle = nullptr;
    NameFn name = nullptr;
    MemoryFn memory = nullptr;
    CapabilityFn capability = nullptr;
    ErrorStringFn error_string = nullptr;
};

std::string describe(const Api& api, int code) {
    std::string out = nvml_error_name(code);
    if (api.error_string) {
        const char* text = api.error_string(code);
        if (text && *text) out += " (" + std::string(text) + ")";
    }
    return out;
}

std::string bounded_string(const char* buffer, std::size_t size) {
    return std::string(buffer, strnlen(buffer, size));
}

SourceResult<NvmlReport> query(const detail::DynamicLibrary& lib, const std::string& name) {
    using R = SourceResult<NvmlReport>;
    Api api;
    api.init = lib.function<InitFn>("nvmlInit_v2");
    api.shutdown = lib.function<ShutdownFn>("nvmlShutdown");
    api.driver_version = lib.function<DriverVersionFn>("nvmlSystemGetDriverVersion");
    api.cuda_version = lib.function<CudaVersionFn>("nvmlSystemGetCudaDriverVersion_v2");
    if (!api.cuda_version)
        api.cuda_version = lib.function<CudaVersionFn>("nvmlSystemGetCudaDriverVersion");
    api.count = lib.function<CountFn>("nvmlDeviceGetCount_v2");
    api.handle = lib.function<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
    api.name = lib.function<NameFn>("nvmlDeviceGetName");
    api.memory = lib.function<MemoryFn>("nvmlDeviceGetMemoryInfo");
    api.capability = lib.function<CapabilityFn>("nvmlDeviceGetCudaComputeCapability");
    api.error_string = lib.function<ErrorStringFn>("nvmlErrorString");
    if (!api.init || !api.shutdown || !api.driver_version || !api.count || !api.handle) {
        return R::none(AttemptOutcome::failed,
                       name +
                           " lacks nvmlInit_v2/nvmlSystemGetDriverVersion/nvmlDeviceGetCount_v2: "
                           "not a usable NVML");
    }

    int rc = api.init();
    if (rc != kSuccess) {
        return R::none(AttemptOutcome::failed,
                       name + ": nvmlInit_v2 returned " + describe(api, rc));
    }
    // Shut NVML down on every path out of here.
    struct Shutdown {
        ShutdownFn fn;
        ~Shutdown() { fn(); }
    } shutdown{api.shutdown};

    NvmlReport report;
    report.library = name;
    char version[kSystemDriverVersionBufferSize] = {};
    rc = api.driver_version(version, sizeof version);
    if (rc != kSuccess) {
        return R::none(AttemptOutcome::failed,
                       name + ": nvmlSystemGetDriverVersion returned " + describe(api, rc));
    }
    std::string version_text = bounded_string(version, sizeof version);
    auto driver = DriverVersion::parse(version_text);
    if (!driver) {
        return R::none(AttemptOutcome::failed,
                       name + ": unreadable driver version: " + driver.error().describe());
    }
    report.driver = *driver;
    if (api.cuda_version) {
        int cuda = 0;
        if (api.cuda_version(&cuda) == kSuccess) {
            if (auto v = CudaVersion::from_api_number(cuda)) report.cuda = *v;
        }
    }

    unsigned count = 0;
    rc = api.count(&count);
    if (rc != kSuccess) {
        return R::none(AttemptOutcome::failed,
                       name + ": nvmlDeviceGetCount_v2 returned " + describe(api, rc));
    }
    if (count > kNvmlMaxDevices) count = kNvmlMaxDevices;
    for (unsigned i = 0; i < count; ++i) {
        GpuDevice gpu;
        gpu.vendor = GpuVendor::nvidia;
        NvmlDevice device = nullptr;
        rc = api.handle(i, &device);
        if (rc != kSuccess) {
            report.device_errors.push_back("GPU " + std::to_string(i) + ": " + describe(api, rc));
            report.gpus.push_back(std::move(gpu));
            continue;
        }
        if (api.name) {
            char gpu_name[kDeviceNameBufferSize] = {};
            if ((rc = api.name(device, gpu_name, sizeof gpu_name)) == kSuccess) {
                gpu.name = bounded_string(gpu_name, sizeof gpu_name);
            } else {
                report.device_errors.push_back("GPU " + std::to_string(i) +
                                               " name: " + describe(api, rc));
            }
        }
        if (api.memory) {
            NvmlMemory memory{};
            if ((rc = api.memory(device, &memory)) == kSuccess) {
                gpu.memory_mib = memory.total / (1024ull * 1024ull);
            } else {
                report.device_errors.push_back("GPU " + std::to_string(i) +
                                               " memory: " + describe(api, rc));
            }
        }
        if (api.capability) {
            int major = 0, minor = 0;
            if ((rc = api.capability(device, &major, &minor)) == kSuccess && major > 0 &&
                major < 100 && minor >= 0 && minor < 100) {
                gpu.compute_capability =
                    ComputeCapability{static_cast<unsigned>(major), static_cast<unsigned>(minor)};
            } else {
                report.device_errors.push_back(
                    "GPU " + std::to_string(i) + " compute capability: " +
                    (rc == kSuccess ? "out of range" : describe(api, rc)));
            }
        }
        report.gpus.push_back(std::move(gpu));
    }
    std::string detail = name + ": driver " + report.driver.text() + ", " +
                         std::to_string(report.gpus.size()) +
                         (report.gpus.size() == 1 ? " GPU" : " GPUs");
    return R::answer(std::move(report), detail);
}

}  // namespace

std::string nvml_error_name(int code) {
    static constexpr const char* names[] = {
        "NVML_SUCCESS",
        "NVML_ERROR_UNINITIALIZED",
        "NVML_ERROR_INVALID_ARGUMENT",
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_ALREADY_INITIALIZED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_INSUFFICIENT_SIZE",
        "NVML_ERROR_INSUFFICIENT_POWER",
        "NVML_ERROR_DRIVER_NOT_LOADED",
        "NVML_ERROR_TIMEOUT",
        "NVML_ERROR_IRQ_ISSUE",
        "NVML_ERROR_LIBRARY_NOT_FOUND",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_CORRUPTED_INFOROM",
        "NVML_ERROR_GPU_IS_LOST",
        "NVML_ERROR_RESET_REQUIRED",
        "NVML_ERROR_OPERATING_SYSTEM",
        "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
    };
    if (code >= 0 && static_cast<std::size_t>(code) < std::size(names)) return names[code];
    if (code == 999) return "NVML_ERROR_UNKNOWN";
    return "NVML error " + std::to_string(code);
}

std::vector<std::string> nvml_candidates(OsKind os, const util::Environment& env,
                                         const std::optional<std::string>& override_library) {
    std::vector<std::string> out;
    if (override_library && !override_library->empty()) out.push_back(*override_library);
    switch (os) {
        case OsKind::linux_os:
            out.push_back("libnvidia-ml.so.1");
            out.push_back("/usr/lib/wsl/lib/libnvidia-ml.so.1");
            break;
        case OsKind::windows: {
            std::string system_root =
                util::environment_lookup(env, "SystemRoot", true).value_or("C:\\Windows");
            std::string program_files =
                util::environment_lookup(env, "ProgramFiles", true).value_or("C:\\Program Files");
            out.push_back(system_root + "\\System32\\nvml.dll");
            out.push_back(program_files + "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
            break;
        }
        case OsKind::macos:
        case OsKind::other:
            break;
    }
    return out;
}

SourceResult<NvmlReport> probe_nvml(const std::vector<std::string>& candidates,
                                    std::chrono::milliseconds timeout) {
    using R = SourceResult<NvmlReport>;
    if (candidates.empty()) return R::none(AttemptOutcome::absent, "no NVML on this OS");
    auto body = [candidates]() -> R {
        std::string tried;
        for (const auto& name : candidates) {
            auto lib = detail::DynamicLibrary::open(name);
            if (!lib) {
                tried += (tried.empty() ? "" : "; ") + lib.error();
                continue;
            }
            R result = query(*lib, name);
            if (result.outcome == AttemptOutcome::failed &&
                result.detail.find("not a usable NVML") != std::string::npos) {
                tried += (tried.empty() ? "" : "; ") + result.detail;
                continue;
            }
            return result;
        }
        return R::none(AttemptOutcome::absent, "NVML not found (" + tried + ")");
    };
    auto result = detail::run_with_timeout(std::move(body), timeout);
    if (!result) {
        return R::none(AttemptOutcome::timed_out,
                       "NVML did not answer within " + std::to_string(timeout.count()) +
                           " ms (the driver may be wedged); its thread was abandoned");
    }
    return std::move(*result);
}

}  // namespace aitk::platform
