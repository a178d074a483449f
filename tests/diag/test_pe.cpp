// read_pe on real mingw-w64 / lld images, and on those images with bytes patched the way a
// truncated download, a broken linker or a hostile file would leave them.
#include "aitk/diag/pe.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "native_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using aitk::diag::ImageProblem;
using aitk::diag::PeImage;
using aitk::diag::read_pe;
using namespace aitk::test;
using Bytes = std::vector<std::uint8_t>;
using Names = std::vector<std::string>;

Bytes load(const fs::path& p) {
    std::string text = aitk::fs::read_file(p);
    return Bytes(text.begin(), text.end());
}

std::string hex(std::uint64_t v) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
    return text;
}

std::uint32_t get32(const Bytes& b, std::size_t at) {
    return b.at(at) | b.at(at + 1) << 8 | b.at(at + 2) << 16 | std::uint32_t{b.at(at + 3)} << 24;
}
std::uint16_t get16(const Bytes& b, std::size_t at) {
    return static_cast<std::uint16_t>(b.at(at) | b.at(at + 1) << 8);
}
void put32(Bytes& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}
void put16(Bytes& b, std::size_t at, std::uint16_t v) {
    b.at(at) = static_cast<std::uint8_t>(v);
    b.at(at + 1) = static_cast<std::uint8_t>(v >> 8);
}

// Where the fields the tests patch lie, found with the PE/COFF specification's fixed offsets
// (independently of the reader under test).
struct Layout {
    std::size_t pe = 0, coff = 0, opt = 0, dirs = 0, sections = 0;
    std::uint16_t section_count = 0;
    bool plus = false;

    explicit Layout(const Bytes& b) {
        pe = get32(b, 0x3c);
        coff = pe + 4;
        opt = coff + 20;
        section_count = get16(b, coff + 2);
        plus = get16(b, opt) == 0x20b;
        dirs = opt + (plus ? 112 : 96);
        sections = opt + get16(b, coff + 16);
    }
    std::size_t dir_entry(int index) const { return dirs + 8 * index; }
    std::size_t section(int index) const { return sections + 40 * index; }
    std::size_t rva_to_offset(const Bytes& b, std::uint32_t rva) const {
        for (int i = 0; i < section_count; ++i) {
            std::uint32_t va = get32(b, section(i) + 12), raw = get32(b, section(i) + 16);
            if (rva >= va && rva < va + raw) return get32(b, section(i) + 20) + (rva - va);
        }
        throw std::runtime_error("rva not in a section: " + hex(rva));
    }
    int section_of(const Bytes& b, std::uint32_t rva) const {
        for (int i = 0; i < section_count; ++i) {
            std::uint32_t va = get32(b, section(i) + 12), raw = get32(b, section(i) + 16);
            if (rva >= va && rva < va + raw) return i;
        }
        return -1;
    }
    // File offset of import descriptor `index`.
    std::size_t import_descriptor(const Bytes& b, int index) const {
        return rva_to_offset(b, get32(b, dir_entry(1))) + 20 * index;
    }
};

PeImage parse_ok(const Bytes& b) {
    auto r = read_pe(b);
    if (!r) ADD_FAILURE() << r.error().describe();
    return r ? *r : PeImage{};
}

ImageProblem parse_error(const Bytes& b) {
    auto r = read_pe(b);
    if (r) {
        ADD_FAILURE() << "parsed, imports: " << r->imports.size();
        return {};
    }
    return r.error();
}

