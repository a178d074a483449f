#include "aitk/pep/tag_fit.hpp"

#include <algorithm>

#include "aitk/util/strings.hpp"
#include "platform_names.hpp"

namespace aitk::pep {

namespace {

// A whole number of at most three digits at the start of `text`, consumed; nullopt otherwise.
std::optional<unsigned> take_number(std::string_view& text) {
    std::size_t digits = 0;
    while (digits < text.size() && util::is_ascii_digit(text[digits]))
        ++digits;
    if (digits == 0 || digits > 3) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = 0; i < digits; ++i)
        value = value * 10 + static_cast<unsigned>(text[i] - '0');
    text.remove_prefix(digits);
    return value;
}

// "<major>_<minor>_<arch>" after a tag's prefix.
std::optional<PlatformNeed> versioned(OsLibrary library, std::string_view rest,
                                      std::string_view platform) {
    auto major = take_number(rest);
    if (!major || rest.empty() || rest.front() != '_') return std::nullopt;
    rest.remove_prefix(1);
    auto minor = take_number(rest);
    if (!minor || rest.size() < 2 || rest.front() != '_') return std::nullopt;
    rest.remove_prefix(1);
    return PlatformNeed{library, {*major, *minor}, std::string(rest), std::string(platform)};
}

bool contains(const std::vector<std::string>& sorted, std::string_view value) {
    return std::binary_search(sorted.begin(), sorted.end(), value, std::less<>());
}

bool arch_fits(TargetOs os, std::string_view target_arch, const PlatformNeed& need) {
    if (os == TargetOs::macos) {
        // The formats are views of the arch's name, so it must outlive them.
        const std::string mac = detail::mac_arch(target_arch);
        const auto formats = detail::mac_binary_formats(need.version, mac);
        return std::find(formats.begin(), formats.end(), need.arch) != formats.end();
    }
    const auto archs = detail::linux_archs(target_arch);
    return std::find(archs.begin(), archs.end(), need.arch) != archs.end();
}

OsLibrary library_of(TargetOs os) {
    switch (os) {
        case TargetOs::linux_musl:
            return OsLibrary::musl;
        case TargetOs::macos:
            return OsLibrary::macos;
        default:
            return OsLibrary::glibc;
    }
}

std::string_view library_name(OsLibrary library) {
    switch (library) {
        case OsLibrary::musl:
            return "musl";
        case OsLibrary::macos:
            return "macOS";
        case OsLibrary::glibc:
            break;
    }
    return "glibc";
}

std::string_view os_name(TargetOs os) {
    switch (os) {
        case TargetOs::windows:
            return "Windows";
        case TargetOs::macos:
            return "macOS";
        default:
            return "Linux";
    }
}

std::string python_name(const TargetPlatform& t) {
    const std::string version =
        std::to_string(t.python_major) + "." + std::to_string(t.python_minor);
    const std::string impl = util::to_lower(t.implementation);
    if (impl == "cp") return "CPython " + version;
    if (impl == "pp") return "PyPy " + version;
    return t.implementation + " " + version;
}

}  // namespace

std::optional<PlatformNeed> platform_need(std::string_view platform) {
    constexpr std::string_view many = "manylinux";
    if (platform.starts_with("manylinux_"))
        return versioned(OsLibrary::glibc, platform.substr(many.size() + 1), platform);
    // The legacy aliases: PEP 513 (manylinux1), 571 (manylinux2010), 599 (manylinux2014).
    static constexpr std::pair<std::string_view, OsVersion> aliases[] = {
        {"manylinux1_", {2, 5}}, {"manylinux2010_", {2, 12}}, {"manylinux2014_", {2, 17}}};
    for (const auto& [prefix, glibc] : aliases) {
        if (platform.starts_with(prefix) && platform.size() > prefix.size()) {
            return PlatformNeed{OsLibrary::glibc, glibc,
                                std::string(platform.substr(prefix.size())), std::string(platform)};
        }
    }
    if (platform.starts_with("musllinux_"))
        return versioned(OsLibrary::musl, platform.substr(10), platform);
    if (platform.starts_with("macosx_"))
        return versioned(OsLibrary::macos, platform.substr(7), platform);
    return std::nullopt;
}

std::optional<PlatformNeed> wheel_need(TargetOs os, std::string_view arch,
                                       std::span<const Tag> tags) {
    if (os == TargetOs::windows) return std::nullopt;
    const OsLibrary library = library_of(os);
    std::optional<PlatformNeed> best;
    for (const Tag& tag : tags) {
        auto need = platform_need(tag.platform);
        if (!need || need->library != library || !arch_fits(os, arch, *need)) continue;
        if (!best || need->version < best->version) best = std::move(need);
    }
    return best;
}

std::optional<OsVersion> unavoidable_floor(
    const std::vector<std::vector<std::optional<OsVersion>>>& needs) {
    std::optional<OsVersion> floor;
    for (const auto& files : needs) {
        if (files.empty()) continue;
        // The package's least need: nullopt (nothing) beats every version.
        std::optional<OsVersion> least = files.front();
        for (const auto& need : files) {
            if (!need || (least && *need < *least)) least = need;
            if (!least) break;
        }
        if (least && (!floor || *floor < *least)) floor = least;
    }
    return floor;
}

