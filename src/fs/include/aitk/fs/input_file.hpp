#pragma once
// Files the user names as inputs (requirements files and their -r/-c includes, environment.yml,
// manifests, lockfiles, configuration files, a source tree's pyproject.toml) are read only when
// they are regular files no larger than a cap for their kind, checked before the first byte is
// read: a FIFO would block forever, /dev/zero never ends, and a sparse file of a terabyte would
// be read into memory. No input is read from standard input.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "aitk/util/expected.hpp"

namespace aitk::fs {

struct InputFileKind {
    std::string_view what;  // "a requirements file": the kind, as a message names it
    std::uint64_t max_bytes = 0;
};

// The caps. Text a person writes is kilobytes: the largest real requirements file in
// tests/data/realworld is 1.5 KiB and the largest environment.yml 5 KiB; a pip-compile output
// with every hash of a thousand packages is under 2 MiB. 64 MiB is thousands of times that, is
// read in a fraction of a second, and stays above what the text checks judge line by line (a
// line may hold 1 MiB), so that a file of long lines still gets its file:line:column answer.
inline constexpr InputFileKind requirements_file{"a requirements file", 64ull << 20};
inline constexpr InputFileKind environment_file{"an environment.yml", 64ull << 20};
inline constexpr InputFileKind manifest_file{"a manifest", 64ull << 20};
inline constexpr InputFileKind pyproject_file{"a pyproject.toml", 64ull << 20};
// A lockfile lists every file of every target: the largest real lock we know, the universal
// uv.lock of NovaSky-AI/SkyRL (/work/shared/realworld/uv), is 2.7 MiB, and an aitk-env lock of
// 20 targets of 500 packages is about 4 MiB. 64 MiB is 16 times that.
inline constexpr InputFileKind lockfile{"a lockfile", 64ull << 20};
// The configuration file holds `rewrite-url:` rules: a few lines.
inline constexpr InputFileKind config_file{"a configuration file", 1ull << 20};

// The whole file, or why it is not read, in words that follow its name in a message:
// "not a regular file (a character device); give a requirements file",
// "300.0 MiB is over the 16.0 MiB limit for a requirements file", or the system's reason
// ("No such file or directory"). Never blocks on a FIFO and never reads past the cap, even when
// the file grows while it is read.
util::Expected<std::string, std::string> read_input_file(const std::filesystem::path& path,
                                                         const InputFileKind& kind);

// Whether everyone may read the file (POSIX: its mode has S_IROTH, as a requirements file's
// 0644 does; /etc/shadow's 0640 and a token file's 0600 do not). Messages never quote a line of
// a file that is not: it was meant to stay private. True on Windows, which has no such bit, and
// when the file cannot be looked at.
bool readable_by_everyone(const std::filesystem::path& path);

}  // namespace aitk::fs
