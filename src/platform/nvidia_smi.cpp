#include "aitk/platform/nvidia_smi.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::platform {

namespace {

bool is_unavailable(std::string_view v) {
    return v.empty() ||
           (v.front() == '[' && v.back() == ']');  // [N/A], [Not Supported], [Unknown Error]
}

// "143771 MiB" or "143771" → MiB.
std::optional<std::optional<std::uint64_t>> parse_memory(std::string_view v) {
    if (is_unavailable(v)) return std::optional<std::uint64_t>();
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (ec != std::errc() || ptr == v.data()) return std::nullopt;
    std::string_view unit =
        util::trim(std::string_view(ptr, static_cast<std::size_t>(v.data() + v.size() - ptr)));
    if (unit.empty() || unit == "MiB") return std::optional<std::uint64_t>(value);
    if (unit == "GiB") return std::optional<std::uint64_t>(value * 1024);
    return std::nullopt;
}

}  // namespace

std::vector<std::string> nvidia_smi_query_arguments(bool with_compute_cap) {
    return {with_compute_cap ? "--query-gpu=driver_version,name,memory.total,compute_cap"
                             : "--query-gpu=driver_version,name,memory.total",
            "--format=csv,noheader"};
}

Parsed<SmiReport> parse_nvidia_smi_csv(std::string_view text, bool with_compute_cap) {
    SmiReport report;
    report.compute_cap_queried = with_compute_cap;
    std::size_t offset = 0;
    std::size_t needed = with_compute_cap ? 4 : 3;
    bool have_driver = false;
    for (std::string_view raw : util::split(text, '\n')) {
        std::size_t line_offset = offset;
        offset += raw.size() + 1;
        std::string_view line = util::trim(raw);
        if (line.empty()) continue;
        auto fields = util::split(line, ',');
        if (fields.size() < needed) {
            return parse_error("expected " + std::to_string(needed) +
                                   " comma-separated fields per GPU, got " +
                                   std::to_string(fields.size()),
                               text, line_offset);
        }
        std::string_view driver_text = util::trim(fields.front());
        std::string_view cc_text =
            with_compute_cap ? util::trim(fields.back()) : std::string_view();
        std::string_view memory_text =
            util::trim(fields[fields.size() - (with_compute_cap ? 2 : 1)]);
        // The name is everything between the driver and the memory fields, commas included.
        const std::string_view& last_name_field =
            fields[fields.size() - (with_compute_cap ? 3 : 2)];
        std::string_view name = util::trim(std::string_view(
            fields[1].data(), static_cast<std::size_t>(last_name_field.data() +
                                                       last_name_field.size() - fields[1].data())));

        auto driver = DriverVersion::parse(driver_text);
        if (!driver) {
            return parse_error(
                "driver_version \"" + std::string(driver_text) + "\": " + driver.error().message,
                text, line_offset);
        }
        if (have_driver && !(*driver == report.driver)) {
            return parse_error("GPUs report different driver versions", text, line_offset);
        }
        report.driver = *driver;
        have_driver = true;

        GpuDevice gpu;
        gpu.vendor = GpuVendor::nvidia;
        gpu.name = is_unavailable(name) ? std::string() : std::string(name);
        auto memory = parse_memory(memory_text);
        if (!memory) {
            return parse_error(
                "memory.total \"" + std::string(memory_text) + "\" is not a size in MiB", text,
                line_offset);
        }
        gpu.memory_mib = *memory;
        if (with_compute_cap && !is_unavailable(cc_text)) {
            auto cc = ComputeCapability::parse(cc_text);
            if (!cc) {
                return parse_error(
                    "compute_cap \"" + std::string(cc_text) + "\": " + cc.error().message, text,
                    line_offset);
            }
            gpu.compute_capability = *cc;
        }
        report.gpus.push_back(std::move(gpu));
    }
    if (!have_driver) return parse_error("nvidia-smi printed no GPU lines", text);
    return report;
}