class PeReader : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
        dir_ = std::make_unique<aitk::fs::TempDir>(aitk::fs::TempDir::create("pe"));
    }
    fs::path dir() const { return dir_->path(); }

    // a.dll importing b.dll, as the loader sees a torch DLL importing its neighbours.
    Bytes chain() {
        auto b = build_chain_dll(dir() / "b.dll");
        return load(build_chain_dll(dir() / "a.dll", {b}));
    }

    // `bytes` with its last section moved to the end of the file and holding `payload`; the
    // import directory points at the payload's start with `directory_size`. Returns the RVA of
    // the payload.
    static std::uint32_t with_payload(Bytes& bytes, const Bytes& payload,
                                      std::uint32_t directory_size) {
        Layout l(bytes);
        std::size_t last = l.section(l.section_count - 1);
        std::size_t at = (bytes.size() + 0x1ff) & ~std::size_t{0x1ff};
        bytes.resize(at, 0);
        bytes.insert(bytes.end(), payload.begin(), payload.end());
        put32(bytes, last + 8, static_cast<std::uint32_t>(payload.size()));
        put32(bytes, last + 16, static_cast<std::uint32_t>(payload.size()));
        put32(bytes, last + 20, static_cast<std::uint32_t>(at));
        std::uint32_t rva = get32(bytes, last + 12);
        put32(bytes, l.dir_entry(1), rva);
        put32(bytes, l.dir_entry(1) + 4, directory_size);
        return rva;
    }

    // `count` copies of import descriptor 0 of `bytes` (whose name stays where it is).
    static Bytes copies_of_first_descriptor(const Bytes& bytes, std::size_t count) {
        std::size_t first = Layout(bytes).import_descriptor(bytes, 0);
        Bytes out;
        for (std::size_t i = 0; i < count; ++i)
            out.insert(out.end(), bytes.begin() + first, bytes.begin() + first + 20);
        return out;
    }

  private:
    std::unique_ptr<aitk::fs::TempDir> dir_;
};

const Names kChainImports = {"KERNEL32.dll", "msvcrt.dll", "b.dll"};

TEST_F(PeReader, ChainDllListsItsImportsInDirectoryOrder) {
    PeImage image = parse_ok(chain());
    EXPECT_EQ(image.machine, aitk::diag::kPeMachineAmd64);
    EXPECT_EQ(aitk::diag::pe_machine_name(image.machine), "x86_64");
    EXPECT_TRUE(image.pe32_plus);
    EXPECT_TRUE(image.is_dll);
    EXPECT_EQ(image.subsystem, 3);
    EXPECT_EQ(image.imports, kChainImports);
    EXPECT_TRUE(image.delay_imports.empty());
}

TEST_F(PeReader, DelayLoadedDllsAreListedApartFromNormalImports) {
    if (!have_delay_load_tools()) GTEST_SKIP() << "llvm-dlltool-14 / lld-link-14 missing";
    PeBuild d;
    d.out = dir() / "d.dll";
    d.c_source =
        "int eager_fn(void);\nint lazy_fn(void);\n"
        "__declspec(dllexport) int d_fn(void) { return eager_fn() + lazy_fn(); }\n";
    d.imports = {dir() / "eager.dll"};
    d.delay_imports = {"lazy.dll"};
    PeImage image = parse_ok(load(build_pe(d)));
    EXPECT_EQ(image.imports, Names{"eager.dll"});
    EXPECT_EQ(image.delay_imports, Names{"lazy.dll"});
    EXPECT_TRUE(image.is_dll);
    EXPECT_TRUE(image.pe32_plus);
}

TEST_F(PeReader, ThirtyTwoBitDllIsPe32ForX86) {
    if (!have_mingw(32)) GTEST_SKIP() << "i686-w64-mingw32-gcc is not installed";
    PeImage image = parse_ok(load(build_chain_dll(dir() / "x86.dll", {}, 32)));
    EXPECT_EQ(image.machine, 0x14c);
    EXPECT_EQ(aitk::diag::pe_machine_name(image.machine), "x86");
    EXPECT_FALSE(image.pe32_plus);
    EXPECT_TRUE(image.is_dll);
    EXPECT_EQ(image.imports, (Names{"KERNEL32.dll", "msvcrt.dll"}));
}

