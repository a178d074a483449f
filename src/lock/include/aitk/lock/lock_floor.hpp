#pragma once
// What a locked target's wheels need of the OS beyond its name — glibc on Linux, macOS on
// macOS — read from the wheels' platform tags (pep/tag_fit.hpp): for the lock's `glibc:` and
// `macos:` fields, and for the check that a machine is new enough for the target.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/tag_fit.hpp"

namespace aitk::lock {

struct WheelNeed {
    std::string package;  // normalised name
    std::string version;
    pep::PlatformNeed need;  // need.platform: the tag it is read from ("manylinux_2_31_x86_64")
};

// The key of a target's floor fields, and what they count: "glibc" for Linux targets, "macos"
// for macOS ones, "" for the others (Windows wheels name no version).
std::string_view floor_key(std::string_view os) noexcept;

// What a wheel with `tags` needs on a target of `os` ("linux", "macos", "windows") and `arch`:
// pep::wheel_need for the target's C library or macOS; nullopt on Windows.
std::optional<pep::PlatformNeed> wheel_os_need(std::string_view os, std::string_view arch,
                                               std::span<const pep::Tag> tags);

// Every package of `target` whose wheel names a version for the target's OS and architecture
// (the oldest among its tags for them: the wheel runs from there), the highest need first, then
// by name. Wheels whose file name does not parse name nothing.
std::vector<WheelNeed> wheel_needs(const LockedTarget& target);

// The target's floor: the highest need and the packages that need exactly it; nullopt when no
// wheel names a version.
std::optional<LockedFloor> floor_of(const LockedTarget& target);

}  // namespace aitk::lock
