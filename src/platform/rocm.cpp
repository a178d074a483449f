#include "aitk/platform/rocm.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::platform {

Parsed<std::string> gfx_name_from_target_version(std::uint64_t value) {
    std::uint64_t major = value / 10000;
    std::uint64_t minor = (value / 100) % 100;
    std::uint64_t stepping = value % 100;
    if (major == 0 || major > 99 || minor > 15 || stepping > 15) {
        return parse_error(
            "gfx_target_version " + std::to_string(value) +
                " is not major*10000 + minor*100 + stepping with minor and stepping below 16",
            std::to_string(value));
    }
    return "gfx" + std::to_string(major) + util::hex_digit(minor) + util::hex_digit(stepping);
}

Parsed<KfdNode> parse_kfd_properties(std::string_view text) {
    KfdNode node;
    bool have_target = false;
    std::size_t offset = 0;
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t line_offset = offset;
        offset += line.size() + 1;
        line = util::trim(line);
        if (line.empty()) continue;
        std::size_t space = line.find(' ');
        if (space == std::string_view::npos) {
            return parse_error("expected \"key value\" lines", text, line_offset);
        }
        std::string_view key = line.substr(0, space);
        std::string_view value = util::trim(line.substr(space + 1));
        std::uint64_t number = 0;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
        bool numeric = ec == std::errc() && ptr == value.data() + value.size() && !value.empty();
        if (key == "gfx_target_version") {
            if (!numeric)
                return parse_error("gfx_target_version is not a number", text, line_offset);
            have_target = true;
            if (number != 0) {
                auto gfx = gfx_name_from_target_version(number);
                if (!gfx) return parse_error(gfx.error().message, text, line_offset);
                node.gfx_target = *gfx;
            }
        } else if (key == "vendor_id" && numeric) {
            node.vendor_id = static_cast<std::uint32_t>(number);
        } else if (key == "simd_count" && numeric) {
            node.simd_count = static_cast<std::uint32_t>(number);
        }
    }
    if (!have_target) return parse_error("no gfx_target_version in the kfd node properties", text);
    return node;
}

Parsed<std::vector<std::string>> parse_rocm_agent_enumerator(std::string_view text) {
    std::vector<std::string> out;
    std::size_t offset = 0;
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t line_offset = offset;
        offset += line.size() + 1;
        line = util::trim(line);
        if (line.empty()) continue;
        bool valid = line.size() > 3 && line.substr(0, 3) == "gfx" &&
                     std::all_of(line.begin() + 3, line.end(),
                                 [](char c) { return util::is_ascii_alnum(c); });
        if (!valid)
            return parse_error("expected a gfx target name such as gfx1100", text, line_offset);
        if (line == "gfx000") continue;
        out.emplace_back(line);
    }
    return out;
}

namespace {

std::optional<std::uint64_t> kfd_memory_bytes(const std::filesystem::path& node) {
    std::error_code ec;
    std::uint64_t total = 0;
    bool any = false;
    for (const auto& bank : std::filesystem::directory_iterator(node / "mem_banks", ec)) {
        auto text = read_small_file(bank.path() / "properties");
        if (!text) continue;
        for (std::string_view line : util::split(*text, '\n')) {
            line = util::trim(line);
            if (line.substr(0, 14) != "size_in_bytes ") continue;
            std::string_view v = util::trim(line.substr(14));
            std::uint64_t n = 0;
            auto [ptr, e] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (e == std::errc() && ptr == v.data() + v.size()) {
                total += n;
                any = true;
            }
        }
    }
    if (!any) return std::nullopt;
    return total;
}

}  // namespace

SourceResult<std::vector<GpuDevice>> probe_amd_gpus(const ProbeEnvironment& env) {
    using R = SourceResult<std::vector<GpuDevice>>;
    if (env.os != OsKind::linux_os) return R::none(AttemptOutcome::absent, "ROCm is Linux only");
    std::vector<GpuDevice> gpus;
    std::error_code ec;
    std::vector<std::filesystem::path> nodes;
    for (const auto& entry :
         std::filesystem::directory_iterator(env.path("/sys/class/kfd/kfd/topology/nodes"), ec)) {
        nodes.push_back(entry.path());
    }
    std::sort(nodes.begin(), nodes.end());
    std::string problems;
    for (const auto& node : nodes) {
        auto text = read_small_file(node / "properties");
        if (!text) continue;
        auto parsed = parse_kfd_properties(*text);
        if (!parsed) {
            problems += "; " + util::utf8_of(node.filename()) + ": " + parsed.error().message;
            continue;
        }
        if (parsed->gfx_target.empty()) continue;  // a CPU node
        GpuDevice gpu;
        gpu.vendor = GpuVendor::amd;
        gpu.gfx_target = parsed->gfx_target;
        gpu.name = "AMD " + parsed->gfx_target;
        if (auto bytes = kfd_memory_bytes(node)) gpu.memory_mib = *bytes / (1024u * 1024u);
        gpus.push_back(std::move(gpu));
    }
    if (!gpus.empty()) {
        return R::answer(std::move(gpus),
                         "kfd topology: " + std::to_string(nodes.size()) + " nodes" + problems);
    }

    std::string path_value = env.get("PATH").value_or("");
    auto program = util::find_program("rocm_agent_enumerator", path_value);
    if (!program) {
        std::filesystem::path fallback = env.path("/opt/rocm/bin/rocm_agent_enumerator");
        std::error_code fe;
        if (std::filesystem::is_regular_file(fallback, fe)) program = fallback;
    }
    if (!program)
        return R::none(AttemptOutcome::absent,
                       "no kfd GPU nodes and no rocm_agent_enumerator" + problems);
    util::ProcessRequest req;
    req.argv = {program->string()};
    req.environment = env.env;
    req.timeout = env.timeouts.rocm;
    req.output_limit = 64 * 1024;
    auto run = util::run_process(req);
    if (!run) return R::none(AttemptOutcome::failed, run.error().message);
    if (!run->succeeded())
        return R::none(run->end == util::ProcessEnd::timed_out ? AttemptOutcome::timed_out
                                                               : AttemptOutcome::failed,
                       program->string() + " " + run->describe());
    auto names = parse_rocm_agent_enumerator(run->out);
    if (!names)
        return R::none(AttemptOutcome::failed, program->string() + ": " + names.error().describe());
    if (names->empty())
        return R::none(AttemptOutcome::absent, program->string() + ": no GPU agents");
    for (const auto& n : *names) {
        GpuDevice gpu;
        gpu.vendor = GpuVendor::amd;
        gpu.gfx_target = n;
        gpu.name = "AMD " + n;
        gpus.push_back(std::move(gpu));
    }
    return R::answer(std::move(gpus), program->string() + ": " + util::join(*names, ", "));
}

}  // namespace aitk::platform