TEST_F(PeReader, ConsoleAndGuiExecutablesAreNotDllsAndKeepTheirSubsystem) {
    PeBuild console;
    console.out = dir() / "tool.exe";
    console.c_source = "int main(void) { return 0; }\n";
    console.executable = true;
    PeImage image = parse_ok(load(build_pe(console)));
    EXPECT_FALSE(image.is_dll);
    EXPECT_EQ(image.subsystem, 3);  // IMAGE_SUBSYSTEM_WINDOWS_CUI
    EXPECT_TRUE(image.pe32_plus);

    // build_pe has no -mwindows switch, so the GUI program is compiled here.
    fs::path source = dir() / "gui.c", gui = dir() / "gui.exe";
    aitk::fs::write_file_atomic(source, "int main(void) { return 0; }\n");
    aitk::util::ProcessRequest request;
    request.argv = {"x86_64-w64-mingw32-gcc", "-mwindows", "-o", gui.string(), source.string()};
    request.timeout = std::chrono::milliseconds(120'000);
    auto built = aitk::util::run_process(request);
    ASSERT_TRUE(built && built->succeeded());
    image = parse_ok(load(gui));
    EXPECT_FALSE(image.is_dll);
    EXPECT_EQ(image.subsystem, 2);  // IMAGE_SUBSYSTEM_WINDOWS_GUI
}

TEST(PeMachineName, NamesTheKnownMachinesAndNumbersTheRest) {
    EXPECT_EQ(aitk::diag::pe_machine_name(0x8664), "x86_64");
    EXPECT_EQ(aitk::diag::pe_machine_name(0x14c), "x86");
    EXPECT_EQ(aitk::diag::pe_machine_name(0xaa64), "arm64");
    EXPECT_EQ(aitk::diag::pe_machine_name(0x1c4), "arm");
    EXPECT_EQ(aitk::diag::pe_machine_name(0x200), "machine 0x0200");
    EXPECT_EQ(aitk::diag::pe_machine_name(0), "machine 0x0000");
}

TEST(LooksLikePe, OnlyTheMzMagicCounts) {
    const Bytes mz = {'M', 'Z'}, elf = {0x7f, 'E', 'L', 'F'}, m = {'M'};
    EXPECT_TRUE(aitk::diag::looks_like_pe(mz));
    EXPECT_FALSE(aitk::diag::looks_like_pe(elf));
    EXPECT_FALSE(aitk::diag::looks_like_pe(m));
    EXPECT_FALSE(aitk::diag::looks_like_pe({}));
}

TEST(PeReaderBytes, NonPeInputIsAProblemAtByteZero) {
    const Bytes elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
    auto p = parse_error(elf);
    EXPECT_EQ(p.message, "not a PE file: no \"MZ\" at the start");
    EXPECT_EQ(p.offset, 0u);
    EXPECT_EQ(parse_error({}).message, "not a PE file: no \"MZ\" at the start");
    auto short_dos = parse_error({'M', 'Z', 0, 0});
    EXPECT_EQ(short_dos.describe(),
              "file ends inside the DOS header (file is 4 bytes) (at byte 0x0)");
}

TEST_F(PeReader, EveryTruncationGivesTheImageOrAProblemInsideWhatIsLeft) {
    Bytes full = chain();
    Layout l(full);
    std::size_t first_descriptor = l.import_descriptor(full, 0);
    int idata = l.section_of(full, get32(full, l.dir_entry(1)));
    ASSERT_GE(idata, 0);
    std::size_t idata_end = get32(full, l.section(idata) + 20) + get32(full, l.section(idata) + 16);
    for (std::size_t length = 0; length <= full.size(); ++length) {
        Bytes cut(full.begin(), full.begin() + length);
        auto r = read_pe(cut);
        if (r) {
            EXPECT_GE(length, first_descriptor + 20) << length;
            EXPECT_EQ(r->imports, kChainImports) << length;
            EXPECT_EQ(r->machine, 0x8664) << length;
        } else {
            EXPECT_LE(r.error().offset, length) << length << ": " << r.error().describe();
            EXPECT_LT(length, idata_end) << length << ": " << r.error().describe();
            EXPECT_FALSE(r.error().message.empty());
        }
    }
    EXPECT_EQ(parse_error(Bytes(full.begin(), full.begin() + 0x3c)).message,
              "file ends inside the DOS header (file is 60 bytes)");
    auto at_pe = parse_error(Bytes(full.begin(), full.begin() + l.pe + 2));
    EXPECT_EQ(at_pe.message, "PE header offset " + hex(l.pe) + " lies past the end of the file (" +
                                 std::to_string(l.pe + 2) + " bytes)");
    EXPECT_EQ(at_pe.offset, 0x3cu);
    auto in_coff = parse_error(Bytes(full.begin(), full.begin() + l.coff + 10));
    EXPECT_EQ(in_coff.message, "file ends inside the COFF header (file is " +
                                   std::to_string(l.coff + 10) + " bytes)");
    EXPECT_EQ(in_coff.offset, l.coff);
    auto in_sections = parse_error(Bytes(full.begin(), full.begin() + l.sections + 50));
    EXPECT_EQ(in_sections.message, "file ends inside the section table (file is " +
                                       std::to_string(l.sections + 50) + " bytes)");
    EXPECT_EQ(in_sections.offset, l.sections);
    // Cut inside the second descriptor: GNU ld writes the names after the table, so the first
    // name is the first thing missing.
    std::uint32_t name_rva = get32(full, first_descriptor + 12);
    auto in_table = parse_error(Bytes(full.begin(), full.begin() + first_descriptor + 30));
    EXPECT_EQ(in_table.message, "import directory entry 0: name RVA " + hex(name_rva) +
                                    " (section \".idata\", file offset " +
                                    hex(l.rva_to_offset(full, name_rva)) +
                                    ") lies past the end of the file");
    EXPECT_EQ(in_table.offset, first_descriptor + 12);
}

TEST_F(PeReader, PeHeaderOffsetPastTheEndOrNegativeLookingIsAProblem) {
    Bytes bytes = chain();
    for (std::uint32_t lfanew : {static_cast<std::uint32_t>(bytes.size()), 0x7fffffffu, 0x80000000u,
                                 0xfffffffcu, 0xffffffffu}) {
        Bytes patched = bytes;
        put32(patched, 0x3c, lfanew);
        auto p = parse_error(patched);
        EXPECT_EQ(p.message, "PE header offset " + hex(lfanew) +
                                 " lies past the end of the file (" + std::to_string(bytes.size()) +
                                 " bytes)");
        EXPECT_EQ(p.offset, 0x3cu);
    }
    Bytes no_signature = bytes;
    no_signature.at(Layout(bytes).pe + 1) = 'X';
    auto p = parse_error(no_signature);
    EXPECT_EQ(p.message,
              "no \"PE\\0\\0\" signature at the PE header offset " + hex(Layout(bytes).pe));
    EXPECT_EQ(p.offset, Layout(bytes).pe);
}

TEST_F(PeReader, SectionCountAboveTheLoaderLimitIsAProblem) {
    Bytes bytes = chain();
    Layout l(bytes);
    put16(bytes, l.coff + 2, 0xffff);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "65535 sections: more than the 96 a PE image may have");
    EXPECT_EQ(p.offset, l.coff + 2);
    put16(bytes, l.coff + 2, 97);
    EXPECT_EQ(parse_error(bytes).message, "97 sections: more than the 96 a PE image may have");
    // 96 is allowed: the headers after the real ones are whatever bytes follow the table, and
    // the real sections, first in the table, still map the imports.
    put16(bytes, l.coff + 2, 96);
    EXPECT_EQ(parse_ok(bytes).imports, kChainImports);
}