std::vector<std::filesystem::path> nvidia_smi_candidates(
    OsKind os, const util::Environment& env, const std::optional<std::string>& override_program) {
    std::vector<std::filesystem::path> out;
    bool windows = os == OsKind::windows;
    auto add = [&](const std::filesystem::path& p) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(p, ec)) return;
        for (const auto& existing : out) {
            if (existing == p) return;
        }
        out.push_back(p);
    };
    if (override_program && !override_program->empty()) {
        // An explicit program is kept even when missing, so the report says why it failed.
        out.push_back(*override_program);
    }
    std::string path_value = util::environment_lookup(env, "PATH", windows).value_or("");
    std::string pathext =
        util::environment_lookup(env, "PATHEXT", true).value_or(".COM;.EXE;.BAT;.CMD");
    if (auto found = util::find_program("nvidia-smi", path_value, windows, pathext)) add(*found);
    if (os == OsKind::linux_os) {
        add("/usr/lib/wsl/lib/nvidia-smi");
    } else if (windows) {
        std::filesystem::path system_root =
            util::environment_lookup(env, "SystemRoot", true).value_or("C:\\Windows");
        std::filesystem::path program_files =
            util::environment_lookup(env, "ProgramFiles", true).value_or("C:\\Program Files");
        add(system_root / "System32" / "nvidia-smi.exe");
        add(program_files / "NVIDIA Corporation" / "NVSMI" / "nvidia-smi.exe");
        // Modern drivers install it only into the DriverStore, in a folder named nv<hash>.
        std::error_code ec;
        std::vector<std::filesystem::path> store;
        for (const auto& entry : std::filesystem::directory_iterator(
                 system_root / "System32" / "DriverStore" / "FileRepository", ec)) {
            std::string name = util::to_lower(util::utf8_of(entry.path().filename()));
            if (name.rfind("nv", 0) == 0) store.push_back(entry.path() / "nvidia-smi.exe");
        }
        std::sort(store.begin(), store.end());
        for (const auto& p : store)
            add(p);
    }
    return out;
}

SourceResult<SmiReport> probe_nvidia_smi(const std::vector<std::filesystem::path>& candidates,
                                         const util::Environment& env,
                                         std::chrono::milliseconds timeout) {
    using R = SourceResult<SmiReport>;
    if (candidates.empty()) return R::none(AttemptOutcome::absent, "nvidia-smi not found");
    const std::filesystem::path& program = candidates.front();
    auto run_query = [&](bool with_cc) {
        util::ProcessRequest req;
        req.argv = {util::utf8_of(program)};
        auto args = nvidia_smi_query_arguments(with_cc);
        req.argv.insert(req.argv.end(), args.begin(), args.end());
        req.environment = env;
        req.timeout = timeout;
        req.output_limit = 256 * 1024;
        return util::run_process(req);
    };
    bool with_cc = true;
    auto run = run_query(true);
    if (!run) return R::none(AttemptOutcome::absent, run.error().message);
    auto first_line = [](const util::ProcessResult& r) {
        std::string text = r.out.empty() ? r.err : r.out;
        std::string_view line = util::trim(util::split(text, '\n').front());
        return std::string(line);
    };
    if (run->end == util::ProcessEnd::exited && run->exit_code != 0 &&
        (run->out + run->err).find("compute_cap") != std::string::npos) {
        // A driver older than the compute_cap field (e.g. 470): ask again without it.
        with_cc = false;
        run = run_query(false);
        if (!run) return R::none(AttemptOutcome::failed, run.error().message);
    }
    std::string name = util::utf8_of(program);
    if (run->end == util::ProcessEnd::timed_out) {
        return R::none(AttemptOutcome::timed_out, name + " " + run->describe() + " and was killed");
    }
    if (run->end == util::ProcessEnd::signaled) {
        return R::none(AttemptOutcome::failed, name + " " + run->describe());
    }
    if (run->exit_code == 6 ||
        first_line(*run).find("No devices were found") != std::string::npos) {
        return R::none(AttemptOutcome::absent, name + ": No devices were found");
    }
    if (run->exit_code != 0) {
        return R::none(AttemptOutcome::failed,
                       name + " " + run->describe() + ": " + first_line(*run));
    }
    auto report = parse_nvidia_smi_csv(run->out, with_cc);
    if (!report)
        return R::none(AttemptOutcome::failed,
                       name + ": unreadable output: " + report.error().describe());
    report->program = name;
    std::string detail = name + ": driver " + report->driver.text() + ", " +
                         std::to_string(report->gpus.size()) +
                         (report->gpus.size() == 1 ? " GPU" : " GPUs") +
                         (with_cc ? "" : " (this driver does not report compute_cap)");
    return R::answer(std::move(*report), detail);
}

}  // namespace aitk::platform
