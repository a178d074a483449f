#include "aitk/platform/libcuda.hpp"

#include <charconv>
#include <cstring>
#include <ostream>

#include "aitk/util/strings.hpp"
#include "dynamic_library.hpp"

#if defined(_WIN32)
#define AITK_CUDAAPI __stdcall
#else
#define AITK_CUDAAPI
#endif

namespace aitk::platform {

namespace {

constexpr std::string_view kHeader = "aitk-libcuda-probe 1";
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kMaxDevices = 64;

using CuInit = int(AITK_CUDAAPI*)(unsigned int);
using CuDriverGetVersion = int(AITK_CUDAAPI*)(int*);
using CuDeviceGetCount = int(AITK_CUDAAPI*)(int*);
using CuDeviceGet = int(AITK_CUDAAPI*)(int*, int);
using CuDeviceGetAttribute = int(AITK_CUDAAPI*)(int*, int, int);
using CuDeviceGetName = int(AITK_CUDAAPI*)(char*, int, int);
using CuDeviceTotalMem = int(AITK_CUDAAPI*)(std::size_t*, int);
using CuGetErrorName = int(AITK_CUDAAPI*)(int, const char**);

std::string error_name(CuGetErrorName fn, int code) {
    const char* name = nullptr;
    if (fn && fn(code, &name) == 0 && name) return name;
    switch (code) {
        case 3:
            return "CUDA_ERROR_NOT_INITIALIZED";
        case 35:
            return "CUDA_ERROR_INSUFFICIENT_DRIVER";
        case 100:
            return "CUDA_ERROR_NO_DEVICE";
        case 101:
            return "CUDA_ERROR_INVALID_DEVICE";
        case 803:
            return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
        case 999:
            return "CUDA_ERROR_UNKNOWN";
        default:
            return "CUDA error " + std::to_string(code);
    }
}

// Names end the device line, so strip line breaks a driver will never put there anyway.
std::string one_line(std::string s) {
    for (char& c : s) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return s;
}

}  // namespace

std::vector<std::string> libcuda_candidates(OsKind os, const util::Environment& env,
                                            const std::optional<std::string>& override_library) {
    std::vector<std::string> out;
    if (override_library && !override_library->empty()) out.push_back(*override_library);
    if (os == OsKind::linux_os) {
        out.push_back("libcuda.so.1");
        out.push_back("/usr/lib/wsl/lib/libcuda.so.1");
    } else if (os == OsKind::windows) {
        std::string system_root =
            util::environment_lookup(env, "SystemRoot", true).value_or("C:\\Windows");
        out.push_back(system_root + "\\System32\\nvcuda.dll");
    }
    return out;
}

int libcuda_child_main(const std::vector<std::string>& candidates, std::ostream& out) {
    out << kHeader << "\n";
    std::string tried;
    for (const auto& name : candidates) {
        auto lib = detail::DynamicLibrary::open(name);
        if (!lib) {
            tried += (tried.empty() ? "" : "; ") + lib.error();
            continue;
        }
        out << "library " << one_line(name) << "\n";
        auto init = lib->function<CuInit>("cuInit");
        auto version = lib->function<CuDriverGetVersion>("cuDriverGetVersion");
        auto count = lib->function<CuDeviceGetCount>("cuDeviceGetCount");
        auto get = lib->function<CuDeviceGet>("cuDeviceGet");
        auto attribute = lib->function<CuDeviceGetAttribute>("cuDeviceGetAttribute");
        auto get_name = lib->function<CuDeviceGetName>("cuDeviceGetName");
        auto total_mem = lib->function<CuDeviceTotalMem>("cuDeviceTotalMem_v2");
        auto err_name = lib->function<CuGetErrorName>("cuGetErrorName");
        if (!init || !version || !count || !get || !attribute) {
            out << "error dlsym 0 missing-driver-api-functions\nend\n";
            return 0;
        }
        auto fail = [&](const char* call, int code) {
            out << "error " << call << " " << code << " " << error_name(err_name, code)
                << "\nend\n";
            return 0;
        };
        int driver = 0;
        int rc = version(&driver);
        if (rc != 0) return fail("cuDriverGetVersion", rc);
        out << "driver " << driver << "\n";
        if ((rc = init(0)) != 0) return fail("cuInit", rc);
        int n = 0;
        if ((rc = count(&n)) != 0) return fail("cuDeviceGetCount", rc);
        if (n < 0) n = 0;
        if (n > kMaxDevices) n = kMaxDevices;
        out << "count " << n << "\n";
        for (int i = 0; i < n; ++i) {
            int device = 0;
            if ((rc = get(&device, i)) != 0) return fail("cuDeviceGet", rc);
            int major = -1, minor = -1;
            std::string cc = "-";
            if (attribute(&major, kAttrComputeCapabilityMajor, device) == 0 &&
                attribute(&minor, kAttrComputeCapabilityMinor, device) == 0) {
                cc = std::to_string(major) + "." + std::to_string(minor);
            }
            std::string memory = "-";
            std::size_t bytes = 0;
            if (total_mem && total_mem(&bytes, device) == 0)
                memory = std::to_string(bytes / (1024u * 1024u));
            char buffer[256] = {};
            std::string gpu_name;
            if (get_name && get_name(buffer, static_cast<int>(sizeof buffer - 1), device) == 0) {
                gpu_name = one_line(std::string(buffer, strnlen(buffer, sizeof buffer)));
            }
            out << "device " << i << " " << cc << " " << memory << " " << gpu_name << "\n";
        }
        out << "end\n";
        return 0;
    }
    out << "error dlopen 0 " << one_line(tried.empty() ? "no candidates" : tried) << "\nend\n";
    return 0;
}

Parsed<LibcudaReport> parse_libcuda_report(std::string_view text) {
    LibcudaReport report;
    std::size_t offset = 0;
    bool header = false, ended = false;
    auto number = [](std::string_view s, long long& value) {
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
        return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
    };
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t line_offset = offset;
        offset += line.size() + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        if (ended)
            return parse_error("text after \"end\" in the libcuda probe report", text, line_offset);
        if (!header) {
            if (line != kHeader) {
                return parse_error(
                    "the libcuda probe report does not start with \"" + std::string(kHeader) + "\"",
                    text, line_offset);
            }
            header = true;
            continue;
        }
        std::size_t space = line.find(' ');
        std::string_view key = line.substr(0, space);
        std::string_view rest =
            space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
        if (key == "end") {
            ended = true;
        } else if (key == "library") {
            report.library = std::string(rest);
        } else if (key == "driver") {
            long long v = 0;
            if (!number(rest, v))
                return parse_error("\"driver\" needs a number", text, line_offset + 7);
            auto cuda = CudaVersion::from_api_number(v);
            if (!cuda) return parse_error(cuda.error().message, text, line_offset + 7);
            report.cuda = *cuda;
        } else if (key == "count") {
            long long v = 0;
            if (!number(rest, v) || v < 0 || v > kMaxDevices) {
                return parse_error("\"count\" needs a device count between 0 and 64", text,
                                   line_offset + 6);
            }
        } else if (key == "device") {
            // device <index> <major.minor|-> <memory_mib|-> <name...>
            auto fields = util::split(rest, ' ');
            if (fields.size() < 3) {
                return parse_error("\"device\" needs an index, a capability and a memory size",
                                   text, line_offset);
            }
            GpuDevice gpu;
            gpu.vendor = GpuVendor::nvidia;
            if (fields[1] != "-") {
                auto cc = ComputeCapability::parse(fields[1]);
                if (!cc)
                    return parse_error("device capability: " + cc.error().message, text,
                                       line_offset);
                gpu.compute_capability = *cc;
            }
            if (fields[2] != "-") {
                long long mib = 0;
                if (!number(fields[2], mib) || mib < 0) {
                    return parse_error("device memory must be a number of MiB or \"-\"", text,
                                       line_offset);
                }
                gpu.memory_mib = static_cast<std::uint64_t>(mib);
            }
            std::size_t name_at = fields[0].size() + fields[1].size() + fields[2].size() + 3;
            gpu.name = name_at < rest.size() ? std::string(util::trim(rest.substr(name_at)))
                                             : std::string();
            report.gpus.push_back(std::move(gpu));
        } else if (key == "error") {
            auto fields = util::split(rest, ' ');
            long long code = 0;
            if (fields.size() < 3 || !number(fields[1], code)) {
                return parse_error("\"error\" needs a call, a code and a name", text, line_offset);
            }
            report.failed_call = std::string(fields[0]);
            report.failed_code = static_cast<int>(code);
            std::size_t name_at = fields[0].size() + fields[1].size() + 2;
            report.failed_name = std::string(rest.substr(std::min(name_at, rest.size())));
        } else {
            return parse_error(
                "unknown line \"" + std::string(key) + "\" in the libcuda probe report", text,
                line_offset);
        }
    }
    if (!header) return parse_error("empty libcuda probe report", text);
    if (!ended)
        return parse_error("the libcuda probe report was cut short (no \"end\" line)", text);
    return report;
}

