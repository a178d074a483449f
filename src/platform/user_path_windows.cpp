// The user's PATH on Windows: the "Path" value under HKCU\Environment, which Explorer copies
// into every new process's environment after a WM_SETTINGCHANGE "Environment" broadcast.
#include "aitk/platform/user_path.hpp"

#ifdef _WIN32
#include <windows.h>

#include <string>
#include <vector>

#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#endif

namespace aitk::platform {

#ifdef _WIN32
namespace {

constexpr const wchar_t* kEnvironmentKey = L"Environment";
constexpr const wchar_t* kPathValue = L"Path";

class RegistryUserPath final : public UserPathStore {
  public:
    std::string location() const override { return "HKCU\\Environment\\Path"; }

    std::optional<UserPathValue> read() override {
        DWORD type = 0;
        // RRF_NOEXPAND: the text as stored, %VARIABLES% unexpanded, so that writing it back
        // keeps them.
        const DWORD flags = RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND;
        std::vector<wchar_t> buffer(1024, L'\0');
        LONG rc = ERROR_MORE_DATA;
        for (int attempt = 0; attempt < 4 && rc == ERROR_MORE_DATA; ++attempt) {
            DWORD bytes = static_cast<DWORD>(buffer.size() * sizeof(wchar_t));
            rc = ::RegGetValueW(HKEY_CURRENT_USER, kEnvironmentKey, kPathValue, flags, &type,
                                buffer.data(), &bytes);
            if (rc == ERROR_MORE_DATA) buffer.assign(bytes / sizeof(wchar_t) + 1, L'\0');
        }
        if (rc == ERROR_FILE_NOT_FOUND) return std::nullopt;
        if (rc != ERROR_SUCCESS) {
            throw util::Error(util::ExitCode::failure,
                              "cannot read " + location() + ": " +
                                  util::windows_error_text(static_cast<unsigned long>(rc)),
                              rc == ERROR_UNSUPPORTED_TYPE
                                  ? "the value is not text; fix it in the registry editor or "
                                    "use --no-modify-path"
                                  : "use --no-modify-path and add the folder to Path yourself");
        }
        UserPathValue value;
        value.text = util::utf8_from_wide(std::wstring_view(buffer.data()));
        value.expandable = type == REG_EXPAND_SZ;
        return value;
    }

    void write(const UserPathValue& value) override {
        HKEY key = nullptr;
        LONG rc = ::RegCreateKeyExW(HKEY_CURRENT_USER, kEnvironmentKey, 0, nullptr, 0,
                                    KEY_SET_VALUE, nullptr, &key, nullptr);
        if (rc == ERROR_SUCCESS) {
            if (value.text.empty()) {
                rc = ::RegDeleteValueW(key, kPathValue);
                if (rc == ERROR_FILE_NOT_FOUND) rc = ERROR_SUCCESS;
            } else {
                const std::wstring wide = util::wide_from_utf8(value.text);
                rc = ::RegSetValueExW(key, kPathValue, 0, value.expandable ? REG_EXPAND_SZ : REG_SZ,
                                      reinterpret_cast<const BYTE*>(wide.c_str()),
                                      static_cast<DWORD>((wide.size() + 1) * sizeof(wchar_t)));
            }
            ::RegCloseKey(key);
        }
        if (rc != ERROR_SUCCESS) {
            throw util::Error(util::ExitCode::failure,
                              "cannot write " + location() + ": " +
                                  util::windows_error_text(static_cast<unsigned long>(rc)),
                              "use --no-modify-path and add the folder to Path yourself");
        }
    }

    bool announce() override {
        // user32 is loaded only here: the broadcast is the one thing aitk-env needs it for, and
        // a process that links it gets a window station on start.
        HMODULE user32 = ::LoadLibraryW(L"user32.dll");
        if (!user32) return false;
        using SendMessageTimeoutFn =
            LRESULT(WINAPI*)(HWND, UINT, WPARAM, LPARAM, UINT, UINT, PDWORD_PTR);
        auto send = reinterpret_cast<SendMessageTimeoutFn>(
            reinterpret_cast<void*>(::GetProcAddress(user32, "SendMessageTimeoutW")));
        bool told = false;
        if (send) {
            DWORD_PTR result = 0;
            told =
                send(HWND_BROADCAST, WM_SETTINGCHANGE, 0, reinterpret_cast<LPARAM>(L"Environment"),
                     SMTO_ABORTIFHUNG, 5000, &result) != 0;
        }
        ::FreeLibrary(user32);
        return told;
    }
};

}  // namespace

std::unique_ptr<UserPathStore> system_user_path_store() {
    return std::make_unique<RegistryUserPath>();
}

#else

std::unique_ptr<UserPathStore> system_user_path_store() {
    return nullptr;
}

#endif

}  // namespace aitk::platform
