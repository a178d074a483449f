#include "aitk/cache/root.hpp"

#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"

#ifdef _WIN32
#include <stdlib.h>
#else
extern char** environ;  // NOLINT: POSIX declares it only here
#endif

namespace aitk::cache {
namespace {

std::string lookup(const Environment& env, std::string_view name, HostStyle host) {
    if (auto it = env.find(std::string(name)); it != env.end()) return it->second;
    if (host == HostStyle::windows) {  // Windows variable names ignore case
        for (const auto& [key, value] : env) {
            if (util::iequals(key, name)) return value;
        }
    }
    return {};
}

// Joins with the host's separator, so a Windows answer reads as one on any machine.
std::string join(std::string base, std::initializer_list<std::string_view> parts, char sep) {
    for (std::string_view part : parts) {
        if (!base.empty() && base.back() != '/' && base.back() != '\\') base += sep;
        base += part;
    }
    return base;
}

}  // namespace

std::filesystem::path default_cache_root(const Environment& env, HostStyle host) {
    if (std::string dir = lookup(env, "AITK_ENV_CACHE_DIR", host); !dir.empty()) return dir;
    if (host == HostStyle::windows) {
        if (std::string local = lookup(env, "LOCALAPPDATA", host); !local.empty()) {
            return join(local, {"aitk-env", "cache"}, '\\');
        }
        if (std::string profile = lookup(env, "USERPROFILE", host); !profile.empty()) {
            return join(profile, {"AppData", "Local", "aitk-env", "cache"}, '\\');
        }
        throw util::InputError(
            "cannot choose a cache folder: LOCALAPPDATA and USERPROFILE are "
            "not set",
            "pass --cache-dir DIR or set AITK_ENV_CACHE_DIR");
    }
    // The XDG spec says relative values are invalid and must be ignored.
    if (std::string xdg = lookup(env, "XDG_CACHE_HOME", host); !xdg.empty() && xdg[0] == '/') {
        return join(xdg, {"aitk-env"}, '/');
    }
    if (std::string home = lookup(env, "HOME", host); !home.empty()) {
        return join(home, {".cache", "aitk-env"}, '/');
    }
    throw util::InputError("cannot choose a cache folder: neither XDG_CACHE_HOME nor HOME is set",
                           "pass --cache-dir DIR or set AITK_ENV_CACHE_DIR");
}

Environment process_environment() {
    Environment env;
#ifdef _WIN32
    char** entries = _environ;
#else
    char** entries = environ;
#endif
    for (char** e = entries; e != nullptr && *e != nullptr; ++e) {
        std::string_view line(*e);
        std::size_t eq = line.find('=', line.empty() || line[0] != '=' ? 0 : 1);
        if (eq == std::string_view::npos) continue;
        env.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
    return env;
}

}  // namespace aitk::cache
