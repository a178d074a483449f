#include "aitk/diag/pe.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "byte_reader.hpp"
#include "pe_map.hpp"
#include "pe_strings.hpp"
#include "pe_symbols.hpp"
#include "pe_version.hpp"
#include "problem_text.hpp"

namespace aitk::diag {

namespace {

using detail::ByteReader;
using detail::hex;
using detail::PeDirectory;
using detail::PeMap;
using detail::PeMapped;
using detail::PeSection;
using detail::problem;
using util::Unexpected;

// Field offsets from the PE/COFF specification.
constexpr std::uint64_t kDosSize = 0x40;
constexpr std::uint64_t kLfanewOffset = 0x3c;
constexpr std::uint64_t kCoffSize = 20;
constexpr std::uint64_t kSectionHeaderSize = 40;
constexpr std::uint16_t kMagicPe32 = 0x10b;
constexpr std::uint16_t kMagicPe32Plus = 0x20b;
constexpr std::uint16_t kFileDll = 0x2000;
constexpr std::uint32_t kMaxDirectories = 16;
constexpr std::uint32_t kExportDirectory = 0;
constexpr std::uint32_t kImportDirectory = 1;
constexpr std::uint32_t kResourceDirectory = 2;
constexpr std::uint32_t kDelayImportDirectory = 13;
constexpr std::uint64_t kImportDescriptorSize = 20;
constexpr std::uint64_t kDelayDescriptorSize = 32;
constexpr std::uint32_t kDelayAttributeRva = 1;  // dlattrRva: names are RVAs, not VAs

class PeParser {
  public:
    explicit PeParser(std::span<const std::uint8_t> bytes) : map_(bytes), in_(map_.in()) {}

    util::Expected<PeImage, ImageProblem> parse() {
        if (auto p = read_headers()) return Unexpected(std::move(*p));
        if (auto p = read_sections()) return Unexpected(std::move(*p));
        if (auto p = read_imports()) return Unexpected(std::move(*p));
        if (auto p = read_delay_imports()) return Unexpected(std::move(*p));
        if (auto p = read_exports()) return Unexpected(std::move(*p));
        read_version();
        read_dll_name_strings();
        return std::move(image_);
    }

  private:
    std::optional<ImageProblem> truncated(std::string_view what, std::uint64_t offset) const {
        return problem("file ends inside the " + std::string(what) + " (file is " +
                           std::to_string(in_.size()) + " bytes)",
                       offset);
    }

    std::optional<ImageProblem> read_headers() {
        if (in_.size() < 2 || *in_.u8(0) != 'M' || *in_.u8(1) != 'Z')
            return problem("not a PE file: no \"MZ\" at the start", 0);
        if (!in_.contains(0, kDosSize)) return truncated("DOS header", 0);
        std::uint64_t pe = *in_.u32(kLfanewOffset);
        if (!in_.contains(pe, 4))
            return problem("PE header offset " + hex(pe) + " lies past the end of the file (" +
                               std::to_string(in_.size()) + " bytes)",
                           kLfanewOffset);
        if (*in_.u32(pe) != 0x00004550u)
            return problem("no \"PE\\0\\0\" signature at the PE header offset " + hex(pe), pe);

        std::uint64_t coff = pe + 4;
        if (!in_.contains(coff, kCoffSize)) return truncated("COFF header", coff);
        image_.machine = *in_.u16(coff);
        section_count_ = *in_.u16(coff + 2);
        std::uint16_t optional_size = *in_.u16(coff + 16);
        image_.is_dll = (*in_.u16(coff + 18) & kFileDll) != 0;
        if (section_count_ > kPeMaxSections)
            return problem(std::to_string(section_count_) + " sections: more than the " +
                               std::to_string(kPeMaxSections) + " a PE image may have",
                           coff + 2);

        std::uint64_t opt = coff + kCoffSize;
        section_table_ = opt + optional_size;
        section_table_offset_field_ = coff + 16;
        if (optional_size < 2)
            return problem("no optional header (an object file, not an image)", coff + 16);
        if (!in_.contains(opt, 2)) return truncated("optional header", opt);
        std::uint16_t magic = *in_.u16(opt);
        if (magic != kMagicPe32 && magic != kMagicPe32Plus)
            return problem("optional header magic " + hex(magic) +
                               " is neither PE32 (0x10b) nor PE32+ (0x20b)",
                           opt);
        image_.pe32_plus = magic == kMagicPe32Plus;
        std::uint64_t directories = image_.pe32_plus ? 112 : 96;
        if (optional_size < directories)
            return problem("optional header of " + std::to_string(optional_size) +
                               " bytes is shorter than the " + std::to_string(directories) + " a " +
                               (image_.pe32_plus ? "PE32+" : "PE32") + " image needs",
                           coff + 16);
        if (!in_.contains(opt, directories)) return truncated("optional header", opt);
        image_base_ = image_.pe32_plus ? *in_.u64(opt + 24) : *in_.u32(opt + 28);
        map_.set_size_of_headers(*in_.u32(opt + 60));
        image_.subsystem = *in_.u16(opt + 68);
        directory_count_ = std::min(*in_.u32(opt + directories - 4), kMaxDirectories);
        std::uint64_t needed = directories + 8ull * directory_count_;
        if (optional_size < needed)
            return problem("optional header of " + std::to_string(optional_size) +
                               " bytes is too small for its " + std::to_string(directory_count_) +
                               " data directories",
                           opt + directories - 4);
        directories_ = opt + directories;
        if (!in_.contains(directories_, 8ull * directory_count_))
            return truncated("data directories", directories_);
        return std::nullopt;
    }

