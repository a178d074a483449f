#include "windows_loader.hpp"

#include <algorithm>
#include <iterator>
#include <unordered_set>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::diag::detail {

namespace fs = std::filesystem;

namespace {

// The \KnownDlls section: the values of HKLM\SYSTEM\CurrentControlSet\Control\Session
// Manager\KnownDLLs on Windows 10/11 (x64), plus ntdll and kernelbase, which the section always
// holds. The loader maps these from System32 whatever folder holds a file of that name.
constexpr std::string_view kKnownDlls[] = {
    "advapi32.dll", "clbcatq.dll", "combase.dll",  "comdlg32.dll", "coml2.dll",    "difxapi.dll",
    "gdi32.dll",    "gdiplus.dll", "imagehlp.dll", "imm32.dll",    "kernel32.dll", "kernelbase.dll",
    "msctf.dll",    "msvcrt.dll",  "normaliz.dll", "nsi.dll",      "ntdll.dll",    "ole32.dll",
    "oleaut32.dll", "psapi.dll",   "rpcrt4.dll",   "sechost.dll",  "setupapi.dll", "shcore.dll",
    "shell32.dll",  "shlwapi.dll", "user32.dll",   "wldap32.dll",  "ws2_32.dll",
};

// DLLs that every Windows 10+ System32 holds (inbox components), beyond the KnownDLLs. Never
// the Visual C++ runtime: Windows does not ship it, and its absence is the commonest WinError
// 126. The Universal CRT (ucrtbase) is part of Windows 10+.
constexpr std::string_view kWindowsSystemDlls[] = {
    "bcrypt.dll",         "bcryptprimitives.dll",
    "cabinet.dll",        "cfgmgr32.dll",
    "comctl32.dll",       "crypt32.dll",
    "cryptbase.dll",      "cryptsp.dll",
    "d2d1.dll",           "d3d11.dll",
    "d3d12.dll",          "d3d9.dll",
    "d3dcompiler_47.dll", "dbgcore.dll",
    "dbghelp.dll",        "dnsapi.dll",
    "dwmapi.dll",         "dwrite.dll",
    "dxgi.dll",           "gdi32full.dll",
    "glu32.dll",          "hid.dll",
    "iphlpapi.dll",       "mpr.dll",
    "msimg32.dll",        "mswsock.dll",
    "msvcp_win.dll",      "ncrypt.dll",
    "netapi32.dll",       "oleacc.dll",
    "opengl32.dll",       "pdh.dll",
    "powrprof.dll",       "profapi.dll",
    "propsys.dll",        "rstrtmgr.dll",
    "secur32.dll",        "sspicli.dll",
    "ucrtbase.dll",       "urlmon.dll",
    "userenv.dll",        "usp10.dll",
    "uxtheme.dll",        "version.dll",
    "wevtapi.dll",        "win32u.dll",
    "windowscodecs.dll",  "winhttp.dll",
    "wininet.dll",        "winmm.dll",
    "winspool.drv",       "wintrust.dll",
    "winusb.dll",         "wsock32.dll",
    "wtsapi32.dll",       "dcomp.dll",
    "dinput8.dll",        "xinput1_4.dll",
};

constexpr std::string_view kMsvcRuntime[] = {
    "msvcp140.dll",     "msvcp140_1.dll",           "msvcp140_2.dll",
    "vcruntime140.dll", "vcruntime140_1.dll",       "vcomp140.dll",
    "concrt140.dll",    "msvcp140_atomic_wait.dll", "msvcp140_codecvt_ids.dll",
};

template <std::size_t N>
bool in(const std::string_view (&names)[N], std::string_view dll) {
    std::string lower = util::to_lower(dll);
    return std::find(std::begin(names), std::end(names), lower) != std::end(names);
}

}  // namespace

bool is_api_set(std::string_view dll) noexcept {
    return util::istarts_with(dll, "api-ms-win-") || util::istarts_with(dll, "ext-ms-");
}

bool is_known_dll(std::string_view dll) noexcept {
    return in(kKnownDlls, dll);
}

bool is_windows_system_dll(std::string_view dll) noexcept {
    return is_known_dll(dll) || is_api_set(dll) || in(kWindowsSystemDlls, dll);
}

