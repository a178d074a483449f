// What read_pe says a DLL imports from each DLL (names and ordinals, PE32+ and PE32, normal
// and delay-load), what it exports (names, ordinals, forwarders), the FileVersion of its
// version resource and the DLL names in its read-only data: on real mingw-w64 / lld images,
// and on those images with bytes patched so that each table is bad in its own way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "aitk/diag/pe.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/strings.hpp"
#include "image_bytes.hpp"
#include "pe_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using aitk::diag::ImageProblem;
using aitk::diag::PeImage;
using aitk::diag::PeImportedSymbol;
using aitk::diag::read_pe;
using namespace aitk::test;
using Names = std::vector<std::string>;

std::uint32_t get32(const Bytes& b, std::size_t at) {
    return b.at(at) | b.at(at + 1) << 8 | b.at(at + 2) << 16 | std::uint32_t{b.at(at + 3)} << 24;
}
void put32(Bytes& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

// The file offset of an RVA and of data directory `index`, by the PE/COFF specification's fixed
// offsets (independently of the reader under test).
struct Layout {
    std::size_t opt = 0, dirs = 0, sections = 0, section_count = 0;
    explicit Layout(const Bytes& b) {
        std::size_t coff = get32(b, 0x3c) + 4;
        opt = coff + 20;
        section_count = b.at(coff + 2) | b.at(coff + 3) << 8;
        bool plus = (b.at(opt) | b.at(opt + 1) << 8) == 0x20b;
        dirs = opt + (plus ? 112 : 96);
        sections = opt + (b.at(coff + 16) | b.at(coff + 17) << 8);
    }
    std::size_t dir_entry(int index) const { return dirs + 8 * index; }
    std::size_t offset(const Bytes& b, std::uint32_t rva) const {
        for (std::size_t i = 0; i < section_count; ++i) {
            std::size_t s = sections + 40 * i;
            std::uint32_t va = get32(b, s + 12), raw = get32(b, s + 16);
            if (rva >= va && rva < va + raw) return get32(b, s + 20) + (rva - va);
        }
        throw std::runtime_error("rva not in a section: " + hex(rva));
    }
};

Names names_of(const std::vector<PeImportedSymbol>& symbols) {
    Names out;
    for (const auto& s : symbols)
        out.push_back(s.describe());
    return out;
}

// The symbols imports[i] == dll asks for.
Names imported_from(const PeImage& pe, std::string_view dll) {
    for (std::size_t i = 0; i < pe.imports.size(); ++i)
        if (pe.imports[i] == dll) return names_of(pe.import_symbols.at(i));
    ADD_FAILURE() << "no import of " << dll;
    return {};
}

class PeSymbols : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
        dir_ = std::make_unique<aitk::fs::TempDir>(aitk::fs::TempDir::create("pe-symbols"));
    }
    fs::path dir() const { return dir_->path(); }

    // lib.dll exporting f1, f2 and a forwarder; user.dll importing f1 and f2 from it.
    fs::path lib() {
        fs::path def = dir() / "lib.def";
        aitk::fs::write_file_atomic(def, "EXPORTS\n  f1\n  f2\n  heap = NTDLL.RtlAllocateHeap\n");
        return build_win_dll({.out = dir() / "lib.dll",
                              .exports = {"f1", "f2"},
                              .imports = {},
                              .link = {def},
                              .extra_source = {},
                              .file_version = {}});
    }
    fs::path user(const fs::path& lib) {
        return build_win_dll({.out = dir() / "user" / "user.dll",
                              .exports = {"g"},
                              .imports = {"f1", "f2"},
                              .link = {lib},
                              .extra_source = {},
                              .file_version = {}});
    }

  private:
    std::unique_ptr<aitk::fs::TempDir> dir_;
};

