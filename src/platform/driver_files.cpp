#include "aitk/platform/driver_files.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::platform {

Parsed<DriverVersion> parse_sysfs_driver_version(std::string_view text) {
    auto v = DriverVersion::parse(text);
    if (!v) {
        return parse_error("/sys/module/nvidia/version: " + v.error().message, text,
                           v.error().position);
    }
    return v;
}

Parsed<DriverVersion> parse_proc_driver_version(std::string_view text) {
    std::size_t offset = 0;
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t line_offset = offset;
        offset += line.size() + 1;
        if (line.substr(0, 13) != "NVRM version:") continue;
        std::size_t pos = 13;
        while (pos < line.size()) {
            while (pos < line.size() && util::is_ascii_space(line[pos]))
                ++pos;
            std::size_t start = pos;
            while (pos < line.size() && !util::is_ascii_space(line[pos]))
                ++pos;
            std::string_view word = line.substr(start, pos - start);
            // A driver version has at least one dot and only digits and dots ("x86_64" and
            // "15:37:48" are not versions).
            if (word.find('.') == std::string_view::npos || !util::is_ascii_digit(word.front()))
                continue;
            if (auto v = DriverVersion::parse(word)) return v;
        }
        return parse_error("the NVRM version line has no driver version", text, line_offset);
    }
    return parse_error("no \"NVRM version:\" line in /proc/driver/nvidia/version", text);
}

Parsed<ProcGpuInformation> parse_proc_gpu_information(std::string_view text) {
    ProcGpuInformation info;
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view key = util::trim(line.substr(0, colon));
        std::string_view value = util::trim(line.substr(colon + 1));
        if (key == "Model") info.model = std::string(value);
        if (key == "Bus Location") info.bus_location = std::string(value);
    }
    if (info.model.empty())
        return parse_error("no \"Model:\" line in the GPU information file", text);
    return info;
}

namespace {

template <class T>
std::optional<T> read_hex(const std::filesystem::path& path) {
    auto text = read_small_file(path, 64);
    if (!text) return std::nullopt;
    std::string_view t = util::trim(*text);
    if (t.substr(0, 2) == "0x" || t.substr(0, 2) == "0X") t.remove_prefix(2);
    T value{};
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, 16);
    if (ec != std::errc() || ptr != t.data() + t.size() || t.empty()) return std::nullopt;
    return value;
}

// Names from /proc/driver/nvidia/gpus/*/information, keyed by bus location (lower case).
std::vector<ProcGpuInformation> proc_gpu_names(const ProbeEnvironment& env) {
    std::vector<ProcGpuInformation> out;
    std::error_code ec;
    for (const auto& entry :
         std::filesystem::directory_iterator(env.path("/proc/driver/nvidia/gpus"), ec)) {
        auto text = read_small_file(entry.path() / "information");
        if (!text) continue;
        auto info = parse_proc_gpu_information(*text);
        if (!info) continue;
        if (info->bus_location.empty()) info->bus_location = util::utf8_of(entry.path().filename());
        info->bus_location = util::to_lower(info->bus_location);
        out.push_back(std::move(*info));
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.bus_location < b.bus_location; });
    return out;
}

std::vector<GpuDevice> nvidia_gpus_from_files(const ProbeEnvironment& env) {
    std::vector<GpuDevice> gpus;
    auto names = proc_gpu_names(env);
    for (const auto& dev : scan_pci_display_devices(env)) {
        if (dev.vendor != kPciVendorNvidia) continue;
        GpuDevice gpu;
        gpu.vendor = GpuVendor::nvidia;
        gpu.pci_address = dev.address;
        for (const auto& n : names) {
            if (n.bus_location == util::to_lower(dev.address)) gpu.name = n.model;
        }
        gpus.push_back(std::move(gpu));
    }
    // Without PCI information (some containers), /proc alone still names the GPUs.
    if (gpus.empty()) {
        for (const auto& n : names) {
            GpuDevice gpu;
            gpu.vendor = GpuVendor::nvidia;
            gpu.name = n.model;
            gpu.pci_address = n.bus_location;
            gpus.push_back(std::move(gpu));
        }
    }
    return gpus;
}

std::string gpu_count_text(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
}

}  // namespace

std::vector<PciDisplayDevice> scan_pci_display_devices(const ProbeEnvironment& env) {
    std::vector<PciDisplayDevice> out;
    std::error_code ec;
    for (const auto& entry :
         std::filesystem::directory_iterator(env.path("/sys/bus/pci/devices"), ec)) {
        auto cls = read_hex<std::uint32_t>(entry.path() / "class");
        if (!cls || (*cls >> 16) != 0x03) continue;
        auto vendor = read_hex<std::uint16_t>(entry.path() / "vendor");
        if (!vendor) continue;
        PciDisplayDevice dev;
        dev.address = util::utf8_of(entry.path().filename());
        dev.vendor = *vendor;
        dev.device = read_hex<std::uint16_t>(entry.path() / "device").value_or(0);
        dev.class_code = *cls;
        out.push_back(std::move(dev));
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.address < b.address; });
    return out;
}

bool is_intel_discrete(const PciDisplayDevice& device) {
    if (device.vendor != kPciVendorIntel) return false;
    // "DDDD:BB:dd.f": bus 00 is the root complex, where the integrated GPU lives.
    auto parts = util::split(device.address, ':');
    return parts.size() == 3 && parts[1] != "00";
}

SourceResult<DriverFileReport> probe_sysfs_driver(const ProbeEnvironment& env) {
    using R = SourceResult<DriverFileReport>;
    auto path = env.path("/sys/module/nvidia/version");
    auto text = read_small_file(path, 256);
    if (!text)
        return R::none(AttemptOutcome::absent,
                       "/sys/module/nvidia/version is absent (nvidia module not loaded)");
    auto driver = parse_sysfs_driver_version(*text);
    if (!driver) return R::none(AttemptOutcome::failed, driver.error().describe());
    DriverFileReport report{*driver, nvidia_gpus_from_files(env)};
    std::string detail = "/sys/module/nvidia/version: " + driver->text() + ", " +
                         gpu_count_text(report.gpus.size()) + " on PCI";
    return R::answer(std::move(report), detail);
}

SourceResult<DriverFileReport> probe_procfs_driver(const ProbeEnvironment& env) {
    using R = SourceResult<DriverFileReport>;
    auto text = read_small_file(env.path("/proc/driver/nvidia/version"), 4096);
    if (!text) return R::none(AttemptOutcome::absent, "/proc/driver/nvidia/version is absent");
    auto driver = parse_proc_driver_version(*text);
    if (!driver)
        return R::none(AttemptOutcome::failed,
                       "/proc/driver/nvidia/version: " + driver.error().message);
    DriverFileReport report{*driver, nvidia_gpus_from_files(env)};
    std::string detail = "/proc/driver/nvidia/version: " + driver->text() + ", " +
                         gpu_count_text(report.gpus.size());
    return R::answer(std::move(report), detail);
}

}  // namespace aitk::platform