    std::optional<ImageProblem> read_sections() {
        if (!in_.contains(section_table_, kSectionHeaderSize * section_count_))
            return section_table_ > in_.size()
                       ? problem("section table at " + hex(section_table_) +
                                     " (after the optional header) lies past the end of the file",
                                 section_table_offset_field_)
                       : truncated("section table", section_table_);
        for (std::uint64_t i = 0; i < section_count_; ++i) {
            std::uint64_t at = section_table_ + i * kSectionHeaderSize;
            PeSection s;
            auto name = in_.slice(at, 8);
            for (auto c : name) {
                if (c == 0) break;
                s.name += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
            }
            s.virtual_size = *in_.u32(at + 8);
            s.virtual_address = *in_.u32(at + 12);
            s.raw_size = *in_.u32(at + 16);
            s.raw_pointer = *in_.u32(at + 20);
            s.characteristics = *in_.u32(at + 36);
            map_.add_section(std::move(s));
        }
        return std::nullopt;
    }

    PeDirectory directory(std::uint32_t index) const {
        if (index >= directory_count_) return {};
        std::uint64_t at = directories_ + 8ull * index;
        return {*in_.u32(at), *in_.u32(at + 4), at};
    }

    util::Expected<PeMapped, ImageProblem> map(std::uint64_t rva, const std::string& what,
                                               std::uint64_t read_at) const {
        return map_.map(rva, what, read_at);
    }

    util::Expected<std::string, ImageProblem> name_at(std::uint64_t rva, const std::string& what,
                                                      std::uint64_t read_at) const {
        return map_.name_at(rva, what, read_at);
    }

    // Walks a table of `entry_size` descriptors from the directory's RVA until an all-zero one
    // or the directory's size; `take` reads one non-zero descriptor. A table still going at the
    // end of the file is unterminated, however the end is reached.
    template <class Take>
    std::optional<ImageProblem> walk(const PeDirectory& dir, std::uint64_t entry_size,
                                     std::string_view label, Take take) {
        if (dir.rva == 0 || dir.size == 0) return std::nullopt;
        auto unterminated = [&] {
            return problem(std::string(label) + " is not terminated before the end of the file",
                           in_.size());
        };
        std::uint64_t previous_end = 0;
        for (std::uint64_t i = 0; (i + 1) * entry_size <= dir.size; ++i) {
            std::string what = std::string(label) + " entry " + std::to_string(i);
            std::uint64_t rva = std::uint64_t{dir.rva} + i * entry_size;
            auto mapped = map(rva, what + " at RVA", dir.entry_offset);
            if (!mapped) {
                if (i > 0 && previous_end == in_.size()) return unterminated();
                return std::move(mapped).error();
            }
            if (mapped->available < entry_size) {
                if (mapped->offset + mapped->available == in_.size()) return unterminated();
                return problem(what + " at RVA " + hex(rva) + " runs past the end of its section",
                               mapped->offset);
            }
            previous_end = mapped->offset + entry_size;
            auto bytes = in_.slice(mapped->offset, entry_size);
            if (std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; }))
                return std::nullopt;
            if (i >= kPeMaxImports)
                return problem(std::string(label) + " has more than " +
                                   std::to_string(kPeMaxImports) + " entries",
                               mapped->offset);
            if (auto p = take(what, mapped->offset)) return p;
        }
        return std::nullopt;
    }

    std::optional<ImageProblem> read_imports() {
        return walk(
            directory(kImportDirectory), kImportDescriptorSize, "import directory",
            [this](const std::string& what, std::uint64_t at) -> std::optional<ImageProblem> {
                std::uint32_t name_rva = *in_.u32(at + 12);
                if (name_rva == 0) return problem(what + " has no name RVA", at + 12);
                auto name = name_at(name_rva, what + ": name RVA", at + 12);
                if (!name) return std::move(name).error();
                // The import lookup table; an image linked without one (old Borland linkers)
                // has only the IAT, which holds the same entries until the image is bound.
                std::uint64_t table_at = *in_.u32(at) != 0 ? at : at + 16;
                std::uint32_t table = *in_.u32(table_at);
                if (table == 0) return problem(what + " has no import lookup table", at + 16);
                auto symbols = detail::read_lookup_table(map_, table, image_.pe32_plus, 0,
                                                         what + ": import lookup table at RVA",
                                                         table_at, budget_);
                if (!symbols) return std::move(symbols).error();
                image_.imports.push_back(std::move(*name));
                image_.import_symbols.push_back(std::move(*symbols));
                return std::nullopt;
            });
    }

