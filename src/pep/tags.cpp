#include "aitk/pep/tags.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/strings.hpp"
#include "platform_names.hpp"

namespace aitk::pep {

std::string Tag::to_string() const {
    std::string out;
    out.reserve(interpreter.size() + abi.size() + platform.size() + 2);
    out.append(interpreter).append(1, '-').append(abi).append(1, '-').append(platform);
    return out;
}

namespace {

// Compares x + sep with y + sep as strings, where neither x nor y contains sep (or with the
// strings' ends when sep is absent, for the last component).
std::strong_ordering compare_component(std::string_view x, std::string_view y,
                                       std::optional<char> sep) noexcept {
    std::size_t common = std::min(x.size(), y.size());
    for (std::size_t i = 0; i < common; ++i) {
        if (x[i] != y[i]) {
            return static_cast<unsigned char>(x[i]) <=> static_cast<unsigned char>(y[i]);
        }
    }
    if (x.size() == y.size()) return std::strong_ordering::equal;
    if (!sep) return x.size() <=> y.size();
    auto next = [&](std::string_view s) {
        return s.size() > common ? static_cast<unsigned char>(s[common])
                                 : static_cast<unsigned char>(*sep);
    };
    return next(x) <=> next(y);
}

}  // namespace

std::strong_ordering operator<=>(const Tag& a, const Tag& b) noexcept {
    if (auto c = compare_component(a.interpreter, b.interpreter, '-'); c != 0) return c;
    if (auto c = compare_component(a.abi, b.abi, '-'); c != 0) return c;
    return compare_component(a.platform, b.platform, std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Parsing compressed tag sets

namespace {

// The '.'-separated members of one component of a compressed tag set. Real sets have one to
// three, so they live inline and only long sets spill to the heap.
class Members {
  public:
    void push(std::string_view member) {
        if (spill_.empty() && size_ < kInline) {
            inline_[size_++] = member;
            return;
        }
        if (spill_.empty()) spill_.assign(inline_.begin(), inline_.end());
        spill_.push_back(member);
        ++size_;
    }
    std::size_t size() const noexcept { return size_; }
    std::string_view operator[](std::size_t i) const noexcept {
        return spill_.empty() ? inline_[i] : spill_[i];
    }

  private:
    static constexpr std::size_t kInline = 4;
    std::array<std::string_view, kInline> inline_{};
    std::vector<std::string_view> spill_;
    std::size_t size_ = 0;
};

// Python's str.isidentifier() for ASCII; bytes of multi-byte characters are accepted as
// letters, as identifiers may contain most non-ASCII letters.
bool is_identifier(std::string_view s) noexcept {
    auto is_start = [](char c) {
        return util::is_ascii_alpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
    };
    if (s.empty() || !is_start(s.front())) return false;
    return std::all_of(s.begin(), s.end(),
                       [&](char c) { return is_start(c) || util::is_ascii_digit(c); });
}

// ASCII case-insensitive a < b, for PEP 425's sorted-components rule.
bool iless(std::string_view a, std::string_view b) noexcept {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return util::to_ascii_lower(x) < util::to_ascii_lower(y);
    });
}

// Calls f(member) for each '.'-separated member of `text`.
template <class F>
void for_each_member(std::string_view text, F&& f) {
    std::size_t start = 0;
    while (true) {
        std::size_t dot = text.find('.', start);
        if (dot == std::string_view::npos) return f(text.substr(start));
        f(text.substr(start, dot - start));
        start = dot + 1;
    }
}

// Lower-cased copy, written branch-free so that the compiler vectorises it.
std::string lower_copy(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        auto is_upper = static_cast<unsigned char>(static_cast<unsigned char>(c) - 'A') < 26;
        c = static_cast<char>(c | (is_upper << 5));
    }
    return out;
}

}  // namespace

