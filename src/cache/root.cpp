#include "aitk/cache/root.hpp"

#include "aitk/util/subprocess.hpp"

#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#include <stdlib.h>
#else
extern char** environ;  // NOLINT: POSIX declares it only here
#endif

namespace aitk::cache {
namespace {

std::string lookup(const Environment& env, std::string_view name, HostStyle host) {
    return util::environment_lookup(env, name, host == HostStyle::windows).value_or("");
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
    if (std::string dir = lookup(env, "AITK_ENV_CACHE_DIR", host); !dir.empty())
        return util::path_from_utf8(dir);
    if (host == HostStyle::windows) {
        if (std::string local = util::windows_local_app_data(env); !local.empty()) {
            return util::path_from_utf8(join(local, {"aitk-env", "cache"}, '\\'));
        }
        throw util::InputError(
            "cannot choose a cache folder: LOCALAPPDATA and USERPROFILE are "
            "not set",
            "pass --cache-dir DIR or set AITK_ENV_CACHE_DIR");
    }
    // The XDG spec says relative values are invalid and must be ignored.
    if (std::string xdg = lookup(env, "XDG_CACHE_HOME", host); !xdg.empty() && xdg[0] == '/') {
        return util::path_from_utf8(join(xdg, {"aitk-env"}, '/'));
    }
    if (std::string home = lookup(env, "HOME", host); !home.empty()) {
        return util::path_from_utf8(join(home, {".cache", "aitk-env"}, '/'));
    }
    throw util::InputError("cannot choose a cache folder: neither XDG_CACHE_HOME nor HOME is set",
                           "pass --cache-dir DIR or set AITK_ENV_CACHE_DIR");
}

}  // namespace aitk::cache
