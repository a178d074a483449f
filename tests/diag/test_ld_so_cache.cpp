// The ld.so.cache reader against this machine's cache, caches this machine's ldconfig writes in
// every format it has, and hand-made caches (both byte orders, damaged) whose every byte the test
// places.
#include "aitk/diag/ld_so_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "aitk/diag/elf.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "image_bytes.hpp"
#include "native_fixtures.hpp"

namespace aitk::diag {
bool operator==(const LdCacheEntry& a, const LdCacheEntry& b) {
    return a.soname == b.soname && a.path == b.path && a.flags == b.flags;
}
void PrintTo(const LdCacheEntry& e, std::ostream* os) {
    *os << "{" << e.soname << " -> " << e.path << ", flags 0x" << std::hex << e.flags << std::dec
        << "}";
}
}  // namespace aitk::diag

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::Bytes;
using aitk::test::hex;
using aitk::test::load;
using aitk::test::prefix;
using Entries = std::vector<LdCacheEntry>;

Entries read_ok(std::span<const std::uint8_t> bytes) {
    return aitk::test::expect_value(read_ld_so_cache(bytes));
}

ImageProblem read_bad(std::span<const std::uint8_t> bytes) {
    return aitk::test::expect_problem(read_ld_so_cache(bytes));
}

constexpr std::uint32_t kX8664 = 0x0303;  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
constexpr std::uint32_t kLibc6 = 0x0003;

std::uint64_t le32(const Bytes& b, std::uint64_t at) {
    return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (std::uint64_t{b[at + 3]} << 24);
}

// Lays out caches as glibc's dl-cache.h describes them.
class CacheWriter {
  public:
    explicit CacheWriter(bool little = true) : little_(little) {}
    Bytes bytes;

    void put(std::uint64_t at, std::uint64_t value, unsigned width) {
        if (bytes.size() < at + width) bytes.resize(at + width);
        for (unsigned i = 0; i < width; ++i) {
            unsigned shift = little_ ? 8 * i : 8 * (width - 1 - i);
            bytes[at + i] = static_cast<std::uint8_t>(value >> shift);
        }
    }
    void text(std::uint64_t at, std::string_view s) {
        if (bytes.size() < at + s.size()) bytes.resize(at + s.size());
        std::memcpy(bytes.data() + at, s.data(), s.size());
    }

    // The old table: "ld.so-1.7.0", nlibs, {flags, key, value}; strings after the entries.
    // Returns where the string area starts.
    std::uint64_t old_table(const Entries& entries, std::uint64_t strings_start = 0) {
        text(0, "ld.so-1.7.0");
        put(12, entries.size(), 4);
        std::uint64_t base = 16 + 12 * entries.size();
        std::uint64_t strings = std::max(base, strings_start);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            std::uint64_t at = 16 + 12 * i;
            put(at, entries[i].flags, 4);
            put(at + 4, add_string(strings, entries[i].soname) - base, 4);
            put(at + 8, add_string(strings, entries[i].path) - base, 4);
        }
        return base;
    }

    // The new table at `header`: magic, version, nlibs, len_strings, flags byte, extension
    // offset, 3 unused words, then 24-byte entries; string offsets count from `header`.
    void new_table(std::uint64_t header, const Entries& entries, std::uint8_t endian_flags) {
        text(header, "glibc-ld.so.cache1.1");
        put(header + 20, entries.size(), 4);
        put(header + 28, endian_flags, 1);
        put(header + 44, 0, 4);
        std::uint64_t strings = header + 48 + 24 * entries.size();
        std::uint64_t first = strings;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            std::uint64_t at = header + 48 + 24 * i;
            put(at, entries[i].flags, 4);
            put(at + 4, add_string(strings, entries[i].soname) - header, 4);
            put(at + 8, add_string(strings, entries[i].path) - header, 4);
            put(at + 16, 0, 8);
        }
        put(header + 24, strings - first, 4);
    }

  private:
    std::uint64_t add_string(std::uint64_t& cursor, const std::string& s) {
        std::uint64_t at = cursor;
        text(at, s);
        put(at + s.size(), 0, 1);
        cursor += s.size() + 1;
        return at;
    }
    bool little_;
};

const Entries kNewEntries = {
    {"libzz.so.1", "/opt/new/libzz.so.1", kX8664},
    {"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", kX8664},
    {"libc.so.6", "/lib32/libc.so.6", kLibc6},
};

Bytes new_only(bool little = true, std::uint8_t endian_flags = 2) {
    CacheWriter w(little);
    w.new_table(0, kNewEntries, endian_flags);
    return w.bytes;
}

// --- this machine's cache and ldconfig --------------------------------------------------------

