#include "aitk/platform/types.hpp"

#include <algorithm>

#include "aitk/util/strings.hpp"

namespace aitk::platform {

std::string_view os_name(OsKind os) noexcept {
    switch (os) {
        case OsKind::linux_os:
            return "linux";
        case OsKind::windows:
            return "windows";
        case OsKind::macos:
            return "macos";
        case OsKind::other:
            return "other";
    }
    return "other";
}

Parsed<OsKind> parse_os_name(std::string_view text) {
    std::string t = util::to_lower(util::trim(text));
    if (t == "linux") return OsKind::linux_os;
    if (t == "windows" || t == "win32") return OsKind::windows;
    if (t == "macos" || t == "darwin") return OsKind::macos;
    return parse_error(
        "unknown OS \"" + std::string(text) + "\" (expected linux, windows or macos)", text);
}

OsKind host_os() noexcept {
#if defined(_WIN32)
    return OsKind::windows;
#elif defined(__APPLE__)
    return OsKind::macos;
#elif defined(__linux__)
    return OsKind::linux_os;
#else
    return OsKind::other;
#endif
}

std::string normalize_arch(std::string_view machine, OsKind os) {
    std::string m = util::to_lower(util::trim(machine));
    if (m == "amd64" || m == "x64" || m == "x86_64" || m == "x86-64") return "x86_64";
    if (m == "arm64" || m == "aarch64" || m == "arm64e") {
        return os == OsKind::macos ? "arm64" : "aarch64";
    }
    if (m == "i386" || m == "i486" || m == "i586" || m == "i686" || m == "x86") return "x86";
    return m;
}

namespace {

// Reads an unsigned decimal of at most `max_digits` digits at `pos`; advances pos.
std::optional<std::uint32_t> read_number(std::string_view s, std::size_t& pos,
                                         std::size_t max_digits) {
    std::size_t start = pos;
    std::uint32_t value = 0;
    while (pos < s.size() && util::is_ascii_digit(s[pos])) {
        if (pos - start >= max_digits) return std::nullopt;
        value = value * 10 + static_cast<std::uint32_t>(s[pos] - '0');
        ++pos;
    }
    if (pos == start) return std::nullopt;
    return value;
}

std::size_t leading_trim(std::string_view original, std::string_view trimmed) {
    return trimmed.empty() ? 0 : static_cast<std::size_t>(trimmed.data() - original.data());
}

}  // namespace

Parsed<ComputeCapability> ComputeCapability::parse(std::string_view text) {
    std::string_view t = util::trim(text);
    std::size_t offset = leading_trim(text, t);
    if (t.empty())
        return parse_error("empty compute capability (expected MAJOR.MINOR such as 8.6)", text);
    std::size_t pos = 0;
    auto major = read_number(t, pos, 2);
    if (!major) {
        return parse_error(
            "compute capability must start with 1-2 digits (expected MAJOR.MINOR such as 8.6)",
            text, offset + pos);
    }
    if (pos >= t.size() || t[pos] != '.') {
        return parse_error("expected '.' after the major compute capability (write 8.6, not 86)",
                           text, offset + pos);
    }
    ++pos;
    auto minor = read_number(t, pos, 2);
    if (!minor)
        return parse_error("expected 1-2 digits for the minor compute capability", text,
                           offset + pos);
    if (pos != t.size()) {
        return parse_error("unexpected text after the compute capability", text, offset + pos);
    }
    return ComputeCapability{*major, *minor};
}

std::string ComputeCapability::to_string() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string ComputeCapability::sm() const {
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

Parsed<DriverVersion> DriverVersion::parse(std::string_view text) {
    std::string_view t = util::trim(text);
    std::size_t offset = leading_trim(text, t);
    if (t.empty())
        return parse_error("empty driver version (expected a version such as 550.54.14)", text);
    DriverVersion v;
    std::size_t pos = 0;
    while (true) {
        auto n = read_number(t, pos, 9);
        if (!n) {
            return parse_error("expected a number in the driver version (such as 550.54.14)", text,
                               offset + pos);
        }
        v.components_.push_back(*n);
        if (pos == t.size()) break;
        if (t[pos] != '.') {
            return parse_error(
                "unexpected character in the driver version (expected digits and dots)", text,
                offset + pos);
        }
        if (v.components_.size() == 4) {
            return parse_error("a driver version has at most 4 parts", text, offset + pos);
        }
        ++pos;
    }
    v.text_ = std::string(t);
    return v;
}

std::strong_ordering operator<=>(const DriverVersion& a, const DriverVersion& b) noexcept {
    std::size_t n = std::max(a.components_.size(), b.components_.size());
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t x = i < a.components_.size() ? a.components_[i] : 0;
        std::uint32_t y = i < b.components_.size() ? b.components_[i] : 0;
        if (x != y) return x <=> y;
    }
    return std::strong_ordering::equal;
}

Parsed<CudaVersion> CudaVersion::from_api_number(long long value) {
    if (value < 1000 || value > 99990) {
        return parse_error("CUDA driver API version " + std::to_string(value) +
                               " is out of range (expected 1000*major + 10*minor, e.g. 12040)",
                           std::to_string(value));
    }
    return CudaVersion{static_cast<unsigned>(value / 1000),
                       static_cast<unsigned>((value % 1000) / 10)};
}

Parsed<CudaVersion> CudaVersion::parse(std::string_view text) {
    std::string_view t = util::trim(text);
    std::size_t offset = leading_trim(text, t);
    if (t.empty())
        return parse_error("empty CUDA version (expected MAJOR.MINOR such as 12.4)", text);
    std::size_t pos = 0;
    auto major = read_number(t, pos, 2);
    if (!major)
        return parse_error("CUDA version must start with 1-2 digits (such as 12.4)", text,
                           offset + pos);
    std::uint32_t minor = 0;
    if (pos < t.size()) {
        if (t[pos] != '.') {
            return parse_error("expected '.' after the CUDA major version", text, offset + pos);
        }
        ++pos;
        auto m = read_number(t, pos, 2);
        if (!m)
            return parse_error("expected 1-2 digits for the CUDA minor version", text,
                               offset + pos);
        minor = *m;
        if (pos != t.size())
            return parse_error("unexpected text after the CUDA version", text, offset + pos);
    }
    if (*major == 0) return parse_error("CUDA major version 0 does not exist", text, offset);
    return CudaVersion{*major, minor};
}

std::string CudaVersion::to_string() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string_view vendor_name(GpuVendor vendor) noexcept {
    switch (vendor) {
        case GpuVendor::nvidia:
            return "nvidia";
        case GpuVendor::amd:
            return "amd";
        case GpuVendor::intel:
            return "intel";
        case GpuVendor::apple:
            return "apple";
    }
    return "nvidia";
}

Parsed<GpuVendor> parse_vendor_name(std::string_view text) {
    for (GpuVendor v : {GpuVendor::nvidia, GpuVendor::amd, GpuVendor::intel, GpuVendor::apple}) {
        if (vendor_name(v) == text) return v;
    }
    return parse_error("unknown GPU vendor \"" + std::string(text) + "\"", text);
}

std::string_view capability_source_name(CapabilitySource source) noexcept {
    switch (source) {
        case CapabilitySource::reported:
            return "reported";
        case CapabilitySource::model_name_table:
            return "model-name-table";
    }
    return "reported";
}

std::string_view source_name(NvidiaSource source) noexcept {
    switch (source) {
        case NvidiaSource::override_env:
            return "override";
        case NvidiaSource::nvml:
            return "nvml";
        case NvidiaSource::libcuda:
            return "libcuda";
        case NvidiaSource::sysfs:
            return "sysfs";
        case NvidiaSource::procfs:
            return "procfs";
        case NvidiaSource::nvidia_smi:
            return "nvidia-smi";
    }
    return "nvml";
}

Parsed<NvidiaSource> parse_source_name(std::string_view text) {
    for (NvidiaSource s : {NvidiaSource::override_env, NvidiaSource::nvml, NvidiaSource::libcuda,
                           NvidiaSource::sysfs, NvidiaSource::procfs, NvidiaSource::nvidia_smi}) {
        if (source_name(s) == text) return s;
    }
    return parse_error("unknown NVIDIA probe source \"" + std::string(text) + "\"", text);
}

}  // namespace aitk::platform
