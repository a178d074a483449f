#include "aitk/app/doctor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/machine.hpp"
#include "aitk/app/native_check.hpp"
#include "aitk/app/project_folder.hpp"
#include "aitk/app/torch_choice.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/platform/gpu_models.hpp"
#include "aitk/platform/json.hpp"
#include "aitk/platform/libcuda.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/platform/probe_cache.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/platform/windows_runtime.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "lock_project.hpp"

namespace aitk::app {

using nlohmann::json;
using platform::GpuVendor;

std::string_view check_status_name(CheckStatus status) noexcept {
    switch (status) {
        case CheckStatus::ok:
            return "ok";
        case CheckStatus::warn:
            return "warn";
        case CheckStatus::fail:
            return "fail";
    }
    return "ok";
}

namespace {

std::string format_gib(double gib) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", gib);
    return buf;
}

double mib_to_gib(std::uint64_t mib) {
    return static_cast<double>(mib) / 1024.0;
}

std::string gpu_summary(const platform::GpuDevice& g) {
    std::string s = g.name.empty() ? std::string(platform::vendor_name(g.vendor)) + " GPU" : g.name;
    std::vector<std::string> details;
    if (g.compute_capability) {
        details.push_back(g.compute_capability->sm() +
                          (g.compute_capability_source == platform::CapabilitySource::reported
                               ? ""
                               : " from the model name"));
    }
    if (!g.gfx_target.empty() && g.name.find(g.gfx_target) == std::string::npos)
        details.push_back(g.gfx_target);
    if (g.memory_mib) details.push_back(format_gib(mib_to_gib(*g.memory_mib)));
    if (!details.empty()) s += " (" + util::join(details, ", ") + ")";
    return s;
}

// What the manifest asks for, or AI Toolkit's defaults.
struct Wanted {
    platform::BackendRequest request = platform::BackendRequest::ai_toolkit_default();
    std::vector<platform::HardwareProfile> profiles;
};

Wanted read_wanted(const DoctorOptions& options, const platform::Tables& tables) {
    Wanted w;
    w.profiles = tables.hardware.profiles;
    if (options.manifest.empty()) return w;
    std::string name = util::utf8_of(options.manifest);
    std::error_code ec;
    if (!std::filesystem::exists(options.manifest, ec)) {
        throw util::InputError("manifest " + name + " does not exist",
                               "pass an existing file with -m");
    }
    auto text = fs::read_input_file(options.manifest, fs::manifest_file);
    if (!text) throw util::InputError("manifest " + name + ": " + text.error());
    auto m = platform::parse_manifest_hardware(*text, name);
    if (!m) throw util::InputError(m.error().describe());
    if (m->torch_version) {
        auto v = pep::Version::parse(*m->torch_version);
        if (!v) throw util::InputError(name + ": torch version: " + v.error().describe());
        w.request.torch = *v;
    }
    if (!m->preferred_backends.empty()) {
        w.request.preferred.clear();
        for (const auto& b : m->preferred_backends) {
            auto parsed = platform::parse_backend_name(b);
            if (!parsed)
                throw util::InputError(name + ": torch.backends: " + parsed.error().message);
            w.request.preferred.push_back(*parsed);
        }
    }
    if (m->profiles) w.profiles = *m->profiles;
    return w;
}

DoctorCheck gpu_check(const DoctorReport& r) {
    const auto& hw = r.hardware;
    if (hw.gpus_ignored)
        return {"gpu", CheckStatus::warn, "AITK_ENV_NO_GPU is set: every GPU is ignored"};
    std::vector<std::string> parts;
    if (hw.nvidia) {
        std::string d = "NVIDIA driver ";
        d += hw.nvidia->driver_version ? hw.nvidia->driver_version->text()
                                       : std::string("of unknown version");
        if (hw.nvidia->cuda_version) d += ", CUDA " + hw.nvidia->cuda_version->to_string();
        d += " (from " + std::string(platform::source_name(hw.nvidia->source)) + ")";
        parts.push_back(d);
    }
    if (!hw.gpus.empty()) {
        std::vector<std::string> names;
        for (const auto& g : hw.gpus)
            names.push_back(gpu_summary(g));
        parts.push_back(std::to_string(hw.gpus.size()) +
                        (hw.gpus.size() == 1 ? " GPU: " : " GPUs: ") + util::join(names, "; "));
    }
    if (hw.gpus.empty()) {
        std::string msg =
            hw.nvidia ? util::join(parts, "; ") + "; but no GPU is visible"
                      : "no GPU found: torch will run on the CPU, far too slow for training";
        return {"gpu", CheckStatus::warn, msg};
    }
    return {"gpu", CheckStatus::ok, util::join(parts, "; ")};
}

std::optional<DoctorCheck> probe_problems_check(const platform::HardwareProbe& hw) {
    std::vector<std::string> problems;
    for (const auto& a : hw.attempts) {
        if (a.outcome == platform::AttemptOutcome::failed ||
            a.outcome == platform::AttemptOutcome::timed_out) {
            problems.push_back(a.source + ": " + a.detail);
        }
    }
    if (problems.empty()) return std::nullopt;
    return DoctorCheck{"probe", CheckStatus::warn, util::join(problems, "; ")};
}

// "extra 'cu128' of pyproject.toml:92": the project's source of `backend` on this machine, as
// lock names it ("backend cu128: …" there).
std::string backend_source(const project::ProjectInput& input, const Machine& machine,
                           const std::string& backend) {
    auto target = project::Target::parse(machine.target_id(backend));
    if (!target) return {};
    auto note = lock_detail::backend_note(input, *target);
    const std::string prefix = "backend " + backend + ": ";
    return note && note->starts_with(prefix) ? note->substr(prefix.size()) : std::string();
}

DoctorCheck backend_check(const DoctorReport& r) {
    const auto& c = r.choice;
    if (c.refused())
        return {"backend", CheckStatus::fail, c.reason + (c.fix.empty() ? "" : ". Fix: " + c.fix)};
    if (c.forced && !c.fix.empty())
        return {"backend", CheckStatus::warn, c.reason + ". Note: " + c.fix};
    const std::string source = r.backend_source.empty() ? "" : " (" + r.backend_source + ")";
    return {"backend", CheckStatus::ok, *c.backend + source + ": " + c.reason};
}

DoctorCheck platform_check(const platform::HostInfo& host, const platform::Tables& tables) {
    std::string os(platform::os_name(host.os));
    auto it = tables.hardware.platforms.find(os);
    if (it == tables.hardware.platforms.end()) return {"platform", CheckStatus::warn, "unknown OS"};
    std::string message = it->second.message;
    if (host.wsl) message += " (running under WSL2)";
    if (host.jetson) {
        message += " (Jetson" + (host.jetson->model.empty() ? "" : ": " + host.jetson->model) +
                   (host.jetson->l4t.empty() ? "" : ", L4T R" + host.jetson->l4t) +
                   (host.jetson->jetpack().empty() ? "" : ", " + host.jetson->jetpack()) + ")";
    }
    return {"platform", it->second.status == "ok" ? CheckStatus::ok : CheckStatus::warn, message};
}

// Marketed sizes: a "24 GB" card reports 24564 MiB, a "32 GB" machine ~31 GiB of MemTotal.
constexpr double kVramTolerance = 0.95;
constexpr double kRamTolerance = 0.9;

std::vector<ProfileReadiness> profile_readiness(
    const DoctorReport& r, const std::vector<platform::HardwareProfile>& profiles) {
    // The GPU the chosen backend runs on: the largest of its vendor.
    std::optional<GpuVendor> vendor;
    if (r.choice.backend) {
        const std::string& b = *r.choice.backend;
        if (platform::cuda_family_of(b)) vendor = GpuVendor::nvidia;
        if (b.rfind("rocm", 0) == 0) vendor = GpuVendor::amd;
        if (b == "xpu") vendor = GpuVendor::intel;
        if (b == "mps") vendor = GpuVendor::apple;
    }
    std::optional<double> vram;
    std::string gpu_name;
    if (vendor == GpuVendor::apple) {
        vram = r.host.memory_gib();  // unified memory
        gpu_name = "unified memory";
    } else if (vendor) {
        for (const auto& g : r.hardware.gpus) {
            if (g.vendor != *vendor || !g.memory_mib) continue;
            double gib = mib_to_gib(*g.memory_mib);
            if (!vram || gib > *vram) {
                vram = gib;
                gpu_name = g.name;
            }
        }
    }
    auto ram = r.host.memory_gib();
    std::vector<ProfileReadiness> out;
    for (const auto& p : profiles) {
        ProfileReadiness pr{p.id, p.description, true, {}};
        std::vector<std::string> missing;
        if (!vendor) {
            missing.push_back("a GPU with ≥ " + format_gib(p.min_vram_gib) + " (the backend is " +
                              (r.choice.backend ? *r.choice.backend : std::string("not chosen")) +
                              ")");
        } else if (!vram) {
            missing.push_back("≥ " + format_gib(p.min_vram_gib) + " of GPU memory (size unknown)");
        } else if (*vram < p.min_vram_gib * kVramTolerance) {
            missing.push_back(
                "≥ " + format_gib(p.min_vram_gib) + " of " +
                (vendor == GpuVendor::apple ? "unified memory (have " : "GPU memory (largest: ") +
                format_gib(*vram) + ")");
        }
        if (!ram) {
            missing.push_back("≥ " + format_gib(p.min_ram_gib) + " of RAM (size unknown)");
        } else if (*ram < p.min_ram_gib * kRamTolerance) {
            missing.push_back("≥ " + format_gib(p.min_ram_gib) + " of RAM (have " +
                              format_gib(*ram) + ")");
        }
        pr.ready = missing.empty();
        std::string label = p.description + " (" + p.id + ")";
        if (pr.ready) {
            pr.message = label + ": ready" +
                         (vram ? " (" + (gpu_name.empty() ? std::string() : gpu_name + ", ") +
                                     format_gib(*vram) + ")"
                               : std::string());
        } else {
            pr.message = label + ": needs " + util::join(missing, " and ");
        }
        if (!p.unverified.empty()) pr.message += " [profile values unverified]";
        out.push_back(std::move(pr));
    }
    return out;
}

DoctorCheck pythons_check(const std::vector<python::Interpreter>& pythons) {
    if (pythons.empty()) {
        return {"pythons", CheckStatus::warn,
                "no Python interpreter found on PATH or in pyenv; aitk-env setup installs a "
                "standalone build"};
    }
    std::vector<std::string> list;
    for (const auto& p : pythons)
        list.push_back(p.version);
    return {"pythons", CheckStatus::ok,
            std::to_string(pythons.size()) +
                (pythons.size() == 1 ? " interpreter: " : " interpreters: ") +
                util::join(list, ", ")};
}

DoctorCheck disk_check(const DoctorReport& r, const platform::Tables& tables) {
    std::string where = util::utf8_of(r.prefix);
    if (!r.disk_free_bytes)
        return {"disk", CheckStatus::warn, "free space at " + where + " is unknown"};
    double gib = static_cast<double>(*r.disk_free_bytes) / (1024.0 * 1024.0 * 1024.0);
    std::string msg = format_gib(gib) + " free at " + where;
    if (gib < tables.hardware.disk_fail_below_gib) {
        return {"disk", CheckStatus::fail,
                msg + ": a torch environment needs several GiB (at least " +
                    format_gib(tables.hardware.disk_fail_below_gib) + ")"};
    }
    if (gib < tables.hardware.disk_warn_below_gib) {
        return {"disk", CheckStatus::warn,
                msg + ": below the " + format_gib(tables.hardware.disk_warn_below_gib) +
                    " a CUDA torch environment and its download cache usually take"};
    }
    return {"disk", CheckStatus::ok, msg};
}

std::optional<std::size_t> parse_index(std::string_view s) {
    std::size_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

}  // namespace

std::optional<DoctorCheck> check_cuda_visible_devices(const std::optional<std::string>& value,
                                                      std::size_t gpu_count) {
    if (!value) return std::nullopt;
    const std::string id = "cuda-visible-devices";
    std::string_view v = util::trim(*value);
    if (v.empty()) {
        return DoctorCheck{id, CheckStatus::warn,
                           "CUDA_VISIBLE_DEVICES is set but empty: CUDA sees no GPU (cuInit fails, "
                           "torch.cuda.is_available() is False); unset it"};
    }
    if (gpu_count == 0) return std::nullopt;
    std::vector<std::string> visible;
    std::size_t position = 0;
    for (std::string_view raw : util::split(v, ',')) {
        ++position;
        std::string_view token = util::trim(raw);
        bool uuid = util::istarts_with(token, "GPU-") || util::istarts_with(token, "MIG-");
        auto index = parse_index(token);
        bool valid = uuid || (index && *index < gpu_count &&
                              std::find(visible.begin(), visible.end(), std::string(token)) ==
                                  visible.end());
        if (!valid) {
            std::string why = "not a GPU of this machine (" + std::to_string(gpu_count) +
                              (gpu_count == 1 ? " GPU)" : " GPUs)");
            if (token.rfind('-', 0) == 0) why = "a negative index";
            if (index &&
                std::find(visible.begin(), visible.end(), std::string(token)) != visible.end()) {
                return DoctorCheck{id, CheckStatus::warn,
                                   "CUDA_VISIBLE_DEVICES=" + *value + ": entry " +
                                       std::to_string(position) + " (" + std::string(token) +
                                       ") names a GPU already listed; remove the repeat"};
            }
            std::string entry = "(" + std::string(token) + ") is " + why;
            if (visible.empty()) {
                return DoctorCheck{id, CheckStatus::warn,
                                   "CUDA_VISIBLE_DEVICES=" + *value +
                                       " hides every GPU: its first entry " + entry};
            }
            return DoctorCheck{
                id, CheckStatus::warn,
                "CUDA_VISIBLE_DEVICES=" + *value + ": entry " + std::to_string(position) + " " +
                    entry + "; CUDA ignores it and every entry after it, so only " +
                    (visible.size() == 1 ? "GPU " : "GPUs ") + util::join(visible, ",") +
                    (visible.size() == 1 ? " is" : " are") + " visible"};
        }
        visible.emplace_back(token);
    }
    return DoctorCheck{id, CheckStatus::ok,
                       "CUDA_VISIBLE_DEVICES=" + *value + " selects " +
                           std::to_string(visible.size()) + " of " + std::to_string(gpu_count) +
                           (gpu_count == 1 ? " GPU" : " GPUs")};
}

DoctorCheck check_msvc_runtime(const std::filesystem::path& system32) {
    auto missing = platform::missing_msvc_runtime_dlls(system32);
    if (missing.empty()) {
        return {"msvc-runtime", CheckStatus::ok,
                "the MSVC runtime DLLs are in " + util::utf8_of(system32)};
    }
    return {"msvc-runtime", CheckStatus::fail,
            util::join(missing, ", ") + " missing from " + util::utf8_of(system32) +
                ": `import torch` fails with WinError 126 (fbgemm.dll); install the Visual C++ "
                "2015-2022 "
                "Redistributable: " +
                std::string(platform::kVcRedistUrl)};
}

DoctorCheck check_long_paths(bool enabled, const std::filesystem::path& prefix) {
    if (enabled) {
        return {"long-paths", CheckStatus::ok,
                "long paths are enabled: paths past 260 characters work"};
    }
    std::error_code ec;
    auto absolute = std::filesystem::absolute(prefix, ec);
    if (ec) absolute = prefix;
    const auto site = util::utf8_of((absolute / "Lib" / "site-packages" / "").make_preferred());
    // The limit counts UTF-16 units and the terminating NUL.
    const auto used = util::wide_length_of_utf8(site);
    const std::size_t left =
        used + 1 < platform::kWindowsMaxPath ? platform::kWindowsMaxPath - 1 - used : 0;
    return {"long-paths", CheckStatus::warn,
            "long paths are off: every path must stay under 260 characters, which leaves " +
                std::to_string(left) + " for the files below " + site +
                " (torch's wheels nest headers and DLLs deep); turn them on as administrator: "
                "reg add HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem /v "
                "LongPathsEnabled /t REG_DWORD /d 1 /f (or choose a shorter prefix)"};
}

DoctorReport run_doctor(const DoctorOptions& options) {
    bool windows = options.probe.os == platform::OsKind::windows;
    platform::ProbeEnvironment probe_env;
    Machine machine = probe_machine(options, &probe_env);
    const platform::Tables* tables = &machine.tables;

    DoctorReport r;
    Wanted wanted = read_wanted(options, *tables);
    std::optional<lock::Lockfile> lock;
    std::optional<project::ProjectInput> input;
    if (options.lockfile) {
        auto path = options.cwd / *options.lockfile;
        // A pylock.toml: every build it offers this machine's platform, judged as targets.
        LockReadOptions read_options;
        read_options.host_os = machine.os;
        read_options.host_arch = machine.arch;
        lock = read_any_lock(path, read_options).lock;
        wanted.request.forced = machine.forced_backend;
        wanted.request.forced_by = machine.forced_by;
        wanted.request.force = machine.force;
    } else {
        // The same request setup makes from the same inputs.
        InputSelection selection = options.input;
        if (!selection.manifest && !selection.requirements && !selection.conda_file &&
            !options.manifest.empty()) {
            selection.manifest = options.manifest;
        }
        // The backend needs only the torch sources: a project's dynamic dependencies stay
        // unread (no build backend runs for doctor).
        selection.pyproject.dynamic_may_stay_unread = true;
        input = load_project_input(selection, options.cwd, options.probe.env);
        // AI Toolkit's hardware profiles (FLUX LoRA, …) say nothing about a project's own
        // pyproject.toml: a manifest's profiles, or none.
        if (reads_pyproject(selection, options.cwd)) wanted.profiles.clear();
        auto pins = project::torch_pins(*input);
        if (!pins) throw pins.error().to_error();
        wanted.request = backend_request(*input, *pins, machine_for(*input, machine));
    }

    r.host = machine.host;
    r.hardware = machine.hardware;
    r.probe_from_cache = machine.probe_from_cache;
    // "2.13.0" for a pin, ">=2.5" for a range, "any" when nothing pins torch.
    r.torch_version = wanted.request.torch.to_string();
    if (const auto& text = wanted.request.torch_text; !text.empty()) {
        if (text.starts_with("torch (")) {
            r.torch_version = "any";
        } else if (text.starts_with("torch ")) {
            r.torch_version = text.substr(6);
        } else if (text.starts_with("torch")) {
            r.torch_version = text.substr(5);
        }
    }
    r.preferred_backends = wanted.request.preferred;
    r.choice = platform::choose_backend(r.host, r.hardware, wanted.request, *tables);
    if (input) {
        keep_listed_backends(*input, machine, r.choice);
        r.input = input->described_as;
        if (r.choice.backend) r.backend_source = backend_source(*input, machine, *r.choice.backend);
    }
    if (lock) r.lock_targets = judge_lock_targets(*lock, machine);
    r.prefix = options.prefix;
    r.disk_free_bytes = platform::free_disk_bytes(options.prefix);

    if (options.discover_pythons) {
        python::DiscoveryOptions d;
        d.windows = windows;
        d.path_value = probe_env.get("PATH").value_or("");
        d.home = probe_env.get(windows ? "USERPROFILE" : "HOME").value_or("");
        d.pyenv_root = probe_env.get("PYENV_ROOT").value_or("");
        d.environment = probe_env.env;
        d.timeout = std::min(probe_env.timeouts.small_tool * 2, std::chrono::milliseconds(10'000));
        d.cwd = options.cwd;
        // Asking ten interpreters costs ~1 s; their answers keep while their files do.
        if (!options.cache_dir.empty()) {
            d.cache_file = python::default_interpreter_cache_file(options.cache_dir);
        }
        d.refresh = options.refresh;
        r.pythons = python::discover_interpreters(d);
    }

    if (!machine.overrides_active.empty()) {
        r.checks.push_back({"overrides", CheckStatus::warn,
                            "detection overridden: " + util::join(machine.overrides_active, " ")});
    }
    r.checks.push_back(gpu_check(r));
    if (auto p = probe_problems_check(r.hardware)) r.checks.push_back(*p);
    if (auto c = check_cuda_visible_devices(probe_env.get("CUDA_VISIBLE_DEVICES"),
                                            r.hardware.gpus_of(GpuVendor::nvidia).size())) {
        r.checks.push_back(*c);
    }
    r.checks.push_back(backend_check(r));
    if (r.lock_targets) {
        const auto& l = *r.lock_targets;
        r.checks.push_back({"lock", l.chosen ? CheckStatus::ok : CheckStatus::fail,
                            l.reason + (l.fix.empty() ? "" : ". Fix: " + l.fix)});
    }
    r.checks.push_back(platform_check(r.host, *tables));
    r.profiles = profile_readiness(r, wanted.profiles);
    for (const auto& p : r.profiles) {
        r.checks.push_back(
            {"profile." + p.id, p.ready ? CheckStatus::ok : CheckStatus::warn, p.message});
    }
    r.checks.push_back(pythons_check(r.pythons));
    r.checks.push_back(disk_check(r, *tables));
    r.checks.push_back(check_tls_trust(options.cert, [&](const char* name) {
        auto value = probe_env.get(name);
        return value && !value->empty() ? value : std::nullopt;
    }));
    if (windows) {
        r.checks.push_back(check_msvc_runtime(platform::system32_folder(probe_env.env)));
        // Only this Windows' registry can say; a simulated Windows elsewhere has none.
        if (auto enabled = platform::windows_long_paths_enabled())
            r.checks.push_back(check_long_paths(*enabled, options.prefix));
    }
    std::error_code ec;
    bool simulated_os = windows || probe_env.os == platform::OsKind::linux_os;
    if (options.scan_native_libraries && simulated_os &&
        std::filesystem::is_directory(options.prefix, ec)) {
        NativeScanRequest scan;
        scan.root = options.prefix;
        scan.os = windows ? diag::TargetOs::windows : diag::TargetOs::linux_os;
        scan.environment = probe_env.env;
        try {
            r.native_libraries = run_native_scan(scan);
            for (auto& c : native_scan_checks(*r.native_libraries))
                r.checks.push_back(std::move(c));
        } catch (const util::Error& e) {
            r.checks.push_back(
                {"native-libraries", CheckStatus::warn,
                 std::string("could not scan ") + util::utf8_of(options.prefix) + ": " + e.what()});
        }
    }
    return r;
}

int run_libcuda_probe_child(const std::vector<std::string>& candidates, std::ostream& out) {
    return platform::libcuda_child_main(candidates, out);
}

int DoctorReport::exit_code() const {
    if (lock_targets ? !lock_targets->chosen : choice.refused())
        return static_cast<int>(util::ExitCode::unsatisfiable);
    bool failed = std::any_of(checks.begin(), checks.end(),
                              [](const DoctorCheck& c) { return c.status == CheckStatus::fail; });
    return failed ? static_cast<int>(util::ExitCode::failure) : 0;
}

json DoctorReport::to_json() const {
    json j = platform::to_json(host);
    json gpus = json::array();
    for (const auto& g : hardware.gpus) {
        json gpu = platform::to_json(g);
        // Present only for a capability looked up by the GPU's name, not reported by a probe.
        if (g.compute_capability &&
            g.compute_capability_source != platform::CapabilitySource::reported) {
            gpu["compute_capability_source"] =
                platform::capability_source_name(g.compute_capability_source);
        }
        gpus.push_back(std::move(gpu));
    }
    j["gpus"] = std::move(gpus);
    j["nvidia"] = platform::to_json(hardware.nvidia);
    j["input"] = input.empty() ? json(nullptr) : json(input);
    j["backend_source"] = backend_source.empty() ? json(nullptr) : json(backend_source);
    j["torch"] = torch_version;
    j["preferred_backends"] = preferred_backends;
    j["backends"] = choice.candidates;
    j["backend"] = choice.backend ? json(*choice.backend) : json(nullptr);
    j["reason"] = choice.reason;
    j["fix"] = choice.fix.empty() ? json(nullptr) : json(choice.fix);
    j["forced"] = choice.forced;
    // Every build considered, in order, with why it was taken or passed over.
    json considered = json::array();
    for (const auto& v : choice.verdicts) {
        considered.push_back({{"torch", v.release ? json(v.release->to_string()) : json(nullptr)},
                              {"backend", v.backend},
                              {"runs", v.runs},
                              {"why", v.why}});
    }
    j["considered"] = std::move(considered);
    j["lock"] = lock_targets ? lock_targets->to_json() : json(nullptr);
    json pys = json::array();
    for (const auto& p : pythons) {
        pys.push_back({{"version", p.version},
                       {"path", util::utf8_of(p.executable)},
                       {"found_as", util::utf8_of(p.path)},
                       {"implementation", p.implementation}});
    }
    j["pythons"] = std::move(pys);
    json profs = json::array();
    for (const auto& p : profiles) {
        profs.push_back({{"id", p.id},
                         {"description", p.description},
                         {"ready", p.ready},
                         {"message", p.message}});
    }
    j["profiles"] = std::move(profs);
    json disk = {{"path", util::utf8_of(prefix)}, {"free_gib", nullptr}};
    if (disk_free_bytes) {
        disk["free_gib"] =
            std::round(static_cast<double>(*disk_free_bytes) / (1024.0 * 1024.0 * 1024.0) * 10.0) /
            10.0;
    }
    j["disk"] = std::move(disk);
    json attempts = json::array();
    for (const auto& a : hardware.attempts)
        attempts.push_back(platform::to_json(a));
    j["probe"] = {{"cached", probe_from_cache},
                  {"gpus_ignored", hardware.gpus_ignored},
                  {"attempts", std::move(attempts)}};
    json checks_json = json::array();
    for (const auto& c : checks) {
        checks_json.push_back(
            {{"id", c.id}, {"status", check_status_name(c.status)}, {"message", c.message}});
    }
    j["checks"] = std::move(checks_json);
    j["native_libraries"] = native_libraries ? native_scan_json(*native_libraries) : json(nullptr);
    j["exit_code"] = exit_code();
    return j;
}

}  // namespace aitk::app