SourceResult<LibcudaReport> probe_libcuda(const std::vector<std::string>& helper,
                                          const std::vector<std::string>& candidates,
                                          const util::Environment& env,
                                          std::chrono::milliseconds timeout) {
    using R = SourceResult<LibcudaReport>;
    if (candidates.empty()) return R::none(AttemptOutcome::absent, "no libcuda on this OS");
    if (helper.empty())
        return R::none(AttemptOutcome::skipped, "no helper program to run the libcuda probe in");
    util::ProcessRequest req;
    req.argv = helper;
    req.argv.insert(req.argv.end(), candidates.begin(), candidates.end());
    req.environment = env;
    // cuInit fails on an empty or invalid CUDA_VISIBLE_DEVICES; the probe wants every device.
    req.environment_changes = {{"CUDA_VISIBLE_DEVICES", std::nullopt}};
    req.timeout = timeout;
    req.output_limit = 64 * 1024;
    auto run = util::run_process(req);
    if (!run)
        return R::none(AttemptOutcome::failed,
                       "cannot run the libcuda probe: " + run.error().message);
    if (run->end == util::ProcessEnd::timed_out) {
        return R::none(AttemptOutcome::timed_out,
                       "the libcuda probe " + run->describe() + " and was killed");
    }
    if (!run->succeeded()) {
        return R::none(AttemptOutcome::failed,
                       "the libcuda probe " + run->describe() +
                           (run->err.empty() ? "" : ": " + std::string(util::trim(run->err))));
    }
    auto report = parse_libcuda_report(run->out);
    if (!report)
        return R::none(AttemptOutcome::failed,
                       "unreadable libcuda probe report: " + report.error().message);
    if (report->failed_call == "dlopen") {
        return R::none(AttemptOutcome::absent, "libcuda not found (" + report->failed_name + ")");
    }
    if (!report->cuda) {
        return R::none(AttemptOutcome::failed, report->library + ": " + report->failed_call +
                                                   " returned " + report->failed_name);
    }
    std::string detail = report->library + ": CUDA " + report->cuda->to_string();
    if (!report->failed_call.empty()) {
        detail += ", " + report->failed_call + " returned " + report->failed_name;
    } else {
        detail += ", " + std::to_string(report->gpus.size()) +
                  (report->gpus.size() == 1 ? " GPU" : " GPUs");
    }
    return R::answer(std::move(*report), detail);
}

}  // namespace aitk::platform
