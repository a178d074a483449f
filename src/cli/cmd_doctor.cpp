// `aitk-env doctor`: the machine, its drivers, the torch backend that runs here and why,
// interpreters, and readiness for the manifest's hardware profiles.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "aitk/app/cache.hpp"
#include "aitk/app/doctor.hpp"
#include "aitk/app/native_check.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "commands.hpp"

namespace aitk::cli {
namespace {

bool stdout_is_terminal() {
#ifdef _WIN32
    return _isatty(_fileno(stdout)) != 0;
#else
    return ::isatty(STDOUT_FILENO) != 0;
#endif
}

bool use_color(const GlobalOptions& globals, const util::Environment& env) {
    if (globals.color == "always") return true;
    if (globals.color == "never") return false;
    return stdout_is_terminal() && !util::environment_lookup(env, "NO_COLOR");
}

// Breaks `text` into lines of at most `width` columns (by bytes; UTF-8 sequences stay whole
// because breaks happen only at spaces).
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::string line;
    for (auto word : util::split(text, ' ')) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            lines.push_back(line);
            line.clear();
        }
        if (!line.empty()) line += ' ';
        line += word;
    }
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
}

class Report {
  public:
    Report(std::ostream& out, bool color) : out_(out), color_(color) {}

    void row(const std::string& label, const std::string& value) {
        auto lines = wrap(value, 90);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            std::string l = i == 0 ? label : "";
            out_ << "  " << paint(l, "1")
                 << std::string(kLabelWidth - std::min(kLabelWidth, l.size()), ' ') << lines[i]
                 << "\n";
        }
    }

    void check(const app::DoctorCheck& c, std::size_t id_width) {
        const char* code = c.status == app::CheckStatus::ok     ? "32"
                           : c.status == app::CheckStatus::warn ? "33"
                                                                : "31";
        std::string status(app::check_status_name(c.status));
        auto lines = wrap(c.message, 80);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i == 0) {
                out_ << "  " << paint(status, code) << std::string(6 - status.size(), ' ') << c.id
                     << std::string(id_width - c.id.size() + 2, ' ');
            } else {
                out_ << std::string(2 + 6 + id_width + 2, ' ');
            }
            out_ << lines[i] << "\n";
        }
    }

    void heading(const std::string& title) { out_ << paint(title, "1") << "\n"; }

  private:
    static constexpr std::size_t kLabelWidth = 10;

    std::string paint(const std::string& text, const char* code) const {
        if (!color_ || text.empty()) return text;
        return "\x1b[" + std::string(code) + "m" + text + "\x1b[0m";
    }

    std::ostream& out_;
    bool color_;
};

void print_human(const app::DoctorReport& r, std::ostream& out, bool color) {
    Report rep(out, color);
    char ram[32] = "unknown";
    if (auto gib = r.host.memory_gib()) std::snprintf(ram, sizeof ram, "%.1f GiB", *gib);
    rep.heading("Machine");
    std::string host = std::string(platform::os_name(r.host.os)) + " " + r.host.arch;
    if (!r.host.libc.to_string().empty()) host += ", " + r.host.libc.to_string();
    if (!r.host.os_version.empty()) {
        host += (r.host.os == platform::OsKind::linux_os ? ", kernel " : ", ") + r.host.os_version;
    }
    if (r.host.wsl) host += " (WSL2)";
    rep.row("host", host);
    rep.row("memory", std::string(ram) + " RAM");
    if (r.disk_free_bytes) {
        char disk[64];
        std::snprintf(disk, sizeof disk, "%.1f GiB free at ",
                      static_cast<double>(*r.disk_free_bytes) / (1024.0 * 1024.0 * 1024.0));
        rep.row("disk", disk + util::utf8_of(r.prefix));
    }
    if (r.hardware.nvidia) {
        const auto& nv = *r.hardware.nvidia;
        std::string text =
            "driver " + (nv.driver_version ? nv.driver_version->text() : std::string("unknown"));
        if (nv.cuda_version) text += ", CUDA " + nv.cuda_version->to_string();
        text += " (from " + std::string(platform::source_name(nv.source)) + ")";
        rep.row("nvidia", text);
    } else {
        rep.row("nvidia", "none");
    }
    for (std::size_t i = 0; i < r.hardware.gpus.size(); ++i) {
        const auto& g = r.hardware.gpus[i];
        std::vector<std::string> parts{std::string(platform::vendor_name(g.vendor))};
        if (!g.name.empty()) parts.push_back(g.name);
        if (g.compute_capability) {
            std::string sm = g.compute_capability->sm();
            if (g.compute_capability_source != platform::CapabilitySource::reported)
                sm += " (from the model name)";
            parts.push_back(sm);
        }
        if (!g.gfx_target.empty() && g.name.find(g.gfx_target) == std::string::npos)
            parts.push_back(g.gfx_target);
        if (g.memory_mib) parts.push_back(std::to_string(*g.memory_mib) + " MiB");
        rep.row("gpu " + std::to_string(i), util::join(parts, ", "));
    }
    if (r.hardware.gpus.empty())
        rep.row("gpu", r.hardware.gpus_ignored ? "ignored (AITK_ENV_NO_GPU)" : "none");
    if (r.probe_from_cache) rep.row("probe", "cached (--refresh probes again)");

    out << "\n";
    rep.heading("Torch backend");
    if (!r.input.empty()) rep.row("input", r.input);
    std::string torch = r.torch_version;
    if (!r.preferred_backends.empty())
        torch += " (preferred " + util::join(r.preferred_backends, ", ") + ")";
    rep.row("torch", torch);
    rep.row("backends",
            r.choice.candidates.empty() ? "none" : util::join(r.choice.candidates, ", "));
    rep.row("backend", r.choice.backend ? *r.choice.backend + (r.choice.forced ? " (forced)" : "")
                                        : "none (refused)");
    if (!r.backend_source.empty()) rep.row("source", r.backend_source);
    rep.row("reason", r.choice.reason);
    if (!r.choice.fix.empty()) rep.row("fix", r.choice.fix);
    if (r.lock_targets) {
        out << "\n";
        rep.heading("Lockfile targets");
        for (const auto& t : r.lock_targets->targets) {
            rep.row(t.chosen ? "chosen" : (t.runs ? "runs" : "passed"),
                    t.id + (t.torch.empty() ? "" : " (torch " + t.torch + ")") + ": " + t.why);
        }
        if (!r.lock_targets->fix.empty()) rep.row("fix", r.lock_targets->fix);
    }

    out << "\n";
    rep.heading("Python");
    if (r.pythons.empty()) rep.row("python", "none found");
    for (const auto& p : r.pythons)
        rep.row(p.version, util::utf8_of(p.executable));

    out << "\n";
    rep.heading("Checks");
    std::size_t width = 0;
    for (const auto& c : r.checks)
        width = std::max(width, c.id.size());
    for (const auto& c : r.checks)
        rep.check(c, width);
}