TEST_F(PeReader, BadOptionalHeadersAreProblems) {
    Bytes bytes = chain();
    Layout l(bytes);
    Bytes magic = bytes;
    put16(magic, l.opt, 0x107);
    auto p = parse_error(magic);
    EXPECT_EQ(p.message, "optional header magic 0x107 is neither PE32 (0x10b) nor PE32+ (0x20b)");
    EXPECT_EQ(p.offset, l.opt);

    Bytes none = bytes;
    put16(none, l.coff + 16, 0);
    EXPECT_EQ(parse_error(none).message, "no optional header (an object file, not an image)");

    Bytes short_header = bytes;
    put16(short_header, l.coff + 16, 100);
    EXPECT_EQ(parse_error(short_header).message,
              "optional header of 100 bytes is shorter than the 112 a PE32+ image needs");

    // 16 directories in a header sized for 15.
    Bytes small = bytes;
    put16(small, l.coff + 16, 112 + 8 * 15);
    p = parse_error(small);
    EXPECT_EQ(p.message, "optional header of 232 bytes is too small for its 16 data directories");
    EXPECT_EQ(p.offset, l.dirs - 4);
}

TEST_F(PeReader, FewerDataDirectoriesLeaveTheMissingOnesAbsent) {
    Bytes bytes = chain();
    Layout l(bytes);
    put32(bytes, l.dirs - 4, 1);  // only the export directory
    EXPECT_TRUE(parse_ok(bytes).imports.empty());
    put32(bytes, l.dirs - 4, 2);
    EXPECT_EQ(parse_ok(bytes).imports, kChainImports);
    put32(bytes, l.dirs - 4, 0xffffffff);  // more than 16: the first 16 are the ones defined
    EXPECT_EQ(parse_ok(bytes).imports, kChainImports);
    put32(bytes, l.dirs - 4, 0);
    EXPECT_TRUE(parse_ok(bytes).imports.empty());
}

