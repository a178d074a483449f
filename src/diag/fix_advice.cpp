#include "fix_advice.hpp"

#include "aitk/util/strings.hpp"
#include "windows_loader.hpp"

namespace aitk::diag::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kArrow = " \u2192 ";

std::string chain_text(const Finding& f) {
    std::string out;
    for (const auto& p : f.chain) {
        out += p.filename().string();
        out += kArrow;
    }
    return out + f.name;
}

std::string place_text(const SearchedPlace& place) {
    // ld.so.cache, and System32 when it is not known, have no folder to show.
    if (place.folder.empty()) return place.origin;
    return place.folder.string() + " (" + place.origin + ")";
}

std::string importer_file(const Finding& f) {
    if (!f.importers.empty()) return f.importers.front().filename().string();
    if (!f.chain.empty()) return f.chain.back().filename().string();
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
    if (f.found_origin == "PATH") return "drop " + f.found_entry.string() + " from PATH";
    if (f.found_origin == "LD_LIBRARY_PATH")
        return "drop " + f.found_entry.string() + " from LD_LIBRARY_PATH";
    return {};
}

std::string reinstall_fix(const std::string& file) {
    return "reinstall the package that ships " + file + " (aitk-env sync)";
}

std::string missing_fix(const Finding& f, const FindingDetails& d, const AdviceContext& c) {
    std::string lower = util::to_lower(f.name);
    if (c.os == TargetOs::windows && is_msvc_runtime(lower))
        return vc_redist_fix(d.importer_architecture);
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

}  // namespace

std::string display_path(const fs::path& path, const fs::path& root) {
    fs::path rel = path.lexically_normal().lexically_relative(root.lexically_normal());
    if (rel.empty() || *rel.begin() == "..") return path.string();
    return rel.generic_string();
}

std::string finding_message(const Finding& f, const FindingDetails& d, const AdviceContext& c) {
    switch (f.kind) {
        case FindingKind::missing:
            return missing_message(f, d);
        case FindingKind::shadowed: {
            std::string bundled = display_path(f.bundled.parent_path(), c.root);
            if (f.bundled.parent_path().lexically_normal() == c.root.lexically_normal())
                bundled = c.root.string();
            return f.name + " found first in " + f.found.parent_path().string() + " (" +
                   f.found_origin + ") instead of " + bundled;
        }
        case FindingKind::wrong_architecture: {
            std::string file = f.found.filename().string();
            if (f.importers.empty())
                return file + " is " + f.architecture + " but the other libraries are " +
                       f.expected_architecture;
            return file + " is " + f.architecture + " but " + importer_file(f) + " is " +
                   f.expected_architecture;
        }
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
    }
    return {};
}

}  // namespace aitk::diag::detail
