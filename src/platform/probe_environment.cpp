#include "aitk/platform/probe_environment.hpp"

#include <fstream>

namespace aitk::platform {

ProbeTimeouts ProbeTimeouts::all(std::chrono::milliseconds limit) {
    ProbeTimeouts t;
    t.nvml = t.libcuda = t.nvidia_smi = t.rocm = t.small_tool = limit;
    return t;
}

ProbeEnvironment ProbeEnvironment::current() {
    ProbeEnvironment e;
    e.env = util::current_environment();
    return e;
}

std::optional<std::string> ProbeEnvironment::get(std::string_view name) const {
    return util::environment_lookup(env, name, os == OsKind::windows);
}

std::filesystem::path ProbeEnvironment::path(std::string_view absolute) const {
    std::string_view rel = absolute;
    while (!rel.empty() && rel.front() == '/')
        rel.remove_prefix(1);
    return root / std::filesystem::path(rel);
}

std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t limit) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string out;
    char buffer[4096];
    while (out.size() < limit && in.read(buffer, sizeof buffer).gcount() > 0) {
        out.append(buffer, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) return std::nullopt;
    if (out.size() > limit) out.resize(limit);
    return out;
}

}  // namespace aitk::platform