TEST_F(PeReader, ImageWithoutImportDirectoryHasNoImports) {
    Bytes bytes = chain();
    Layout l(bytes);
    put32(bytes, l.dir_entry(1), 0);
    put32(bytes, l.dir_entry(1) + 4, 0);
    PeImage image = parse_ok(bytes);
    EXPECT_TRUE(image.imports.empty());
    EXPECT_TRUE(image.delay_imports.empty());
    EXPECT_TRUE(image.is_dll);
}

TEST_F(PeReader, ImportDirectoryOutsideEverySectionIsAProblem) {
    Bytes bytes = chain();
    Layout l(bytes);
    put32(bytes, l.dir_entry(1), 0x500000);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0 at RVA 0x500000 lies outside every section");
    EXPECT_EQ(p.offset, l.dir_entry(1));
}

TEST_F(PeReader, RvaInHeadersLargerThanTheFileIsAProblem) {
    Bytes bytes = chain();
    Layout l(bytes);
    put32(bytes, l.opt + 60, 0xffffffff);  // SizeOfHeaders
    put32(bytes, l.dir_entry(1), 0x500000);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message,
              "import directory entry 0 at RVA 0x500000 (in the headers) lies past the end of the "
              "file");
    EXPECT_EQ(p.offset, l.dir_entry(1));
}

TEST_F(PeReader, TablesAndNamesEndWithTheirSectionNotWithTheFile) {
    Bytes bytes = chain();
    Bytes payload = copies_of_first_descriptor(bytes, 1);
    payload.resize(30, 0);  // half of a second descriptor
    std::uint32_t rva = with_payload(bytes, payload, 0xffffffff);
    std::size_t at = bytes.size() - payload.size();
    bytes.resize(bytes.size() + 0x200, 0xcc);  // bytes after the section's raw data
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 1 at RVA " + hex(rva + 20) +
                             " runs past the end of its section");
    EXPECT_EQ(p.offset, at + 20);

    // A name running into the section's end: its NUL would come from the next bytes of the
    // file, which the loader does not map there.
    const std::string name = "cut.dll";
    for (std::size_t i = 0; i < name.size(); ++i)
        bytes.at(at + 23 + i) = static_cast<std::uint8_t>(name[i]);  // up to the section's end
    Layout l(bytes);
    put32(bytes, l.dir_entry(1) + 4, 20);  // one descriptor: the walk stops before the name
    put32(bytes, at + 12, rva + 23);
    p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0: name RVA " + hex(rva + 23) +
                             ": name has no terminating NUL before the end of its section");
    EXPECT_EQ(p.offset, at + 23);
}