Parsed<std::vector<Tag>> parse_tag(std::string_view compressed, const TagParseOptions& options) {
    static constexpr const char* kNames[] = {"interpreter", "abi", "platform"};
    auto offset_of = [&](std::string_view member) {
        return static_cast<std::size_t>(member.data() - compressed.data());
    };

    // One pass splits the text into components ('-') and members ('.').
    Members parts[3];
    std::size_t component = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < compressed.size(); ++i) {
        char c = compressed[i];
        if (c != '-' && c != '.') continue;
        parts[component].push(compressed.substr(start, i - start));
        start = i + 1;
        if (c == '-' && ++component == 3) {
            return parse_error("tag '" + std::string(compressed) +
                                   "' has more than three '-'-separated components "
                                   "(expected interpreter-abi-platform)",
                               compressed, i);
        }
    }
    parts[component].push(compressed.substr(start));
    if (component != 2) {
        std::size_t count = component + 1;
        return parse_error("tag '" + std::string(compressed) + "' has " + std::to_string(count) +
                               " '-'-separated component" + (count == 1 ? "" : "s") +
                               ", expected three (interpreter-abi-platform, e.g. py3-none-any)",
                           compressed, compressed.size());
    }

    std::size_t product = 1;
    for (std::size_t c = 0; c < 3; ++c) {
        const Members& members = parts[c];
        for (std::size_t k = 0; k < members.size(); ++k) {
            std::string_view member = members[k];
            if (member.empty()) {
                return parse_error(
                    std::string("empty ") + kNames[c] + " in tag '" + std::string(compressed) + "'",
                    compressed, offset_of(member));
            }
            if (c == 0 && !is_identifier(member)) {
                return parse_error("interpreter '" + std::string(member) +
                                       "' is not an identifier (letters, digits and '_', "
                                       "not starting with a digit)",
                                   compressed, offset_of(member));
            }
            if (options.validate_order && k > 0 && iless(member, members[k - 1])) {
                std::size_t first = offset_of(members[0]);
                std::size_t end =
                    offset_of(members[members.size() - 1]) + members[members.size() - 1].size();
                return parse_error(std::string(kNames[c]) + " '" +
                                       std::string(compressed.substr(first, end - first)) +
                                       "' is not in sorted order as PEP 425 requires",
                                   compressed, offset_of(member));
            }
        }
        product *= members.size();
        if (product > options.max_tags) {
            return parse_error("tag '" + std::string(compressed) + "' expands to more than " +
                                   std::to_string(options.max_tags) + " tags",
                               compressed, 0);
        }
    }

    std::vector<Tag> tags;
    tags.reserve(product);
    for (std::size_t i = 0; i < parts[0].size(); ++i) {
        for (std::size_t a = 0; a < parts[1].size(); ++a) {
            for (std::size_t p = 0; p < parts[2].size(); ++p) {
                tags.push_back(
                    Tag{lower_copy(parts[0][i]), lower_copy(parts[1][a]), lower_copy(parts[2][p])});
            }
        }
    }
    if (tags.size() > 1 && !std::is_sorted(tags.begin(), tags.end())) {
        std::sort(tags.begin(), tags.end());
    }
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

// ---------------------------------------------------------------------------------------------
// Platform tags of a target

namespace {

std::string version_nodot(unsigned major, unsigned minor) {
    return std::to_string(major) + std::to_string(minor);
}

bool is_any_of(std::string_view s, std::initializer_list<std::string_view> options) {
    return std::find(options.begin(), options.end(), s) != options.end();
}

}  // namespace

namespace detail {

// The Linux machine names a target may run wheels for, closest first: a 32-bit ARM userland on
// a 64-bit kernel ("armv8l") also runs armv7l code.
std::vector<std::string> linux_archs(std::string_view arch) {
    std::string a = util::to_lower(arch);
    if (is_any_of(a, {"amd64", "x64"})) return {"x86_64"};
    if (a == "arm64") return {"aarch64"};
    if (is_any_of(a, {"x86", "i386", "i486", "i586", "win32"})) return {"i686"};
    if (a == "armv8l") return {"armv8l", "armv7l"};
    return {a};
}

}  // namespace detail

