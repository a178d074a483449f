// The ELF reader against objects gcc builds here, the system's own libraries and hand-made images
// (big-endian, damaged) whose every byte the test places.
#include "aitk/diag/elf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "image_bytes.hpp"
#include "native_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::diag;
using aitk::test::build_chain_so;
using aitk::test::build_elf;
using aitk::test::ElfBuild;
using aitk::test::have_gcc_m32;

using aitk::test::Bytes;
using aitk::test::hex;
using aitk::test::load;
using aitk::test::prefix;

ElfImage read_ok(std::span<const std::uint8_t> bytes) {
    return aitk::test::expect_value(read_elf(bytes));
}

ImageProblem read_bad(std::span<const std::uint8_t> bytes) {
    return aitk::test::expect_problem(read_elf(bytes));
}

void gcc(const std::vector<std::string>& argv) {
    aitk::util::ProcessRequest request;
    request.argv = {"gcc"};
    request.argv.insert(request.argv.end(), argv.begin(), argv.end());
    auto result = aitk::util::run_process(request);
    ASSERT_TRUE(result && result->succeeded()) << (result ? result->err : result.error().message);
}

// Writes fixed-width integers in either byte order, as an ELF file of that EI_DATA holds them.
class Writer {
  public:
    explicit Writer(bool little) : little_(little) {}
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

  private:
    bool little_;
};

constexpr std::uint64_t kBase = 0x400000;  // where the hand-made images' one PT_LOAD is mapped

