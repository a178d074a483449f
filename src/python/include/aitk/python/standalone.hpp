#pragma once
// The python-build-standalone archives aitk-env knows (manifests/python-builds.json, compiled
// in): which CPython versions it can install, for which OS/arch, from where, with which sha256.
// `lock` uses it to pin a full Python version ("3.12" → the newest 3.12.x listed).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::python {

struct StandaloneBuild {
    std::string implementation;  // "cpython"
    std::string version;         // "3.12.11"
    std::string build;           // "20260814"
    std::string os;              // "linux", "darwin", "windows"
    std::string arch;            // "x86_64", "aarch64"
    std::string libc;            // "gnu", "none"
    std::string url;
    std::string sha256;
};

// Parses the JSON table; the error names the entry and field.
util::Expected<std::vector<StandaloneBuild>, std::string> parse_standalone_builds(
    std::string_view json);

// The compiled-in table (parsed once).
const std::vector<StandaloneBuild>& standalone_builds();

// "3.12" → the newest "3.12.x" in `builds`; a full "3.12.1" is returned as given; nothing when
// `request` is not X.Y or X.Y.Z or no build has that X.Y.
std::optional<std::string> full_python_version(std::string_view request,
                                               const std::vector<StandaloneBuild>& builds);

}  // namespace aitk::python
