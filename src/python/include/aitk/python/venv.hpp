#pragma once
// Creating the venv-compatible prefix for an interpreter: pyvenv.cfg (`home`,
// `include-system-site-packages = false`, `version`, `executable`), the python / python3 /
// python3.X entries in bin/ (symlinks on POSIX; copies of python.exe/pythonw.exe on Windows),
// and site-packages. What `python -m venv --without-pip` does, without running Python.
#include <filesystem>
#include <string>

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

}  // namespace aitk::python