// A hand-made ELF: header, program headers (PT_LOAD over the whole file, PT_DYNAMIC), the
// dynamic string table, the dynamic entries last (so a missing DT_NULL meets the end of the
// file) and, when asked, section headers ([1] .dynstr, [2] .dynamic with sh_link 1).
struct MiniElf {
    bool is64 = true;
    bool little = true;
    std::string strings = std::string("\0libfoo.so.1\0libbar.so\0$ORIGIN/../lib\0libmini.so\0", 49);
    // DT_STRTAB and DT_STRSZ are added first (with the real address and size) unless given here.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> dynamic = {
        {1, 1}, {1, 13}, {29, 23}, {14, 38}};
    std::optional<std::uint64_t> strtab_address;
    std::optional<std::uint64_t> strsz;
    bool dt_null = true;
    bool dt_strtab = true;  // false: a filler DT_DEBUG takes its place
    bool pt_dynamic = true;
    bool sections = false;
    std::optional<std::uint16_t> phnum;  // e_phnum as written

    std::uint64_t header_size() const { return is64 ? 64 : 52; }
    std::uint64_t ph_size() const { return is64 ? 56 : 32; }
    std::uint64_t dyn_size() const { return is64 ? 16 : 8; }
    std::uint64_t phoff() const { return header_size(); }
    std::uint64_t strtab_offset() const { return phoff() + 2 * ph_size(); }
    std::uint64_t dynamic_offset() const { return (strtab_offset() + strings.size() + 7) & ~7ull; }
    // Where entry `i` of `dynamic` lands (after DT_STRTAB and DT_STRSZ).
    std::uint64_t entry_offset(std::size_t i) const {
        return dynamic_offset() + (i + 2) * dyn_size();
    }

    Bytes build() const {
        Writer w(little);
        unsigned word = is64 ? 8 : 4;
        w.text(0,
               "\x7f"
               "ELF");
        w.put(4, is64 ? 2 : 1, 1);
        w.put(5, little ? 1 : 2, 1);
        w.put(6, 1, 1);
        w.put(16, kElfTypeDyn, 2);
        w.put(18, is64 ? kElfMachineAarch64 : kElfMachineArm, 2);
        w.put(20, 1, 4);
        w.put(is64 ? 32 : 28, phoff(), word);                          // e_phoff
        w.put(is64 ? 52 : 40, header_size(), 2);                       // e_ehsize
        w.put(is64 ? 54 : 42, ph_size(), 2);                           // e_phentsize
        w.put(is64 ? 56 : 44, phnum.value_or(pt_dynamic ? 2 : 1), 2);  // e_phnum

        w.text(strtab_offset(), strings);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> entries = {
            {dt_strtab ? 5u : 21u, strtab_address.value_or(kBase + strtab_offset())},
            {10, strsz.value_or(strings.size())}};
        entries.insert(entries.end(), dynamic.begin(), dynamic.end());
        if (dt_null) entries.push_back({0, 0});
        std::uint64_t at = dynamic_offset();
        for (auto [tag, value] : entries) {
            w.put(at, tag, word);
            w.put(at + word, value, word);
            at += dyn_size();
        }
        std::uint64_t dynamic_size = at - dynamic_offset();

        std::uint64_t shoff = (at + 7) & ~7ull;
        if (sections) {
            std::uint64_t sh = is64 ? 64 : 40;
            auto section = [&](std::uint64_t i, std::uint32_t type, std::uint64_t offset,
                               std::uint64_t size, std::uint32_t link) {
                std::uint64_t s = shoff + i * sh;
                w.put(s + 4, type, 4);
                w.put(s + (is64 ? 24 : 16), offset, word);
                w.put(s + (is64 ? 32 : 20), size, word);
                w.put(s + (is64 ? 40 : 24), link, 4);
                w.put(s + sh - 1, 0, 1);
            };
            section(0, 0, 0, 0, 0);
            section(1, 3, strtab_offset(), strings.size(), 0);
            section(2, 6, dynamic_offset(), dynamic_size, 1);
            w.put(is64 ? 40 : 32, shoff, word);  // e_shoff
            w.put(is64 ? 58 : 46, sh, 2);        // e_shentsize
            w.put(is64 ? 60 : 48, 3, 2);         // e_shnum
        }
        std::uint64_t file_size = w.bytes.size();

        auto program = [&](std::uint64_t i, std::uint32_t type, std::uint64_t offset,
                           std::uint64_t vaddr, std::uint64_t size) {
            std::uint64_t p = phoff() + i * ph_size();
            w.put(p, type, 4);
            w.put(p + (is64 ? 8 : 4), offset, word);
            w.put(p + (is64 ? 16 : 8), vaddr, word);
            w.put(p + (is64 ? 32 : 16), size, word);
            w.put(p + (is64 ? 40 : 20), size, word);
        };
        program(0, 1, 0, kBase, file_size);
        if (pt_dynamic) program(1, 2, dynamic_offset(), kBase + dynamic_offset(), dynamic_size);
        return w.bytes;
    }
};

// --- objects gcc builds ---------------------------------------------------------------------

TEST(ElfReader, SharedObjectHasItsSonameAndNeededNamesInLinkOrder) {
    auto dir = aitk::fs::TempDir::create("elf");
    auto z = build_chain_so(dir.path() / "libzeta.so.3", {}, "libzeta.so.3");
    auto a = build_chain_so(dir.path() / "libalpha.so", {}, "libalpha.so.1");
    auto top = build_chain_so(dir.path() / "libtop.so", {z, a}, "libtop.so.2");

    auto image = read_ok(load(top));
    EXPECT_TRUE(image.is_64bit);
    EXPECT_TRUE(image.little_endian);
    EXPECT_EQ(image.machine, kElfMachineX86_64);
    EXPECT_EQ(image.type, kElfTypeDyn);
    EXPECT_TRUE(image.has_dynamic);
    EXPECT_EQ(image.soname, "libtop.so.2");
    EXPECT_EQ(image.needed,
              (std::vector<std::string>{"libzeta.so.3", "libalpha.so.1", "libc.so.6"}));
    EXPECT_EQ(image.rpath, std::nullopt);
    EXPECT_EQ(image.runpath, std::nullopt);
    EXPECT_EQ(elf_machine_name(image.machine, image.is_64bit), "x86_64");
}

