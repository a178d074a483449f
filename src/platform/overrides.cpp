#include "aitk/platform/overrides.hpp"

#include <charconv>
#include <cmath>

#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::platform {

Parsed<std::string> parse_backend_name(std::string_view text) {
    std::string t = util::to_lower(util::trim(text));
    auto bad = [&](const std::string& why) {
        return parse_error(
            "\"" + std::string(text) + "\" is not a torch backend: " + why +
                " (expected cpu, cuXYZ such as cu126, rocmX.Y such as rocm6.3, xpu or mps)",
            text);
    };
    if (t.empty()) return bad("empty");
    if (t == "cpu" || t == "xpu" || t == "mps") return t;
    if (t.rfind("cu", 0) == 0) {
        bool digits = t.size() >= 4 && t.size() <= 5;
        for (std::size_t i = 2; i < t.size(); ++i)
            digits = digits && util::is_ascii_digit(t[i]);
        if (!digits) return bad("cu must be followed by digits");
        return t;
    }
    if (t.rfind("rocm", 0) == 0) {
        auto parts = util::split(std::string_view(t).substr(4), '.');
        if (parts.size() < 2 || parts.size() > 3) return bad("rocm needs a version such as 6.3");
        for (auto p : parts) {
            if (p.empty() || p.size() > 3) return bad("rocm needs a version such as 6.3");
            for (char c : p) {
                if (!util::is_ascii_digit(c)) return bad("rocm needs a version such as 6.3");
            }
        }
        return t;
    }
    if (t == "auto") return bad("\"auto\" means detection, not a backend");
    return bad("unknown name");
}

namespace {

util::Unexpected<ParseError> named(std::string_view variable, ParseError e) {
    e.message = std::string(variable) + ": " + e.message;
    return util::Unexpected<ParseError>(std::move(e));
}

Parsed<bool> parse_flag(std::string_view text) {
    std::string t = util::to_lower(util::trim(text));
    if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
    if (t == "0" || t == "false" || t == "no" || t == "off") return false;
    return parse_error("expected 1 or 0 (true/false, yes/no, on/off)", text);
}

}  // namespace

Parsed<DetectionOverrides> read_overrides(const util::Environment& env, bool case_insensitive) {
    DetectionOverrides o;
    auto get = [&](std::string_view name) -> std::optional<std::string> {
        auto v = util::environment_lookup(env, name, case_insensitive);
        if (!v || util::trim(*v).empty()) return std::nullopt;
        return v;
    };
    auto note = [&](std::string_view name, const std::string& value) {
        o.active.push_back(std::string(name) + "=" + value);
    };

    if (auto v = get(kEnvDriverVersion)) {
        auto parsed = DriverVersion::parse(*v);
        if (!parsed) return named(kEnvDriverVersion, parsed.error());
        o.driver_version = *parsed;
        note(kEnvDriverVersion, *v);
    }
    if (auto v = get(kEnvCudaVersion)) {
        auto parsed = CudaVersion::parse(*v);
        if (!parsed) return named(kEnvCudaVersion, parsed.error());
        o.cuda_version = *parsed;
        note(kEnvCudaVersion, *v);
    }
    if (auto v = get(kEnvComputeCapability)) {
        std::vector<ComputeCapability> list;
        std::size_t offset = 0;
        for (std::string_view item : util::split(*v, ',')) {
            auto parsed = ComputeCapability::parse(item);
            if (!parsed) {
                ParseError e = parsed.error();
                e.input = *v;
                if (e.position != ParseError::no_position)
                    e.position += offset;
                else
                    e.position = offset;
                return named(kEnvComputeCapability, e);
            }
            list.push_back(*parsed);
            offset += item.size() + 1;
        }
        o.compute_capabilities = std::move(list);
        note(kEnvComputeCapability, *v);
    }
    if (auto v = get(kEnvNoGpu)) {
        auto parsed = parse_flag(*v);
        if (!parsed) return named(kEnvNoGpu, parsed.error());
        o.no_gpu = *parsed;
        if (o.no_gpu) note(kEnvNoGpu, *v);
    }
    if (auto v = get(kEnvNvmlLibrary)) o.nvml_library = *v;
    if (auto v = get(kEnvLibcudaLibrary)) o.libcuda_library = *v;
    if (auto v = get(kEnvNvidiaSmi)) o.nvidia_smi = *v;
    if (auto v = get(kEnvTorchBackend)) {
        if (util::to_lower(util::trim(*v)) != "auto") {
            auto parsed = parse_backend_name(*v);
            if (!parsed) return named(kEnvTorchBackend, parsed.error());
            o.torch_backend = *parsed;
        }
    }
    if (auto v = get(kEnvProbeTimeout)) {
        std::string_view t = util::trim(*v);
        double seconds = 0;
        auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), seconds);
        if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(seconds) ||
            seconds <= 0 || seconds > 3600) {
            return named(kEnvProbeTimeout,
                         ParseError{"expected a number of seconds between 0 and 3600, such as 2.5",
                                    *v, ParseError::no_position});
        }
        o.probe_timeout_seconds = seconds;
    }
    if (auto v = get(kEnvGlibcVersion)) {
        const std::string_view t = util::trim(*v);
        if (!pep::parse_os_version(t)) {
            return named(kEnvGlibcVersion,
                         ParseError{"expected MAJOR.MINOR such as 2.36 (what `ldd --version` "
                                    "prints)",
                                    *v, ParseError::no_position});
        }
        o.glibc_version = std::string(t);
        note(kEnvGlibcVersion, o.glibc_version.value());
    }
    if (auto v = get(kEnvNvidiaSources)) {
        std::vector<std::string> sources;
        for (std::string_view item : util::split(*v, ',')) {
            std::string name = util::to_lower(util::trim(item));
            bool known = false;
            for (const char* s : {"nvml", "libcuda", "sysfs", "procfs", "nvidia-smi"})
                known = known || name == s;
            if (!known) {
                return named(
                    kEnvNvidiaSources,
                    ParseError{
                        "unknown source \"" + name +
                            "\" (expected a comma-separated list of nvml, libcuda, sysfs, procfs, "
                            "nvidia-smi)",
                        *v, ParseError::no_position});
            }
            sources.push_back(name);
        }
        o.nvidia_sources = std::move(sources);
    }
    return o;
}

}  // namespace aitk::platform
