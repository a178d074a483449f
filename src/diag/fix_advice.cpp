#include "fix_advice.hpp"

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "windows_loader.hpp"

namespace aitk::diag::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kArrow = " \u2192 ";

std::string chain_text(const Finding& f) {
    std::string out;
    for (const auto& p : f.chain) {
        out += util::utf8_of(p.filename());
        out += kArrow;
    }
    return out + f.name;
}

std::string place_text(const SearchedPlace& place) {
    // ld.so.cache, and System32 when it is not known, have no folder to show.
    if (place.folder.empty()) return place.origin;
    return util::utf8_of(place.folder) + " (" + place.origin + ")";
}

std::string importer_file(const Finding& f) {
    if (!f.importers.empty()) return util::utf8_of(f.importers.front().filename());
    if (!f.chain.empty()) return util::utf8_of(f.chain.back().filename());
    return {};
}

std::string missing_message(const Finding& f, const FindingDetails& d) {
    std::string out = chain_text(f) + ": not found; searched: ";
    if (f.searched.empty()) out += "nothing";
    for (std::size_t i = 0; i < f.searched.size(); ++i) {
        if (i) out += ", ";
        out += place_text(f.searched[i]);
    }
    if (!d.skipped.empty()) out += "; skipped " + util::join(d.skipped, ", ");
    if (f.delay_load) out += " (delay-load: fails when first used)";
    return out;
}

std::string vc_redist_fix(const std::string& importer_architecture) {
    std::string arch = importer_architecture == "x86"     ? "x86"
                       : importer_architecture == "arm64" ? "arm64"
                                                          : "x64";
    return "install the Visual C++ 2015\u20132022 Redistributable (" + arch +
           "): https://aka.ms/vs/17/release/vc_redist." + arch + ".exe";
}

bool is_driver_library(std::string_view name) {
    std::string lower = util::to_lower(name);
    return lower == "nvcuda.dll" || lower == "nvml.dll" || lower == "libcuda.so.1" ||
           lower == "libcuda.so" || lower == "libnvidia-ml.so.1";
}

std::string drop_entry_fix(const Finding& f) {
    if (f.found_entry.empty()) return {};
    if (f.found_origin == "PATH") return "drop " + util::utf8_of(f.found_entry) + " from PATH";
    if (f.found_origin == "LD_LIBRARY_PATH")
        return "drop " + util::utf8_of(f.found_entry) + " from LD_LIBRARY_PATH";
    return {};
}

std::string reinstall_fix(const std::string& file) {
    return "reinstall the package that ships " + file + " (aitk-env sync)";
}

std::string missing_fix(const Finding& f, const FindingDetails& d, const AdviceContext& c) {
    std::string lower = util::to_lower(f.name);
    if (c.os == TargetOs::windows && is_msvc_runtime(lower)) {
        std::string fix = vc_redist_fix(d.importer_architecture);
        if (!d.older_runtime.empty())
            fix += " (" + util::utf8_of(d.older_runtime) +
                   " is from a Visual C++ runtime before 2019, which had no vcruntime140_1.dll)";
        return fix;
    }
    if (lower == "libomp140.x86_64.dll") {
        std::string fix =
            "torch 2.4.0's Windows wheels import libomp140.x86_64.dll without shipping it: "
            "install torch 2.4.1 or later";
        if (c.torch_version) fix += " (this folder has torch " + *c.torch_version + ")";
        return fix;
    }
    if (is_driver_library(f.name))
        return f.name + " comes with the NVIDIA driver: install or repair the driver";
    std::string importer = importer_file(f);
    if (!f.bundled.empty())
        return display_path(f.bundled, c.root) + " is not on " + importer +
               "'s search path: " + reinstall_fix(importer);
    return reinstall_fix(importer);
}

std::string found_text(const Finding& f, const AdviceContext& c) {
    return display_path(f.found, c.root) + " (" + f.found_origin + ")";
}

std::string symbols_text(const Finding& f) {
    std::string list = util::join(f.symbols, ", ");
    if (f.symbol_count > f.symbols.size())
        list += " and " + std::to_string(f.symbol_count - f.symbols.size()) + " more";
    if (f.symbol_count <= 1) return list;
    return std::to_string(f.symbol_count) + " imported functions: " + list;
}

std::string missing_export_message(const Finding& f, const AdviceContext& c) {
    std::string out =
        chain_text(f) + ": " + found_text(f, c) + " does not export " + symbols_text(f);
    if (f.delay_load) out += " (delay-load: fails when first used)";
    return out + " (WinError 127: the specified procedure could not be found)";
}

std::string missing_export_fix(const Finding& f, const AdviceContext& c) {
    std::string importer = importer_file(f);
    std::string found = found_text(f, c);
    if (!f.bundled.empty()) {
        std::string step = drop_entry_fix(f);
        if (step.empty()) step = "remove or rename " + util::utf8_of(f.found);
        return found + " is another version of " + f.name + ", found before the bundled " +
               display_path(f.bundled, c.root) + ": " + step + " so the bundled copy loads";
    }
    if (f.found_origin == "PATH")
        return found + " is another (likely older) version of " + f.name + " than " + importer +
               " was built with: " + drop_entry_fix(f) + ", or put the folder of the matching " +
               f.name + " before it";
    if (f.found_origin == "already loaded")
        return "the " + f.name + " loaded first, " + display_path(f.found, c.root) +
               ", is another version than the one " + importer +
               " needs: the process must use one copy of it; " + reinstall_fix(importer);
    if (f.found_origin == "System32")
        return "System32's " + f.name + " is another version than " + importer +
               " was built with: put the matching " + f.name + " beside " + importer +
               " (its own folder is searched first), or update the program that installed "
               "System32's copy";
    return f.name + " and " + importer +
           " come from different versions: " + reinstall_fix(importer);
}