TEST(ElfReader, RpathIsKeptVerbatimAndRunpathComesFromNewDtags) {
    auto dir = aitk::fs::TempDir::create("elf");
    auto c = build_chain_so(dir.path() / "lib" / "libc3.so.1", {}, "libc3.so.1");
    auto with_rpath =
        build_chain_so(dir.path() / "bin" / "librp.so", {c}, {}, {}, "$ORIGIN/../lib:/opt/x");
    auto with_runpath =
        build_chain_so(dir.path() / "bin" / "librun.so", {c}, {}, "${ORIGIN}/../lib");

    auto rp = read_ok(load(with_rpath));
    EXPECT_EQ(rp.rpath, "$ORIGIN/../lib:/opt/x");
    EXPECT_EQ(rp.runpath, std::nullopt);
    EXPECT_EQ(rp.soname, std::nullopt);
    EXPECT_EQ(rp.needed, (std::vector<std::string>{"libc3.so.1", "libc.so.6"}));

    auto run = read_ok(load(with_runpath));
    EXPECT_EQ(run.rpath, std::nullopt);
    EXPECT_EQ(run.runpath, "${ORIGIN}/../lib");
    EXPECT_EQ(expand_search_path(*run.runpath, (dir.path() / "bin").string()),
              (std::vector<std::string>{(dir.path() / "bin").string() + "/../lib"}));
}

TEST(ElfReader, ThirtyTwoBitSharedObject) {
    if (!have_gcc_m32()) GTEST_SKIP() << "gcc cannot build -m32 here";
    auto dir = aitk::fs::TempDir::create("elf");
    ElfBuild dep;
    dep.out = dir.path() / "libdep32.so.4";
    dep.c_source = "int dep32_fn(void) { return 4; }\n";
    dep.soname = "libdep32.so.4";
    dep.m32 = true;
    build_elf(dep);
    ElfBuild top;
    top.out = dir.path() / "libtop32.so";
    top.c_source = "int dep32_fn(void);\nint top32_fn(void) { return dep32_fn(); }\n";
    top.needed = {dep.out};
    top.soname = "libtop32.so.1";
    top.rpath = "$ORIGIN";
    top.m32 = true;
    build_elf(top);

    auto image = read_ok(load(top.out));
    EXPECT_FALSE(image.is_64bit);
    EXPECT_TRUE(image.little_endian);
    EXPECT_EQ(image.machine, kElfMachine386);
    EXPECT_EQ(image.type, kElfTypeDyn);
    EXPECT_EQ(image.soname, "libtop32.so.1");
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libdep32.so.4", "libc.so.6"}));
    EXPECT_EQ(image.rpath, "$ORIGIN");
    EXPECT_EQ(elf_machine_name(image.machine, image.is_64bit), "x86");
}

TEST(ElfReader, ExecutableNeedsItsLibrariesAndHasNoSoname) {
    auto dir = aitk::fs::TempDir::create("elf");
    auto lib = build_chain_so(dir.path() / "libexe_dep.so.7", {}, "libexe_dep.so.7");
    ElfBuild exe;
    exe.out = dir.path() / "prog";
    exe.c_source = "int exe_dep_fn(void);\nint main(void) { return exe_dep_fn(); }\n";
    exe.needed = {lib};
    exe.runpath = "$ORIGIN";
    exe.executable = true;
    build_elf(exe);

    auto image = read_ok(load(exe.out));
    EXPECT_TRUE(image.has_dynamic);
    EXPECT_TRUE(image.type == kElfTypeDyn ||
                image.type == kElfTypeExec);  // PIE or not: gcc's default
    EXPECT_EQ(image.soname, std::nullopt);
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libexe_dep.so.7", "libc.so.6"}));
    EXPECT_EQ(image.runpath, "$ORIGIN");
}

