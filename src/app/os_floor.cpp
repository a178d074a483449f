#include "aitk/app/os_floor.hpp"

#include "aitk/lock/lock_floor.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {

namespace {

// "2.36" → {2, 36}; "14.5.1" → {14, 5}: the first two numbers of the machine's version.
std::optional<pep::OsVersion> major_minor_of(const std::string& text) {
    const auto parts = util::split(text, '.');
    if (parts.size() < 2) return std::nullopt;
    return pep::parse_os_version(std::string(parts[0]) + "." + std::string(parts[1]));
}

// The machine's version of what the target's wheels count: glibc on Linux, macOS on macOS.
std::optional<pep::OsVersion> machine_version(const lock::LockedTarget& target,
                                              const platform::HostInfo& host) {
    if (target.os == "linux" && host.os == platform::OsKind::linux_os &&
        host.libc.family == "glibc")
        return major_minor_of(host.libc.version);
    if (target.os == "macos" && host.os == platform::OsKind::macos)
        return major_minor_of(host.os_version);
    return std::nullopt;
}

}  // namespace

std::optional<FloorProblem> floor_problem(const lock::LockedTarget& target,
                                          const platform::HostInfo& host) {
    const auto here = machine_version(target, host);
    if (!here) return std::nullopt;
    std::vector<lock::WheelNeed> over;
    for (auto& need : lock::wheel_needs(target)) {
        if (*here < need.need.version) over.push_back(std::move(need));
    }
    if (over.empty()) return std::nullopt;
    const bool linux = target.os == "linux";
    const std::string library = linux ? "glibc" : "macOS";
    const std::string machine = library + " " + pep::to_string(*here);
    // The highest need first (wheel_needs' order): the one that decides the fix.
    const auto& top = over.front();
    FloorProblem problem;
    problem.why = top.package + " " + top.version + " needs " + library + " ≥ " +
                  pep::to_string(top.need.version) + " (" + top.need.platform +
                  "), this machine has " + machine;
    if (over.size() > 1) {
        std::vector<std::string> others;
        for (std::size_t i = 1; i < over.size() && others.size() < 3; ++i) {
            others.push_back(over[i].package + " " + over[i].version + " (" + library + " " +
                             pep::to_string(over[i].need.version) + ")");
        }
        if (over.size() - 1 > others.size()) others.push_back("…");
        problem.why += "; so do " + util::join(others, ", ");
    }
    if (linux) {
        problem.fix = "run it on a newer OS (glibc ≥ " + pep::to_string(top.need.version) +
                      "), or lock older versions that run here: aitk-env lock --glibc " +
                      pep::to_string(*here);
    } else {
        problem.fix = "run it on macOS " + pep::to_string(top.need.version) +
                      " or newer, or lock older versions that run here: aitk-env lock --macos " +
                      pep::to_string(*here);
    }
    return problem;
}

}  // namespace aitk::app
