#pragma once
// The Windows `py` launcher's list of installed interpreters (`py -0p`), in both the format of
// the launcher shipped with Python 3.11+ (" -V:3.12 *        C:\...\python.exe") and the older
// one (" -3.9-64 *      C:\...\python.exe"). Parsed as data so it is tested anywhere.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace aitk::python {

struct PyLauncherEntry {
    std::string tag;             // "3.12", "3.9-64", "Astral/CPython3.12" (without -V: or -)
    std::filesystem::path path;  // as printed
    bool is_default = false;     // marked with '*'
    friend bool operator==(const PyLauncherEntry&, const PyLauncherEntry&) = default;
};

// Lines that do not list an interpreter with a path (headers, "No Installed Pythons Found!",
// entries without a path) are skipped.
std::vector<PyLauncherEntry> parse_py_launcher_list(std::string_view text);

}  // namespace aitk::python
