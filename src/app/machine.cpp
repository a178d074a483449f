#include "aitk/app/machine.hpp"

#include <algorithm>

#include "aitk/app/doctor.hpp"

#include "aitk/platform/gpu_models.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/platform/probe_cache.hpp"
#include "aitk/platform/types.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {
namespace {

platform::Tables load_tables() {
    auto tables = platform::builtin_tables();
    if (!tables)
        throw util::Error(util::ExitCode::failure, "built-in tables: " + tables.error().describe());
    return std::move(*tables);
}

void name_target_parts(Machine& m) {
    std::string os(platform::os_name(m.host.os));
    if (os == "other") {
        m.unsupported = "this operating system is not a supported target";
        return;
    }
    m.os = os;
    m.arch = m.host.arch;
    if (os == "macos" && m.arch == "aarch64") m.arch = "arm64";
}

platform::HardwareProbe probe_with_cache(const DoctorOptions& options,
                                         const platform::ProbeEnvironment& env,
                                         const platform::HostInfo& host,
                                         const platform::DetectionOverrides& overrides,
                                         bool& from_cache) {
    from_cache = false;
    std::filesystem::path file;
    std::string key;
    if (!options.cache_dir.empty()) {
        file = platform::probe_cache_file(options.cache_dir);
        key = platform::probe_cache_key(env, options.tool_version);
        if (!options.refresh) {
            if (auto cached = platform::load_cached_probe(file, key)) {
                from_cache = true;
                // The cache keeps only what the probes said (see the store below).
                if (const auto& models = platform::builtin_gpu_models())
                    platform::infer_compute_capabilities(*cached, *models);
                return std::move(*cached);
            }
        }
    }
    auto result = platform::probe_hardware(env, host, overrides);
    // A timed-out source may answer next time: such a result is not worth keeping.
    bool complete = std::none_of(result.attempts.begin(), result.attempts.end(), [](const auto& a) {
        return a.outcome == platform::AttemptOutcome::timed_out;
    });
    if (!file.empty() && complete) {
        // The cache's JSON does not say where a capability came from: a looked-up one would
        // come back as if a probe had reported it.
        platform::HardwareProbe reported = result;
        platform::forget_inferred_capabilities(reported);
        platform::store_cached_probe(file, key, reported);
    }
    return result;
}

}  // namespace

std::string Machine::target_id(std::string_view backend) const {
    return os + "-" + arch + "-" + std::string(backend);
}

void Machine::require_target_os() const {
    if (os.empty()) throw util::Error(util::ExitCode::unsatisfiable, unsupported);
}

Machine probe_machine(const DoctorOptions& options, platform::ProbeEnvironment* effective) {
    const bool windows = options.probe.os == platform::OsKind::windows;
    auto overrides = platform::read_overrides(options.probe.env, windows);
    if (!overrides) throw util::InputError(overrides.error().describe());

    Machine m;
    m.tables = load_tables();
    if (!options.backend.empty() && util::to_lower(options.backend) != "auto") {
        auto b = platform::parse_backend_name(options.backend);
        if (!b) throw util::InputError("--backend: " + b.error().message);
        m.forced_backend = *b;
        m.forced_by = "--backend";
    } else if (overrides->torch_backend) {
        m.forced_backend = *overrides->torch_backend;
        m.forced_by = std::string(platform::kEnvTorchBackend);
    }
    m.force = options.force;
    m.overrides_active = overrides->active;

    platform::ProbeEnvironment env = options.probe;
    if (overrides->probe_timeout_seconds) {
        env.timeouts = platform::ProbeTimeouts::all(std::chrono::milliseconds(
            static_cast<long long>(*overrides->probe_timeout_seconds * 1000.0)));
    }
    m.host = platform::probe_host(env);
    platform::apply_glibc_override(m.host, overrides->glibc_version);
    m.hardware = probe_with_cache(options, env, m.host, *overrides, m.probe_from_cache);
    name_target_parts(m);
    if (effective) *effective = std::move(env);
    return m;
}

Machine machine_of(platform::HostInfo host, platform::HardwareProbe hardware) {
    Machine m;
    m.tables = load_tables();
    m.host = std::move(host);
    m.hardware = std::move(hardware);
    name_target_parts(m);
    return m;
}

}  // namespace aitk::app
