#include "aitk/diag/elf.hpp"

#include <cstdio>
#include <optional>

#include "byte_reader.hpp"
#include "problem_text.hpp"

namespace aitk::diag {

namespace {

using detail::ByteReader;
using detail::hex;
using detail::problem;
using util::Unexpected;

// Field offsets and values from the System V ABI (ELF) specification.
constexpr std::uint8_t kClass32 = 1;
constexpr std::uint8_t kClass64 = 2;
constexpr std::uint8_t kDataLsb = 1;
constexpr std::uint8_t kDataMsb = 2;
constexpr std::uint64_t kIdentSize = 16;
constexpr std::uint16_t kPnXnum = 0xffff;
constexpr std::uint32_t kPtLoad = 1;
constexpr std::uint32_t kPtDynamic = 2;
constexpr std::uint32_t kShtDynamic = 6;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint64_t kDtNull = 0;
constexpr std::uint64_t kDtNeeded = 1;
constexpr std::uint64_t kDtStrtab = 5;
constexpr std::uint64_t kDtStrsz = 10;
constexpr std::uint64_t kDtSoname = 14;
constexpr std::uint64_t kDtRpath = 15;
constexpr std::uint64_t kDtRunpath = 29;

// Where the fields of the header, a program header and a section header lie for one class.
struct Layout {
    std::uint64_t header_size, phoff, shoff, phentsize, phnum, shentsize, shnum;
    std::uint64_t ph_size, ph_offset, ph_vaddr, ph_filesz;
    std::uint64_t sh_size, sh_type, sh_offset, sh_bytes, sh_link, sh_info;
    std::uint64_t dyn_size;
};
constexpr Layout kLayout32{52, 28, 32, 42, 44, 46, 48, 32, 4, 8, 16, 40, 4, 16, 20, 24, 28, 8};
constexpr Layout kLayout64{64, 32, 40, 54, 56, 58, 60, 56, 8, 16, 32, 64, 4, 24, 32, 40, 44, 16};

struct Segment {
    std::uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// A byte range of the file: [offset, offset + size).
struct Range {
    std::uint64_t offset = 0, size = 0;
};

struct DynEntry {
    std::uint64_t tag = 0, value = 0;
    std::uint64_t at = 0;  // file offset of the entry
};

class ElfParser {
  public:
    explicit ElfParser(std::span<const std::uint8_t> bytes) : in_(bytes) {}

    util::Expected<ElfImage, ImageProblem> parse() {
        if (auto p = read_header()) return Unexpected(std::move(*p));
        if (auto p = read_program_headers()) return Unexpected(std::move(*p));
        if (auto p = read_dynamic()) return Unexpected(std::move(*p));
        return std::move(image_);
    }

  private:
    // Addresses and sizes are 32 or 64 bits wide by class.
    std::optional<std::uint64_t> word(std::uint64_t at) const {
        if (image_.is_64bit) return in_.u64(at);
        auto v = in_.u32(at);
        if (!v) return std::nullopt;
        return *v;
    }

    std::optional<ImageProblem> read_header() {
        if (!looks_like_elf(in_.slice(0, in_.size())))
            return problem("not an ELF file (no \\x7fELF magic)", 0);
        if (in_.size() < kIdentSize)
            return problem("file ends inside the ELF identification (file is " +
                               std::to_string(in_.size()) + " bytes)",
                           0);
        std::uint8_t cls = *in_.u8(4);
        std::uint8_t data = *in_.u8(5);
        if (cls != kClass32 && cls != kClass64)
            return problem(
                "EI_CLASS " + std::to_string(cls) + " is neither 1 (32-bit) nor 2 (64-bit)", 4);
        if (data != kDataLsb && data != kDataMsb)
            return problem("EI_DATA " + std::to_string(data) +
                               " is neither 1 (little-endian) nor 2 (big-endian)",
                           5);
        image_.is_64bit = cls == kClass64;
        image_.little_endian = data == kDataLsb;
        in_.set_little_endian(image_.little_endian);
        layout_ = image_.is_64bit ? &kLayout64 : &kLayout32;
        if (in_.size() < layout_->header_size)
            return problem("file ends inside the ELF header (file is " +
                               std::to_string(in_.size()) + " bytes, the header " +
                               std::to_string(layout_->header_size) + ")",
                           kIdentSize);
        image_.type = *in_.u16(16);
        image_.machine = *in_.u16(18);
        phoff_ = *word(layout_->phoff);
        shoff_ = *word(layout_->shoff);
        phentsize_ = *in_.u16(layout_->phentsize);
        phnum_ = *in_.u16(layout_->phnum);
        shentsize_ = *in_.u16(layout_->shentsize);
        shnum_ = *in_.u16(layout_->shnum);
        return std::nullopt;
    }

