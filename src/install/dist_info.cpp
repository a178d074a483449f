#include "dist_info.hpp"

#include "aitk/install/wheel_install.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"

namespace aitk::install::detail {

std::optional<DistInfoName> split_dist_info(std::string_view folder) noexcept {
    if (!folder.ends_with(dist_info_suffix)) return std::nullopt;
    folder.remove_suffix(dist_info_suffix.size());
    // Wheel tools escape '-' in names to '_', so the first '-' ends the name.
    std::size_t dash = folder.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == folder.size()) {
        return std::nullopt;
    }
    return DistInfoName{folder.substr(0, dash), folder.substr(dash + 1)};
}

bool dist_info_matches(std::string_view folder, std::string_view name, std::string_view version) {
    auto parts = split_dist_info(folder);
    if (!parts) return false;
    if (pep::canonicalize_name(parts->name) != pep::canonicalize_name(name)) return false;
    auto have = pep::Version::parse(parts->version);
    auto want = pep::Version::parse(version);
    if (have && want) return *have == *want;
    return parts->version == version;
}

std::string wheel_message(std::string_view label, std::string_view member,
                          std::string_view detail) {
    std::string out = "wheel ";
    out += label;
    if (!member.empty()) {
        out += ", member '";
        out += member;
        out += '\'';
    }
    out += ": ";
    out += detail;
    return out;
}

void fail(std::string_view label, std::string_view member, std::string_view detail) {
    throw WheelError(wheel_message(label, member, detail));
}

void fail(std::string_view label, std::string_view member, std::string_view detail,
          std::string hint) {
    throw WheelError(wheel_message(label, member, detail), std::move(hint));
}

}  // namespace aitk::install::detail