TEST_F(PeReader, SectionRawDataPastTheEndOfTheFileIsAProblem) {
    Bytes bytes = chain();
    Layout l(bytes);
    std::uint32_t rva = get32(bytes, l.dir_entry(1));
    int idata = l.section_of(bytes, rva);
    ASSERT_GE(idata, 0);
    put32(bytes, l.section(idata) + 20, 0x100000);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0 at RVA " + hex(rva) +
                             " (section \".idata\", file offset 0x100000) lies past the end of "
                             "the file");
    EXPECT_EQ(p.offset, l.dir_entry(1));
}

TEST_F(PeReader, NameRvaOutsideEverySectionNamesTheEntryAndWhereItWasRead) {
    Bytes bytes = chain();
    Layout l(bytes);
    std::size_t name_field = l.import_descriptor(bytes, 2) + 12;
    put32(bytes, name_field, 0x50000);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 2: name RVA 0x50000 lies outside every section");
    EXPECT_EQ(p.offset, name_field);
    put32(bytes, name_field, 0);
    p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 2 has no name RVA");
    EXPECT_EQ(p.offset, name_field);
}

TEST_F(PeReader, NameRvaInAnUninitialisedSectionIsAProblem) {
    Bytes bytes = chain();
    Layout l(bytes);
    int bss = -1;
    for (int i = 0; i < l.section_count; ++i)
        if (get32(bytes, l.section(i) + 16) == 0) bss = i;
    ASSERT_GE(bss, 0);
    std::uint32_t rva = get32(bytes, l.section(bss) + 12);
    std::size_t name_field = l.import_descriptor(bytes, 0) + 12;
    put32(bytes, name_field, rva);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0: name RVA " + hex(rva) +
                             " lies past the raw data of section \".bss\"");
    EXPECT_EQ(p.offset, name_field);
}

TEST_F(PeReader, NameRvaIntoTheMiddleOfANameReadsItsTail) {
    Bytes bytes = chain();
    Layout l(bytes);
    std::size_t name_field = l.import_descriptor(bytes, 2) + 12;
    put32(bytes, name_field, get32(bytes, name_field) + 1);
    EXPECT_EQ(parse_ok(bytes).imports, (Names{"KERNEL32.dll", "msvcrt.dll", ".dll"}));
    // Onto the NUL itself: an empty name.
    put32(bytes, name_field, get32(bytes, name_field) + 4);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 2: name RVA " + hex(get32(bytes, name_field)) +
                             ": name is empty");
}

TEST_F(PeReader, ADllNamedTwiceIsKeptTwiceInOrder) {
    Bytes bytes = chain();
    Layout l(bytes);
    put32(bytes, l.import_descriptor(bytes, 2) + 12,
          get32(bytes, l.import_descriptor(bytes, 0) + 12));
    EXPECT_EQ(parse_ok(bytes).imports, (Names{"KERNEL32.dll", "msvcrt.dll", "KERNEL32.dll"}));
}

TEST_F(PeReader, NameRvaBelowSizeOfHeadersReadsTheHeaders) {
    Bytes bytes = chain();
    Layout l(bytes);
    // The DOS stub lies below SizeOfHeaders; the loader maps the headers at RVA 0.
    const char name[] = "stub.dll";
    std::memcpy(bytes.data() + 0x40, name, sizeof name);
    put32(bytes, l.import_descriptor(bytes, 1) + 12, 0x40);
    EXPECT_EQ(parse_ok(bytes).imports, (Names{"KERNEL32.dll", "stub.dll", "b.dll"}));
}

TEST_F(PeReader, NonPrintableNameIsAProblemAtTheBadByte) {
    Bytes bytes = chain();
    Layout l(bytes);
    std::uint32_t rva = get32(bytes, l.import_descriptor(bytes, 1) + 12);
    std::size_t name = l.rva_to_offset(bytes, rva);
    bytes.at(name + 3) = 0x01;
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 1: name RVA " + hex(rva) +
                             ": name has byte 0x1, not printable ASCII");
    EXPECT_EQ(p.offset, name + 3);
    bytes.at(name + 3) = 0xe9;  // é in Latin-1: not ASCII either
    EXPECT_EQ(parse_error(bytes).offset, name + 3);
}