TEST(ElfReader, StaticExecutableAndObjectFileHaveNoDynamicSection) {
    auto dir = aitk::fs::TempDir::create("elf");
    aitk::fs::write_file_atomic(dir.path() / "s.c", "int main(void) { return 0; }\n");
    std::string c = (dir.path() / "s.c").string();
    std::string object = (dir.path() / "s.o").string();
    std::string exe = (dir.path() / "s-static").string();
    gcc({"-c", "-o", object, c});
    auto o = read_ok(load(object));
    EXPECT_FALSE(o.has_dynamic);
    EXPECT_EQ(o.type, 1);  // ET_REL
    EXPECT_TRUE(o.needed.empty());
    EXPECT_EQ(o.soname, std::nullopt);

    aitk::util::ProcessRequest request;
    request.argv = {"gcc", "-static", "-o", exe, c};
    auto built = aitk::util::run_process(request);
    if (!built || !built->succeeded()) GTEST_SKIP() << "no static libc to link against";
    auto s = read_ok(load(exe));
    EXPECT_FALSE(s.has_dynamic);
    EXPECT_EQ(s.type, kElfTypeExec);
    EXPECT_EQ(s.machine, kElfMachineX86_64);
    EXPECT_TRUE(s.needed.empty());
    EXPECT_EQ(s.rpath, std::nullopt);
}

TEST(ElfReader, SystemLibraries) {
    const fs::path libc = "/lib/x86_64-linux-gnu/libc.so.6";
    if (!fs::exists(libc)) GTEST_SKIP() << "not an x86_64 Debian layout";
    auto image = read_ok(load(libc));
    EXPECT_EQ(image.soname, "libc.so.6");
    EXPECT_EQ(image.machine, kElfMachineX86_64);
    EXPECT_EQ(image.needed, (std::vector<std::string>{"ld-linux-x86-64.so.2"}));

    const fs::path libstdcxx = "/lib/x86_64-linux-gnu/libstdc++.so.6";
    if (fs::exists(libstdcxx)) {
        auto cxx = read_ok(load(libstdcxx));
        EXPECT_EQ(cxx.soname, "libstdc++.so.6");
        EXPECT_NE(std::find(cxx.needed.begin(), cxx.needed.end(), "libc.so.6"), cxx.needed.end());
        EXPECT_NE(std::find(cxx.needed.begin(), cxx.needed.end(), "libm.so.6"), cxx.needed.end());
    }
    const fs::path libc32 = "/lib32/libc.so.6";
    if (fs::exists(libc32)) {
        auto x86 = read_ok(load(libc32));
        EXPECT_FALSE(x86.is_64bit);
        EXPECT_EQ(x86.machine, kElfMachine386);
        EXPECT_EQ(x86.soname, "libc.so.6");
        EXPECT_EQ(x86.needed, (std::vector<std::string>{"ld-linux.so.2"}));
    }
}

// --- hand-made images ------------------------------------------------------------------------

class EveryClassAndByteOrder : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(EveryClassAndByteOrder, HandMadeImageReadsTheSame) {
    MiniElf mini;
    std::tie(mini.is64, mini.little) = GetParam();
    auto image = read_ok(mini.build());
    EXPECT_EQ(image.is_64bit, mini.is64);
    EXPECT_EQ(image.little_endian, mini.little);
    EXPECT_EQ(image.machine, mini.is64 ? kElfMachineAarch64 : kElfMachineArm);
    EXPECT_EQ(image.type, kElfTypeDyn);
    EXPECT_TRUE(image.has_dynamic);
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libfoo.so.1", "libbar.so"}));
    EXPECT_EQ(image.runpath, "$ORIGIN/../lib");
    EXPECT_EQ(image.soname, "libmini.so");
    EXPECT_EQ(image.rpath, std::nullopt);

    // Without PT_DYNAMIC the section headers give the same answer.
    mini.pt_dynamic = false;
    mini.sections = true;
    auto from_sections = read_ok(mini.build());
    EXPECT_EQ(from_sections.needed, image.needed);
    EXPECT_EQ(from_sections.soname, "libmini.so");
}

