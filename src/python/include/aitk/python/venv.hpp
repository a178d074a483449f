#pragma once
// Creating the venv-compatible prefix for an interpreter: pyvenv.cfg (`home`,
// `include-system-site-packages = false`, `version`, and from Python 3.11 on `executable` and
// `command`, exactly as `python -m venv` writes them), the python / python3 / python3.X entries
// in bin/ (symlinks on POSIX; copies of the venv launchers as python.exe/pythonw.exe on
// Windows), lib64 on 64-bit Linux, include/ and site-packages. What `python -m venv
// --without-pip` does, without running Python (the activate scripts are the shim layer's).
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/python/discovery.hpp"

namespace aitk::python {

struct VenvRequest {
    std::filesystem::path prefix;
    Interpreter interpreter;  // its executable and full version
    bool windows = false;
    std::string prompt;  // for activate scripts; default: the prefix's folder name
};

// Creates the prefix (or refreshes an existing venv whose interpreter matches). Throws
// util::Error when `prefix` exists and is not a venv, or is a venv of another Python X.Y.
void create_venv(const VenvRequest& request);

// The pyvenv.cfg text for `request`.
std::string pyvenv_cfg_text(const VenvRequest& request);

// --- the layout as data (so the Windows decisions are tested anywhere) ---

// Where things are in the venv of `request` (absolute, under the prefix).
struct VenvPaths {
    std::filesystem::path bin;     // <prefix>/bin, <prefix>\Scripts
    std::filesystem::path python;  // <prefix>/bin/python, <prefix>\Scripts\python.exe
    std::filesystem::path
        site_packages;  // <prefix>/lib/python3.12/site-packages, <prefix>\Lib\site-packages
    std::filesystem::path include;  // <prefix>/include/python3.12 (3.11+), <prefix>\Include
    std::filesystem::path config;   // <prefix>/pyvenv.cfg
};
VenvPaths venv_paths(const VenvRequest& request);

// One thing create_venv makes. Paths are relative to the prefix.
struct VenvStep {
    enum class Kind {
        directory,  // created (with parents) when missing
        symlink,    // `path` → `target` (the link text, as `python -m venv` writes it)
        copy,       // the first of `sources` that exists is copied to `path`
        file,       // `path` gets `content`
    };
    Kind kind = Kind::directory;
    std::filesystem::path path;
    std::filesystem::path target;
    std::vector<std::filesystem::path> sources;
    std::string content;
    bool keep_existing = false;  // file: an existing one is left as it is (.gitignore)
    friend bool operator==(const VenvStep&, const VenvStep&) = default;
};

// The steps of create_venv, in order. POSIX: bin/<real name> links to the interpreter's
// executable; python, python3 and python3.X link to that name; lib64 links to lib on 64-bit
// Linux. Windows: python.exe and pythonw.exe in Scripts are copies of the interpreter's venv
// launchers (Lib/venv/scripts/nt/venvlauncher.exe on 3.13+, .../nt/python.exe before), else of
// its own python.exe, whose DLLs are then copied beside it.
std::vector<VenvStep> venv_plan(const VenvRequest& request);

}  // namespace aitk::python