std::string outdated_runtime_message(const Finding& f, const AdviceContext& c) {
    std::string torch = c.torch_version ? "torch " + *c.torch_version : "torch 2.4 and later";
    return chain_text(f) + ": " + found_text(f, c) + " is version " + f.version +
           ", older than the " + f.minimum_version + " Visual C++ runtime " + torch +
           " is built with (WinError 1114: a dynamic link library (DLL) initialization routine "
           "failed)";
}

std::string outdated_runtime_fix(const Finding& f, const FindingDetails& d) {
    std::string arch = d.importer_architecture == "x86"     ? "x86"
                       : d.importer_architecture == "arm64" ? "arm64"
                                                            : "x64";
    std::string fix = "install the latest Microsoft Visual C++ Redistributable (" + arch +
                      ") from https://aka.ms/vs/17/release/vc_redist." + arch + ".exe";
    // The installer updates System32's copy; a copy elsewhere stays first in the search.
    if (f.found_origin != "System32")
        fix += ", and remove or rename the older copy at " + util::utf8_of(f.found);
    if (f.found_origin == "PATH" && !f.found_entry.empty())
        fix += " (found through PATH entry " + util::utf8_of(f.found_entry) + ")";
    return fix;
}

std::string runtime_load_message(const Finding& f) {
    std::string out = chain_text(f) +
                      ": loaded at run time with LoadLibrary, not in the import tables: not "
                      "found; searched: ";
    if (f.searched.empty()) out += "nothing";
    for (std::size_t i = 0; i < f.searched.size(); ++i) {
        if (i) out += ", ";
        out += place_text(f.searched[i]);
    }
    return out;
}

std::string runtime_load_fix(const Finding& f) {
    if (is_driver_library(f.name))
        return f.name + " comes with the NVIDIA driver: install or repair the driver";
    std::string lower = util::to_lower(f.name);
    std::string what = lower.starts_with("cudnn") ? "the cuDNN " + importer_file(f) +
                                                        " was built with (nvidia-cudnn-cu12 / "
                                                        "-cu13 on pip)"
                                                  : "the package that ships " + f.name;
    return "only what loads it fails, when first used (WinError 126 then); if that is needed, "
           "install " +
           what + ", or add its folder with os.add_dll_directory";
}

}  // namespace

std::string display_path(const fs::path& path, const fs::path& root) {
    fs::path rel = path.lexically_normal().lexically_relative(root.lexically_normal());
    if (rel.empty() || *rel.begin() == "..") return util::utf8_of(path);
    return util::generic_utf8_of(rel);
}

std::string finding_message(const Finding& f, const FindingDetails& d, const AdviceContext& c) {
    switch (f.kind) {
        case FindingKind::missing:
            return missing_message(f, d);
        case FindingKind::shadowed: {
            std::string bundled = display_path(f.bundled.parent_path(), c.root);
            if (f.bundled.parent_path().lexically_normal() == c.root.lexically_normal())
                bundled = util::utf8_of(c.root);
            return f.name + " found first in " + util::utf8_of(f.found.parent_path()) + " (" +
                   f.found_origin + ") instead of " + bundled;
        }
        case FindingKind::wrong_architecture: {
            std::string file = util::utf8_of(f.found.filename());
            std::string out = f.importers.empty()
                                  ? file + " is " + f.architecture +
                                        " but the other libraries are " + f.expected_architecture
                                  : file + " is " + f.architecture + " but " + importer_file(f) +
                                        " is " + f.expected_architecture;
            if (c.os == TargetOs::windows)
                out += " (WinError 193: %1 is not a valid Win32 application)";
            return out;
        }
        case FindingKind::missing_export:
            return missing_export_message(f, c);
        case FindingKind::outdated_runtime:
            return outdated_runtime_message(f, c);
        case FindingKind::runtime_load:
            return runtime_load_message(f);
        case FindingKind::unreadable:
            if (d.scanned) return display_path(f.found, c.root) + ": " + d.problem;
            return chain_text(f) + ": " + display_path(f.found, c.root) +
                   " cannot be loaded: " + d.problem;
    }
    return {};
}

std::string finding_fix(const Finding& f, const FindingDetails& d, const AdviceContext& c) {
    switch (f.kind) {
        case FindingKind::missing:
            return missing_fix(f, d, c);
        case FindingKind::shadowed:
            return drop_entry_fix(f);
        case FindingKind::wrong_architecture:
            if (auto drop = drop_entry_fix(f); !drop.empty()) return drop;
            return "replace " + display_path(f.found, c.root) + " with its " +
                   f.expected_architecture + " build";
        case FindingKind::unreadable:
            if (auto drop = drop_entry_fix(f); !drop.empty()) return drop;
            return reinstall_fix(display_path(f.found, c.root));
        case FindingKind::missing_export:
            return missing_export_fix(f, c);
        case FindingKind::outdated_runtime:
            return outdated_runtime_fix(f, d);
        case FindingKind::runtime_load:
            return runtime_load_fix(f);
    }
    return {};
}

}  // namespace aitk::diag::detail
