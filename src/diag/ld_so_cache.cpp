#include "aitk/diag/ld_so_cache.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <optional>
#include <string_view>

#include "aitk/diag/elf.hpp"
#include "byte_reader.hpp"
#include "problem_text.hpp"

namespace aitk::diag {

namespace {

using detail::ByteReader;
using detail::hex;
using detail::problem;
using util::Unexpected;

// Layouts as glibc's dl-cache.h describes them.
constexpr std::string_view kOldMagic = "ld.so-1.7.0";  // then a NUL pad byte, then nlibs
constexpr std::uint64_t kOldHeaderSize = 16;
constexpr std::uint64_t kOldEntrySize = 12;  // int32 flags; uint32 key, value
constexpr std::string_view kNewMagic = "glibc-ld.so.cache";
constexpr std::string_view kNewVersion = "1.1";
constexpr std::uint64_t kNewHeaderSize = 48;
constexpr std::uint64_t kNewEntrySize = 24;  // + uint32 osversion; uint64 hwcap
constexpr std::uint64_t kNewNlibs = 20;
constexpr std::uint64_t kNewFlags = 28;
constexpr std::uint8_t kEndianMask = 3;
constexpr std::uint8_t kEndianInvalid = 1;
constexpr std::uint8_t kEndianLittle = 2;
constexpr std::uint8_t kEndianBig = 3;
constexpr std::size_t kMaxPathLength = 4096;  // PATH_MAX

// ldconfig.h's FLAG_* values: the type in the low byte, the architecture above it.
constexpr std::uint32_t kFlagTypeMask = 0x00ff;
constexpr std::uint32_t kFlagElf = 0x0001;
constexpr std::uint32_t kFlagElfLibc6 = 0x0003;
constexpr std::uint32_t kFlagSparcLib64 = 0x0100;
constexpr std::uint32_t kFlagIa64Lib64 = 0x0200;
constexpr std::uint32_t kFlagX8664Lib64 = 0x0300;
constexpr std::uint32_t kFlagS390Lib64 = 0x0400;
constexpr std::uint32_t kFlagPowerpcLib64 = 0x0500;
constexpr std::uint32_t kFlagX8664Libx32 = 0x0800;
constexpr std::uint32_t kFlagArmLibhf = 0x0900;
constexpr std::uint32_t kFlagAarch64Lib64 = 0x0a00;
constexpr std::uint32_t kFlagRiscvFloatAbiDouble = 0x1000;

// e_machine values without a name in elf.hpp.
constexpr std::uint16_t kElfMachineSparcv9 = 43;
constexpr std::uint16_t kElfMachineIa64 = 50;
constexpr std::uint16_t kElfMachineS390 = 22;

bool has_text(const ByteReader& in, std::uint64_t at, std::string_view text) {
    auto bytes = in.slice(at, text.size());
    return bytes.size() == text.size() &&
           std::equal(text.begin(), text.end(), bytes.begin(),
                      [](char c, std::uint8_t b) { return static_cast<std::uint8_t>(c) == b; });
}

constexpr bool kHostLittle = std::endian::native == std::endian::little;

// One table (old or new) of a cache: where it starts and how its entries are laid out.
struct Table {
    std::string_view name;       // "old-format" / "new-format", for messages
    std::uint64_t header = 0;    // where its header starts
    std::uint64_t nlibs_at = 0;  // where nlibs was read
    std::uint64_t entries = 0;   // first entry
    std::uint64_t entry_size = 0;
    std::uint64_t string_base = 0;  // key/value offsets count from here
};

// Chooses the byte order whose entry count fits the file: the host's first.
std::optional<bool> plausible_order(const ByteReader& in, std::uint64_t nlibs_at,
                                    std::uint64_t entries, std::uint64_t entry_size) {
    for (bool little : {kHostLittle, !kHostLittle}) {
        ByteReader r(in.slice(0, in.size()), little);
        auto n = r.u32(nlibs_at);
        if (n && *n <= kLdCacheMaxEntries && r.contains(entries, *n * entry_size)) return little;
    }
    return std::nullopt;
}

util::Expected<std::vector<LdCacheEntry>, ImageProblem> read_table(ByteReader in, const Table& t) {
    std::uint32_t nlibs = *in.u32(t.nlibs_at);
    std::string label(t.name);
    if (nlibs > kLdCacheMaxEntries)
        return Unexpected(problem(label + " table has " + std::to_string(nlibs) +
                                      " entries, more than " + std::to_string(kLdCacheMaxEntries),
                                  t.nlibs_at));
    if (!in.contains(t.entries, std::uint64_t{nlibs} * t.entry_size))
        return Unexpected(problem(label + " table of " + std::to_string(nlibs) +
                                      " entries runs past the end of the file (" +
                                      std::to_string(in.size()) + " bytes)",
                                  t.nlibs_at));
    std::vector<LdCacheEntry> out;
    out.reserve(nlibs);
    for (std::uint64_t i = 0; i < nlibs; ++i) {
        std::uint64_t at = t.entries + i * t.entry_size;
        LdCacheEntry entry;
        entry.flags = *in.u32(at);
        for (int field = 0; field < 2; ++field) {
            std::uint64_t read_at = at + 4 + 4 * field;
            std::uint64_t offset = *in.u32(read_at);
            std::string what = label + " entry " + std::to_string(i) + ": " +
                               (field == 0 ? "name" : "path") + " offset " + hex(offset);
            std::uint64_t where = t.string_base + offset;
            if (where >= in.size())
                return Unexpected(problem(what + " lies past the end of the file (" +
                                              std::to_string(in.size()) + " bytes)",
                                          read_at));
            auto text = in.c_string(where, kMaxPathLength);
            if (!text) {
                bool too_long = in.size() - where > kMaxPathLength;
                return Unexpected(problem(
                    what + (too_long
                                ? ": string is longer than " + std::to_string(kMaxPathLength) +
                                      " bytes"
                                : ": string has no terminating NUL before the end of the file"),
                    read_at));
            }
            (field == 0 ? entry.soname : entry.path) = std::string(*text);
        }
        out.push_back(std::move(entry));
    }
    return out;
}

// The new-format table starting at `header`, whose magic has been checked.
util::Expected<std::vector<LdCacheEntry>, ImageProblem> read_new(const ByteReader& bytes,
                                                                 std::uint64_t header) {
    if (!bytes.contains(header, kNewHeaderSize))
        return Unexpected(problem("file ends inside the new-format header (file is " +
                                      std::to_string(bytes.size()) + " bytes)",
                                  header));
    if (!has_text(bytes, header + kNewMagic.size(), kNewVersion))
        return Unexpected(problem("new-format cache version is not " + std::string(kNewVersion),
                                  header + kNewMagic.size()));
    Table t{"new-format",  header, header + kNewNlibs, header + kNewHeaderSize,
            kNewEntrySize, header};
    std::uint8_t endian = *bytes.u8(header + kNewFlags) & kEndianMask;
    std::optional<bool> little;
    if (endian == kEndianInvalid)
        return Unexpected(problem("new-format header marks the cache invalid (ld.so ignores it)",
                                  header + kNewFlags));
    if (endian == kEndianLittle)
        little = true;
    else if (endian == kEndianBig)
        little = false;
    else
        little = plausible_order(bytes, t.nlibs_at, t.entries, t.entry_size);
    ByteReader in(bytes.slice(0, bytes.size()), little.value_or(kHostLittle));
    return read_table(in, t);
}

}  // namespace

util::Expected<std::vector<LdCacheEntry>, ImageProblem> read_ld_so_cache(
    std::span<const std::uint8_t> bytes) {
    ByteReader raw(bytes);
    if (has_text(raw, 0, kNewMagic)) return read_new(raw, 0);
    if (!has_text(raw, 0, kOldMagic))
        return Unexpected(problem("not an ld.so.cache (no \"" + std::string(kOldMagic) +
                                      "\" or \"" + std::string(kNewMagic) + "\" magic)",
                                  0));
    if (!raw.contains(0, kOldHeaderSize))
        return Unexpected(problem("file ends inside the old-format header (file is " +
                                      std::to_string(bytes.size()) + " bytes)",
                                  0));
    Table old{"old-format", 0, 12, kOldHeaderSize, kOldEntrySize, 0};
    bool little =
        plausible_order(raw, old.nlibs_at, old.entries, old.entry_size).value_or(kHostLittle);
    ByteReader in(bytes, little);
    std::uint32_t nlibs = *in.u32(old.nlibs_at);
    if (nlibs <= kLdCacheMaxEntries) {
        std::uint64_t end = old.entries + std::uint64_t{nlibs} * old.entry_size;
        // ld.so prefers the new table that ldconfig's compat format appends, 8-byte aligned.
        std::uint64_t next = (end + 7) & ~std::uint64_t{7};
        if (has_text(in, next, kNewMagic)) return read_new(in, next);
        old.string_base = end;
    }
    return read_table(in, old);
}

bool ld_cache_entry_fits(std::uint32_t flags, std::uint16_t elf_machine, bool is_64bit) noexcept {
    // ld.so compares the whole flags word with its one expected value (dl-cache.h per
    // architecture); the generic rule, which i386 uses, also takes plain FLAG_ELF, what ldconfig
    // writes for a library that does not link libc.so.6.
    auto libc6 = [flags](std::uint32_t arch) { return flags == (arch | kFlagElfLibc6); };
    bool generic = flags == kFlagElf || flags == kFlagElfLibc6;
    switch (elf_machine) {
        case kElfMachineX86_64:
            return libc6(is_64bit ? kFlagX8664Lib64 : kFlagX8664Libx32);
        case kElfMachine386:
            return !is_64bit && generic;
        case kElfMachineAarch64:
            return is_64bit && libc6(kFlagAarch64Lib64);
        case kElfMachineArm:
            // The float ABI is in e_flags, which ElfImage does not carry: armhf is assumed (the
            // only 32-bit ARM ABI wheels are built for); its ld.so also takes unmarked entries.
            return !is_64bit && (libc6(kFlagArmLibhf) || libc6(0));
        case kElfMachinePpc64:
            return is_64bit && libc6(kFlagPowerpcLib64);
        case kElfMachineRiscv:
            // lp64d, the ABI of every riscv64 Linux distribution and wheel tag.
            return is_64bit && libc6(kFlagRiscvFloatAbiDouble);
        case kElfMachineS390:
            return is_64bit ? libc6(kFlagS390Lib64) : generic;
        case kElfMachineSparcv9:
            return is_64bit && libc6(kFlagSparcLib64);
        case kElfMachineIa64:
            return is_64bit && libc6(kFlagIa64Lib64);
        default:
            // An architecture whose expected value is not known here: any ELF / libc6 entry may
            // be the one, whatever its architecture bits.
            return (flags & kFlagTypeMask) == kFlagElf || (flags & kFlagTypeMask) == kFlagElfLibc6;
    }
}

}  // namespace aitk::diag