TEST_F(PeSymbols, ImportLookupTableListsTheFunctionsOfEachDll) {
    PeImage pe = expect_value(read_pe(load(user(lib()))));
    ASSERT_EQ(pe.import_symbols.size(), pe.imports.size());
    EXPECT_EQ(imported_from(pe, "lib.dll"), (Names{"f1", "f2"}));
    Names from_kernel = imported_from(pe, "KERNEL32.dll");
    EXPECT_FALSE(from_kernel.empty());
    EXPECT_TRUE(pe.delay_import_symbols.empty());
}

TEST_F(PeSymbols, ExportDirectoryHasNamesOrdinalsAndForwarders) {
    PeImage pe = expect_value(read_pe(load(lib())));
    ASSERT_TRUE(pe.exports);
    EXPECT_TRUE(pe.exports->has_name("f1"));
    EXPECT_TRUE(pe.exports->has_name("f2"));
    EXPECT_TRUE(pe.exports->has_name("heap")) << "a forwarder is exported under its name";
    EXPECT_FALSE(pe.exports->has_name("F1")) << "export names are case-sensitive";
    EXPECT_FALSE(pe.exports->has_name("f3"));
    EXPECT_TRUE(std::is_sorted(pe.exports->names.begin(), pe.exports->names.end()));
    EXPECT_EQ(pe.exports->ordinals.size(), pe.exports->names.size());
    EXPECT_TRUE(pe.exports->has_ordinal(pe.exports->ordinals.front()));
    EXPECT_FALSE(pe.exports->has_ordinal(pe.exports->ordinals.back() + 1));

    PeImage no_exports = expect_value(read_pe(load(user(lib()))));
    ASSERT_TRUE(no_exports.exports) << "user.dll exports g and uses_imports";
    EXPECT_EQ(no_exports.exports->names, (Names{"g", "uses_imports"}));
}

TEST_F(PeSymbols, OrdinalImportsAndOrdinalOnlyExports) {
    fs::path def = dir() / "ord.def";
    aitk::fs::write_file_atomic(def, "EXPORTS\n  f1 @5 NONAME\n  f2 @90 NONAME\n");
    fs::path ord = build_win_dll({.out = dir() / "ord.dll",
                                  .exports = {"f1", "f2"},
                                  .imports = {},
                                  .link = {def},
                                  .extra_source = {},
                                  .file_version = {}});
    PeImage exporter = expect_value(read_pe(load(ord)));
    ASSERT_TRUE(exporter.exports);
    EXPECT_TRUE(exporter.exports->has_ordinal(5));
    EXPECT_TRUE(exporter.exports->has_ordinal(90));
    // GNU ld numbers the DLL's other exports from 6 on; below 90 the table has gaps.
    EXPECT_FALSE(exporter.exports->has_ordinal(89)) << "a gap in the EAT is no export";

    fs::path implib = ordinal_import_library(dir() / "libord.a", "ord.dll", {{"f1", 5}, {"f2", 9}});
    PeImage importer = expect_value(read_pe(load(build_win_dll({.out = dir() / "uses_ord.dll",
                                                                .exports = {},
                                                                .imports = {"f1", "f2"},
                                                                .link = {implib},
                                                                .extra_source = {},
                                                                .file_version = {}}))));
    Names got = imported_from(importer, "ord.dll");
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (Names{"ordinal 5", "ordinal 9"}));
}

TEST_F(PeSymbols, ThirtyTwoBitLookupTablesAreReadToo) {
    if (!have_mingw(32)) GTEST_SKIP() << "i686-w64-mingw32-gcc is not installed";
    auto c = build_chain_dll(dir() / "x86" / "c.dll", {}, 32);
    auto b = build_chain_dll(dir() / "x86" / "b.dll", {c}, 32);
    PeImage pe = expect_value(read_pe(load(b)));
    EXPECT_FALSE(pe.pe32_plus);
    EXPECT_EQ(imported_from(pe, "c.dll"), (Names{"c_fn"}));
    PeImage exporter = expect_value(read_pe(load(c)));
    ASSERT_TRUE(exporter.exports);
    EXPECT_TRUE(exporter.exports->has_name("c_fn"));
}