struct DoctorArgs {
    std::string manifest, requirements, env_file, lock, project, prefix = ".venv", backend = "auto";
    bool force = false, refresh = false;
    std::vector<std::string> libcuda_child;
    std::string scan, os, system32;
    std::vector<std::string> search_path;
    app::InputSelection selection;  // --extra … (add_install_selection_options)
};

void print_scan_human(const diag::ScanReport& r, std::ostream& out, bool color) {
    Report rep(out, color);
    rep.heading("Native libraries");
    rep.row("folder", util::utf8_of(r.root));
    rep.row("loader", std::string(diag::target_os_name(r.os)) + " search order" +
                          (r.architecture.empty() ? "" : ", " + r.architecture));
    rep.row("scanned",
            std::to_string(r.libraries) + (r.libraries == 1 ? " library" : " libraries"));
    if (r.torch_version) rep.row("torch", *r.torch_version);
    out << "\n";
    rep.heading("Checks");
    auto checks = app::native_scan_checks(r);
    std::size_t width = 0;
    for (const auto& c : checks)
        width = std::max(width, c.id.size());
    for (const auto& c : checks)
        rep.check(c, width);
}

int run_scan(const DoctorArgs& args, const GlobalOptions& globals) {
    app::NativeScanRequest request;
    request.root = args.scan;
    request.environment = util::current_environment();
#ifdef _WIN32
    const diag::TargetOs host = diag::TargetOs::windows;
#else
    const diag::TargetOs host = diag::TargetOs::linux_os;
#endif
    request.os = host;
    if (!args.os.empty()) {
        auto os = diag::parse_target_os(args.os);
        if (!os) {
            throw util::InputError("--os " + args.os + ": unknown loader",
                                   "pass --os windows or --os linux");
        }
        request.os = *os;
    }
    request.host_os = request.os == host;
    if (!args.system32.empty()) request.system32 = util::path_from_utf8(args.system32);
    if (!args.search_path.empty()) {
        request.search_path.emplace();
        for (const auto& p : args.search_path)
            request.search_path->emplace_back(p);
    }
    diag::ScanReport report = app::run_native_scan(request);
    if (globals.json) {
        std::cout << app::native_scan_json(report).dump(2, ' ', false,
                                                        nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        print_scan_human(report, std::cout, use_color(globals, request.environment));
    }
    std::cout.flush();
    return app::native_scan_exit_code(report);
}

}  // namespace

