#include "aitk/app/native_check.hpp"

#include <algorithm>

#include "aitk/fs/file.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/platform/windows_runtime.hpp"
#include "aitk/shim/environment_policy.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

namespace stdfs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<stdfs::path> split_search_value(std::string_view value, char separator) {
    std::vector<stdfs::path> out;
    for (auto entry : util::split(value, separator)) {
        if (!entry.empty()) out.emplace_back(std::string(entry));
    }
    return out;
}

// The strings of the Python list literal setup wrote as EXTRA_DIRECTORIES: '…' or "…" items
// with backslash escapes. Anything else is skipped: doctor must not fail on a hand-edited file.
std::vector<stdfs::path> extra_dll_directories(const stdfs::path& module) {
    std::vector<stdfs::path> out;
    std::string text;
    try {
        text = fs::read_file(module);
    } catch (const std::exception&) {
        return out;
    }
    auto line_start = text.find("\nEXTRA_DIRECTORIES = [");
    if (line_start == std::string::npos) return out;
    std::size_t i = text.find('[', line_start) + 1;
    while (i < text.size() && text[i] != ']' && text[i] != '\n') {
        char quote = text[i];
        if (quote != '\'' && quote != '"') {
            ++i;
            continue;
        }
        std::string item;
        for (++i; i < text.size() && text[i] != quote && text[i] != '\n'; ++i) {
            if (text[i] == '\\' && i + 1 < text.size()) ++i;
            item += text[i];
        }
        ++i;
        out.emplace_back(item);
    }
    return out;
}

// The folders _aitk_env_dll_paths.py adds, in its order, when the prefix has the .pth.
std::vector<stdfs::path> prefix_dll_directories(const stdfs::path& root) {
    std::error_code ec;
    auto layout = install::PrefixLayout::read(root, true);
    if (!layout) return {};
    const stdfs::path site = layout->platlib;
    if (!stdfs::exists(site / "aitk_env_dll_paths.pth", ec)) return {};
    std::vector<stdfs::path> dirs = {site / "torch" / "lib"};
    std::vector<stdfs::path> nvidia;
    for (stdfs::directory_iterator it(site / "nvidia", ec), end; !ec && it != end;
         it.increment(ec)) {
        nvidia.push_back(it->path() / "bin");
    }
    std::sort(nvidia.begin(), nvidia.end());
    dirs.insert(dirs.end(), nvidia.begin(), nvidia.end());
    dirs.push_back(root / "Library" / "bin");
    for (auto& extra : extra_dll_directories(site / "_aitk_env_dll_paths.py"))
        dirs.push_back(std::move(extra));
    std::vector<stdfs::path> existing;
    for (auto& d : dirs) {
        if (stdfs::is_directory(d, ec)) existing.push_back(std::move(d));
    }
    return existing;
}

bool shims_drop(const diag::Finding& f) {
    return !f.found_entry.empty() && shim::is_shadowing_library_dir(util::utf8_of(f.found_entry));
}

std::string variable_of(const diag::Finding& f) {
    return f.found_origin == "LD_LIBRARY_PATH" ? "LD_LIBRARY_PATH" : "PATH";
}

}  // namespace

diag::ScanOptions native_scan_options(const NativeScanRequest& request) {
    diag::ScanOptions o;
    o.os = request.os;
    o.root = request.root;
    if (request.os == diag::TargetOs::windows) {
        o.windows.dll_directories = prefix_dll_directories(request.root);
        if (request.system32) {
            o.windows.system32 = request.system32;
        } else if (request.host_os) {
            o.windows.system32 = platform::system32_folder(request.environment);
        }
        if (request.search_path) {
            o.windows.path = *request.search_path;
        } else if (request.host_os) {
            auto value = util::environment_lookup(request.environment, "PATH", true);
            if (value) o.windows.path = split_search_value(*value, ';');
        }
    } else {
        if (request.search_path) {
            o.linux_search.ld_library_path = *request.search_path;
        } else if (request.host_os) {
            auto value = util::environment_lookup(request.environment, "LD_LIBRARY_PATH", false);
            if (value) o.linux_search.ld_library_path = split_search_value(*value, ':');
        }
        std::error_code ec;
        if (request.host_os && stdfs::is_regular_file(request.ld_so_cache, ec))
            o.linux_search.ld_so_cache = request.ld_so_cache;
    }
    return o;
}