    std::optional<ImageProblem> read_delay_imports() {
        return walk(
            directory(kDelayImportDirectory), kDelayDescriptorSize, "delay-load import directory",
            [this](const std::string& what, std::uint64_t at) -> std::optional<ImageProblem> {
                std::uint32_t attributes = *in_.u32(at);
                std::uint64_t name = *in_.u32(at + 4);
                if (name == 0) return problem(what + " has no name", at + 4);
                std::string label = what + ": name RVA";
                bool vas = (attributes & kDelayAttributeRva) == 0;
                if (vas) {
                    // Old-style (Visual C++ 6) descriptors hold VAs.
                    if (name < image_base_)
                        return problem(what + ": name VA " + hex(name) +
                                           " lies below the image base " + hex(image_base_),
                                       at + 4);
                    name -= image_base_;
                    label = what + ": name VA " + hex(name + image_base_) + ", RVA";
                }
                auto text = name_at(name, label, at + 4);
                if (!text) return std::move(text).error();
                std::uint64_t table = *in_.u32(at + 16);
                if (table == 0) return problem(what + " has no import name table", at + 16);
                std::string table_label = what + ": import name table at RVA";
                if (vas) {
                    if (table < image_base_)
                        return problem(what + ": import name table VA " + hex(table) +
                                           " lies below the image base " + hex(image_base_),
                                       at + 16);
                    table -= image_base_;
                    table_label =
                        what + ": import name table VA " + hex(table + image_base_) + ", RVA";
                }
                auto symbols =
                    detail::read_lookup_table(map_, table, image_.pe32_plus, vas ? image_base_ : 0,
                                              table_label, at + 16, budget_);
                if (!symbols) return std::move(symbols).error();
                image_.delay_imports.push_back(std::move(*text));
                image_.delay_import_symbols.push_back(std::move(*symbols));
                return std::nullopt;
            });
    }

    std::optional<ImageProblem> read_exports() {
        PeDirectory dir = directory(kExportDirectory);
        if (dir.rva == 0 || dir.size == 0) return std::nullopt;
        auto exports = detail::read_exports(map_, dir, budget_);
        if (!exports) return std::move(exports).error();
        image_.exports = std::move(*exports);
        return std::nullopt;
    }

    void read_version() {
        PeDirectory dir = directory(kResourceDirectory);
        if (dir.rva == 0 || dir.size == 0) return;
        auto version = detail::read_version(map_, dir);
        if (version)
            image_.version = *version;
        else
            image_.version_problem = std::move(version).error();
    }

    void read_dll_name_strings() {
        // The resources name the file itself (OriginalFilename), the export directory names
        // the DLL as it was linked: neither is a run-time load.
        std::vector<detail::RvaRange> skip;
        for (std::uint32_t index : {kExportDirectory, kResourceDirectory}) {
            PeDirectory dir = directory(index);
            if (dir.rva != 0 && dir.size != 0)
                skip.push_back({dir.rva, std::uint64_t{dir.rva} + dir.size});
        }
        image_.dll_name_strings = detail::dll_name_strings(map_, skip);
    }

    PeMap map_;
    const ByteReader& in_;
    detail::PeSymbolBudget budget_;
    PeImage image_;
    std::uint64_t image_base_ = 0;
    std::uint64_t section_table_ = 0;
    std::uint64_t section_table_offset_field_ = 0;  // SizeOfOptionalHeader, which places it
    std::uint64_t directories_ = 0;
    std::uint32_t directory_count_ = 0;
    std::uint16_t section_count_ = 0;
};

}  // namespace

bool looks_like_pe(std::span<const std::uint8_t> bytes) noexcept {
    return bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z';
}

util::Expected<PeImage, ImageProblem> read_pe(std::span<const std::uint8_t> bytes) {
    return PeParser(bytes).parse();
}

std::string pe_machine_name(std::uint16_t machine) {
    switch (machine) {
        case kPeMachineAmd64:
            return "x86_64";
        case kPeMachineI386:
            return "x86";
        case kPeMachineArm64:
            return "arm64";
        case kPeMachineArmNt:
            return "arm";
        default: {
            char text[24];
            std::snprintf(text, sizeof text, "machine 0x%04x", static_cast<unsigned>(machine));
            return text;
        }
    }
}

}  // namespace aitk::diag