TEST_F(PeReader, NameWithoutNulAtTheEndOfTheFileIsAProblem) {
    Bytes bytes = chain();
    Bytes payload = copies_of_first_descriptor(bytes, 1);
    payload.resize(40, 0);  // terminator
    for (char c : std::string("tail.d"))
        payload.push_back(static_cast<std::uint8_t>(c));
    std::uint32_t rva = with_payload(bytes, payload, 0xffffffff);
    std::size_t name_field = bytes.size() - payload.size() + 12;
    put32(bytes, name_field, rva + 40);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0: name RVA " + hex(rva + 40) +
                             ": name has no terminating NUL before the end of the file");
    EXPECT_EQ(p.offset, bytes.size() - 6);
    bytes.push_back(0);
    put32(bytes, Layout(bytes).section(Layout(bytes).section_count - 1) + 16,
          static_cast<std::uint32_t>(payload.size() + 1));
    EXPECT_EQ(parse_ok(bytes).imports, Names{"tail.d"});
}

TEST_F(PeReader, NameLongerThanTheLimitIsAProblem) {
    Bytes bytes = chain();
    Bytes payload(40, 0);
    payload.resize(40 + aitk::diag::kPeMaxNameLength + 1, 'a');
    payload.push_back(0);
    std::uint32_t rva = with_payload(bytes, payload, 40);
    std::size_t at = bytes.size() - payload.size();
    put32(bytes, at, rva + 20);  // an empty import lookup table: the zero descriptor after it
    put32(bytes, at + 12, rva + 40);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory entry 0: name RVA " + hex(rva + 40) +
                             ": name is longer than 512 bytes");
    EXPECT_EQ(p.offset, at + 40);
    // Exactly at the limit is a name.
    put32(bytes, at + 12, rva + 41);
    EXPECT_EQ(parse_ok(bytes).imports, Names{std::string(aitk::diag::kPeMaxNameLength, 'a')});
}

TEST_F(PeReader, UnterminatedDescriptorsAtTheEndOfTheFileAreAProblem) {
    Bytes bytes = chain();
    Bytes payload = copies_of_first_descriptor(bytes, 3);
    with_payload(bytes, payload, 0xffffffff);
    auto p = parse_error(bytes);
    EXPECT_EQ(p.message, "import directory is not terminated before the end of the file");
    EXPECT_EQ(p.offset, bytes.size());
    // The directory's size ends the walk before the missing terminator is needed.
    Layout l(bytes);
    put32(bytes, l.dir_entry(1) + 4, 40);
    EXPECT_EQ(parse_ok(bytes).imports, (Names{"KERNEL32.dll", "KERNEL32.dll"}));
}

TEST_F(PeReader, DescriptorCountIsCappedWithinAHugeDirectory) {
    Bytes original = chain();
    const std::size_t cap = aitk::diag::kPeMaxImports;
    Bytes at_cap = original;
    Bytes payload = copies_of_first_descriptor(original, cap);
    payload.resize(payload.size() + 20, 0);
    with_payload(at_cap, payload, 0xffffffff);
    PeImage image = parse_ok(at_cap);
    EXPECT_EQ(image.imports.size(), cap);
    EXPECT_EQ(image.imports.back(), "KERNEL32.dll");

    Bytes over = original;
    payload = copies_of_first_descriptor(original, cap + 1);
    payload.resize(payload.size() + 20, 0);
    with_payload(over, payload, 0xffffffff);
    auto p = parse_error(over);
    EXPECT_EQ(p.message, "import directory has more than 4096 entries");
    EXPECT_EQ(p.offset, over.size() - 40);
}

class PeDelayReader : public PeReader {
  protected:
    void SetUp() override {
        PeReader::SetUp();
        if (IsSkipped()) return;
        if (!have_delay_load_tools()) GTEST_SKIP() << "llvm-dlltool-14 / lld-link-14 missing";
        PeBuild d;
        d.out = dir() / "d.dll";
        d.c_source =
            "int lazy_fn(void);\n__declspec(dllexport) int d_fn(void) { return lazy_fn(); }\n";
        d.delay_imports = {"lazy.dll"};
        bytes_ = load(build_pe(d));
        Layout l(bytes_);
        descriptor_ = l.rva_to_offset(bytes_, get32(bytes_, l.dir_entry(13)));
    }
    Bytes bytes_;
    std::size_t descriptor_ = 0;
};

