#include "pyproject_platforms.hpp"

#include <map>

#include "aitk/project/target.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::project::detail {

namespace {

// The Pythons a marker is judged with: every CPython aitk-env can lock for and the two before.
const std::vector<pep::Version>& judged_pythons() {
    static const std::vector<pep::Version> versions = [] {
        std::vector<pep::Version> out;
        for (int minor = 8; minor <= 14; ++minor)
            out.push_back(*pep::Version::parse("3." + std::to_string(minor) + ".0"));
        return out;
    }();
    return versions;
}

pep::MarkerEnvironment environment_of(const Platform& platform, const pep::Version& python) {
    Target target{std::string(platform.os), std::string(platform.arch), "cpu"};
    return marker_environment(target, python);
}

}  // namespace

const std::vector<Platform>& every_platform() {
    static const std::vector<Platform> platforms = {
        {"linux", "x86_64"},    {"linux", "aarch64"}, {"windows", "x86_64"},
        {"windows", "aarch64"}, {"macos", "x86_64"},  {"macos", "arm64"},
    };
    return platforms;
}

util::Expected<PlatformSet, std::string> platforms_where(const pep::Marker& marker) {
    PlatformSet out;
    const auto& platforms = every_platform();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
        std::optional<bool> value;
        for (const auto& python : judged_pythons()) {
            auto result = marker.evaluate(environment_of(platforms[i], python));
            if (!result) return util::Unexpected<std::string>(result.error().describe());
            if (value && *value != *result) {
                return util::Unexpected<std::string>(
                    "on " + std::string(platforms[i].os) + "-" + std::string(platforms[i].arch) +
                    " it holds for some Python versions and not for others; aitk-env limits a "
                    "source by OS and architecture only");
            }
            value = *result;
        }
        out[i] = *value;
    }
    return out;
}

PlatformSet platforms_where_any(const std::vector<pep::Marker>& markers) {
    PlatformSet out;
    const auto& platforms = every_platform();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
        for (const auto& marker : markers) {
            for (const auto& python : judged_pythons()) {
                auto result = marker.evaluate(environment_of(platforms[i], python));
                if (result && *result) out[i] = true;
            }
        }
    }
    return out;
}

std::vector<Applicability> applicabilities(const PlatformSet& set,
                                           const std::vector<std::string>& backends) {
    std::vector<Applicability> out;
    if (set.none()) return out;
    if (set.all()) {
        Applicability a;
        a.backends = backends;
        out.push_back(std::move(a));
        return out;
    }
    // One entry per OS, in the order of every_platform().
    std::vector<std::string> order;
    std::map<std::string, std::pair<std::size_t, std::vector<std::string>>> by_os;
    const auto& platforms = every_platform();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
        auto& [total, arches] = by_os[std::string(platforms[i].os)];
        if (total == 0 && arches.empty()) order.emplace_back(platforms[i].os);
        ++total;
        if (set[i]) arches.emplace_back(platforms[i].arch);
    }
    for (const auto& os : order) {
        const auto& [total, arches] = by_os[os];
        if (arches.empty()) continue;
        Applicability a;
        a.os = {os};
        if (arches.size() != total) a.arch = arches;
        a.backends = backends;
        out.push_back(std::move(a));
    }
    return out;
}

std::string describe_platforms(const PlatformSet& set) {
    std::vector<std::string> names;
    const auto& platforms = every_platform();
    for (std::size_t i = 0; i < platforms.size(); ++i) {
        if (set[i])
            names.push_back(std::string(platforms[i].os) + "-" + std::string(platforms[i].arch));
    }
    return names.empty() ? std::string("no platform") : util::join(names, ", ");
}

}  // namespace aitk::project::detail