TEST(LdSoCache, MachineCacheHasAFittingLibcThatExists) {
    const fs::path cache = "/etc/ld.so.cache";
    if (!fs::exists(cache)) GTEST_SKIP() << "no /etc/ld.so.cache here";
#if defined(__x86_64__)
    const std::uint16_t machine = kElfMachineX86_64;
#elif defined(__aarch64__)
    const std::uint16_t machine = kElfMachineAarch64;
#else
    GTEST_SKIP() << "host architecture not covered";
    const std::uint16_t machine = 0;
#endif
    auto entries = read_ok(load(cache));
    ASSERT_FALSE(entries.empty());
    auto libc = std::find_if(entries.begin(), entries.end(), [&](const LdCacheEntry& e) {
        return e.soname == "libc.so.6" && ld_cache_entry_fits(e.flags, machine, true);
    });
    ASSERT_NE(libc, entries.end());
    EXPECT_TRUE(fs::exists(libc->path)) << libc->path;
    // The library the entry names is what the entry says it is.
    auto image = read_elf(load(libc->path));
    ASSERT_TRUE(image) << image.error().describe();
    EXPECT_EQ(image->soname, "libc.so.6");
    EXPECT_EQ(image->machine, machine);
    EXPECT_TRUE(image->is_64bit);
}

std::optional<fs::path> ldconfig_program() {
    for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig"})
        if (fs::exists(p)) return fs::path(p);
    return std::nullopt;
}

// Runs this machine's ldconfig over `root` (chrooted with -r, so nothing outside it is read or
// written: no links made, no aux cache touched); nullopt with the reason when it cannot run.
std::optional<std::string> run_ldconfig(const fs::path& root, const std::string& format) {
    auto ldconfig = ldconfig_program();
    if (!ldconfig) return "ldconfig is not installed";
#ifdef _WIN32
    (void)root;
    (void)format;
    return "ldconfig is a Linux program";
#else
    if (::geteuid() != 0) return "ldconfig -r needs root (chroot)";
#endif
    aitk::util::ProcessRequest request;
    request.argv = {ldconfig->string(), "-X", "-c",         format, "-r", root.string(), "-C",
                    "/cache." + format, "-f", "/ld.so.conf"};
    auto result = aitk::util::run_process(request);
    if (!result) return result.error().message;
    if (!result->succeeded()) return "ldconfig failed: " + result->err;
    return std::nullopt;
}

TEST(LdSoCache, CachesWrittenByThisMachinesLdconfigInEveryFormat) {
    auto dir = aitk::fs::TempDir::create("ldcache");
    fs::path root = dir.path();
    aitk::test::build_chain_so(root / "libs" / "liba.so.1", {}, "liba.so.1");
    aitk::test::build_chain_so(root / "libs" / "libcc.so.5", {}, "libcc.so.5");
    bool m32 = aitk::test::have_gcc_m32();
    if (m32) {
        aitk::test::ElfBuild b;
        b.out = root / "libs" / "libb.so.2";
        b.c_source = "int b_fn(void) { return 2; }\n";
        b.soname = "libb.so.2";
        b.m32 = true;
        aitk::test::build_elf(b);
    }
    aitk::fs::write_file_atomic(root / "ld.so.conf", "/libs\n");

    // ldconfig's order (its own name comparison): the 32-bit libb between libcc and liba.
    Entries expected = {{"libcc.so.5", "/libs/libcc.so.5", kX8664}};
    if (m32) expected.push_back({"libb.so.2", "/libs/libb.so.2", kLibc6});
    expected.push_back({"liba.so.1", "/libs/liba.so.1", kX8664});

    for (std::string format : {"new", "old", "compat"}) {
        if (auto why = run_ldconfig(root, format)) GTEST_SKIP() << *why;
        Bytes cache = load(root / ("cache." + format));
        auto entries = read_ok(cache);
        EXPECT_EQ(entries, expected) << format;
        for (const auto& e : entries)
            EXPECT_TRUE(fs::exists(root / e.path.substr(1))) << e.path;
        if (m32) {
            EXPECT_TRUE(ld_cache_entry_fits(entries[1].flags, kElfMachine386, false));
            EXPECT_FALSE(ld_cache_entry_fits(entries[1].flags, kElfMachineX86_64, true));
        }
        EXPECT_TRUE(ld_cache_entry_fits(entries[0].flags, kElfMachineX86_64, true));

        // glibc 2.33+ ends the file with an extension directory (the generator's name) that
        // entries do not need: every prefix up to the last string's NUL is a problem, every
        // longer one reads the same entries.
        std::uint64_t header = format == "compat" ? 16 + 12 * le32(cache, 12) : 0;
        header = (header + 7) & ~std::uint64_t{7};
        std::uint64_t strings_end = format == "old" ? cache.size() : le32(cache, header + 32);
        ASSERT_NE(strings_end, 0u) << format;
        std::size_t first_ok = cache.size() + 1;
        for (std::size_t n = 0; n <= cache.size(); ++n) {
            auto cut = read_ld_so_cache(prefix(cache, n));
            if (cut) {
                first_ok = std::min(first_ok, n);
                EXPECT_EQ(*cut, expected) << format << " prefix " << n;
            } else {
                EXPECT_GT(first_ok, n) << format << ": a problem after a shorter prefix read";
                EXPECT_LE(cut.error().offset, std::max<std::size_t>(n, 0x20)) << format << n;
            }
        }
        EXPECT_LE(first_ok, strings_end) << format;
        EXPECT_GT(first_ok + 4, strings_end) << format;  // the extension is 4-byte aligned
    }
}

