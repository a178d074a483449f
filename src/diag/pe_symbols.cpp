#include "pe_symbols.hpp"

#include <algorithm>

#include "problem_text.hpp"

namespace aitk::diag {

std::string PeImportedSymbol::describe() const {
    return by_ordinal ? "ordinal " + std::to_string(ordinal) : name;
}

bool PeExports::has_name(std::string_view name) const {
    return std::binary_search(names.begin(), names.end(), name,
                              [](std::string_view a, std::string_view b) { return a < b; });
}

bool PeExports::has_ordinal(std::uint32_t ordinal) const {
    return std::binary_search(ordinals.begin(), ordinals.end(), ordinal);
}

bool PeExports::has(const PeImportedSymbol& symbol) const {
    return symbol.by_ordinal ? has_ordinal(symbol.ordinal) : has_name(symbol.name);
}

}  // namespace aitk::diag

namespace aitk::diag::detail {

using util::Unexpected;

namespace {

constexpr std::uint64_t kExportDirectorySize = 40;

}  // namespace

std::optional<ImageProblem> PeSymbolBudget::take(std::size_t name_size, std::uint64_t offset) {
    if (symbols == 0)
        return problem("the import lookup tables and the export directory hold more than " +
                           std::to_string(kPeMaxTotalSymbols) + " functions in all",
                       offset);
    if (name_size > bytes)
        return problem("the names of the imported and exported functions take more than " +
                           std::to_string(kPeMaxSymbolBytes) + " bytes in all",
                       offset);
    --symbols;
    bytes -= name_size;
    return std::nullopt;
}

util::Expected<std::vector<PeImportedSymbol>, ImageProblem> read_lookup_table(
    const PeMap& map, std::uint64_t rva, bool pe32_plus, std::uint64_t image_base,
    const std::string& what, std::uint64_t read_at, PeSymbolBudget& budget) {
    const std::uint64_t width = pe32_plus ? 8 : 4;
    const std::uint64_t ordinal_flag = pe32_plus ? (1ull << 63) : (1ull << 31);
    auto mapped = map.map(rva, what, read_at);
    if (!mapped) return Unexpected(std::move(mapped).error());
    const ByteReader& in = map.in();
    std::vector<PeImportedSymbol> out;
    for (std::uint64_t i = 0;; ++i) {
        std::uint64_t at = mapped->offset + i * width;
        if ((i + 1) * width > mapped->available) {
            bool file_end = mapped->offset + mapped->available == in.size();
            return Unexpected(problem(what + " " + hex(rva) +
                                          " is not terminated before the end of " +
                                          (file_end ? "the file" : "its section"),
                                      at));
        }
        std::uint64_t entry = pe32_plus ? *in.u64(at) : *in.u32(at);
        if (entry == 0) break;
        if (i >= kPeMaxSymbols)
            return Unexpected(problem(what + " " + hex(rva) + " has more than " +
                                          std::to_string(kPeMaxSymbols) + " entries",
                                      at));
        PeImportedSymbol symbol;
        if (entry & ordinal_flag) {
            if (auto p = budget.take(0, at)) return Unexpected(std::move(*p));
            symbol.by_ordinal = true;
            symbol.ordinal = static_cast<std::uint32_t>(entry & 0xffff);
            out.push_back(std::move(symbol));
            continue;
        }
        std::string label = what + " " + hex(rva) + " entry " + std::to_string(i) + ": hint/name";
        std::uint64_t hint_name = entry & 0x7fffffffull;
        if (image_base != 0) {
            if (entry < image_base)
                return Unexpected(problem(
                    label + " VA " + hex(entry) + " lies below the image base " + hex(image_base),
                    at));
            hint_name = entry - image_base;
            label += " VA " + hex(entry) + ",";
        } else if (pe32_plus && (entry >> 31) != 0) {
            // PE32+: bits 31-62 must be zero; set, the entry is neither an RVA nor an ordinal.
            return Unexpected(problem(
                label + " entry " + hex(entry) + " is neither an ordinal nor a 31-bit RVA", at));
        }
        // The entry points at a 2-byte hint, then the name.
        if (auto mapped_entry = map.map(hint_name, label + " RVA", at); !mapped_entry)
            return Unexpected(std::move(mapped_entry).error());
        auto name = map.name_at(hint_name + 2, label + " RVA", at, kPeMaxSymbolLength);
        if (!name) return Unexpected(std::move(name).error());
        if (auto p = budget.take(name->size(), at)) return Unexpected(std::move(*p));
        symbol.name = std::move(*name);
        out.push_back(std::move(symbol));
    }
    return out;
}

util::Expected<PeExports, ImageProblem> read_exports(const PeMap& map, const PeDirectory& dir,
                                                     PeSymbolBudget& budget) {
    auto mapped = map.map(dir.rva, "export directory at RVA", dir.entry_offset);
    if (!mapped) return Unexpected(std::move(mapped).error());
    const ByteReader& in = map.in();
    if (mapped->available < kExportDirectorySize)
        return Unexpected(problem(
            "export directory at RVA " + hex(dir.rva) + " runs past the end of " +
                (mapped->offset + mapped->available == in.size() ? "the file" : "its section"),
            mapped->offset));
    std::uint64_t at = mapped->offset;
    std::uint32_t base = *in.u32(at + 16);
    std::uint32_t functions = *in.u32(at + 20);
    std::uint32_t names = *in.u32(at + 24);
    if (functions > kPeMaxSymbols)
        return Unexpected(problem("export directory: NumberOfFunctions " +
                                      std::to_string(functions) + " is more than " +
                                      std::to_string(kPeMaxSymbols),
                                  at + 20));
    if (names > kPeMaxSymbols)
        return Unexpected(problem("export directory: NumberOfNames " + std::to_string(names) +
                                      " is more than " + std::to_string(kPeMaxSymbols),
                                  at + 24));
    PeExports out;
    if (functions > 0) {
        auto table = map.table(*in.u32(at + 28), functions, 4,
                               "export directory: AddressOfFunctions", at + 28);
        if (!table) return Unexpected(std::move(table).error());
        for (std::uint32_t i = 0; i < functions; ++i) {
            // A zero entry is a gap in the ordinal range, not an export.
            if (*in.u32(table->offset + 4ull * i) != 0) out.ordinals.push_back(base + i);
        }
    }
    if (names > 0) {
        auto table =
            map.table(*in.u32(at + 32), names, 4, "export directory: AddressOfNames", at + 32);
        if (!table) return Unexpected(std::move(table).error());
        out.names.reserve(names);
        for (std::uint32_t i = 0; i < names; ++i) {
            std::uint64_t entry = table->offset + 4ull * i;
            auto name = map.name_at(*in.u32(entry), "export name " + std::to_string(i) + " RVA",
                                    entry, kPeMaxSymbolLength);
            if (!name) return Unexpected(std::move(name).error());
            if (auto p = budget.take(name->size(), entry)) return Unexpected(std::move(*p));
            out.names.push_back(std::move(*name));
        }
    }
    std::sort(out.names.begin(), out.names.end());
    std::sort(out.ordinals.begin(), out.ordinals.end());
    return out;
}

}  // namespace aitk::diag::detail
