#pragma once
// PEP 425 compatibility tags: parsing compressed tag sets ("py2.py3-none-any") and generating
// the ordered list of tags a target interpreter accepts, following pypa/packaging's sys_tags()
// but for a described machine rather than the running one.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/parsed.hpp"

namespace aitk::pep {

// One interpreter-abi-platform triple, always lower case ("cp312-cp312-manylinux_2_17_x86_64").
struct Tag {
    std::string interpreter;
    std::string abi;
    std::string platform;

    std::string to_string() const;  // "py3-none-any"

    friend bool operator==(const Tag&, const Tag&) = default;
    // Orders as the to_string() forms do, which is how packaging sorts tags.
    friend std::strong_ordering operator<=>(const Tag& a, const Tag& b) noexcept;
};

struct TagParseOptions {
    // PEP 425 asks for each dotted component to be sorted; packaging checks it only on request.
    bool validate_order = false;
    // A compressed set expands to the product of its components; refuse absurd products.
    std::size_t max_tags = 4096;
};

// Expands a compressed tag set into its tags, lower-cased, sorted and without duplicates.
// "py2.py3-none-any" -> {py2-none-any, py3-none-any}. Errors: not exactly three '-'-separated
// components, an empty member, an interpreter that is not an identifier, too many tags.
Parsed<std::vector<Tag>> parse_tag(std::string_view compressed,
                                   const TagParseOptions& options = {});

// The operating system and C library of a target, which decide its platform tags.
enum class TargetOs : std::uint8_t { linux_glibc, linux_musl, macos, windows };

struct OsVersion {
    unsigned major = 0;
    unsigned minor = 0;
    friend auto operator<=>(const OsVersion&, const OsVersion&) = default;
};

// The interpreter and machine that wheels are selected for.
struct TargetPlatform {
    // "cp" (CPython) and "pp" (PyPy) get their interpreter-specific tags; any other
    // implementation name gets packaging's generic tags.
    std::string implementation = "cp";
    unsigned python_major = 3;
    unsigned python_minor = 12;
    // CPython's sys.abiflags: "t" free-threaded, "d" debug ("m" for 3.7 and older).
    std::string abi_flags;
    // The interpreter's own ABI tag where it is not derived from the version, e.g. PyPy's
    // "pypy310_pp73". Empty: "cpXY<flags>" for CPython, "pypyXY_pp73" for PyPy.
    std::string abi;
    TargetOs os = TargetOs::linux_glibc;
    // Machine name as any of the usual spellings: x86_64/amd64, aarch64/arm64, i686/x86/win32,
    // armv7l, armv8l, ppc64le, s390x, riscv64, ... (normalised per OS).
    std::string arch = "x86_64";
    // glibc version (linux_glibc), musl version (linux_musl) or macOS version (macos); unused on
    // Windows. A glibc major below 2 means "unknown": only the linux_<arch> tag is produced.
    OsVersion os_version{2, 17};
    // Which of the tags that name an OS version (manylinux, musllinux, macosx) come first.
    // Off: packaging's order, the newest first: what pip installs on the machine it runs on.
    // On: the oldest first, ahead of the interpreter's own order, so that among a version's
    // files a lock takes the one that runs on the most machines (tag_fit.hpp); the tags that
    // name no version (linux_<arch>, win_*, any) follow in packaging's order.
    bool oldest_os_first = false;
};

// Platform tags of the target, best first: manylinux_2_N (N from the glibc minor down) with the
// legacy aliases beside 2_17/2_12/2_5, then linux_<arch>; musllinux_1_N then linux_<arch>;
// macosx_X_Y_<format> down the version ladder; or the single win_* tag.
std::vector<std::string> platform_tags(const TargetPlatform& target);

// Version numbers of a target above this are clamped by platform_tags/compatible_tags (no real
// Python, glibc, musl or macOS comes near it); callers taking user input reject them first.
inline constexpr unsigned max_target_version_part = 200;
// The target with every version number clamped to max_target_version_part.
TargetPlatform bounded(TargetPlatform target) noexcept;

// Every tag the target accepts, best first, in packaging's sys_tags() order: the interpreter's
// own ABIs, abi3, "none", older abi3, then py* tags on each platform, then "-none-any" tags
// (with oldest_os_first: see there).
std::vector<Tag> compatible_tags(const TargetPlatform& target);

// Rank lookup over an ordered tag list (0 = most preferred), so that a wheel's tags are ranked
// against a target in O(number of wheel tags) without allocating.
class TagPriority {
  public:
    TagPriority() = default;
    // Rank = position of the first occurrence in `ordered`.
    explicit TagPriority(std::span<const Tag> ordered);
    static TagPriority for_target(const TargetPlatform& target);

    // Components must be lower case, as parse_tag() leaves them.
    std::optional<std::size_t> rank(std::string_view interpreter, std::string_view abi,
                                    std::string_view platform) const noexcept;
    std::optional<std::size_t> rank(const Tag& tag) const noexcept {
        return rank(tag.interpreter, tag.abi, tag.platform);
    }
    bool supports(const Tag& tag) const noexcept { return rank(tag).has_value(); }

    // The best (lowest) rank among `tags`; nullopt when the target supports none of them.
    std::optional<std::size_t> best_rank(std::span<const Tag> tags) const noexcept;
    // The same for a compressed tag set as it appears in a wheel filename
    // ("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"), without expanding it into Tag
    // values: lets an index skip incompatible wheels before parsing them fully. Case-insensitive;
    // nullopt for a malformed set too.
    std::optional<std::size_t> best_rank(std::string_view compressed) const noexcept;

    std::size_t size() const noexcept { return tags_.size(); }

  private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t tag = kEmpty;  // index into tags_
        static constexpr std::uint32_t kEmpty = 0xFFFFFFFF;
    };

    const Slot* find(std::uint64_t hash, std::string_view interpreter, std::string_view abi,
                     std::string_view platform) const noexcept;

    std::vector<Tag> tags_;    // unique tags, best first: a tag's rank is its index
    std::vector<Slot> slots_;  // open addressing, power-of-two size
};

}  // namespace aitk::pep