// --- hand-made caches --------------------------------------------------------------------------

TEST(LdSoCache, NewFormatBothByteOrders) {
    EXPECT_EQ(read_ok(new_only(true, 2)), kNewEntries);
    EXPECT_EQ(read_ok(new_only(false, 3)), kNewEntries);
    // No byte order in the flags (an ldconfig before glibc 2.32): the order whose count fits.
    EXPECT_EQ(read_ok(new_only(true, 0)), kNewEntries);
    EXPECT_EQ(read_ok(new_only(false, 0)), kNewEntries);
}

TEST(LdSoCache, NewFormatMarkedInvalidIsAProblem) {
    auto problem = read_bad(new_only(true, 1));
    EXPECT_EQ(problem.message, "new-format header marks the cache invalid (ld.so ignores it)");
    EXPECT_EQ(problem.offset, 28u);
}

TEST(LdSoCache, OldFormatOnly) {
    Entries old = {{"libold.so.1", "/usr/lib/libold.so.1", kLibc6},
                   {"libc.so.6", "/lib/libc.so.6", 0x0903}};
    for (bool little : {true, false}) {
        CacheWriter w(little);
        std::uint64_t base = w.old_table(old);
        EXPECT_EQ(base, 16u + 24u);
        EXPECT_EQ(read_ok(w.bytes), old) << little;
    }
}

TEST(LdSoCache, OldFollowedByNewPrefersTheNewTable) {
    Entries old = {{"libold.so.1", "/usr/lib/libold.so.1", kLibc6}};
    CacheWriter w;
    // One old entry ends at byte 28; the new header starts 8-byte aligned, at 32, and the old
    // table's strings come after the new table's.
    std::uint64_t base = w.old_table(old, 32 + 48 + 24 * 3 + 200);
    EXPECT_EQ(base, 28u);
    w.new_table(32, kNewEntries, 2);
    EXPECT_EQ(read_ok(w.bytes), kNewEntries);

    // Without the new magic there, the old table is what the file holds.
    Bytes no_new = w.bytes;
    no_new[32] = 'X';
    EXPECT_EQ(read_ok(no_new), old);
}

TEST(LdSoCache, BadMagicAndVersion) {
    Bytes text = {'h', 'e', 'l', 'l', 'o'};
    EXPECT_EQ(read_bad(text).message,
              "not an ld.so.cache (no \"ld.so-1.7.0\" or \"glibc-ld.so.cache\" magic)");
    Bytes v10 = new_only();
    v10[19] = '0';
    auto problem = read_bad(v10);
    EXPECT_EQ(problem.message, "new-format cache version is not 1.1");
    EXPECT_EQ(problem.offset, 17u);
    EXPECT_EQ(read_bad(prefix(new_only(), 30)).message,
              "file ends inside the new-format header (file is 30 bytes)");
}

TEST(LdSoCache, EntryCountsBeyondTheFileOrTheLimit) {
    Bytes b = new_only();
    b[20] = 200;  // nlibs 200: the table runs past the end
    auto past = read_bad(b);
    EXPECT_EQ(past.message, "new-format table of 200 entries runs past the end of the file (" +
                                std::to_string(b.size()) + " bytes)");
    EXPECT_EQ(past.offset, 20u);

    b[20] = 0;
    b[21] = 0;
    b[22] = 0x20;  // 0x200000 entries
    EXPECT_EQ(read_bad(b).message, "new-format table has 2097152 entries, more than " +
                                       std::to_string(kLdCacheMaxEntries));

    CacheWriter w;
    w.old_table({{"liba.so", "/a", kLibc6}});
    w.put(12, 0xffffffff, 4);
    EXPECT_EQ(read_bad(w.bytes).message.rfind("old-format table has 4294967295 entries", 0), 0u);
}

