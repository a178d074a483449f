#pragma once
// Where the cache lives when --cache-dir is not given (docs/cli.md), computed from an
// environment passed in, so tests and the CLI decide what the environment is.
#include <filesystem>
#include <map>
#include <string>
#include "aitk/util/subprocess.hpp"

namespace aitk::cache {

using Environment = util::Environment;

enum class HostStyle { posix, windows };

#ifdef _WIN32
inline constexpr HostStyle this_host = HostStyle::windows;
#else
inline constexpr HostStyle this_host = HostStyle::posix;
#endif

// AITK_ENV_CACHE_DIR when set and not empty; else on POSIX $XDG_CACHE_HOME/aitk-env (an
// absolute XDG_CACHE_HOME only, as the XDG spec says) or $HOME/.cache/aitk-env; on Windows
// %LOCALAPPDATA%\aitk-env\cache (or %USERPROFILE%\AppData\Local\aitk-env\cache).
// Throws util::InputError saying which variables to set when none is usable.
std::filesystem::path default_cache_root(const Environment& env, HostStyle host = this_host);

}  // namespace aitk::cache