TEST_F(PeDelayReader, LldWritesRvaDescriptors) {
    EXPECT_EQ(get32(bytes_, descriptor_) & 1, 1u);
    PeImage image = parse_ok(bytes_);
    EXPECT_TRUE(image.imports.empty());
    EXPECT_EQ(image.delay_imports, Names{"lazy.dll"});
}

TEST_F(PeDelayReader, VaDescriptorsSubtractTheImageBase) {
    Layout l(bytes_);
    std::uint32_t rva = get32(bytes_, descriptor_ + 4);
    put32(bytes_, descriptor_, 0);  // old-style: the name is a VA
    auto p = parse_error(bytes_);
    std::uint64_t base = get32(bytes_, l.opt + 24) | std::uint64_t{get32(bytes_, l.opt + 28)} << 32;
    ASSERT_GT(base, rva);
    EXPECT_EQ(p.message, "delay-load import directory entry 0: name VA " + hex(rva) +
                             " lies below the image base " + hex(base));
    EXPECT_EQ(p.offset, descriptor_ + 4);

    put32(bytes_, l.opt + 24, 0x10000000);  // ImageBase (low half)
    put32(bytes_, l.opt + 28, 0);
    put32(bytes_, descriptor_ + 4, 0x10000000 + rva);
    // Old-style tables hold VAs too: the import name table and its hint/name pointers.
    std::uint32_t table = get32(bytes_, descriptor_ + 16);
    EXPECT_NE(parse_error(bytes_).message.find("import name table VA " + hex(table) +
                                               " lies below the image base 0x10000000"),
              std::string::npos);
    put32(bytes_, descriptor_ + 16, 0x10000000 + table);
    for (std::size_t at = l.rva_to_offset(bytes_, table); get32(bytes_, at) != 0; at += 8)
        put32(bytes_, at, 0x10000000 + get32(bytes_, at));
    PeImage old_style = parse_ok(bytes_);
    EXPECT_EQ(old_style.delay_imports, Names{"lazy.dll"});
    ASSERT_EQ(old_style.delay_import_symbols.size(), 1u);
    ASSERT_EQ(old_style.delay_import_symbols[0].size(), 1u);
    EXPECT_EQ(old_style.delay_import_symbols[0][0].name, "lazy_fn");

    put32(bytes_, descriptor_ + 4, 0x10000000 + 0x700000);
    EXPECT_EQ(parse_error(bytes_).message,
              "delay-load import directory entry 0: name VA 0x10700000, RVA 0x700000 lies "
              "outside every section");
}

TEST_F(PeDelayReader, DelayNameCutOffByTheEndOfTheFileIsAProblem) {
    std::uint32_t rva = get32(bytes_, descriptor_ + 4);
    std::size_t name = Layout(bytes_).rva_to_offset(bytes_, rva);
    ASSERT_GT(name, descriptor_ + 64);  // lld writes the name after the table
    Bytes cut(bytes_.begin(), bytes_.begin() + descriptor_ + 40);
    auto p = parse_error(cut);
    EXPECT_EQ(p.message, "delay-load import directory entry 0: name RVA " + hex(rva) +
                             " (section \".rdata\", file offset " + hex(name) +
                             ") lies past the end of the file");
    EXPECT_EQ(p.offset, descriptor_ + 4);
    cut.assign(bytes_.begin(), bytes_.begin() + name + 4);
    p = parse_error(cut);
    EXPECT_EQ(p.message, "delay-load import directory entry 0: name RVA " + hex(rva) +
                             ": name has no terminating NUL before the end of the file");
    // With the whole name the reader gets past it (to a table the cut removed).
    cut.assign(bytes_.begin(), bytes_.begin() + name + 9);
    p = parse_error(cut);
    EXPECT_EQ(p.message.find(": name RVA"), std::string::npos) << p.message;
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