    // Section 0 holds the real counts when they do not fit the header's 16-bit fields.
    std::optional<std::uint64_t> section_zero_field(std::uint64_t field, bool wide) const {
        if (shoff_ == 0 || shentsize_ < layout_->sh_size) return std::nullopt;
        if (!in_.contains(shoff_, layout_->sh_size)) return std::nullopt;
        if (wide) return word(shoff_ + field);
        auto v = in_.u32(shoff_ + field);
        if (!v) return std::nullopt;
        return *v;
    }

    std::optional<ImageProblem> read_program_headers() {
        std::uint64_t count = phnum_;
        if (phnum_ == kPnXnum) {
            auto real = section_zero_field(layout_->sh_info, false);
            if (!real)
                return problem("e_phnum is PN_XNUM but section header 0 (at " + hex(shoff_) +
                                   ") cannot be read for the real count",
                               layout_->phnum);
            count = *real;
        }
        if (count == 0) return std::nullopt;
        if (count > kElfMaxProgramHeaders)
            return problem("e_phnum " + std::to_string(count) + " is more than " +
                               std::to_string(kElfMaxProgramHeaders) + " program headers",
                           layout_->phnum);
        if (phentsize_ != layout_->ph_size)
            return problem("e_phentsize " + std::to_string(phentsize_) + " is not " +
                               std::to_string(layout_->ph_size) + ", the size of a program header",
                           layout_->phentsize);
        std::uint64_t table = count * layout_->ph_size;
        if (!in_.contains(phoff_, table))
            return problem("program header table (" + std::to_string(count) + " entries at " +
                               hex(phoff_) + ") runs past the end of the file (" +
                               std::to_string(in_.size()) + " bytes)",
                           layout_->phoff);
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint64_t at = phoff_ + i * layout_->ph_size;
            std::uint32_t type = *in_.u32(at);
            if (type != kPtLoad && type != kPtDynamic) continue;
            Segment s{*word(at + layout_->ph_offset), *word(at + layout_->ph_vaddr),
                      *word(at + layout_->ph_filesz)};
            if (type == kPtLoad) {
                loads_.push_back(s);
            } else if (!pt_dynamic_) {
                pt_dynamic_ = s;
                pt_dynamic_at_ = at;
            }
        }
        return std::nullopt;
    }

    // The section headers, read only when the program headers do not give the dynamic section
    // or its strings (an object file, a stripped-down or damaged image).
    struct Sections {
        std::optional<Range> dynamic;
        std::optional<Range> strings;  // the dynamic section's sh_link string table
        std::uint64_t dynamic_at = 0;  // where the SHT_DYNAMIC header was read
    };

    util::Expected<Sections, ImageProblem> read_sections() const {
        Sections out;
        if (shoff_ == 0) return out;
        std::uint64_t count = shnum_;
        if (count == 0) {
            auto real = section_zero_field(layout_->sh_bytes, true);
            if (!real) return out;
            count = *real;
        }
        if (count == 0) return out;
        if (count > kElfMaxSectionHeaders)
            return Unexpected(problem("section header count " + std::to_string(count) +
                                          " is more than " + std::to_string(kElfMaxSectionHeaders),
                                      layout_->shnum));
        if (shentsize_ != layout_->sh_size)
            return Unexpected(problem("e_shentsize " + std::to_string(shentsize_) + " is not " +
                                          std::to_string(layout_->sh_size) +
                                          ", the size of a section header",
                                      layout_->shentsize));
        if (!in_.contains(shoff_, count * layout_->sh_size))
            return Unexpected(problem(
                "section header table (" + std::to_string(count) + " entries at " + hex(shoff_) +
                    ") runs past the end of the file (" + std::to_string(in_.size()) + " bytes)",
                layout_->shoff));
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint64_t at = shoff_ + i * layout_->sh_size;
            if (*in_.u32(at + layout_->sh_type) != kShtDynamic) continue;
            out.dynamic_at = at;
            out.dynamic = Range{*word(at + layout_->sh_offset), *word(at + layout_->sh_bytes)};
            std::uint64_t link = *in_.u32(at + layout_->sh_link);
            if (link != 0 && link < count) {
                std::uint64_t s = shoff_ + link * layout_->sh_size;
                if (*in_.u32(s + layout_->sh_type) != kShtNobits)
                    out.strings =
                        Range{*word(s + layout_->sh_offset), *word(s + layout_->sh_bytes)};
            }
            break;
        }
        return out;
    }

