#pragma once
// The X.Y of a Python version string, for the layers that compare Pythons by their minor
// release (a lock target, a venv's lib/pythonX.Y, a standalone build) without parsing a full
// PEP 440 version.
#include <string>
#include <string_view>

namespace aitk::util {

// "3.12.1" → "3.12"; text with fewer than two dot-separated parts comes back as it is.
std::string major_minor(std::string_view version);

// The same when both parts are whole numbers ("3.12.1.final.0" → "3.12"), else "": for text
// read from files (pyvenv.cfg, folder names) that may not be a version at all.
std::string numeric_major_minor(std::string_view version);

}  // namespace aitk::util
