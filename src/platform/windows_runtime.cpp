#include "aitk/platform/windows_runtime.hpp"

#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

namespace aitk::platform {

std::filesystem::path system32_folder(const util::Environment& env) {
    std::filesystem::path root =
        util::environment_lookup(env, "SystemRoot", true).value_or("C:\\Windows");
    return root / "System32";
}

std::vector<std::string> missing_msvc_runtime_dlls(const std::filesystem::path& system32) {
    std::vector<std::string> present;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(system32, ec)) {
        present.push_back(util::to_lower(util::utf8_of(entry.path().filename())));
    }
    std::vector<std::string> missing;
    for (std::string_view dll : kMsvcRuntimeDlls) {
        bool found = false;
        for (const auto& p : present)
            found = found || p == dll;
        if (!found) missing.emplace_back(dll);
    }
    return missing;
}

std::optional<bool> windows_long_paths_enabled() {
#ifdef _WIN32
    DWORD value = 0;
    DWORD size = sizeof value;
    const LSTATUS rc =
        ::RegGetValueW(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\FileSystem",
                       L"LongPathsEnabled", RRF_RT_REG_DWORD, nullptr, &value, &size);
    return rc == ERROR_SUCCESS && value == 1;
#else
    return std::nullopt;
#endif
}

}  // namespace aitk::platform