    util::Expected<std::vector<DynEntry>, ImageProblem> read_entries(Range range,
                                                                     const std::string& what,
                                                                     std::uint64_t read_at) const {
        if (!in_.contains(range.offset, range.size))
            return Unexpected(problem(what + " (offset " + hex(range.offset) + ", size " +
                                          hex(range.size) + ") runs past the end of the file (" +
                                          std::to_string(in_.size()) + " bytes)",
                                      read_at));
        std::vector<DynEntry> entries;
        std::uint64_t step = layout_->dyn_size;
        for (std::uint64_t i = 0; (i + 1) * step <= range.size; ++i) {
            if (i >= kElfMaxDynamicEntries)
                return Unexpected(problem(
                    what + " has more than " + std::to_string(kElfMaxDynamicEntries) + " entries",
                    read_at));
            std::uint64_t at = range.offset + i * step;
            DynEntry e{*word(at), *word(at + step / 2), at};
            if (e.tag == kDtNull) return entries;
            entries.push_back(e);
        }
        return Unexpected(problem(
            what + " (" + std::to_string(range.size) + " bytes) has no DT_NULL entry to end it",
            range.offset + range.size));
    }

    // The file bytes of a virtual address, through the PT_LOAD segment that holds it.
    std::optional<Range> map(std::uint64_t vaddr) const {
        for (const auto& s : loads_) {
            if (vaddr < s.vaddr || vaddr - s.vaddr >= s.filesz) continue;
            std::uint64_t delta = vaddr - s.vaddr;
            return Range{s.offset + delta, s.filesz - delta};
        }
        return std::nullopt;
    }

    std::optional<ImageProblem> read_dynamic() {
        std::optional<util::Expected<Sections, ImageProblem>> sections;
        auto get_sections = [&]() -> const util::Expected<Sections, ImageProblem>& {
            if (!sections) sections = read_sections();
            return *sections;
        };

        std::vector<DynEntry> entries;
        bool from_sections = false;
        if (pt_dynamic_) {
            auto read = read_entries(Range{pt_dynamic_->offset, pt_dynamic_->filesz},
                                     "PT_DYNAMIC segment", pt_dynamic_at_);
            if (!read) return std::move(read).error();
            entries = std::move(*read);
        } else {
            const auto& s = get_sections();
            if (!s) return s.error();
            if (!s->dynamic) return std::nullopt;  // static executable or object file
            auto read = read_entries(*s->dynamic, "SHT_DYNAMIC section", s->dynamic_at);
            if (!read) return std::move(read).error();
            entries = std::move(*read);
            from_sections = true;
        }
        image_.has_dynamic = true;

        std::optional<DynEntry> strtab, strsz;
        bool uses_strings = false;
        for (const auto& e : entries) {
            if (e.tag == kDtStrtab) strtab = e;
            if (e.tag == kDtStrsz) strsz = e;
            if (e.tag == kDtNeeded || e.tag == kDtSoname || e.tag == kDtRpath ||
                e.tag == kDtRunpath)
                uses_strings = true;
        }
        if (!uses_strings) return std::nullopt;

        // ld.so finds the strings through DT_STRTAB; the section headers are the fallback.
        std::optional<Range> table;
        std::string table_problem;
        std::uint64_t table_problem_at = 0;
        if (!from_sections && strtab) {
            if (auto mapped = map(strtab->value)) {
                std::uint64_t size = mapped->size;
                if (strsz && strsz->value < size) size = strsz->value;
                table = Range{mapped->offset, size};
            } else {
                table_problem =
                    "DT_STRTAB address " + hex(strtab->value) + " lies in no PT_LOAD segment";
                table_problem_at = strtab->at;
            }
        } else if (!from_sections) {
            table_problem = "the dynamic section has no DT_STRTAB";
            table_problem_at = pt_dynamic_ ? pt_dynamic_->offset : 0;
        }
        if (!table) {
            const auto& s = get_sections();
            if (s && s->strings) {
                table = s->strings;
            } else if (from_sections) {
                return problem("SHT_DYNAMIC section has no string table (sh_link)",
                               s ? s->dynamic_at : 0);
            } else {
                return problem(table_problem + " and the section headers give no string table",
                               table_problem_at);
            }
        }
        if (!in_.contains(table->offset, table->size))
            return problem("dynamic string table (offset " + hex(table->offset) + ", size " +
                               hex(table->size) + ") runs past the end of the file (" +
                               std::to_string(in_.size()) + " bytes)",
                           strtab && !from_sections ? strtab->at : table->offset);
        ByteReader strings(in_.slice(table->offset, table->size), in_.little_endian());

        std::size_t needed_index = 0;
        for (const auto& e : entries) {
            std::string what;
            if (e.tag == kDtNeeded)
                what = "DT_NEEDED entry " + std::to_string(needed_index++);
            else if (e.tag == kDtSoname)
                what = "DT_SONAME";
            else if (e.tag == kDtRpath)
                what = "DT_RPATH";
            else if (e.tag == kDtRunpath)
                what = "DT_RUNPATH";
            else
                continue;
            std::uint64_t value_at = e.at + layout_->dyn_size / 2;
            if (e.value >= table->size)
                return problem(what + ": string offset " + hex(e.value) +
                                   " is past the string table (size " + hex(table->size) + ")",
                               value_at);
            auto text = strings.c_string(e.value, kElfMaxStringLength);
            if (!text) {
                bool too_long = table->size - e.value > kElfMaxStringLength;
                return problem(what + ": string at offset " + hex(e.value) +
                                   (too_long ? " is longer than " +
                                                   std::to_string(kElfMaxStringLength) + " bytes"
                                             : " has no terminating NUL inside the string table"),
                               value_at);
            }
            std::string value(*text);
            if (e.tag == kDtNeeded) {
                if (value.empty()) return problem(what + ": the name is empty", value_at);
                image_.needed.push_back(std::move(value));
            } else if (e.tag == kDtSoname) {
                image_.soname = std::move(value);  // ld.so keeps the last of a repeated tag
            } else if (e.tag == kDtRpath) {
                image_.rpath = std::move(value);
            } else {
                image_.runpath = std::move(value);
            }
        }
        return std::nullopt;
    }

