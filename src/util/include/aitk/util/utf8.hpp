#pragma once
// Text is UTF-8 everywhere in aitk-env; std::filesystem::path is not: on Windows it holds UTF-16
// and converts a plain std::string through the C runtime's code page, so "Zoë" given as UTF-8
// would name a file "ZoÃ«". Every conversion between text and paths goes through here.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::util {

// The path that UTF-8 `text` names (on POSIX the same bytes).
std::filesystem::path path_from_utf8(std::string_view text);

// The UTF-8 text of `path` (native separators kept).
std::string utf8_of(const std::filesystem::path& path);

// The UTF-8 text of `path` with '/' separators, for lockfiles, RECORD files and messages that
// must read the same on every OS.
std::string generic_utf8_of(const std::filesystem::path& path);

// The process's environment variable `name` as UTF-8 (on Windows read as UTF-16, whatever the
// console's code page); nullopt when unset. Empty values are returned as they are.
std::optional<std::string> env_utf8(const char* name);

// How many UTF-16 code units `text` (UTF-8) takes: what Windows' path limits count.
std::size_t wide_length_of_utf8(std::string_view text) noexcept;

#ifdef _WIN32
// UTF-8 <-> UTF-16 for Windows' W functions. Invalid input is replaced (U+FFFD), never dropped.
std::wstring wide_from_utf8(std::string_view text);
std::string utf8_from_wide(std::wstring_view text);
#endif

}  // namespace aitk::util