namespace {

// PEP 600 glibc ladder for one arch, newest first, with the PEP 513/571/599 aliases right after
// the manylinux_2_N tag they equal.
void add_manylinux(std::vector<std::string>& out, const std::vector<std::string>& archs,
                   OsVersion glibc) {
    if (glibc.major < 2) return;
    // manylinux exists only for these machines (armv7l only with the hard-float ABI, which a
    // described target is assumed to have).
    bool supported = std::any_of(archs.begin(), archs.end(), [](const std::string& a) {
        return is_any_of(a, {"x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x",
                             "loongarch64", "riscv64"});
    });
    if (!supported) return;
    // The oldest glibc with manylinux tags: 2.5 on x86, 2.17 elsewhere.
    bool x86 = std::any_of(archs.begin(), archs.end(),
                           [](const std::string& a) { return a == "x86_64" || a == "i686"; });
    unsigned oldest_minor = x86 ? 5 : 17;
    // glibc keeps compatibility across majors; each older major is assumed to end at .50.
    constexpr unsigned kLastMinorOfOldMajor = 50;
    for (const std::string& arch : archs) {
        for (unsigned major = glibc.major; major >= 2; --major) {
            unsigned top = major == glibc.major ? glibc.minor : kLastMinorOfOldMajor;
            unsigned bottom = major == 2 ? oldest_minor : 0;
            for (unsigned minor = top + 1; minor-- > bottom;) {
                out.push_back("manylinux_" + std::to_string(major) + "_" + std::to_string(minor) +
                              "_" + arch);
                if (major != 2) continue;
                if (minor == 17) out.push_back("manylinux2014_" + arch);
                if (minor == 12) out.push_back("manylinux2010_" + arch);
                if (minor == 5) out.push_back("manylinux1_" + arch);
            }
        }
    }
}

void add_musllinux(std::vector<std::string>& out, const std::vector<std::string>& archs,
                   OsVersion musl) {
    for (const std::string& arch : archs) {
        for (unsigned minor = musl.minor + 1; minor-- > 0;) {
            out.push_back("musllinux_" + std::to_string(musl.major) + "_" + std::to_string(minor) +
                          "_" + arch);
        }
    }
}

}  // namespace

namespace detail {

std::string mac_arch(std::string_view arch) {
    std::string a = util::to_lower(arch);
    if (a == "aarch64") return "arm64";
    if (a == "amd64") return "x86_64";
    if (is_any_of(a, {"x86", "i686"})) return "i386";
    return a;
}

// The binary formats a macOS version accepts for `arch` ("fat*", "intel" and "universal" are
// multi-architecture builds); none for versions that predate the arch.
std::vector<std::string_view> mac_binary_formats(OsVersion version, std::string_view arch) {
    std::vector<std::string_view> formats{arch};
    if (arch == "x86_64") {
        if (version < OsVersion{10, 4}) return {};
        formats.insert(formats.end(), {"intel", "fat64", "fat32"});
    } else if (arch == "i386") {
        if (version < OsVersion{10, 4}) return {};
        formats.insert(formats.end(), {"intel", "fat32", "fat"});
    } else if (arch == "ppc64") {
        if (version > OsVersion{10, 5} || version < OsVersion{10, 4}) return {};
        formats.push_back("fat64");
    } else if (arch == "ppc") {
        if (version > OsVersion{10, 6}) return {};
        formats.insert(formats.end(), {"fat32", "fat"});
    }
    if (arch == "arm64" || arch == "x86_64") formats.push_back("universal2");
    if (is_any_of(arch, {"x86_64", "i386", "ppc64", "ppc", "intel"}))
        formats.push_back("universal");
    return formats;
}

}  // namespace detail

namespace {

void add_mac(std::vector<std::string>& out, std::string_view arch_in, OsVersion version) {
    std::string arch = detail::mac_arch(arch_in);
    auto add = [&](unsigned major, unsigned minor) {
        for (std::string_view format : detail::mac_binary_formats({major, minor}, arch)) {
            out.push_back("macosx_" + std::to_string(major) + "_" + std::to_string(minor) + "_" +
                          std::string(format));
        }
    };
    if (version.major == 10) {
        // Up to 10.15 each yearly release bumped the minor version.
        for (unsigned minor = version.minor + 1; minor-- > 0;)
            add(10, minor);
        return;
    }
    if (version.major < 11) return;
    // From 11 on each release bumps the major; wheels name only X_0 for those.
    for (unsigned major = version.major; major >= 11; --major)
        add(major, 0);
    // x86_64 binaries from 10.x still run; arm64 did not exist before 11, but a universal2
    // wheel may name an older version for its x86_64 half.
    for (unsigned minor = 16; minor >= 4; --minor) {
        if (arch == "x86_64") {
            add(10, minor);
        } else {
            out.push_back("macosx_10_" + std::to_string(minor) + "_universal2");
        }
    }
}

}  // namespace

