#include "aitk/platform/json.hpp"

#include <cmath>

namespace aitk::platform {

using nlohmann::json;

json to_json(const GpuDevice& gpu) {
    json j{{"vendor", vendor_name(gpu.vendor)},
           {"name", gpu.name},
           {"memory_mib", gpu.memory_mib ? json(*gpu.memory_mib) : json(nullptr)},
           {"compute_capability",
            gpu.compute_capability ? json(gpu.compute_capability->to_string()) : json(nullptr)}};
    if (!gpu.gfx_target.empty()) j["gfx_target"] = gpu.gfx_target;
    if (!gpu.pci_address.empty()) j["pci_address"] = gpu.pci_address;
    if (gpu.integrated) j["integrated"] = true;
    return j;
}

json to_json(const std::optional<NvidiaDriver>& nvidia) {
    if (!nvidia) return nullptr;
    return json{{"driver_version",
                 nvidia->driver_version ? json(nvidia->driver_version->text()) : json(nullptr)},
                {"cuda_version",
                 nvidia->cuda_version ? json(nvidia->cuda_version->to_string()) : json(nullptr)},
                {"source", source_name(nvidia->source)}};
}

json to_json(const ProbeAttempt& attempt) {
    return json{{"source", attempt.source},
                {"outcome", outcome_name(attempt.outcome)},
                {"detail", attempt.detail}};
}

json to_json(const HardwareProbe& probe) {
    json gpus = json::array();
    for (const auto& g : probe.gpus)
        gpus.push_back(to_json(g));
    json attempts = json::array();
    for (const auto& a : probe.attempts)
        attempts.push_back(to_json(a));
    return json{{"nvidia", to_json(probe.nvidia)},
                {"gpus", std::move(gpus)},
                {"attempts", std::move(attempts)},
                {"gpus_ignored", probe.gpus_ignored}};
}

json to_json(const HostInfo& host) {
    json memory = nullptr;
    if (auto gib = host.memory_gib()) memory = std::round(*gib * 10.0) / 10.0;
    json j{{"os", os_name(host.os)},        {"arch", host.arch},    {"libc", host.libc.to_string()},
           {"os_version", host.os_version}, {"memory_gib", memory}, {"wsl", host.wsl}};
    if (host.jetson) {
        j["jetson"] = {{"model", host.jetson->model},
                       {"l4t", host.jetson->l4t},
                       {"jetpack", host.jetson->jetpack()}};
    }
    return j;
}

namespace {

util::Unexpected<ParseError> bad(const std::string& what) {
    return util::Unexpected<ParseError>(
        ParseError{"probe JSON: " + what, {}, ParseError::no_position});
}

bool optional_string(const json& j, const char* key, std::optional<std::string>& out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
}

}  // namespace

Parsed<GpuDevice> gpu_from_json(const json& j) {
    if (!j.is_object()) return bad("a GPU must be an object");
    GpuDevice gpu;
    std::optional<std::string> vendor, name, cc, gfx, pci;
    if (!optional_string(j, "vendor", vendor) || !vendor) return bad("GPU vendor missing");
    auto v = parse_vendor_name(*vendor);
    if (!v) return bad(v.error().message);
    gpu.vendor = *v;
    if (!optional_string(j, "name", name) || !optional_string(j, "compute_capability", cc) ||
        !optional_string(j, "gfx_target", gfx) || !optional_string(j, "pci_address", pci)) {
        return bad("GPU fields must be strings");
    }
    gpu.name = name.value_or("");
    gpu.gfx_target = gfx.value_or("");
    gpu.pci_address = pci.value_or("");
    if (cc) {
        auto parsed = ComputeCapability::parse(*cc);
        if (!parsed) return bad(parsed.error().message);
        gpu.compute_capability = *parsed;
    }
    if (auto it = j.find("memory_mib"); it != j.end() && !it->is_null()) {
        if (!it->is_number_unsigned()) return bad("memory_mib must be a non-negative integer");
        gpu.memory_mib = it->get<std::uint64_t>();
    }
    if (auto it = j.find("integrated"); it != j.end()) {
        if (!it->is_boolean()) return bad("integrated must be true or false");
        gpu.integrated = it->get<bool>();
    }
    return gpu;
}

Parsed<HardwareProbe> probe_from_json(const json& j) {
    if (!j.is_object()) return bad("expected an object");
    HardwareProbe probe;
    auto nv = j.find("nvidia");
    if (nv != j.end() && !nv->is_null()) {
        if (!nv->is_object()) return bad("nvidia must be an object or null");
        NvidiaDriver d;
        std::optional<std::string> driver, cuda, source;
        if (!optional_string(*nv, "driver_version", driver) ||
            !optional_string(*nv, "cuda_version", cuda) ||
            !optional_string(*nv, "source", source) || !source) {
            return bad("nvidia fields must be strings, source required");
        }
        if (driver) {
            auto p = DriverVersion::parse(*driver);
            if (!p) return bad(p.error().message);
            d.driver_version = *p;
        }
        if (cuda) {
            auto p = CudaVersion::parse(*cuda);
            if (!p) return bad(p.error().message);
            d.cuda_version = *p;
        }
        auto s = parse_source_name(*source);
        if (!s) return bad(s.error().message);
        d.source = *s;
        probe.nvidia = d;
    }
    auto gpus = j.find("gpus");
    if (gpus == j.end() || !gpus->is_array()) return bad("gpus must be a list");
    for (const auto& g : *gpus) {
        auto gpu = gpu_from_json(g);
        if (!gpu) return util::Unexpected(gpu.error());
        probe.gpus.push_back(std::move(*gpu));
    }
    if (auto a = j.find("attempts"); a != j.end()) {
        if (!a->is_array()) return bad("attempts must be a list");
        for (const auto& item : *a) {
            if (!item.is_object()) return bad("an attempt must be an object");
            std::optional<std::string> source, outcome, detail;
            if (!optional_string(item, "source", source) ||
                !optional_string(item, "outcome", outcome) ||
                !optional_string(item, "detail", detail) || !source || !outcome) {
                return bad("an attempt needs source and outcome strings");
            }
            ProbeAttempt attempt{*source, AttemptOutcome::absent, detail.value_or("")};
            bool known = false;
            for (AttemptOutcome o :
                 {AttemptOutcome::answered, AttemptOutcome::absent, AttemptOutcome::failed,
                  AttemptOutcome::timed_out, AttemptOutcome::skipped}) {
                if (outcome_name(o) == *outcome) {
                    attempt.outcome = o;
                    known = true;
                }
            }
            if (!known) return bad("unknown attempt outcome \"" + *outcome + "\"");
            probe.attempts.push_back(std::move(attempt));
        }
    }
    if (auto g = j.find("gpus_ignored"); g != j.end()) {
        if (!g->is_boolean()) return bad("gpus_ignored must be true or false");
        probe.gpus_ignored = g->get<bool>();
    }
    return probe;
}

}  // namespace aitk::platform