TEST_F(PeSymbols, DelayLoadImportNameTablesAreRead) {
    if (!have_delay_load_tools()) GTEST_SKIP() << "llvm-dlltool-14 / lld-link-14 missing";
    PeBuild d;
    d.out = dir() / "d.dll";
    d.c_source = "int lazy_fn(void);\n__declspec(dllexport) int d_fn(void) { return lazy_fn(); }\n";
    d.delay_imports = {"lazy.dll"};
    PeImage pe = expect_value(read_pe(load(build_pe(d))));
    ASSERT_EQ(pe.delay_imports, (Names{"lazy.dll"}));
    ASSERT_EQ(pe.delay_import_symbols.size(), 1u);
    EXPECT_EQ(names_of(pe.delay_import_symbols[0]), (Names{"lazy_fn"}));
}

TEST_F(PeSymbols, VersionResourceGivesTheFileVersion) {
    fs::path old = build_win_dll({.out = dir() / "msvcp140.dll",
                                  .exports = {"f1"},
                                  .imports = {},
                                  .link = {},
                                  .extra_source = {},
                                  .file_version = "14,29,30133,0"});
    PeImage pe = expect_value(read_pe(load(old)));
    ASSERT_TRUE(pe.version) << (pe.version_problem ? pe.version_problem->describe() : "");
    EXPECT_EQ(pe.version->text(), "14.29.30133.0");
    EXPECT_LT(*pe.version, (aitk::diag::PeVersion{{14, 40, 0, 0}}));
    EXPECT_GT(*pe.version, (aitk::diag::PeVersion{{14, 28, 65535, 0}}));
    EXPECT_FALSE(pe.version_problem);

    PeImage none = expect_value(read_pe(load(lib())));
    EXPECT_FALSE(none.version);
    EXPECT_FALSE(none.version_problem) << "no resources is no problem";
}

TEST_F(PeSymbols, BadVersionResourceLeavesTheImageReadable) {
    fs::path old = build_win_dll({.out = dir() / "v.dll",
                                  .exports = {"f1"},
                                  .imports = {},
                                  .link = {},
                                  .extra_source = {},
                                  .file_version = "14,29,1,0"});
    Bytes bytes = load(old);
    // The VS_FIXEDFILEINFO signature 0xfeef04bd, wherever the linker put it.
    const Bytes signature = {0xbd, 0x04, 0xef, 0xfe};
    auto it = std::search(bytes.begin(), bytes.end(), signature.begin(), signature.end());
    ASSERT_NE(it, bytes.end());
    std::size_t at = static_cast<std::size_t>(it - bytes.begin());
    put32(bytes, at, 0x12345678);
    PeImage pe = expect_value(read_pe(bytes));
    EXPECT_FALSE(pe.version);
    ASSERT_TRUE(pe.version_problem);
    EXPECT_EQ(pe.version_problem->message,
              "VS_FIXEDFILEINFO signature is 0x12345678, not 0xfeef04bd");
    EXPECT_EQ(pe.version_problem->offset, at);

    // A resource directory pointing outside every section.
    Bytes far = load(old);
    Layout l(far);
    put32(far, l.dir_entry(2), 0x7fff0000);
    PeImage outside = expect_value(read_pe(far));
    ASSERT_TRUE(outside.version_problem);
    EXPECT_EQ(outside.version_problem->message,
              "resource directory at RVA 0x7fff0000 lies outside every section");
}