namespace detail {

std::string windows_platform(std::string_view arch) {
    std::string a = util::to_lower(arch);
    if (is_any_of(a, {"x86_64", "amd64", "x64"})) return "win_amd64";
    if (is_any_of(a, {"arm64", "aarch64"})) return "win_arm64";
    if (is_any_of(a, {"x86", "i386", "i686", "win32"})) return "win32";
    return "win_" + a;
}

}  // namespace detail

namespace {

// The version a platform tag names (nullopt: none), for the oldest-first order.
std::optional<OsVersion> named_version(std::string_view platform) {
    auto need = platform_need(platform);
    if (!need) return std::nullopt;
    return need->version;
}

// Puts the tags that name an OS version first, the oldest version first, keeping the order of
// equal ones (the interpreter's own ABI before abi3 before py*; an alias beside the tag it
// equals); the tags that name none keep their order after them. `platform_of` gives a tag's
// platform. Versions below `floor` count as `floor`: no arm64 Mac runs a macOS older than 11,
// so a universal2 wheel for 10.9 is no better there than an arm64 one for 11.0.
template <class T, class PlatformOf>
void order_oldest_first(std::vector<T>& items, PlatformOf platform_of, OsVersion floor) {
    struct Keyed {
        std::optional<OsVersion> version;
        std::size_t index;
    };
    std::vector<Keyed> keys;
    keys.reserve(items.size());
    // A target has a hundred platforms or so, and every interpreter repeats them: each name is
    // read once.
    std::unordered_map<std::string_view, std::optional<OsVersion>> versions;
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string_view platform = platform_of(items[i]);
        auto [at, fresh] = versions.try_emplace(platform);
        if (fresh) {
            at->second = named_version(platform);
            if (at->second && *at->second < floor) at->second = floor;
        }
        keys.push_back({at->second, i});
    }
    std::stable_sort(keys.begin(), keys.end(), [](const Keyed& a, const Keyed& b) {
        if (a.version.has_value() != b.version.has_value()) return a.version.has_value();
        return a.version && *a.version < *b.version;
    });
    std::vector<T> ordered;
    ordered.reserve(items.size());
    for (const auto& key : keys)
        ordered.push_back(std::move(items[key.index]));
    items = std::move(ordered);
}

// The oldest OS a target's machine can have whatever its tags say.
OsVersion oldest_possible(const TargetPlatform& target) {
    if (target.os == TargetOs::macos && detail::mac_arch(target.arch) == "arm64")
        return OsVersion{11, 0};
    return OsVersion{};
}

}  // namespace

TargetPlatform bounded(TargetPlatform t) noexcept {
    t.python_minor = std::min(t.python_minor, max_target_version_part);
    t.os_version.major = std::min(t.os_version.major, max_target_version_part);
    t.os_version.minor = std::min(t.os_version.minor, max_target_version_part);
    return t;
}

