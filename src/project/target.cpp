#include "aitk/project/target.hpp"

#include <algorithm>
#include <array>

#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::project {

namespace {

TargetPartProblem did_you_mean(std::string message, std::string_view suggestion) {
    return {std::move(message), suggestion.empty()
                                    ? std::string()
                                    : "did you mean " + util::double_quoted(suggestion) + "?"};
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!util::is_ascii_digit(c)) return false;
    }
    return true;
}

// cuXYZ: two or three digits, as the torch index names its CUDA builds (cu92 … cu132).
bool is_cuda_name(std::string_view b) {
    return b.size() >= 4 && b.size() <= 5 && b.substr(0, 2) == "cu" && all_digits(b.substr(2));
}

// rocmX.Y or rocmX.Y.Z (the index has had rocm6.2.4).
bool is_rocm_name(std::string_view b) {
    if (b.substr(0, 4) != "rocm") return false;
    auto parts = util::split(b.substr(4), '.');
    if (parts.size() < 2 || parts.size() > 3) return false;
    for (auto p : parts) {
        if (p.size() > 3 || !all_digits(p)) return false;
    }
    return true;
}

// The usual other spellings of an OS, for hints only.
std::string_view os_alias(std::string_view lower) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> aliases{{
        {"linux", "linux"},
        {"ubuntu", "linux"},
        {"gnu/linux", "linux"},
        {"windows", "windows"},
        {"win", "windows"},
        {"win32", "windows"},
        {"win64", "windows"},
        {"nt", "windows"},
        {"macos", "macos"},
        {"darwin", "macos"},
        {"osx", "macos"},
        {"mac", "macos"},
    }};
    for (const auto& [alias, name] : aliases) {
        if (lower == alias) return name;
    }
    if (lower == "macosx") return "macos";
    return {};
}

// The usual spelling of an architecture on `os` (empty: any OS), for hints only.
std::string_view arch_alias(std::string_view lower, std::string_view os) {
    if (lower == "x86_64" || lower == "amd64" || lower == "x64" || lower == "x86-64" ||
        lower == "intel64")
        return "x86_64";
    if (lower == "aarch64" || lower == "arm64" || lower == "armv8" || lower == "arm64e")
        return os == "macos" ? "arm64" : "aarch64";
    return {};
}

std::string_view backend_alias(std::string_view lower) {
    if (lower == "cpu") return "cpu";
    if (lower == "mps" || lower == "metal") return "mps";
    if (lower == "xpu") return "xpu";
    return {};
}

}  // namespace

std::optional<TargetPartProblem> os_problem(std::string_view os) {
    if (os == "linux" || os == "windows" || os == "macos") return std::nullopt;
    std::string message =
        "unknown OS " + util::double_quoted(os) + " (expected linux, windows or macos)";
    return did_you_mean(std::move(message), os_alias(util::to_lower(os)));
}

std::optional<TargetPartProblem> arch_problem(std::string_view arch, std::string_view os) {
    std::string_view usual = arch_alias(util::to_lower(arch), os);
    if (os.empty()) {
        if (arch == "x86_64" || arch == "aarch64" || arch == "arm64") return std::nullopt;
        return did_you_mean("unknown architecture " + util::double_quoted(arch) +
                                " (expected x86_64, aarch64 or arm64)",
                            usual);
    }
    const bool mac = os == "macos";
    const std::string_view arm = mac ? "arm64" : "aarch64";
    if (arch == "x86_64" || arch == arm) return std::nullopt;
    std::string expected = " (expected x86_64 or " + std::string(arm) + ")";
    if (arch == "arm64" || arch == "aarch64") {
        return TargetPartProblem{
            util::double_quoted(arch) + " is not a " + std::string(os) + " architecture" + expected,
            "did you mean " + util::double_quoted(arm) + "? " + (mac ? "macOS" : std::string(os)) +
                " calls 64-bit ARM " + std::string(arm)};
    }
    return did_you_mean("unknown architecture " + util::double_quoted(arch) + expected, usual);
}

