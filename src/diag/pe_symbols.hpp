#pragma once
// The function-level tables of a PE image (private to diag): an import lookup table (what one
// imported DLL is asked for, by name or by ordinal, PE32 and PE32+) and the export directory
// (what the image offers), which together decide WinError 127.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aitk/diag/pe.hpp"
#include "pe_map.hpp"

namespace aitk::diag::detail {

// What one image's symbol tables may still hold (kPeMaxTotalSymbols, kPeMaxSymbolBytes).
struct PeSymbolBudget {
    std::size_t symbols = kPeMaxTotalSymbols;
    std::size_t bytes = kPeMaxSymbolBytes;

    // Takes one symbol of `name_size` bytes, or says at `offset` that the image has too many.
    std::optional<ImageProblem> take(std::size_t name_size, std::uint64_t offset);
};

// The lookup table at `rva` (entries of 8 bytes in PE32+, else 4), up to its zero entry.
// `image_base` is subtracted from the hint/name pointers: 0 for RVAs, the image base for the
// VAs of old-style (Visual C++ 6) delay-load tables. `what` names the table in problems.
util::Expected<std::vector<PeImportedSymbol>, ImageProblem> read_lookup_table(
    const PeMap& map, std::uint64_t rva, bool pe32_plus, std::uint64_t image_base,
    const std::string& what, std::uint64_t read_at, PeSymbolBudget& budget);

// The export directory `dir` (non-empty).
util::Expected<PeExports, ImageProblem> read_exports(const PeMap& map, const PeDirectory& dir,
                                                     PeSymbolBudget& budget);

}  // namespace aitk::diag::detail