TEST(LdSoCache, BadStringOffsetsNameTheEntry) {
    Bytes b = new_only();
    std::uint64_t key_at = 48 + 24 * 1 + 4;  // entry 1's key
    b[key_at] = 0x00;
    b[key_at + 1] = 0x90;  // 0x9000, past the end of the file
    b[key_at + 2] = 0;
    b[key_at + 3] = 0;
    auto problem = read_bad(b);
    EXPECT_EQ(problem.message,
              "new-format entry 1: name offset 0x9000 lies past the end of the file (" +
                  std::to_string(b.size()) + " bytes)");
    EXPECT_EQ(problem.offset, key_at);
    EXPECT_EQ(problem.describe(), problem.message + " (at byte " + hex(key_at) + ")");

    Bytes no_nul = new_only();
    no_nul.back() = 'x';  // the last path loses its NUL
    auto unterminated = read_bad(no_nul);
    EXPECT_EQ(unterminated.message.rfind("new-format entry 2: path offset 0x", 0), 0u)
        << unterminated.message;
    EXPECT_NE(unterminated.message.find("no terminating NUL before the end of the file"),
              std::string::npos);

    Bytes huge = new_only();
    huge.back() = 'x';
    huge.insert(huge.end(), 5000, 'y');
    huge.push_back(0);
    EXPECT_NE(read_bad(huge).message.find("string is longer than 4096 bytes"), std::string::npos);

    // Offsets do not wrap: 0xffffffff past the old string area is past any small file.
    CacheWriter w;
    w.old_table({{"liba.so", "/a", kLibc6}});
    w.put(16 + 8, 0xffffffff, 4);
    EXPECT_EQ(
        read_bad(w.bytes).message.rfind("old-format entry 0: path offset 0xffffffff lies past", 0),
        0u);
}

TEST(LdSoCache, EveryTruncationOfHandMadeCaches) {
    CacheWriter combined;
    combined.old_table({{"libold.so.1", "/usr/lib/libold.so.1", kLibc6}}, 32 + 48 + 24 * 3 + 200);
    combined.new_table(32, kNewEntries, 2);
    for (const Bytes& cache : {new_only(), new_only(false, 0), combined.bytes}) {
        ASSERT_TRUE(read_ld_so_cache(cache));
        for (std::size_t n = 0; n < cache.size(); ++n) {
            auto cut = read_ld_so_cache(prefix(cache, n));
            // A cut inside the old table's strings may leave the whole new table: that is a read.
            if (cut) {
                EXPECT_EQ(*cut, kNewEntries) << n;
                continue;
            }
            EXPECT_FALSE(cut.error().message.empty());
        }
    }
}

// --- which entries fit ------------------------------------------------------------------------

TEST(LdCacheEntryFits, FlagsPerArchitecture) {
    EXPECT_TRUE(ld_cache_entry_fits(0x0303, kElfMachineX86_64, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0003, kElfMachineX86_64, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0301, kElfMachineX86_64, true));  // FLAG_ELF, not libc6
    EXPECT_FALSE(ld_cache_entry_fits(0x0803, kElfMachineX86_64, true));
    EXPECT_TRUE(ld_cache_entry_fits(0x0803, kElfMachineX86_64, false));  // x32
    EXPECT_TRUE(ld_cache_entry_fits(0x0003, kElfMachine386, false));
    EXPECT_TRUE(ld_cache_entry_fits(0x0001, kElfMachine386, false));  // glibc's generic rule
    EXPECT_FALSE(ld_cache_entry_fits(0x0303, kElfMachine386, false));
    EXPECT_TRUE(ld_cache_entry_fits(0x0a03, kElfMachineAarch64, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0303, kElfMachineAarch64, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0003, kElfMachineAarch64, true));
    EXPECT_TRUE(ld_cache_entry_fits(0x0903, kElfMachineArm, false));
    EXPECT_TRUE(ld_cache_entry_fits(0x0003, kElfMachineArm, false));
    EXPECT_FALSE(ld_cache_entry_fits(0x0b03, kElfMachineArm, false));  // soft-float
    EXPECT_TRUE(ld_cache_entry_fits(0x0503, kElfMachinePpc64, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0403, kElfMachinePpc64, true));
    EXPECT_TRUE(ld_cache_entry_fits(0x1003, kElfMachineRiscv, true));
    EXPECT_FALSE(ld_cache_entry_fits(0x0f03, kElfMachineRiscv, true));  // soft-float ABI
    EXPECT_TRUE(ld_cache_entry_fits(0x0403, 22, true));                 // s390x
    EXPECT_FALSE(ld_cache_entry_fits(0x0002, 999, true));               // libc5
    EXPECT_TRUE(ld_cache_entry_fits(0x0703, 8, true));  // MIPS: not known here, not refused
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
