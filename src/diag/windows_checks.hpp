#pragma once
// The rules of the Windows checks beyond "is the DLL there" (private to diag), apart from the
// scan that applies them: which imported functions a DLL lacks (WinError 127), whether a
// Visual C++ runtime DLL is too old (WinError 1114), and which DLL names in a library's data
// are worth a run-time LoadLibrary finding.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "aitk/diag/pe.hpp"
#include "image_cache.hpp"

namespace aitk::diag::detail {

// What of `symbols` `exporter` does not export ("f2", "ordinal 7"), in order; all of them when
// it has no export directory.
std::vector<std::string> missing_exports(std::span<const PeImportedSymbol> symbols,
                                         const PeImage& exporter);

// Whether `dll`, found as `image`, is a checked Visual C++ runtime DLL whose FileVersion is
// below `minimum` (a runtime without a version resource is not judged).
bool is_outdated_runtime(std::string_view dll, const Image& image,
                         const std::optional<PeVersion>& minimum);

// Whether a DLL name found in `library`'s read-only data may be a run-time load worth looking
// up: not one of its imports (`imported`: lower-case names, its own included), not a part of
// Windows or the Visual C++ runtime, not the interpreter, not mingw's libgcc probe, and not
// the NVIDIA driver's while System32 is unknown.
bool is_runtime_load_candidate(std::string_view lower_name,
                               const std::unordered_set<std::string>& imported,
                               bool system32_known);

// The lower-case names `library` imports normally or with delay-load, and its own.
std::unordered_set<std::string> imported_names(const PeImage& library, std::string_view own_name);

}  // namespace aitk::diag::detail