bool within_floor(const std::optional<OsVersion>& need, const std::optional<OsVersion>& floor) {
    return !need || (floor && !(*floor < *need));
}

std::string to_string(OsVersion version) {
    return std::to_string(version.major) + "." + std::to_string(version.minor);
}

std::optional<OsVersion> parse_os_version(std::string_view text) {
    auto major = take_number(text);
    if (!major || text.empty() || text.front() != '.') return std::nullopt;
    text.remove_prefix(1);
    auto minor = take_number(text);
    if (!minor || !text.empty()) return std::nullopt;
    if (*major > max_target_version_part || *minor > max_target_version_part) return std::nullopt;
    return OsVersion{*major, *minor};
}

std::string TagRefusal::describe(const TargetPlatform& target) const {
    const std::string python = tag.interpreter + "-" + tag.abi;
    std::string text;
    switch (why) {
        case TagMismatch::os_too_new: {
            const std::string_view name = library_name(need ? need->library : OsLibrary::glibc);
            text = tag.platform + ": needs " + std::string(name) + " ≥ " +
                   (need ? to_string(need->version) : std::string("?")) + " (this target: ≤ " +
                   to_string(target.os_version) + ")";
            break;
        }
        case TagMismatch::libc:
            text = tag.platform + (target.os == TargetOs::linux_musl ? ": for glibc, not musl"
                                                                     : ": for musl, not glibc");
            break;
        case TagMismatch::architecture:
            text = tag.platform + ": another architecture (this target: " + target.arch + ")";
            break;
        case TagMismatch::os:
            text = tag.platform + ": another OS (this target: " + std::string(os_name(target.os)) +
                   ")";
            break;
        case TagMismatch::python:
            return python + ": another Python or ABI (this target: " + python_name(target) + ")";
    }
    if (python_too) text += ", and " + python + " is another Python or ABI";
    return text;
}

TagFit::TagFit(const TargetPlatform& target) : target_(bounded(target)) {
    platforms_ = platform_tags(target_);
    std::sort(platforms_.begin(), platforms_.end());
    for (const Tag& tag : compatible_tags(target_)) {
        if (tag.platform == "any") {
            any_.push_back(tag.interpreter);
        } else {
            pythons_.push_back(tag.interpreter + "-" + tag.abi);
        }
    }
    for (auto* list : {&pythons_, &any_}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
}

TagMismatch TagFit::platform_mismatch(std::string_view platform) const {
    const auto need = platform_need(platform);
    const TargetOs os = target_.os;
    if (os == TargetOs::windows)
        return platform.starts_with("win") ? TagMismatch::architecture : TagMismatch::os;
    if (!need) {
        const bool linux_plain = platform.starts_with("linux_");
        return linux_plain && os != TargetOs::macos ? TagMismatch::architecture : TagMismatch::os;
    }
    const OsLibrary own = library_of(os);
    if (need->library == own) {
        if (!arch_fits(os, target_.arch, *need)) return TagMismatch::architecture;
        return need->version > target_.os_version ? TagMismatch::os_too_new : TagMismatch::os;
    }
    // glibc against musl: the same OS, another C library.
    if (need->library != OsLibrary::macos && own != OsLibrary::macos) {
        return arch_fits(os, target_.arch, *need) ? TagMismatch::libc : TagMismatch::architecture;
    }
    return TagMismatch::os;
}

std::optional<TagRefusal> TagFit::judge(const Tag& tag) const {
    const bool any = tag.platform == "any";
    const bool platform_ok = any || contains(platforms_, tag.platform);
    const bool python_ok = any ? tag.abi == "none" && contains(any_, tag.interpreter)
                               : contains(pythons_, tag.interpreter + "-" + tag.abi);
    if (platform_ok && python_ok) return std::nullopt;
    TagRefusal out;
    out.tag = tag;
    if (platform_ok) {
        out.why = TagMismatch::python;
        return out;
    }
    out.why = platform_mismatch(tag.platform);
    out.python_too = !python_ok;
    if (out.why == TagMismatch::os_too_new) out.need = platform_need(tag.platform);
    return out;
}

std::optional<TagRefusal> TagFit::refusal(std::span<const Tag> tags) const {
    // The closest miss: a platform that fails alone, the mildest reason first; then another
    // Python alone; then both.
    auto distance = [](const TagRefusal& r) {
        if (r.why == TagMismatch::python) return 4;
        return static_cast<int>(r.why) + (r.python_too ? 5 : 0);
    };
    std::optional<TagRefusal> best;
    for (const Tag& tag : tags) {
        auto refused = judge(tag);
        if (!refused) return std::nullopt;
        if (!best || distance(*refused) < distance(*best)) best = std::move(refused);
    }
    return best;
}

std::optional<TagRefusal> tag_refusal(const TargetPlatform& target, std::span<const Tag> tags) {
    return TagFit(target).refusal(tags);
}

}  // namespace aitk::pep