Command add_doctor_command(CLI::App& app, GlobalOptions& globals) {
    using Args = DoctorArgs;
    auto args = std::make_shared<Args>();
    auto* doctor = app.add_subcommand(
        "doctor",
        "Hardware, drivers, the torch backend that runs here and why, interpreters, readiness");
    auto* m = doctor->add_option("-m,--manifest", args->manifest,
                                 "Manifest (default: AI Toolkit's, compiled in)");
    auto* r = doctor->add_option("-r,--requirements", args->requirements,
                                 "Decide the backend for this requirements file, as setup -r does");
    auto* f = doctor->add_option("-f,--file", args->env_file,
                                 "Decide the backend for this environment.yml, as setup -f does");
    auto* l = doctor->add_option("-l,--lock", args->lock,
                                 "Judge this lockfile's targets here, as setup -l does");
    doctor->add_option("--project", args->project, "Project directory (see `lock --project`)");
    m->excludes(r)->excludes(f)->excludes(l);
    r->excludes(f)->excludes(l);
    f->excludes(l);
    auto* prefix_opt = doctor->add_option(
        "-p,--prefix", args->prefix,
        "Prefix whose disk space and native libraries are checked (default .venv)");
    auto* scan_opt = doctor->add_option(
        "--scan", args->scan,
        "Only explain native-library load failures in this folder (any folder: a prefix, or a "
        "Windows torch\\lib copied here)");
    scan_opt->excludes(prefix_opt);
    doctor
        ->add_option("--os", args->os,
                     "Loader to simulate for --scan: windows or linux (default: this machine's)")
        ->needs(scan_opt);
    doctor
        ->add_option("--system32", args->system32,
                     "--scan --os windows: the System32 folder to search (default: this "
                     "machine's on Windows; elsewhere unknown, so only the MSVC runtime and "
                     "uncommon system DLLs are reported missing)")
        ->needs(scan_opt);
    doctor
        ->add_option("--search-path", args->search_path,
                     "--scan: PATH (windows) or LD_LIBRARY_PATH (linux) entries to simulate, in "
                     "order, instead of this process's (repeatable)")
        ->needs(scan_opt);
    doctor->add_option("--backend", args->backend,
                       "Force a torch backend: cpu, cuXYZ, rocmX.Y, xpu, mps (auto = detect; env "
                       "AITK_ENV_TORCH_BACKEND)");
    doctor->add_flag("--force", args->force, "Accept a forced backend this machine cannot run");
    add_install_selection_options(doctor, args->selection);
    doctor->add_flag("--refresh", args->refresh,
                     "Probe the hardware again instead of using the cached probe");
    // The libcuda child probe runs the binary itself in a separate process (see libcuda.hpp).
    doctor->add_option("--libcuda-probe-child", args->libcuda_child)->group("");
    doctor->footer(
        "Output: a report on stdout, or with --json one object (os, arch, libc, "
        "memory_gib, "
        "gpus, nvidia, backends, backend, reason, pythons, checks). A compute capability no probe "
        "could report is looked up by the GPU's name: the report says \"from the model name\", "
        "the JSON adds \"compute_capability_source\": \"model-name-table\" to that GPU.\n"
        "Native libraries: when the prefix exists, every .so (Linux) or .dll/.pyd (Windows) in "
        "it is read and each import looked up as the loader would; a missing import, a library "
        "of the wrong architecture or one a PATH / LD_LIBRARY_PATH entry shadows becomes a "
        "native.* check with the fix (JSON: \"native_libraries\"). --scan DIR does only that, "
        "for any folder and either loader (--os), and prints {root, os, architecture, "
        "libraries, torch_version, findings} with --json; exit 1 when a finding fails.\n"
        "Exit codes: 0 no check failed, 1 a check failed, 2 bad input (manifest, --backend, an "
        "override "
        "variable), 3 no backend this machine can run (see the fix in the report).\n"
        "Detection overrides: AITK_ENV_CUDA_DRIVER_VERSION, AITK_ENV_CUDA_VERSION, "
        "AITK_ENV_GPU_COMPUTE_CAPABILITY, AITK_ENV_NO_GPU, AITK_ENV_NVML_LIBRARY, "
        "AITK_ENV_LIBCUDA_LIBRARY, "
        "AITK_ENV_NVIDIA_SMI, AITK_ENV_TORCH_BACKEND, AITK_ENV_PROBE_TIMEOUT (seconds per probe).");

    Command command;
    command.app = doctor;
    command.run = [args, &globals]() -> int {
        if (!args->libcuda_child.empty())
            return app::run_libcuda_probe_child(args->libcuda_child, std::cout);
        if (!args->scan.empty()) return run_scan(*args, globals);
        std::filesystem::path cache_dir;
        try {
            cache_dir = app::resolve_cache_root(globals.cache_dir, util::current_environment());
        } catch (const util::InputError&) {
            cache_dir.clear();  // no usable cache folder: doctor still runs, uncached
        }
        app::DoctorOptions o = machine_options(args->backend, args->force, cache_dir);
        o.manifest = args->manifest;
        o.input = input_selection(args->manifest, args->requirements, args->env_file, args->project,
                                  false);
        set_install_selection(o.input, args->selection);
        if (!args->lock.empty()) o.lockfile = util::path_from_utf8(args->lock);
        o.cwd = std::filesystem::current_path();
        o.prefix = util::path_from_utf8(args->prefix);
        o.refresh = args->refresh;
        if (!globals.cert.empty()) o.cert = util::path_from_utf8(globals.cert);
        app::DoctorReport report = app::run_doctor(o);
        if (globals.json) {
            std::cout << report.to_json().dump(2, ' ', false,
                                               nlohmann::json::error_handler_t::replace)
                      << "\n";
        } else {
            print_human(report, std::cout, use_color(globals, o.probe.env));
        }
        std::cout.flush();
        return report.exit_code();
    };
    return command;
}

}  // namespace aitk::cli
