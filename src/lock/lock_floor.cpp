#include "aitk/lock/lock_floor.hpp"

#include <algorithm>

#include "aitk/pep/wheel_filename.hpp"

namespace aitk::lock {

std::string_view floor_key(std::string_view os) noexcept {
    if (os == "linux") return "glibc";
    if (os == "macos") return "macos";
    return {};
}

std::optional<pep::PlatformNeed> wheel_os_need(std::string_view os, std::string_view arch,
                                               std::span<const pep::Tag> tags) {
    const std::string_view key = floor_key(os);
    if (key.empty()) return std::nullopt;
    return pep::wheel_need(key == "glibc" ? pep::TargetOs::linux_glibc : pep::TargetOs::macos, arch,
                           tags);
}

std::vector<WheelNeed> wheel_needs(const LockedTarget& target) {
    std::vector<WheelNeed> out;
    for (const auto& package : target.packages) {
        if (!package.wheel) continue;
        auto parsed = pep::WheelFilename::parse(package.wheel->filename);
        if (!parsed) continue;
        if (auto need = wheel_os_need(target.os, target.arch, parsed->tags))
            out.push_back({package.name, package.version, std::move(*need)});
    }
    std::stable_sort(out.begin(), out.end(), [](const WheelNeed& a, const WheelNeed& b) {
        if (a.need.version != b.need.version) return b.need.version < a.need.version;
        return a.package < b.package;
    });
    return out;
}

std::optional<LockedFloor> floor_of(const LockedTarget& target) {
    const auto needs = wheel_needs(target);
    if (needs.empty()) return std::nullopt;
    LockedFloor floor;
    floor.version = pep::to_string(needs.front().need.version);
    for (const auto& n : needs) {
        if (n.need.version == needs.front().need.version) floor.packages.push_back(n.package);
    }
    std::sort(floor.packages.begin(), floor.packages.end());
    return floor;
}

}  // namespace aitk::lock
