#pragma once
// Windows script launchers for console_scripts / gui_scripts, as pip and uv give them: an
// installed `<Scripts>\<name>.exe` is a small launcher program (src/install/windows/launcher.c)
// followed by a payload:
//
//   [launcher image][zip holding __main__.py][#!<python>\n][u32 LE: size of that line][AITKLNCH]
//
// The "#!" line, its size and the magic are the zip's comment, so the whole file is a valid zip
// (with the launcher before it, as a self-extracting archive has its stub). The launcher reads
// the last bytes of its own file, runs `"<python>" "<itself>" <its arguments>`, and Python runs
// the zip's __main__.py (zipimport finds a zip from the end of a file). A relative <python> is
// relative to the launcher's folder: the installer records "python.exe" (or "pythonw.exe" for GUI
// scripts), which live beside the launchers in Scripts, so a prefix can be moved.
#include <cstddef>
#include <string>
#include <string_view>

#include "aitk/util/expected.hpp"

namespace aitk::install {

// Launcher program images (PE executables built from launcher.c).
struct WindowsLaunchers {
    std::string console;  // console subsystem: console_scripts
    std::string gui;      // windows subsystem (AITK_LAUNCHER_GUI): gui_scripts
};

// The images compiled into this aitk-env: on Windows builds CMake builds launcher.c and embeds
// the executables (src/install/windows/embedded.cmake); elsewhere nullptr, and tests build the
// images with mingw-w64 and pass them in.
const WindowsLaunchers* embedded_windows_launchers() noexcept;

inline constexpr std::string_view launcher_magic = "AITKLNCH";

// The __main__.py for "name = module:function": pip's wrapper (imports the first part of
// `function` from `module`, strips ".exe" from sys.argv[0], exits with the call's result). The
// POSIX wrappers are the same text behind a shebang.
std::string windows_launcher_script(const std::string& module, const std::string& function);

// The bytes of `<name>.exe`: the image, the zip (__main__.py stored) and the trailer recording
// `python` (UTF-8, '\\'-separated; relative to the launcher's folder or absolute). Throws
// util::Error when `python` cannot be recorded (empty, a line break or NUL, longer than a
// Windows path) or the image is empty.
std::string windows_launcher_payload(std::string_view launcher_image, std::string_view python,
                                     const std::string& module, const std::string& function);

// What a launcher file carries.
struct LauncherContents {
    std::size_t image_size = 0;  // bytes of the launcher program before the zip
    std::string python;          // the recorded interpreter path
    std::string script;          // __main__.py
};

// Reads a file written by windows_launcher_payload back (tests, `verify`). Errors say what is
// missing or inconsistent: no magic, a bad "#!" line, no end-of-central-directory record at its
// place, a zip without __main__.py.
util::Expected<LauncherContents, std::string> read_launcher_trailer(std::string_view bytes);

}  // namespace aitk::install