INSTANTIATE_TEST_SUITE_P(ElfReader, EveryClassAndByteOrder,
                         ::testing::Values(std::pair{true, true}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{false, false}));

TEST(ElfReader, BigEndianElf64BytesAsWritten) {
    MiniElf mini;
    mini.little = false;
    Bytes bytes = mini.build();
    // The tag of the first DT_NEEDED entry, most significant byte first.
    std::uint64_t at = mini.entry_offset(0);
    EXPECT_EQ(bytes[at + 7], 1);
    EXPECT_EQ(bytes[at], 0);
    EXPECT_EQ(bytes[5], 2);
    auto image = read_ok(bytes);
    EXPECT_FALSE(image.little_endian);
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libfoo.so.1", "libbar.so"}));
    EXPECT_EQ(elf_machine_name(image.machine, true), "aarch64");
}

TEST(ElfReader, DuplicateNeededNamesAreKept) {
    MiniElf mini;
    mini.dynamic = {{1, 1}, {1, 13}, {1, 1}};
    EXPECT_EQ(read_ok(mini.build()).needed,
              (std::vector<std::string>{"libfoo.so.1", "libbar.so", "libfoo.so.1"}));
}

TEST(ElfReader, ObjectWithoutStringTagsNeedsNoStringTable) {
    MiniElf mini;
    mini.dynamic = {{0x6ffffef5, 0x1234}};  // DT_GNU_HASH only
    mini.strtab_address = 0x10;             // maps nowhere, but nothing reads it
    auto image = read_ok(mini.build());
    EXPECT_TRUE(image.has_dynamic);
    EXPECT_TRUE(image.needed.empty());
}

TEST(ElfReader, PnXnumTakesTheCountFromSectionZero) {
    MiniElf mini;
    mini.sections = true;
    mini.phnum = 0xffff;
    Bytes bytes = mini.build();
    std::uint64_t shoff = bytes[40] | (std::uint64_t{bytes[41]} << 8);
    bytes[shoff + 44] = 2;  // section 0's sh_info: the real e_phnum
    auto image = read_ok(bytes);
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libfoo.so.1", "libbar.so"}));

    bytes[shoff + 44] = 0x20;
    bytes[shoff + 45] = 0x30;  // 0x3020 program headers: more than the limit
    auto problem = read_bad(bytes);
    EXPECT_EQ(problem.message, "e_phnum 12320 is more than 4096 program headers");
}

TEST(ElfReader, StringTableFallsBackToSectionHeadersWhenDtStrtabMapsNowhere) {
    MiniElf mini;
    mini.strtab_address = 0x7fff0000;
    mini.sections = true;
    auto image = read_ok(mini.build());
    EXPECT_EQ(image.needed, (std::vector<std::string>{"libfoo.so.1", "libbar.so"}));

    mini.sections = false;
    auto problem = read_bad(mini.build());
    EXPECT_EQ(problem.message,
              "DT_STRTAB address 0x7fff0000 lies in no PT_LOAD segment and the section headers "
              "give no string table");
    EXPECT_EQ(problem.offset, mini.dynamic_offset());
}

TEST(ElfReader, MissingDtStrtabFallsBackToSectionHeaders) {
    MiniElf mini;
    mini.dt_strtab = false;
    auto problem = read_bad(mini.build());
    EXPECT_EQ(problem.message,
              "the dynamic section has no DT_STRTAB and the section headers give no string table");
    EXPECT_EQ(problem.offset, mini.dynamic_offset());
    mini.sections = true;
    EXPECT_EQ(read_ok(mini.build()).soname, "libmini.so");
}

