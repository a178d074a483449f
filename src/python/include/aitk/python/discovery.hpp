#pragma once
// Finding the Python interpreters already on a machine: python3.X / python3 / python on PATH,
// pyenv's (asdf's, mise's) versions, conda environments, Homebrew and system folders, and on
// Windows what the `py` launcher lists. A version manager's shim folder on PATH is never run
// (a pyenv shim is bash that starts hundreds of processes): the manager's files say which
// versions its shims would start, and those interpreters take the shim folder's place. Each is
// asked once (with a timeout) by a small script for its facts (version, implementation, platform,
// sysconfig paths, libc, PEP 508 marker values), the answers are kept in a cache file keyed by the
// executable's real path, mtime and size, and the results are deduplicated by that real path.
// Everything it reads is passed in.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::python {

// sysconfig.get_paths() of the interpreter (its own installation scheme).
struct SysconfigPaths {
    std::filesystem::path purelib;
    std::filesystem::path platlib;
    std::filesystem::path scripts;
    std::filesystem::path include;
    friend bool operator==(const SysconfigPaths&, const SysconfigPaths&) = default;
};

struct Interpreter {
    std::string implementation;        // "CPython", "PyPy"
    std::string version;               // "3.12.1"
    std::filesystem::path path;        // the candidate that led to it (a PATH entry, a pyenv path)
    std::filesystem::path executable;  // its real executable (sys.executable, symlinks resolved)
    // What the probe reports beyond the above (empty when an old answer lacks them).
    std::string sys_platform;           // sys.platform: "linux", "win32", "darwin"
    std::string machine;                // platform.machine(): "x86_64", "AMD64", "arm64"
    std::string libc;                   // platform.libc_ver()[0]: "glibc", "" when unknown
    std::string libc_version;           // platform.libc_ver()[1]: "2.36"
    std::filesystem::path prefix;       // sys.prefix
    std::filesystem::path base_prefix;  // sys.base_prefix (sys.real_prefix under virtualenv)
    SysconfigPaths paths;
    bool free_threaded = false;      // a 3.13t build (Py_GIL_DISABLED): its folders end in "t"
    bool is_64bit = true;            // sys.maxsize > 2**32
    pep::MarkerEnvironment markers;  // the PEP 508 values (extra empty)

    // "3.12" of "3.12.1".
    std::string major_minor() const;
    friend bool operator==(const Interpreter&, const Interpreter&) = default;
};

struct DiscoveryOptions {
    std::string path_value;            // PATH
    std::filesystem::path home;        // for ~/.pyenv, ~/miniconda3, ... when set
    std::filesystem::path pyenv_root;  // PYENV_ROOT; empty: <home>/.pyenv
    // Where .python-version / .tool-versions are looked for (and above); empty: the current
    // folder of this process.
    std::filesystem::path cwd;
    util::Environment environment;  // what the interpreters run with (CONDA_PREFIX is read here)
    std::chrono::milliseconds timeout{5000};
    bool windows = false;
    std::size_t max_candidates = 48;  // a PATH full of shims should not take long
    // Folders searched after PATH, pyenv and conda like PATH entries. nullopt: this OS's
    // defaults (POSIX: /opt/homebrew/bin, /usr/local/bin, /usr/bin; Windows: none).
    std::optional<std::vector<std::filesystem::path>> system_dirs;
    // More executables to consider, after everything else (discover_interpreters adds what
    // `py -0p` lists on Windows).
    std::vector<std::filesystem::path> extra_candidates;
    // Windows: ask the `py` launcher (`py -0p`) for the interpreters it knows.
    bool use_py_launcher = true;
    // The answers cache (see interpreter_cache.hpp); empty: ask every candidate every time.
    std::filesystem::path cache_file;
    // Ask every candidate again (the answers still go to cache_file).
    bool refresh = false;
};

// The folders searched when DiscoveryOptions::system_dirs is not set.
std::vector<std::filesystem::path> default_system_dirs(bool windows);

// Candidate executables in search order (PATH first, a shim folder standing for the versions
// its manager selects; then pyenv versions, newest first, then asdf's and mise's; then conda:
// CONDA_PREFIX, the base installs under `home` and their envs, then the system folders, then
// `extra_candidates`), deduplicated by their resolved path. Nothing is run; nothing inside a
// shim folder is ever a candidate.
std::vector<std::filesystem::path> interpreter_candidates(const DiscoveryOptions& options);

// The probe's output: a line "aitk-python-probe" (whatever a sitecustomize printed before it is
// skipped), then one line of JSON with the facts (see probe_script()).
util::Expected<Interpreter, util::ParseError> parse_probe_output(std::string_view text);

// The script run with `python -E -s -c` (valid in Python 2.7 and 3.x).
std::string_view probe_script();

// Asks one executable (through the cache when options.cache_file is set). The error says why
// it is not a usable interpreter ("... does not exist", "... exited with status 1: ...").
util::Expected<Interpreter, std::string> probe_interpreter(const std::filesystem::path& executable,
                                                           const DiscoveryOptions& options);

// Runs every candidate (in parallel, each with the timeout; cached answers are not asked again)
// and returns those that answered, in candidate order, one per real executable.
std::vector<Interpreter> discover_interpreters(const DiscoveryOptions& options);

}  // namespace aitk::python