TEST_F(PeSymbols, DllNamesInReadOnlyDataAreFound) {
    std::string source =
        "#include <windows.h>\n"
        "__declspec(dllexport) void* load(int i) {\n"
        "  static const char* fmt = \"%s.dll\";\n"
        "  static const char* message = \"could not load helper.dll\";\n"
        "  static const char* path = \"C:\\\\Program Files\\\\NVIDIA\\\\nvToolsExt64_1.dll\";\n"
        "  static const char* upper = \"CUDNN_OPS64_9.DLL\";\n"
        "  static const char* tiny = \"a.dll\";\n"
        "  if (i == 1) return (void*)fmt;\n"
        "  if (i == 2) return (void*)message;\n"
        "  if (i == 3) return LoadLibraryA(path);\n"
        "  if (i == 4) return LoadLibraryA(upper);\n"
        "  if (i == 5) return LoadLibraryA(tiny);\n"
        "  if (i == 6) return LoadLibraryW(L\"nvrtc-builtins64_124.dll\");\n"
        "  return LoadLibraryA(\"cudnn_ops64_9.dll\");\n"
        "}\n";
    fs::path dll = build_win_dll({.out = dir() / "cudnn64_9.dll",
                                  .exports = {"f1"},
                                  .imports = {},
                                  .link = {},
                                  .extra_source = source,
                                  .file_version = "9,1,0,0"});
    PeImage pe = expect_value(read_pe(load(dll)));
    Names got = pe.dll_name_strings;
    std::sort(got.begin(), got.end());
    // One spelling of cuDNN's name (the first in the file), the path's last part, the UTF-16
    // name; not "%s.dll", not a name inside a sentence, not the 1-letter stem, not the import
    // tables' names (KERNEL32.dll sits in the writable .idata), not OriginalFilename in the
    // resources.
    ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
    EXPECT_TRUE(aitk::util::iequals(got[0], "CUDNN_OPS64_9.DLL")) << got[0];
    EXPECT_EQ(got[1], "nvToolsExt64_1.dll");
    EXPECT_EQ(got[2], "nvrtc-builtins64_124.dll");
}

TEST_F(PeSymbols, BadLookupTablesAndExportDirectoriesAreProblems) {
    Bytes good = load(user(lib()));
    Layout l(good);
    PeImage pe = expect_value(read_pe(good));

    // Import descriptor 0's lookup table pointing outside every section.
    std::uint32_t import_rva = get32(good, l.dir_entry(1));
    std::size_t descriptor = l.offset(good, import_rva);
    Bytes bad = good;
    put32(bad, descriptor, 0x7fff0000);
    ImageProblem p = expect_problem(read_pe(bad));
    EXPECT_EQ(p.message,
              "import directory entry 0: import lookup table at RVA 0x7fff0000 lies outside "
              "every section");
    EXPECT_EQ(p.offset, descriptor);

    // Its first entry's hint/name RVA outside every section.
    std::uint32_t table = get32(good, descriptor);
    std::size_t entry = l.offset(good, table);
    Bytes bad_entry = good;
    put32(bad_entry, entry, 0x7ff00000);
    put32(bad_entry, entry + 4, 0);
    p = expect_problem(read_pe(bad_entry));
    EXPECT_EQ(p.message, "import directory entry 0: import lookup table at RVA " + hex(table) +
                             " entry 0: hint/name RVA 0x7ff00000 lies outside every section");
    EXPECT_EQ(p.offset, entry);

    // PE32+ bits 31-62 set: neither an ordinal nor an RVA.
    Bytes odd = good;
    put32(odd, entry + 4, 0x00000001);
    p = expect_problem(read_pe(odd));
    EXPECT_NE(p.message.find("is neither an ordinal nor a 31-bit RVA"), std::string::npos)
        << p.message;

    // An export directory claiming more names than any DLL has.
    Bytes exporter = load(dir() / "lib.dll");
    Layout le(exporter);
    std::size_t exports = le.offset(exporter, get32(exporter, le.dir_entry(0)));
    Bytes many = exporter;
    put32(many, exports + 24, 0x00100000);
    p = expect_problem(read_pe(many));
    EXPECT_EQ(p.message, "export directory: NumberOfNames 1048576 is more than 65536");
    EXPECT_EQ(p.offset, exports + 24);

    // Names that run past their section.
    Bytes names_past = exporter;
    put32(names_past, exports + 24, 60000);
    p = expect_problem(read_pe(names_past));
    EXPECT_NE(p.message.find("export directory: AddressOfNames"), std::string::npos) << p.message;
    EXPECT_NE(p.message.find("60000 entries of 4 bytes run past the end of"), std::string::npos)
        << p.message;
    EXPECT_EQ(p.offset, exports + 32);
}