std::optional<TargetPartProblem> backend_problem(std::string_view backend) {
    if (backend == "cpu" || backend == "mps" || backend == "xpu" || is_cuda_name(backend) ||
        is_rocm_name(backend))
        return std::nullopt;
    std::string message = "unknown backend " + util::double_quoted(backend) +
                          " (expected cpu, cuXYZ such as cu130, rocmX.Y such as rocm7.1, xpu or "
                          "mps)";
    const std::string lower = util::to_lower(backend);
    if (std::string_view alias = backend_alias(lower); !alias.empty())
        return did_you_mean(std::move(message), alias);
    if (is_cuda_name(lower) || is_rocm_name(lower)) return did_you_mean(std::move(message), lower);
    // "cu12.6", "cuda12.6", "cuda126" → cu126
    std::string_view rest = lower;
    if (rest.substr(0, 4) == "cuda") {
        rest.remove_prefix(4);
    } else if (rest.substr(0, 2) == "cu") {
        rest.remove_prefix(2);
    } else {
        rest = {};
    }
    if (!lower.empty() && lower.substr(0, 2) == "cu") {
        std::string digits;
        for (char c : rest) {
            if (c != '.') digits += c;
        }
        if ((digits.size() == 2 || digits.size() == 3) && all_digits(digits))
            return did_you_mean(std::move(message), "cu" + digits);
        return TargetPartProblem{std::move(message),
                                 "name one CUDA build of the torch index, such as cu130 or cu126"};
    }
    if (lower.substr(0, 4) == "rocm")
        return TargetPartProblem{std::move(message),
                                 "name one ROCm build of the torch index, such as rocm7.1"};
    if (lower == "gpu" || lower == "nvidia")
        return TargetPartProblem{std::move(message),
                                 "name the build: cu130 or cu126 for NVIDIA, rocm7.1 for AMD"};
    return TargetPartProblem{std::move(message), {}};
}

std::string_view backend_kind(std::string_view backend) noexcept {
    if (is_cuda_name(backend)) return "cuda";
    if (is_rocm_name(backend)) return "rocm";
    if (backend == "cpu" || backend == "mps" || backend == "xpu") return backend;
    return {};
}

std::optional<TargetPartProblem> combination_problem(std::string_view os, std::string_view arch,
                                                     std::string_view backend) {
    const std::string_view kind = backend_kind(backend);
    const std::string where = std::string(os) + "-" + std::string(arch);
    auto refuse = [&](std::string message, std::string hint) {
        return TargetPartProblem{std::move(message), std::move(hint)};
    };
    if (kind == "cpu") return std::nullopt;
    if (kind == "mps") {
        if (os == "macos" && arch == "arm64") return std::nullopt;
        return refuse("backend mps exists only on macos-arm64, not on " + where,
                      "use cpu or a GPU build of " + std::string(os));
    }
    if (os == "macos") {
        return refuse("torch has no " + std::string(backend) + " builds for macOS",
                      arch == "arm64" ? "use mps or cpu" : "use cpu");
    }
    if (kind == "cuda") {
        if ((os == "linux" && (arch == "x86_64" || arch == "aarch64")) ||
            (os == "windows" && arch == "x86_64"))
            return std::nullopt;
        return refuse("torch has no CUDA builds for " + where, "use cpu");
    }
    if (kind == "rocm") {
        if (os == "linux" && arch == "x86_64") return std::nullopt;
        return refuse("torch's ROCm builds exist only for linux-x86_64, not " + where, "use cpu");
    }
    if (kind == "xpu") {
        if (arch == "x86_64") return std::nullopt;
        return refuse("torch's XPU builds exist only for x86_64, not " + where, "use cpu");
    }
    return std::nullopt;
}

