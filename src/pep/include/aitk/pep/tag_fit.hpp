#pragma once
// What a wheel's platform tag asks of a machine beyond its OS and architecture — the glibc of a
// manylinux tag (PEP 600, and the PEP 513/571/599 aliases), the musl of a musllinux tag
// (PEP 656), a macOS deployment target — and why a target takes none of a wheel's tags, in
// words for messages ("manylinux_2_35_x86_64: needs glibc ≥ 2.35 (this target: ≤ 2.28)").
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/tags.hpp"

namespace aitk::pep {

enum class OsLibrary : std::uint8_t { glibc, musl, macos };

struct PlatformNeed {
    OsLibrary library = OsLibrary::glibc;
    OsVersion version;
    std::string arch;      // as the tag spells it: "x86_64", "aarch64", "arm64", "universal2"
    std::string platform;  // the tag it was read from: "manylinux_2_31_x86_64"
    friend bool operator==(const PlatformNeed&, const PlatformNeed&) = default;
};

// "manylinux_2_31_x86_64" → glibc 2.31 on x86_64; "manylinux2014_*" → glibc 2.17,
// "manylinux2010_*" → 2.12, "manylinux1_*" → 2.5; "musllinux_1_2_aarch64" → musl 1.2;
// "macosx_11_0_arm64" → macOS 11.0. nullopt for the tags that name no version (win_*,
// linux_<arch>, any) and for malformed ones. `platform` is lower case, as parse_tag leaves it.
std::optional<PlatformNeed> platform_need(std::string_view platform);

// What a wheel with `tags` needs on a machine of `os` and `arch` (a target's spelling): the
// oldest version among its tags for that machine's C library (glibc, musl) or macOS and for its
// architecture; nullopt when none names one (pure wheels, win_*, linux_<arch>).
std::optional<PlatformNeed> wheel_need(TargetOs os, std::string_view arch,
                                       std::span<const Tag> tags);

// The floor a target's packages cannot avoid: for each package the needs of the files it may
// take (nullopt: a file that needs nothing, such as a pure wheel or an sdist), the highest of
// each package's least need; nullopt when every package has a file that needs nothing. A lock
// takes, of each package's files, the best one whose need is at most this floor: a compiled
// wheel that needs a newer glibc than the versions force gives way to a pure one.
std::optional<OsVersion> unavoidable_floor(
    const std::vector<std::vector<std::optional<OsVersion>>>& needs);
// Whether a file that needs `need` keeps within `floor` (unavoidable_floor's answer).
bool within_floor(const std::optional<OsVersion>& need, const std::optional<OsVersion>& floor);

// "2.31", "14.0".
std::string to_string(OsVersion version);
// "2.28" → {2, 28}: MAJOR.MINOR, digits only, each at most max_target_version_part; nullopt
// for anything else.
std::optional<OsVersion> parse_os_version(std::string_view text);

// Why a target takes a tag, the closest miss first.
enum class TagMismatch : std::uint8_t {
    os_too_new,    // needs a newer glibc, musl or macOS than the target allows
    libc,          // musllinux on a glibc target, manylinux on a musl one
    architecture,  // another machine (aarch64 on x86_64; win_arm64 on win_amd64)
    os,            // another operating system (win_amd64 on Linux)
    python,        // another Python or ABI (cp311-cp311 on CPython 3.12)
};

struct TagRefusal {
    Tag tag;  // the tag of the wheel that came closest
    TagMismatch why = TagMismatch::os;
    bool python_too = false;           // the platform fails, and the Python or ABI as well
    std::optional<PlatformNeed> need;  // the tag's version need (set for os_too_new)
    // "manylinux_2_35_x86_64: needs glibc ≥ 2.35 (this target: ≤ 2.28)",
    // "manylinux_2_17_aarch64: another architecture (this target: x86_64)",
    // "musllinux_1_2_x86_64: for musl, not glibc", "win_amd64: another OS (this target: Linux)",
    // "cp311-cp311: another Python or ABI (this target: CPython 3.12)".
    std::string describe(const TargetPlatform& target) const;
};

// Judges tags against one target (its tag lists made once).
class TagFit {
  public:
    explicit TagFit(const TargetPlatform& target);
    // Why the target takes none of `tags` (a wheel's), naming the closest miss; nullopt when it
    // takes one of them.
    std::optional<TagRefusal> refusal(std::span<const Tag> tags) const;
    const TargetPlatform& target() const noexcept { return target_; }

  private:
    std::optional<TagRefusal> judge(const Tag& tag) const;
    TagMismatch platform_mismatch(std::string_view platform) const;

    TargetPlatform target_;
    std::vector<std::string> platforms_;  // platform_tags(target), sorted
    std::vector<std::string> pythons_;    // "interpreter-abi" taken with a platform, sorted
    std::vector<std::string> any_;        // interpreters taken with "none-any", sorted
};

// TagFit(target).refusal(tags).
std::optional<TagRefusal> tag_refusal(const TargetPlatform& target, std::span<const Tag> tags);

}  // namespace aitk::pep