    ByteReader in_;
    const Layout* layout_ = &kLayout64;
    ElfImage image_;
    std::uint64_t phoff_ = 0, shoff_ = 0;
    std::uint64_t phentsize_ = 0, phnum_ = 0, shentsize_ = 0, shnum_ = 0;
    std::vector<Segment> loads_;
    std::optional<Segment> pt_dynamic_;
    std::uint64_t pt_dynamic_at_ = 0;
};

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

bool looks_like_elf(std::span<const std::uint8_t> bytes) noexcept {
    return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
           bytes[3] == 'F';
}

util::Expected<ElfImage, ImageProblem> read_elf(std::span<const std::uint8_t> bytes) {
    return ElfParser(bytes).parse();
}

std::string elf_machine_name(std::uint16_t machine, bool is_64bit) {
    switch (machine) {
        case kElfMachineX86_64:
            return is_64bit ? "x86_64" : "x32";
        case kElfMachine386:
            return "x86";
        case kElfMachineAarch64:
            return "aarch64";
        case kElfMachineArm:
            return "arm";
        case kElfMachinePpc64:
            return "ppc64";
        case kElfMachineRiscv:
            return is_64bit ? "riscv64" : "riscv32";
        default:
            return "machine " + std::to_string(machine);
    }
}

std::vector<std::string> expand_search_path(std::string_view value, std::string_view origin) {
    std::vector<std::string> out;
    while (true) {
        auto colon = value.find(':');
        std::string_view entry = value.substr(0, colon);
        std::string expanded;
        for (std::size_t i = 0; i < entry.size();) {
            std::string_view rest = entry.substr(i);
            if (rest.starts_with("${ORIGIN}")) {
                expanded += origin;
                i += 9;
            } else if (rest.starts_with("$ORIGIN") &&
                       (rest.size() == 7 || !is_identifier_char(rest[7]))) {
                // "$ORIGINAL" names another variable, as in ld.so.
                expanded += origin;
                i += 7;
            } else {
                expanded += entry[i++];
            }
        }
        if (!expanded.empty()) out.push_back(std::move(expanded));
        if (colon == std::string_view::npos) break;
        value.remove_prefix(colon + 1);
    }
    return out;
}

}  // namespace aitk::diag
