#include <algorithm>

#include "aitk/project/manifest.hpp"
#include "aitk/project/target.hpp"

namespace aitk::project {

namespace {

// aarch64 (Linux, Windows) and arm64 (macOS) are one architecture under two names.
std::string_view arch_family(std::string_view arch) {
    return arch == "arm64" ? std::string_view("aarch64") : arch;
}

bool listed(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

bool Applicability::applies(std::string_view os_name, std::string_view arch_name,
                            std::string_view backend) const {
    if (!os_name.empty() && !os.empty() && !listed(os, os_name)) return false;
    if (!arch_name.empty() && !arch.empty() &&
        std::none_of(arch.begin(), arch.end(), [&](const std::string& a) {
            return arch_family(a) == arch_family(arch_name);
        }))
        return false;
    if (!backend.empty() && !backends.empty()) {
        const std::string_view kind = backend_kind(backend);
        return std::any_of(backends.begin(), backends.end(), [&](const std::string& b) {
            return b == backend || (!kind.empty() && b == kind);
        });
    }
    return true;
}

bool BackendOption::offered_on(std::string_view os, std::string_view arch) const {
    return where.applies(os, arch, {}) && !combination_problem(os, arch, name);
}

}  // namespace aitk::project