// `bytes` with its last section moved to the end of the file and holding `payload`, and data
// directory `index` pointing at it (`size` bytes). Returns the payload's RVA and file offset.
std::pair<std::uint32_t, std::size_t> with_payload(Bytes& bytes, const Bytes& payload, int index,
                                                   std::uint32_t size) {
    Layout l(bytes);
    std::size_t last = l.sections + 40 * (l.section_count - 1);
    std::size_t at = (bytes.size() + 0x1ff) & ~std::size_t{0x1ff};
    bytes.resize(at, 0);
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    put32(bytes, last + 8, static_cast<std::uint32_t>(payload.size()));
    put32(bytes, last + 16, static_cast<std::uint32_t>(payload.size()));
    put32(bytes, last + 20, static_cast<std::uint32_t>(at));
    std::uint32_t rva = get32(bytes, last + 12);
    put32(bytes, l.dir_entry(index), rva);
    put32(bytes, l.dir_entry(index) + 4, size);
    return {rva, at};
}

TEST_F(PeSymbols, SymbolCountsAndNameBytesAreCappedPerImage) {
    // 17 descriptors sharing one lookup table of 65536 ordinals: 17 × 65536 > 2^20.
    Bytes bytes = load(lib());
    const std::uint32_t descriptors = 17, entries = 65536;
    std::uint32_t name_at = (descriptors + 1) * 20, table_at = name_at + 8;
    Bytes payload(table_at + (entries + 1) * 8, 0);
    Bytes imports = bytes;
    auto [rva, offset] = with_payload(imports, payload, 1, name_at);
    for (std::uint32_t i = 0; i < descriptors; ++i) {
        put32(imports, offset + 20 * i, rva + table_at);
        put32(imports, offset + 20 * i + 12, rva + name_at);
    }
    std::memcpy(&imports[offset + name_at], "x.dll", 5);
    for (std::uint32_t i = 0; i < entries; ++i) {
        put32(imports, offset + table_at + 8 * i, i + 1);
        put32(imports, offset + table_at + 8 * i + 4, 0x80000000u);
    }
    ImageProblem p = expect_problem(read_pe(imports));
    EXPECT_EQ(p.message,
              "the import lookup tables and the export directory hold more than 1048576 "
              "functions in all");
    EXPECT_EQ(p.offset, offset + table_at);

    // 65536 exported names, all one 4 KiB name: 256 MiB of names from 260 KiB of file.
    const std::uint32_t names = 65536;
    std::uint32_t table = 40, name = table + 4 * names;
    Bytes export_payload(name + 4097, 0);
    Bytes exports = bytes;
    auto [erva, eoffset] = with_payload(exports, export_payload, 0, 40);
    put32(exports, eoffset + 24, names);
    put32(exports, eoffset + 32, erva + table);
    for (std::uint32_t i = 0; i < names; ++i)
        put32(exports, eoffset + table + 4 * i, erva + name);
    std::memset(&exports[eoffset + name], 'a', 4096);
    p = expect_problem(read_pe(exports));
    EXPECT_EQ(p.message,
              "the names of the imported and exported functions take more than 67108864 bytes "
              "in all");
    // The first 16384 names (of 4096 bytes) use up the budget, less what the imports took.
    EXPECT_GT(p.offset, eoffset + table + 4 * 16000);
    EXPECT_LE(p.offset, eoffset + table + 4 * 16384);
}

TEST_F(PeSymbols, EveryTruncationGivesTheImageOrAProblemInsideTheFile) {
    Bytes bytes = load(build_win_dll({.out = dir() / "t.dll",
                                      .exports = {"f1"},
                                      .imports = {"f2"},
                                      .link = {lib()},
                                      .extra_source = {},
                                      .file_version = "1,2,3,4"}));
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
        auto r = read_pe(prefix(bytes, n));
        if (!r) {
            EXPECT_LE(r.error().offset, n) << "cut at " << n << ": " << r.error().describe();
        }
    }
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