std::vector<std::string> platform_tags(const TargetPlatform& requested) {
    // Tag lists walk version ladders down from the target's numbers: absurd numbers (a hostile
    // request, a typo) must not turn that into a billion-step loop.
    const TargetPlatform target = bounded(requested);
    std::vector<std::string> out;
    switch (target.os) {
        case TargetOs::linux_glibc:
        case TargetOs::linux_musl: {
            std::vector<std::string> archs = detail::linux_archs(target.arch);
            if (target.os == TargetOs::linux_glibc) {
                add_manylinux(out, archs, target.os_version);
            } else {
                add_musllinux(out, archs, target.os_version);
            }
            for (const std::string& arch : archs)
                out.push_back("linux_" + arch);
            break;
        }
        case TargetOs::macos:
            add_mac(out, target.arch, target.os_version);
            break;
        case TargetOs::windows:
            out.push_back(detail::windows_platform(target.arch));
            break;
    }
    if (target.oldest_os_first)
        order_oldest_first(
            out, [](const std::string& platform) -> std::string_view { return platform; },
            oldest_possible(target));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Interpreter tags

namespace {

// "py312", "py3", "py311", ..., "py30": the pure-Python interpreters a version accepts.
std::vector<std::string> py_interpreter_range(unsigned major, unsigned minor) {
    std::vector<std::string> out{"py" + version_nodot(major, minor), "py" + std::to_string(major)};
    for (unsigned m = minor; m-- > 0;)
        out.push_back("py" + version_nodot(major, m));
    return out;
}

void add_product(std::vector<Tag>& out, const std::string& interpreter, const std::string& abi,
                 const std::vector<std::string>& platforms) {
    for (const std::string& platform : platforms)
        out.push_back(Tag{interpreter, abi, platform});
}

void add_cpython(std::vector<Tag>& out, const TargetPlatform& t,
                 const std::vector<std::string>& platforms) {
    const std::string version = version_nodot(t.python_major, t.python_minor);
    const std::string interpreter = "cp" + version;
    std::string flags = util::to_lower(t.abi_flags);
    bool threaded = flags.find('t') != std::string::npos;
    bool debug = flags.find('d') != std::string::npos;
    bool modern = t.python_major > 3 || (t.python_major == 3 && t.python_minor >= 8);

    std::vector<std::string> abis{t.abi.empty() ? interpreter + flags : util::to_lower(t.abi)};
    // A debug build also loads regular extension modules.
    if (t.abi.empty() && debug && modern) abis.push_back(interpreter + (threaded ? "t" : ""));
    for (const std::string& abi : abis) {
        if (abi != "abi3" && abi != "none") add_product(out, interpreter, abi, platforms);
    }

    // The stable ABI exists since 3.2; free-threaded builds have their own, abi3t.
    bool stable = t.python_major > 3 || (t.python_major == 3 && t.python_minor >= 2);
    const std::string stable_abi = threaded ? "abi3t" : "abi3";
    if (stable) add_product(out, interpreter, stable_abi, platforms);
    add_product(out, interpreter, "none", platforms);
    if (stable && t.python_major == 3) {
        for (unsigned minor = t.python_minor; minor-- > 2;) {
            add_product(out, "cp" + version_nodot(3, minor), stable_abi, platforms);
        }
    }
}

void add_generic(std::vector<Tag>& out, const std::string& interpreter, const std::string& abi,
                 const std::vector<std::string>& platforms) {
    if (!abi.empty() && abi != "none") add_product(out, interpreter, abi, platforms);
    add_product(out, interpreter, "none", platforms);
}

}  // namespace

std::vector<Tag> compatible_tags(const TargetPlatform& requested) {
    const TargetPlatform target = bounded(requested);
    const std::vector<std::string> platforms = platform_tags(target);
    const std::string impl = util::to_lower(target.implementation);
    const std::string version = version_nodot(target.python_major, target.python_minor);
    std::vector<Tag> out;
    out.reserve(platforms.size() * (target.python_minor * 2 + 8) + target.python_minor + 4);

    std::string any_interpreter;  // "<interpreter>-none-any" ahead of the py*-none-any tags
    if (impl == "cp") {
        add_cpython(out, target, platforms);
        any_interpreter = "cp" + version;
    } else if (impl == "pp") {
        std::string abi = target.abi.empty() ? "pypy" + version + "_pp73" : target.abi;
        add_generic(out, "pp" + version, util::to_lower(abi), platforms);
        any_interpreter = "pp3";
    } else {
        add_generic(out, impl + version, util::to_lower(target.abi), platforms);
    }

    const std::vector<std::string> py =
        py_interpreter_range(target.python_major, target.python_minor);
    for (const std::string& interpreter : py)
        add_product(out, interpreter, "none", platforms);
    if (!any_interpreter.empty()) out.push_back(Tag{any_interpreter, "none", "any"});
    for (const std::string& interpreter : py)
        out.push_back(Tag{interpreter, "none", "any"});
    if (target.oldest_os_first)
        order_oldest_first(
            out, [](const Tag& tag) -> std::string_view { return tag.platform; },
            oldest_possible(target));
    return out;
}

// ---------------------------------------------------------------------------------------------
// TagPriority

namespace {

// A word-at-a-time string hash; tag components are short, so mixing 8 bytes per step matters.
std::uint64_t hash_part(std::string_view s, std::uint64_t seed) noexcept {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
    std::uint64_t h = seed ^ (s.size() * kMul);
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t word;
        std::memcpy(&word, s.data() + i, 8);
        h = (h ^ word) * kMul;
        h ^= h >> 32;
    }
    if (i < s.size()) {
        std::uint64_t word = 0;
        std::memcpy(&word, s.data() + i, s.size() - i);
        h = (h ^ word) * kMul;
        h ^= h >> 32;
    }
    return h;
}

std::uint64_t hash_tag(std::string_view interpreter, std::string_view abi,
                       std::string_view platform) noexcept {
    std::uint64_t h = hash_part(interpreter, 0x243F6A8885A308D3ull);
    h = hash_part(abi, h);
    h = hash_part(platform, h);
    return h ^ (h >> 29);
}

}  // namespace

