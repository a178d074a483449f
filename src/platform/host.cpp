#include "aitk/platform/host.hpp"

#include <charconv>
#include <cstring>
#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif
#endif

namespace aitk::platform {

std::string LibcInfo::to_string() const {
    if (family.empty()) return {};
    return version.empty() ? family : family + " " + version;
}

std::optional<double> HostInfo::memory_gib() const {
    if (!memory_bytes) return std::nullopt;
    return static_cast<double>(*memory_bytes) / (1024.0 * 1024.0 * 1024.0);
}

Parsed<std::uint64_t> parse_meminfo_total(std::string_view meminfo) {
    std::size_t line_start = 0;
    for (std::string_view line : util::split(meminfo, '\n')) {
        if (line.substr(0, 9) == "MemTotal:") {
            std::string_view rest = util::trim(line.substr(9));
            std::uint64_t value = 0;
            auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
            std::size_t col = line_start + static_cast<std::size_t>(rest.data() - line.data());
            if (ec != std::errc() || ptr == rest.data()) {
                return parse_error("MemTotal is not followed by a number", meminfo, col);
            }
            std::string_view unit = util::trim(
                std::string_view(ptr, static_cast<std::size_t>(rest.data() + rest.size() - ptr)));
            if (unit == "kB" || unit == "KB" || unit == "kb") {
                if (value > UINT64_MAX / 1024)
                    return parse_error("MemTotal is too large", meminfo, col);
                return value * 1024;
            }
            if (unit.empty() || unit == "B") return value;
            return parse_error("unknown MemTotal unit \"" + std::string(unit) + "\" (expected kB)",
                               meminfo, col);
        }
        line_start += line.size() + 1;
    }
    return parse_error("no MemTotal line in /proc/meminfo", {});
}

bool is_wsl_kernel(std::string_view osrelease) {
    std::string lower = util::to_lower(osrelease);
    return lower.find("microsoft") != std::string::npos || lower.find("wsl") != std::string::npos;
}

Parsed<std::string> parse_musl_loader_banner(std::string_view banner) {
    auto lines = util::split(banner, '\n');
    if (lines.empty() || !util::istarts_with(util::trim(lines[0]), "musl libc")) {
        return parse_error("not a musl loader banner (expected \"musl libc\" on the first line)",
                           banner, 0);
    }
    std::size_t offset = 0;
    for (std::string_view line : lines) {
        std::string_view t = util::trim(line);
        if (t.substr(0, 8) == "Version ") {
            std::string_view v = util::trim(t.substr(8));
            if (v.empty() || !util::is_ascii_digit(v[0])) {
                return parse_error("musl banner has an empty or non-numeric Version", banner,
                                   offset);
            }
            return std::string(v);
        }
        offset += line.size() + 1;
    }
    return parse_error("musl banner has no \"Version\" line", banner);
}

Parsed<LibcInfo> parse_gnu_libc_version(std::string_view text) {
    std::string_view t = util::trim(text);
    if (t.substr(0, 6) == "glibc ") t = util::trim(t.substr(6));
    auto parts = util::split(t, '.');
    if (parts.size() < 2 || parts[0].empty() || parts[1].empty()) {
        return parse_error("expected a glibc version such as 2.36", text);
    }
    for (std::string_view p : {parts[0], parts[1]}) {
        for (char c : p) {
            if (!util::is_ascii_digit(c))
                return parse_error("expected a glibc version such as 2.36", text);
        }
    }
    return LibcInfo{"glibc", std::string(parts[0]) + "." + std::string(parts[1])};
}

namespace {

#if !defined(_WIN32) && !defined(__APPLE__)
// The C library the system's programs use. Our own binary may be static or musl-built, so the
// answer comes from the system's loader, as Python's packaging does it.
LibcInfo detect_linux_libc(const ProbeEnvironment& env) {
#if defined(__GLIBC__)
    if (auto v = parse_gnu_libc_version(gnu_get_libc_version())) return *v;
#endif
    std::error_code ec;
    for (const char* lib : {"lib", "usr/lib"}) {
        std::filesystem::path dir = env.root / lib;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
            std::string name = util::utf8_of(entry.path().filename());
            if (name.rfind("ld-musl-", 0) != 0) continue;
            util::ProcessRequest req;
            req.argv = {util::utf8_of(entry.path())};
            req.environment = env.env;
            req.timeout = env.timeouts.small_tool;
            req.output_limit = 4096;
            auto run = util::run_process(req);
            if (run) {
                if (auto v = parse_musl_loader_banner(run->err)) return LibcInfo{"musl", *v};
            }
            return LibcInfo{"musl", ""};
        }
    }
    return LibcInfo{};
}
#endif

#if defined(__APPLE__)
std::string sysctl_string(const char* name) {
    std::size_t size = 0;
    if (sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return {};
    std::string out(size, '\0');
    if (sysctlbyname(name, out.data(), &size, nullptr, 0) != 0) return {};
    out.resize(std::strlen(out.c_str()));
    return out;
}
#endif

#ifdef _WIN32
// RtlGetVersion reports the real version (GetVersionEx is capped by the manifest).
std::string windows_version() {
    using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    if (!ntdll) return {};
    auto fn = reinterpret_cast<RtlGetVersionFn>(
        reinterpret_cast<void*>(GetProcAddress(ntdll, "RtlGetVersion")));
    if (!fn) return {};
    OSVERSIONINFOW info{};
    info.dwOSVersionInfoSize = sizeof info;
    if (fn(&info) != 0) return {};
    return std::to_string(info.dwMajorVersion) + "." + std::to_string(info.dwMinorVersion) + "." +
           std::to_string(info.dwBuildNumber);
}
#endif

}  // namespace

HostInfo probe_host(const ProbeEnvironment& env) {
    HostInfo host;
    host.os = host_os();
#ifdef _WIN32
    SYSTEM_INFO info{};
    GetNativeSystemInfo(&info);
    switch (info.wProcessorArchitecture) {
        case PROCESSOR_ARCHITECTURE_AMD64:
            host.arch = "x86_64";
            break;
        case PROCESSOR_ARCHITECTURE_ARM64:
            host.arch = "aarch64";
            break;
        case PROCESSOR_ARCHITECTURE_INTEL:
            host.arch = "x86";
            break;
        default:
            host.arch = "unknown";
    }
    host.os_version = windows_version();
    MEMORYSTATUSEX mem{};
    mem.dwLength = sizeof mem;
    if (GlobalMemoryStatusEx(&mem)) host.memory_bytes = mem.ullTotalPhys;
#else
    utsname uts{};
    if (::uname(&uts) == 0) {
        host.arch = normalize_arch(uts.machine, host.os);
        host.os_version = uts.release;
    }
#if defined(__APPLE__)
    // A translated (Rosetta) process sees x86_64; the machine is still Apple Silicon.
    int translated = 0;
    std::size_t size = sizeof translated;
    if (sysctlbyname("sysctl.proc_translated", &translated, &size, nullptr, 0) == 0 &&
        translated == 1) {
        host.arch = "arm64";
    }
    std::string product = sysctl_string("kern.osproductversion");
    if (!product.empty()) host.os_version = product;
    std::uint64_t memsize = 0;
    size = sizeof memsize;
    if (sysctlbyname("hw.memsize", &memsize, &size, nullptr, 0) == 0) host.memory_bytes = memsize;
#else
    if (auto meminfo = read_small_file(env.path("/proc/meminfo"))) {
        if (auto total = parse_meminfo_total(*meminfo)) host.memory_bytes = *total;
    }
    if (auto release = read_small_file(env.path("/proc/sys/kernel/osrelease"))) {
        host.wsl = is_wsl_kernel(*release);
    }
    host.libc = detect_linux_libc(env);
    host.jetson = parse_jetson(read_small_file(env.path("/etc/nv_tegra_release")).value_or(""),
                               read_small_file(env.path("/proc/device-tree/model")).value_or(""));
#endif
#endif
    (void)env;
    return host;
}

std::string JetsonBoard::jetpack() const {
    switch (l4t_major) {
        case 32:
            return "JetPack 4";
        case 35:
            return "JetPack 5";
        case 36:
            return "JetPack 6";
        case 38:
            return "JetPack 7";
        default:
            return "";
    }
}

std::optional<JetsonBoard> parse_jetson(std::string_view tegra_release, std::string_view model) {
    JetsonBoard board;
    // The device tree's model string ends in NUL.
    board.model = std::string(util::trim(model.substr(0, model.find('\0'))));
    // "# R36 (release), REVISION: 4.3, ..." → 36, "36.4.3"
    const auto r = tegra_release.find("# R");
    if (r != std::string_view::npos) {
        std::size_t i = r + 3;
        while (i < tegra_release.size() && tegra_release[i] >= '0' && tegra_release[i] <= '9') {
            board.l4t_major = board.l4t_major * 10 + static_cast<unsigned>(tegra_release[i] - '0');
            ++i;
        }
        if (board.l4t_major > 0) {
            board.l4t = std::to_string(board.l4t_major);
            const auto rev = tegra_release.find("REVISION: ", i);
            if (rev != std::string_view::npos) {
                auto end = tegra_release.find_first_of(", \n", rev + 10);
                board.l4t += "." + std::string(tegra_release.substr(rev + 10, end - (rev + 10)));
            }
        }
    }
    const bool named = board.model.find("Jetson") != std::string::npos;
    if (board.l4t_major == 0 && !named) return std::nullopt;
    return board;
}

void apply_glibc_override(HostInfo& host, const std::optional<std::string>& glibc) {
    if (glibc && host.os == OsKind::linux_os) host.libc = LibcInfo{"glibc", *glibc};
}

std::optional<std::uint64_t> free_disk_bytes(const std::filesystem::path& at) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(at, ec);
    if (ec) return std::nullopt;
    while (true) {
        if (std::filesystem::exists(p, ec)) {
            auto info = std::filesystem::space(p, ec);
            if (ec) return std::nullopt;
            return info.available;
        }
        if (!p.has_relative_path() || p.parent_path() == p) return std::nullopt;
        p = p.parent_path();
    }
}

}  // namespace aitk::platform