TEST(ElfReader, NeededOffsetPastDtStrszNamesTheEntry) {
    MiniElf mini;
    mini.dynamic = {{1, 1}, {1, 13}, {1, 0x9999}};
    auto problem = read_bad(mini.build());
    EXPECT_EQ(problem.message,
              "DT_NEEDED entry 2: string offset 0x9999 is past the string table (size 0x31)");
    EXPECT_EQ(problem.offset, mini.entry_offset(2) + 8);
    EXPECT_EQ(problem.describe(), problem.message + " (at byte " + hex(problem.offset) + ")");

    // DT_STRSZ bounds the strings even where the segment has more bytes.
    MiniElf shorter;
    shorter.strsz = 13;
    auto cut = read_bad(shorter.build());
    EXPECT_EQ(cut.message,
              "DT_NEEDED entry 1: string offset 0xd is past the string table (size 0xd)");
    MiniElf inside;
    inside.strsz = 20;
    EXPECT_EQ(read_bad(inside.build()).message,
              "DT_NEEDED entry 1: string at offset 0xd has no terminating NUL inside the string "
              "table");
}

TEST(ElfReader, StringWithoutNulOrTooLongIsAProblem) {
    MiniElf mini;
    mini.strings = std::string("\0libfoo.so.1\0libbar", 19);  // the last name runs to the end
    mini.dynamic = {{1, 1}, {1, 13}};
    auto problem = read_bad(mini.build());
    EXPECT_EQ(problem.message,
              "DT_NEEDED entry 1: string at offset 0xd has no terminating NUL inside the string "
              "table");

    MiniElf long_name;
    long_name.strings =
        std::string(1, '\0') + std::string(kElfMaxStringLength + 1, 'a') + std::string(1, '\0');
    long_name.dynamic = {{15, 1}};
    EXPECT_EQ(read_bad(long_name.build()).message,
              "DT_RPATH: string at offset 0x1 is longer than 16384 bytes");

    MiniElf longest;
    longest.strings =
        std::string(1, '\0') + std::string(kElfMaxStringLength, 'a') + std::string(1, '\0');
    longest.dynamic = {{15, 1}};
    EXPECT_EQ(read_ok(longest.build()).rpath->size(), kElfMaxStringLength);

    MiniElf empty;
    empty.dynamic = {{1, 0}};
    EXPECT_EQ(read_bad(empty.build()).message, "DT_NEEDED entry 0: the name is empty");
}

TEST(ElfReader, DynamicSectionWithoutDtNullAtEndOfFile) {
    MiniElf mini;
    mini.dt_null = false;
    Bytes bytes = mini.build();
    auto problem = read_bad(bytes);
    EXPECT_EQ(problem.message, "PT_DYNAMIC segment (96 bytes) has no DT_NULL entry to end it");
    EXPECT_EQ(problem.offset, bytes.size());
}

TEST(ElfReader, HeaderProblems) {
    Bytes bytes = MiniElf{}.build();
    EXPECT_FALSE(looks_like_elf(prefix(bytes, 3)));
    EXPECT_TRUE(looks_like_elf(prefix(bytes, 4)));
    EXPECT_EQ(read_bad(prefix(bytes, 3)).message, "not an ELF file (no \\x7fELF magic)");
    EXPECT_EQ(read_bad(prefix(bytes, 10)).message,
              "file ends inside the ELF identification (file is 10 bytes)");
    EXPECT_EQ(read_bad(prefix(bytes, 40)).message,
              "file ends inside the ELF header (file is 40 bytes, the header 64)");

    Bytes bad_class = bytes;
    bad_class[4] = 3;
    auto c = read_bad(bad_class);
    EXPECT_EQ(c.message, "EI_CLASS 3 is neither 1 (32-bit) nor 2 (64-bit)");
    EXPECT_EQ(c.offset, 4u);
    Bytes bad_data = bytes;
    bad_data[5] = 0;
    EXPECT_EQ(read_bad(bad_data).message,
              "EI_DATA 0 is neither 1 (little-endian) nor 2 (big-endian)");

    Bytes bad_phentsize = bytes;
    bad_phentsize[54] = 40;
    EXPECT_EQ(read_bad(bad_phentsize).message,
              "e_phentsize 40 is not 56, the size of a program header");

    MiniElf many;
    many.phnum = 3000;  // under the limit, but the table runs past the end of the file
    auto past = read_bad(many.build());
    EXPECT_EQ(past.message.rfind("program header table (3000 entries at 0x40) runs past the end of "
                                 "the file (",
                                 0),
              0u);
}