bool is_msvc_runtime(std::string_view dll) noexcept {
    return in(kMsvcRuntime, dll);
}

bool is_python_dll(std::string_view dll) noexcept {
    std::string lower = util::to_lower(dll);
    if (!lower.starts_with("python3") || !lower.ends_with(".dll")) return false;
    std::string_view digits = std::string_view(lower).substr(7, lower.size() - 7 - 4);
    return std::all_of(digits.begin(), digits.end(), util::is_ascii_digit);
}

WindowsLoader::WindowsLoader(const WindowsSearch& search, ImageCache& images, FolderCache& folders)
    : search_(search), images_(images), folders_(folders) {}

std::shared_ptr<const std::vector<SearchedPlace>> WindowsLoader::places_for(
    const fs::path& folder) {
    std::string key = util::utf8_of(folder);
    if (auto it = places_.find(key); it != places_.end()) return it->second;
    auto places = std::make_shared<std::vector<SearchedPlace>>();
    std::unordered_set<std::string> seen;
    auto add = [&](const char* origin, const fs::path& dir) {
        // A folder named twice is searched once, where it first comes.
        if (!dir.empty() &&
            !seen.insert(folders_.key(util::utf8_of(dir.lexically_normal()))).second)
            return;
        places->push_back(SearchedPlace{origin, dir});
    };
    add("own folder", folder);
    for (const auto& dir : search_.dll_directories)
        add("add_dll_directory", dir);
    add("System32", search_.system32.value_or(fs::path()));
    for (const auto& dir : search_.path)
        add("PATH", dir);
    return places_.emplace(std::move(key), std::move(places)).first->second;
}

Resolution WindowsLoader::resolve(std::string_view name, const fs::path& importer,
                                  std::uint16_t importer_machine, const LoadedModules& loaded) {
    Resolution r;
    std::string lower = util::to_lower(name);
    if (is_api_set(lower)) {
        r.status = ResolveStatus::present;
        r.origin = "API set";
        return r;
    }
    if (is_known_dll(lower)) {
        r.status = ResolveStatus::present;
        r.origin = "KnownDLLs";
        return r;
    }
    if (is_python_dll(lower)) {
        r.status = ResolveStatus::present;
        r.origin = "already loaded";
        return r;
    }
    if (const auto* module = loaded.find(lower)) {
        r.status = ResolveStatus::already_loaded;
        r.origin = "already loaded";
        r.path = module->path;
        r.image = module->image;
        return r;
    }
    fs::path folder = importer.parent_path();
    std::string key =
        util::utf8_of(folder) + '\n' + std::to_string(importer_machine) + '\n' + lower;
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Resolution found = search(lower, name, places_for(folder), importer_machine);
    return memo_.emplace(std::move(key), std::move(found)).first->second;
}

Resolution WindowsLoader::search(const std::string& lower, std::string_view name,
                                 const std::shared_ptr<const std::vector<SearchedPlace>>& places,
                                 std::uint16_t importer_machine) {
    Resolution r;
    r.places = places;
    for (std::size_t i = 0; i < places->size(); ++i) {
        const SearchedPlace& place = (*places)[i];
        if (place.folder.empty()) {  // System32 not known: what every Windows 10+ holds
            if (place.origin == "System32" && is_windows_system_dll(lower)) {
                r.status = ResolveStatus::present;
                r.origin = place.origin;
                r.found_at = i;
                return r;
            }
            continue;
        }
        auto file = folders_.find(place.folder, name);
        if (!file) continue;
        const Image& image = images_.get(*file);
        r.path = *file;
        r.image = &image;
        r.origin = place.origin;
        r.found_at = i;
        if (place.origin == "PATH") r.entry = place.folder;
        if (!image.ok() || !image.pe) {
            r.status = ResolveStatus::bad_image;
            r.problem = image.problem ? image.problem->describe() : "not a PE image";
        } else if (image.pe->machine != importer_machine) {
            r.status = ResolveStatus::wrong_architecture;
        } else {
            r.status = ResolveStatus::found;
        }
        return r;
    }
    r.status = ResolveStatus::missing;
    return r;
}

}  // namespace aitk::diag::detail