diag::ScanReport run_native_scan(const NativeScanRequest& request) {
    diag::ScanReport report = diag::scan_native_libraries(native_scan_options(request));
    for (auto& f : report.findings) {
        if (f.found_entry.empty()) continue;
        if (f.kind != diag::FindingKind::shadowed &&
            f.kind != diag::FindingKind::wrong_architecture &&
            f.kind != diag::FindingKind::missing_export &&
            f.kind != diag::FindingKind::outdated_runtime)
            continue;
        std::string note =
            shims_drop(f)
                ? "aitk-env's shims already drop it: start programs through the "
                  "prefix's aitk-run shim, its activate script or `aitk-env run`"
                : "aitk-env's shims keep it: remove it from " + variable_of(f) + " yourself";
        f.fix = f.fix.empty() ? note : f.fix + " (" + note + ")";
    }
    return report;
}

CheckStatus finding_status(const diag::Finding& f) {
    switch (f.kind) {
        case diag::FindingKind::missing:
        case diag::FindingKind::missing_export:
            return f.delay_load ? CheckStatus::warn : CheckStatus::fail;
        case diag::FindingKind::wrong_architecture:
        case diag::FindingKind::outdated_runtime:
            return CheckStatus::fail;
        case diag::FindingKind::runtime_load:
            // Only the feature that loads it fails, and only when used; a string that looks
            // like a DLL name is not proof of a load either.
            return CheckStatus::warn;
        case diag::FindingKind::shadowed:
            return shims_drop(f) ? CheckStatus::warn : CheckStatus::fail;
        case diag::FindingKind::unreadable:
            return CheckStatus::warn;
    }
    return CheckStatus::fail;
}

std::vector<DoctorCheck> native_scan_checks(const diag::ScanReport& report) {
    std::vector<DoctorCheck> checks;
    for (const auto& f : report.findings) {
        DoctorCheck c;
        c.id = "native." + std::string(diag::finding_kind_name(f.kind));
        c.status = finding_status(f);
        c.message = f.message;
        if (f.importers.size() > 1)
            c.message += " (imported by " + std::to_string(f.importers.size()) + " libraries)";
        if (!f.fix.empty()) c.message += "; fix: " + f.fix;
        checks.push_back(std::move(c));
    }
    if (checks.empty()) {
        checks.push_back({"native-libraries", CheckStatus::ok,
                          std::to_string(report.libraries) + " native libraries under " +
                              util::utf8_of(report.root) + " load (" +
                              std::string(diag::target_os_name(report.os)) + " search order)"});
    }
    return checks;
}

json native_scan_json(const diag::ScanReport& report) {
    auto paths = [](const std::vector<stdfs::path>& ps) {
        json a = json::array();
        for (const auto& p : ps)
            a.push_back(util::utf8_of(p));
        return a;
    };
    json findings = json::array();
    for (const auto& f : report.findings) {
        json searched = json::array();
        for (const auto& s : f.searched)
            searched.push_back({{"origin", s.origin}, {"folder", util::utf8_of(s.folder)}});
        findings.push_back({
            {"kind", diag::finding_kind_name(f.kind)},
            {"status", check_status_name(finding_status(f))},
            {"name", f.name},
            {"chain", paths(f.chain)},
            {"importers", paths(f.importers)},
            {"delay_load", f.delay_load},
            {"searched", searched},
            {"found", util::utf8_of(f.found)},
            {"found_origin", f.found_origin},
            {"found_entry", util::utf8_of(f.found_entry)},
            {"bundled", util::utf8_of(f.bundled)},
            {"architecture", f.architecture},
            {"expected_architecture", f.expected_architecture},
            {"symbols", f.symbols},
            {"symbol_count", f.symbol_count},
            {"version", f.version},
            {"minimum_version", f.minimum_version},
            {"win_error", f.win_error ? json(f.win_error) : json(nullptr)},
            {"message", f.message},
            {"fix", f.fix},
        });
    }
    return {
        {"root", util::utf8_of(report.root)},
        {"os", diag::target_os_name(report.os)},
        {"architecture", report.architecture},
        {"libraries", report.libraries},
        {"torch_version", report.torch_version ? json(*report.torch_version) : json(nullptr)},
        {"findings", findings},
    };
}

int native_scan_exit_code(const diag::ScanReport& report) {
    for (const auto& f : report.findings) {
        if (finding_status(f) == CheckStatus::fail) return 1;
    }
    return 0;
}

}  // namespace aitk::app
