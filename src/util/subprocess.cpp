#include "aitk/util/subprocess.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

#ifndef _WIN32
#include <unistd.h>
#endif

namespace aitk::util {

std::optional<std::string> environment_lookup(const Environment& env, std::string_view name,
                                              bool case_insensitive) {
    if (!case_insensitive) {
        auto it = env.find(std::string(name));
        if (it == env.end()) return std::nullopt;
        return it->second;
    }
    for (const auto& [key, value] : env) {
        if (iequals(key, name)) return value;
    }
    return std::nullopt;
}

std::optional<std::string> environment_lookup(const Environment& env, std::string_view name) {
#ifdef _WIN32
    return environment_lookup(env, name, true);
#else
    return environment_lookup(env, name, false);
#endif
}

std::string windows_local_app_data(const Environment& env) {
    if (auto local = environment_lookup(env, "LOCALAPPDATA", true); local && !local->empty()) {
        return *local;
    }
    auto profile = environment_lookup(env, "USERPROFILE", true);
    if (!profile || profile->empty()) return {};
    const bool separated = profile->back() == '\\' || profile->back() == '/';
    return *profile + (separated ? "" : "\\") + "AppData\\Local";
}

Environment apply_environment_changes(Environment base, const EnvironmentChanges& changes,
                                      bool case_insensitive) {
    for (const auto& [name, value] : changes) {
        if (case_insensitive) {
            for (auto it = base.begin(); it != base.end();) {
                it = iequals(it->first, name) ? base.erase(it) : std::next(it);
            }
        } else {
            base.erase(name);
        }
        if (value) base[name] = *value;
    }
    return base;
}

namespace {

bool is_executable_file(const std::filesystem::path& path, bool windows) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
#ifdef _WIN32
    (void)windows;
    return true;
#else
    // Windows decisions are evaluated on POSIX in tests: there an existing file is enough.
    return windows || ::access(path.c_str(), X_OK) == 0;
#endif
}

bool has_extension(std::string_view name) {
    std::size_t slash = name.find_last_of("/\\");
    std::size_t dot = name.rfind('.');
    return dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash);
}

}  // namespace

std::optional<std::filesystem::path> find_program(std::string_view name,
                                                  std::string_view path_value, bool windows,
                                                  std::string_view pathext) {
    if (name.empty()) return std::nullopt;
    std::vector<std::string> names{std::string(name)};
    if (windows && !has_extension(name)) {
        names.clear();
        std::string_view exts = pathext.empty() ? std::string_view(".COM;.EXE;.BAT;.CMD") : pathext;
        for (std::string_view ext : split(exts, ';')) {
            if (ext.empty()) continue;
            names.push_back(std::string(name) + std::string(ext));
            // Windows file names are case-insensitive; when these rules are evaluated on a
            // case-sensitive file system (tests), ".EXE" must still find "x.exe".
            std::string lower = to_lower(ext);
            if (lower != ext) names.push_back(std::string(name) + lower);
        }
    }
    bool has_separator = name.find('/') != std::string_view::npos ||
                         (windows && name.find('\\') != std::string_view::npos);
    if (has_separator) {
        for (const auto& candidate : names) {
            if (is_executable_file(candidate, windows)) return std::filesystem::path(candidate);
        }
        return std::nullopt;
    }
    for (std::string_view dir : split(path_value, windows ? ';' : ':')) {
        if (dir.empty() && windows) continue;
        std::filesystem::path base =
            dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir);
        for (const auto& candidate : names) {
            std::filesystem::path full = base / candidate;
            if (is_executable_file(full, windows)) return full;
        }
    }
    return std::nullopt;
}

#ifdef _WIN32
namespace {

std::string windows_crash_text(std::uint32_t code) {
    const char* what = nullptr;
    switch (code) {
        case 0xC0000005u:
            what = "access violation";
            break;
        case 0xC00000FDu:
            what = "stack overflow";
            break;
        case 0xC0000409u:
            what = "stack buffer overrun or fail-fast exit";
            break;
        case 0xC000001Du:
            what = "illegal instruction";
            break;
        case 0xC0000135u:
            what = "a DLL it needs was not found";
            break;
        case 0xC0000139u:
            what = "a DLL it needs lacks an exported function";
            break;
        case 0xC000007Bu:
            what = "a DLL it loads is for another machine type";
            break;
        case 0xC0000142u:
            what = "a DLL failed to initialise";
            break;
        default:
            break;
    }
    char hex[11];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(code));
    return std::string("crashed with exception ") + hex +
           (what ? std::string(" (") + what + ")" : "");
}

}  // namespace
#endif

std::string ProcessResult::describe() const {
    switch (end) {
        case ProcessEnd::exited:
#ifdef _WIN32
            // An NTSTATUS error as the exit code: the process died of an exception, or the
            // loader refused it before main (a missing DLL is the common case for Python).
            if ((static_cast<std::uint32_t>(exit_code) & 0xF0000000u) == 0xC0000000u)
                return windows_crash_text(static_cast<std::uint32_t>(exit_code));
#endif
            return "exited with status " + std::to_string(exit_code);
        case ProcessEnd::signaled:
            return "was killed by signal " + std::to_string(signal);
        case ProcessEnd::timed_out: {
            auto ms = elapsed.count();
            if (ms % 1000 == 0) return "did not finish within " + std::to_string(ms / 1000) + " s";
            return "did not finish within " + std::to_string(ms) + " ms";
        }
    }
    return "ended";
}

std::string quote_windows_argument(std::string_view argument) {
    bool needs_quotes =
        argument.empty() || argument.find_first_of(" \t\n\v\"") != std::string_view::npos;
    if (!needs_quotes) return std::string(argument);
    std::string out = "\"";
    std::size_t backslashes = 0;
    for (char c : argument) {
        if (c == '\\') {
            ++backslashes;
            continue;
        }
        if (c == '"') {
            // Backslashes before a quote are escapes: double them, then escape the quote.
            out.append(backslashes * 2 + 1, '\\');
        } else {
            out.append(backslashes, '\\');
        }
        backslashes = 0;
        out += c;
    }
    // Trailing backslashes precede the closing quote, so they are doubled as well.
    out.append(backslashes * 2, '\\');
    out += '"';
    return out;
}

std::string windows_command_line(const std::vector<std::string>& argv) {
    std::string line;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i) line += ' ';
        line += quote_windows_argument(argv[i]);
    }
    return line;
}

}  // namespace aitk::util
