#include "windows_checks.hpp"

#include "aitk/util/strings.hpp"
#include "msvc_runtime.hpp"
#include "windows_loader.hpp"

namespace aitk::diag::detail {

std::vector<std::string> missing_exports(std::span<const PeImportedSymbol> symbols,
                                         const PeImage& exporter) {
    std::vector<std::string> out;
    for (const auto& symbol : symbols) {
        if (!exporter.exports || !exporter.exports->has(symbol)) out.push_back(symbol.describe());
    }
    return out;
}

bool is_outdated_runtime(std::string_view dll, const Image& image,
                         const std::optional<PeVersion>& minimum) {
    return minimum && is_checked_msvc_runtime(dll) && image.pe && image.pe->version &&
           *image.pe->version < *minimum;
}

bool is_runtime_load_candidate(std::string_view lower_name,
                               const std::unordered_set<std::string>& imported,
                               bool system32_known) {
    // mingw-w64's crtbegin probes for libgcc's DLL (libgcc_s_dw2-1.dll) in every 32-bit image
    // and does without it: not a load that can fail.
    if (lower_name.starts_with("libgcc_s_") || lower_name.starts_with("libgcj")) return false;
    // The driver's DLLs live in a System32 that is not known here: nothing to tell.
    if (!system32_known && (lower_name == "nvcuda.dll" || lower_name == "nvml.dll")) return false;
    return !imported.count(std::string(lower_name)) && !is_windows_system_dll(lower_name) &&
           !is_msvc_runtime(lower_name) && !is_python_dll(lower_name);
}

std::unordered_set<std::string> imported_names(const PeImage& library, std::string_view own_name) {
    std::unordered_set<std::string> out = {util::to_lower(own_name)};
    for (const auto& name : library.imports)
        out.insert(util::to_lower(name));
    for (const auto& name : library.delay_imports)
        out.insert(util::to_lower(name));
    return out;
}

}  // namespace aitk::diag::detail