TagPriority::TagPriority(std::span<const Tag> ordered) {
    std::size_t capacity = 16;
    while (capacity < ordered.size() * 2)
        capacity *= 2;
    slots_.resize(capacity);
    tags_.reserve(ordered.size());
    for (const Tag& tag : ordered) {
        std::uint64_t hash = hash_tag(tag.interpreter, tag.abi, tag.platform);
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
            Slot& slot = slots_[i];
            if (slot.tag == Slot::kEmpty) {
                slot = Slot{hash, static_cast<std::uint32_t>(tags_.size())};
                tags_.push_back(tag);
                break;
            }
            if (slot.hash == hash && tags_[slot.tag] == tag) break;  // keep the first rank
        }
    }
}

TagPriority TagPriority::for_target(const TargetPlatform& target) {
    return TagPriority(compatible_tags(target));
}

const TagPriority::Slot* TagPriority::find(std::uint64_t hash, std::string_view interpreter,
                                           std::string_view abi,
                                           std::string_view platform) const noexcept {
    if (slots_.empty()) return nullptr;
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot& slot = slots_[i];
        if (slot.tag == Slot::kEmpty) return nullptr;
        if (slot.hash != hash) continue;
        const Tag& tag = tags_[slot.tag];
        if (tag.platform == platform && tag.abi == abi && tag.interpreter == interpreter) {
            return &slot;
        }
    }
}

std::optional<std::size_t> TagPriority::rank(std::string_view interpreter, std::string_view abi,
                                             std::string_view platform) const noexcept {
    const Slot* slot = find(hash_tag(interpreter, abi, platform), interpreter, abi, platform);
    if (!slot) return std::nullopt;
    return slot->tag;
}

std::optional<std::size_t> TagPriority::best_rank(std::span<const Tag> tags) const noexcept {
    std::optional<std::size_t> best;
    for (const Tag& tag : tags) {
        std::optional<std::size_t> r = rank(tag);
        if (r && (!best || *r < *best)) best = r;
    }
    return best;
}

std::optional<std::size_t> TagPriority::best_rank(std::string_view compressed) const noexcept {
    // Lower-case a copy only in the rare case that the set is not lower case already; a set too
    // long for the buffer is no real wheel's.
    char lowered[256];
    if (std::any_of(compressed.begin(), compressed.end(),
                    [](char c) { return c >= 'A' && c <= 'Z'; })) {
        if (compressed.size() > sizeof lowered) return std::nullopt;
        for (std::size_t i = 0; i < compressed.size(); ++i) {
            lowered[i] = util::to_ascii_lower(compressed[i]);
        }
        compressed = std::string_view(lowered, compressed.size());
    }
    std::size_t first_dash = compressed.find('-');
    if (first_dash == std::string_view::npos) return std::nullopt;
    std::size_t second_dash = compressed.find('-', first_dash + 1);
    if (second_dash == std::string_view::npos ||
        compressed.find('-', second_dash + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view interpreters = compressed.substr(0, first_dash);
    std::string_view abis = compressed.substr(first_dash + 1, second_dash - first_dash - 1);
    std::string_view platforms = compressed.substr(second_dash + 1);
    // An empty member would make parse_tag() reject the set; treat it alike.
    for (std::string_view part : {interpreters, abis, platforms}) {
        if (part.empty() || part.front() == '.' || part.back() == '.' ||
            part.find("..") != std::string_view::npos) {
            return std::nullopt;
        }
    }

    std::optional<std::size_t> best;
    for_each_member(interpreters, [&](std::string_view interpreter) {
        for_each_member(abis, [&](std::string_view abi) {
            for_each_member(platforms, [&](std::string_view platform) {
                std::optional<std::size_t> r = rank(interpreter, abi, platform);
                if (r && (!best || *r < *best)) best = r;
            });
        });
    });
    return best;
}

}  // namespace aitk::pep
