#pragma once
// The OS/architecture pairs a lock target can have, as a set: what a uv source's marker or an
// `environments` entry covers, turned into the Applicability entries of a ProjectInput. Private
// to the pyproject reader.
#include <bitset>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/project/manifest.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::project::detail {

struct Platform {
    std::string_view os;
    std::string_view arch;
};

// linux-x86_64, linux-aarch64, windows-x86_64, windows-aarch64, macos-x86_64, macos-arm64.
inline constexpr std::size_t platform_count = 6;
const std::vector<Platform>& every_platform();

using PlatformSet = std::bitset<platform_count>;

inline PlatformSet all_platforms() {
    return PlatformSet().set();
}

// Where `marker` holds, judged for each OS/architecture with every Python from 3.8 to 3.14;
// an error (in words) when on one platform its value depends on the Python version, since a
// ProjectInput says where a line applies by OS, architecture and backend only.
util::Expected<PlatformSet, std::string> platforms_where(const pep::Marker& marker);
// Where any of `markers` holds for some Python version (uv's `environments`).
PlatformSet platforms_where_any(const std::vector<pep::Marker>& markers);

// `set` as Applicability entries, each limited to `backends` (empty: any): one entry for every
// platform, else one per OS with its architectures. An empty set gives no entry.
std::vector<Applicability> applicabilities(const PlatformSet& set,
                                           const std::vector<std::string>& backends = {});

// The platforms of `set`, "linux-x86_64, windows-x86_64", for messages.
std::string describe_platforms(const PlatformSet& set);

}  // namespace aitk::project::detail
