#pragma once
// Windows DLLs for the WinError 127 / 1114 / run-time LoadLibrary tests, built with mingw-w64
// from C source: a DLL exporting given functions (optionally by ordinal only, through a .def
// file and dlltool), importing from others by name or ordinal, with a VERSIONINFO resource
// compiled by windres. Header-only: the diag tests are the only users.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"
#include "native_fixtures.hpp"

namespace aitk::test {

struct WinDll {
    std::filesystem::path out;
    std::vector<std::string> exports;  // int NAME(void) { return 1; }
    // Functions imported by name: declared dllimport and called; resolved against `link`.
    std::vector<std::string> imports;
    std::vector<std::filesystem::path> link;  // DLLs or import libraries (.a) to link against
    std::string extra_source;                 // appended as is
    // FILEVERSION of a VERSIONINFO resource ("14,29,30133,0"); empty: no resource.
    std::string file_version;
};

inline std::filesystem::path build_win_dll(const WinDll& d) {
    namespace fs = std::filesystem;
    fs::create_directories(d.out.parent_path());
    fs::path work = d.out.parent_path() / (".win-" + d.out.filename().string());
    fs::create_directories(work);
    std::string src;
    for (const auto& name : d.imports)
        src += "__declspec(dllimport) int " + name + "(void);\n";
    for (const auto& name : d.exports)
        src += "__declspec(dllexport) int " + name + "(void) { return 1; }\n";
    src += "__declspec(dllexport) int uses_imports(void) { return 0";
    for (const auto& name : d.imports)
        src += " + " + name + "()";
    src += "; }\n" + d.extra_source;
    aitk::fs::write_file_atomic(work / "src.c", src);
    std::vector<std::string> argv = {
        "x86_64-w64-mingw32-gcc", "-O1", "-shared", "-o", d.out.string(),
        (work / "src.c").string()};
    if (!d.file_version.empty()) {
        std::string dots = d.file_version;
        for (char& c : dots)
            if (c == ',') c = '.';
        aitk::fs::write_file_atomic(
            work / "v.rc",
            "1 VERSIONINFO\nFILEVERSION " + d.file_version + "\nPRODUCTVERSION " + d.file_version +
                "\nBEGIN\n BLOCK \"StringFileInfo\"\n BEGIN\n  BLOCK \"040904B0\"\n"
                "  BEGIN\n   VALUE \"FileVersion\", \"" +
                dots + "\"\n   VALUE \"OriginalFilename\", \"" + d.out.filename().string() +
                "\"\n  END\n END\n BLOCK \"VarFileInfo\"\n BEGIN\n"
                "  VALUE \"Translation\", 0x409, 1200\n END\nEND\n");
        run_build_tool({"x86_64-w64-mingw32-windres", (work / "v.rc").string(), "-O", "coff", "-o",
                        (work / "v.o").string()});
        argv.push_back((work / "v.o").string());
    }
    for (const auto& l : d.link)
        argv.push_back(l.string());
    run_build_tool(argv);
    fs::remove_all(work);
    return d.out;
}

// An import library for `dll` whose functions are imported by ordinal only ("f1 @5 NONAME"):
// what links an importer that asks for ordinals.
inline std::filesystem::path ordinal_import_library(
    const std::filesystem::path& out, const std::string& dll,
    const std::vector<std::pair<std::string, int>>& functions) {
    std::string def = "LIBRARY " + dll + "\nEXPORTS\n";
    for (const auto& [name, ordinal] : functions)
        def += "  " + name + " @" + std::to_string(ordinal) + " NONAME\n";
    std::filesystem::path def_file = out.string() + ".def";
    aitk::fs::write_file_atomic(def_file, def);
    run_build_tool({"x86_64-w64-mingw32-dlltool", "-d", def_file.string(), "-l", out.string()});
    return out;
}

}  // namespace aitk::test