// --- a real object, damaged ------------------------------------------------------------------

struct Program {
    std::uint32_t type;
    std::uint64_t at, offset, filesz;
};

std::uint64_t le(const Bytes& b, std::uint64_t at, unsigned width) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i)
        v |= std::uint64_t{b[at + i]} << (8 * i);
    return v;
}
void set_le(Bytes& b, std::uint64_t at, std::uint64_t value, unsigned width) {
    for (unsigned i = 0; i < width; ++i)
        b[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::optional<Program> find_program(const Bytes& b, std::uint32_t type) {
    std::uint64_t phoff = le(b, 32, 8), phnum = le(b, 56, 2);
    for (std::uint64_t i = 0; i < phnum; ++i) {
        std::uint64_t at = phoff + i * 56;
        if (le(b, at, 4) == type) return Program{type, at, le(b, at + 8, 8), le(b, at + 32, 8)};
    }
    return std::nullopt;
}

class RealObject : public ::testing::Test {
  protected:
    void SetUp() override {
        auto c = build_chain_so(dir_.path() / "libdep9.so.9", {}, "libdep9.so.9");
        so_ = load(build_chain_so(dir_.path() / "libreal.so", {c}, "libreal.so.1", "$ORIGIN"));
        full_ = read_ok(so_);
        ASSERT_EQ(full_.needed, (std::vector<std::string>{"libdep9.so.9", "libc.so.6"}));
        dynamic_ = *find_program(so_, 2);
    }
    aitk::fs::TempDir dir_ = aitk::fs::TempDir::create("elf");
    Bytes so_;
    ElfImage full_;
    Program dynamic_{};
};

TEST_F(RealObject, EveryTruncationIsAValueOrAProblem) {
    std::size_t first_ok = so_.size() + 1;
    for (std::size_t n = 0; n <= so_.size(); ++n) {
        auto image = read_elf(prefix(so_, n));
        if (image) {
            if (first_ok > n) first_ok = n;
            EXPECT_EQ(image->needed, full_.needed) << n;
            EXPECT_EQ(image->soname, full_.soname) << n;
            EXPECT_EQ(image->runpath, full_.runpath) << n;
        } else {
            EXPECT_GT(first_ok, n) << "a problem after a shorter prefix read: " << n;
            EXPECT_FALSE(image.error().message.empty());
            EXPECT_LE(image.error().offset, n) << n << ": " << image.error().describe();
        }
    }
    // The dynamic segment (gcc puts it after the string table) is the last thing read.
    EXPECT_EQ(first_ok, dynamic_.offset + dynamic_.filesz);
    auto cut = read_bad(prefix(so_, dynamic_.offset + 8));
    char expected[160];
    std::snprintf(expected, sizeof expected,
                  "PT_DYNAMIC segment (offset 0x%llx, size 0x%llx) runs past the end of the file "
                  "(%llu bytes)",
                  static_cast<unsigned long long>(dynamic_.offset),
                  static_cast<unsigned long long>(dynamic_.filesz),
                  static_cast<unsigned long long>(dynamic_.offset + 8));
    EXPECT_EQ(cut.message, expected);
    EXPECT_EQ(cut.offset, dynamic_.at);
}

TEST_F(RealObject, HugeProgramHeaderCount) {
    Bytes b = so_;
    set_le(b, 56, 0xfffe, 2);
    auto problem = read_bad(b);
    EXPECT_EQ(problem.message, "e_phnum 65534 is more than 4096 program headers");
    EXPECT_EQ(problem.offset, 56u);
}

TEST_F(RealObject, DynamicSegmentPastTheEndOfTheFile) {
    Bytes b = so_;
    set_le(b, dynamic_.at + 8, so_.size() + 0x1000, 8);
    auto problem = read_bad(b);
    EXPECT_EQ(problem.offset, dynamic_.at);
    EXPECT_NE(problem.message.find("PT_DYNAMIC segment (offset 0x"), std::string::npos);

    set_le(b, dynamic_.at + 8, ~0ull - 4, 8);  // offset + size overflows
    EXPECT_EQ(read_bad(b).offset, dynamic_.at);
}

TEST_F(RealObject, UnmappedDtStrtabUsesTheSectionHeadersThenFails) {
    Bytes b = so_;
    std::uint64_t strtab_at = 0;
    for (std::uint64_t at = dynamic_.offset; at < dynamic_.offset + dynamic_.filesz; at += 16)
        if (le(b, at, 8) == 5) strtab_at = at;
    ASSERT_NE(strtab_at, 0u);
    set_le(b, strtab_at + 8, 0x7fff0000, 8);
    auto image = read_ok(b);  // .dynamic's sh_link still names .dynstr
    EXPECT_EQ(image.needed, full_.needed);
    EXPECT_EQ(image.soname, "libreal.so.1");

    set_le(b, 40, 0, 8);  // e_shoff: no section headers
    auto problem = read_bad(b);
    EXPECT_EQ(problem.message,
              "DT_STRTAB address 0x7fff0000 lies in no PT_LOAD segment and the section headers "
              "give no string table");
    EXPECT_EQ(problem.offset, strtab_at);
}

TEST_F(RealObject, SectionHeadersAreNotNeededWhenProgramHeadersSuffice) {
    Bytes b = so_;
    set_le(b, 40, so_.size() * 4, 8);  // e_shoff past the end
    set_le(b, 60, 0xffff, 2);          // e_shnum absurd
    EXPECT_EQ(read_ok(b).needed, full_.needed);
}

// --- names and search paths ------------------------------------------------------------------

TEST(ElfMachineName, KnownAndUnknown) {
    EXPECT_EQ(elf_machine_name(kElfMachineX86_64, true), "x86_64");
    EXPECT_EQ(elf_machine_name(kElfMachine386, false), "x86");
    EXPECT_EQ(elf_machine_name(kElfMachineAarch64, true), "aarch64");
    EXPECT_EQ(elf_machine_name(kElfMachineArm, false), "arm");
    EXPECT_EQ(elf_machine_name(kElfMachinePpc64, true), "ppc64");
    EXPECT_EQ(elf_machine_name(kElfMachineRiscv, true), "riscv64");
    EXPECT_EQ(elf_machine_name(kElfMachineRiscv, false), "riscv32");
    EXPECT_EQ(elf_machine_name(kElfMachineX86_64, false), "x32");
    EXPECT_EQ(elf_machine_name(123, true), "machine 123");
}

TEST(ExpandSearchPath, OriginAnywhereEmptyEntriesDroppedOthersKept) {
    EXPECT_EQ(expand_search_path("$ORIGIN/../lib:${ORIGIN}/x::/abs:$LIB/z:/p/$PLATFORM:a$ORIGIN:",
                                 "/w/pkg"),
              (std::vector<std::string>{"/w/pkg/../lib", "/w/pkg/x", "/abs", "$LIB/z",
                                        "/p/$PLATFORM", "a/w/pkg"}));
    EXPECT_EQ(expand_search_path("$ORIGIN", "/o"), (std::vector<std::string>{"/o"}));
    EXPECT_EQ(expand_search_path("$ORIGIN$ORIGIN/${ORIGIN}", "/o"),
              (std::vector<std::string>{"/o/o//o"}));
    // "$ORIGINAL" is another name, as ld.so reads it.
    EXPECT_EQ(expand_search_path("$ORIGINAL/y:$ORIGIN_X", "/o"),
              (std::vector<std::string>{"$ORIGINAL/y", "$ORIGIN_X"}));
    EXPECT_TRUE(expand_search_path("", "/o").empty());
    EXPECT_TRUE(expand_search_path(":::", "/o").empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