util::Expected<Target, std::string> Target::parse(std::string_view id) {
    auto fail = [&](const TargetPartProblem& p) {
        std::string text = "target " + util::double_quoted(id) + ": " + p.message;
        if (!p.hint.empty()) text += "; " + p.hint;
        return util::Unexpected<std::string>(std::move(text));
    };
    auto parts = util::split(id, '-');
    if (parts.size() != 3) {
        std::string hint =
            "write it as OS-ARCH-BACKEND, such as linux-x86_64-cu130, "
            "windows-x86_64-cu126 or macos-arm64-mps";
        if (id.find("x86-64") != std::string_view::npos) hint = "write x86_64 with an underscore";
        return fail({"expected three parts OS-ARCH-BACKEND", hint});
    }
    if (auto p = os_problem(parts[0])) return fail(*p);
    if (auto p = arch_problem(parts[1], parts[0])) return fail(*p);
    if (auto p = backend_problem(parts[2])) return fail(*p);
    if (auto p = combination_problem(parts[0], parts[1], parts[2])) return fail(*p);
    return Target{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

std::string Target::id() const {
    return os + "-" + arch + "-" + backend;
}

bool Target::is_cuda() const {
    return is_cuda_name(backend);
}

bool Target::is_rocm() const {
    return is_rocm_name(backend);
}

namespace {

// CPython's platform.python_version(): "3.12.3", "3.13.0rc1" (always three release numbers).
std::string full_python_version(const pep::Version& v) {
    std::string out = std::to_string(v.major()) + "." + std::to_string(v.minor()) + "." +
                      std::to_string(v.micro());
    if (auto pre = v.pre())
        out += std::string(pep::pre_kind_string(pre->kind)) + std::to_string(pre->number);
    return out;
}

}  // namespace

pep::MarkerEnvironment marker_environment(const Target& target, const pep::Version& python) {
    using V = pep::MarkerVariable;
    pep::MarkerEnvironment env;
    const std::string full = full_python_version(python);
    env.set(V::implementation_name, "cpython");
    env.set(V::implementation_version, full);
    env.set(V::platform_python_implementation, "CPython");
    env.set(V::python_full_version, full);
    env.set(V::python_version,
            std::to_string(python.major()) + "." + std::to_string(python.minor()));
    if (target.os == "windows") {
        env.set(V::os_name, "nt");
        env.set(V::sys_platform, "win32");
        env.set(V::platform_system, "Windows");
        // platform.machine() reads PROCESSOR_ARCHITECTURE on Windows.
        env.set(V::platform_machine, target.arch == "x86_64" ? "AMD64"
                                     : target.arch == "aarch64" || target.arch == "arm64"
                                         ? "ARM64"
                                         : target.arch);
    } else if (target.os == "macos") {
        env.set(V::os_name, "posix");
        env.set(V::sys_platform, "darwin");
        env.set(V::platform_system, "Darwin");
        env.set(V::platform_machine, target.arch == "aarch64" ? "arm64" : target.arch);
    } else {
        env.set(V::os_name, "posix");
        env.set(V::sys_platform, "linux");
        env.set(V::platform_system, "Linux");
        env.set(V::platform_machine, target.arch == "arm64" ? "aarch64" : target.arch);
    }
    return env;
}

pep::TargetPlatform tag_platform(const Target& target, const pep::Version& python,
                                 const TargetAssumptions& assumptions) {
    pep::TargetPlatform t;
    t.implementation = "cp";
    t.python_major = static_cast<unsigned>(std::min<std::uint64_t>(python.major(), ~0u));
    t.python_minor = static_cast<unsigned>(std::min<std::uint64_t>(python.minor(), ~0u));
    t.arch = target.arch;
    if (target.os == "windows") {
        t.os = pep::TargetOs::windows;
        t.os_version = {};
    } else if (target.os == "macos") {
        t.os = pep::TargetOs::macos;
        t.os_version = assumptions.macos;
    } else {
        t.os = pep::TargetOs::linux_glibc;
        t.os_version = assumptions.glibc.value_or(newest_glibc);
    }
    t.oldest_os_first = assumptions.oldest_os_first;
    return t;
}

util::Expected<pep::OsVersion, std::string> parse_glibc_cap(std::string_view text) {
    auto fail = [&](std::string why) {
        return util::Unexpected<std::string>("glibc \"" + std::string(text) + "\": " + why);
    };
    auto version = pep::parse_os_version(text);
    if (!version) return fail("expected MAJOR.MINOR such as 2.28");
    if (version->major != 2) return fail("no such glibc: every glibc is 2.x");
    if (*version < pep::OsVersion{2, 5}) return fail("older than the oldest manylinux glibc, 2.5");
    if (*version > newest_glibc)
        return fail("newer than any manylinux level (" + pep::to_string(newest_glibc) + ")");
    return *version;
}

util::Expected<pep::OsVersion, std::string> parse_macos_cap(std::string_view text) {
    auto fail = [&](std::string why) {
        return util::Unexpected<std::string>("macOS \"" + std::string(text) + "\": " + why);
    };
    auto version = pep::parse_os_version(text);
    if (!version) return fail("expected MAJOR.MINOR such as 13.0");
    // Wheels name macOS 10.9 (x86_64) and 11.0 (arm64) at the oldest; Python.org's builds of
    // the Pythons this tool locks for need 10.9.
    if (*version < pep::OsVersion{10, 9})
        return fail("older than the oldest macOS wheels name, 10.9");
    if (version->major == 10 && version->minor > 15)
        return fail("no such macOS: after 10.15 came 11.0");
    if (version->major > 99) return fail("no such macOS");
    return *version;
}

}  // namespace aitk::project
