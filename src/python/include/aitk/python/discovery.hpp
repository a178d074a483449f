#pragma once
// Finding the Python interpreters already on a machine: python3.X / python3 / python on PATH and
// pyenv's versions, each asked once (with a timeout) for its implementation, version and real
// executable, deduplicated by that real path. Everything it reads is passed in.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::python {

struct Interpreter {
    std::string implementation;        // "CPython", "PyPy"
    std::string version;               // "3.12.1"
    std::filesystem::path path;        // the candidate that led to it (a PATH entry, a pyenv path)
    std::filesystem::path executable;  // its real executable (sys.executable, symlinks resolved)
    friend bool operator==(const Interpreter&, const Interpreter&) = default;
};

struct DiscoveryOptions {
    std::string path_value;            // PATH
    std::filesystem::path home;        // for ~/.pyenv when pyenv_root is empty
    std::filesystem::path pyenv_root;  // PYENV_ROOT; empty: <home>/.pyenv
    util::Environment environment;     // what the interpreters run with
    std::chrono::milliseconds timeout{5000};
    bool windows = false;
    std::size_t max_candidates = 48;  // a PATH full of shims should not take long
};

// Candidate executables in search order (PATH first, then pyenv versions, newest first),
// deduplicated by their resolved path. Nothing is run.
std::vector<std::filesystem::path> interpreter_candidates(const DiscoveryOptions& options);

// The probe script's output: "aitk-python-probe\n<implementation>\n<version>\n<executable>\n".
util::Expected<Interpreter, util::ParseError> parse_probe_output(std::string_view text);

// The script run with `python -E -s -c` (valid in Python 2.7 and 3.x).
std::string_view probe_script();

// Runs every candidate (in parallel, each with the timeout) and returns those that answered, in
// candidate order, one per real executable.
std::vector<Interpreter> discover_interpreters(const DiscoveryOptions& options);

}  // namespace aitk::python
