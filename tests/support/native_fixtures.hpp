#pragma once
// Real native libraries for the diag tests, compiled by the tests themselves: Windows DLLs and
// EXEs with mingw-w64 (delay-load imports linked by lld-link, which fills the delay-import
// directory that GNU ld leaves empty), ELF shared objects with gcc. Each builder throws
// std::runtime_error with the compiler's output when a build fails; have_*() say whether the
// toolchain is installed so a test can GTEST_SKIP (CI installs all of them: .ci/deps).
#include <filesystem>
#include <string>
#include <vector>

namespace aitk::test {

// Runs a build tool (a compiler, windres, dlltool); throws with its output when it fails.
void run_build_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {});

bool have_mingw(int bits = 64);  // x86_64-w64-mingw32-gcc / i686-w64-mingw32-gcc
bool have_delay_load_tools();    // llvm-dlltool-14 and lld-link-14 (plus mingw 64-bit)

struct PeBuild {
    std::filesystem::path out;  // the .dll / .exe / .pyd written
    std::string c_source;       // compiled as is
    // DLLs imported normally: each is linked directly (GNU ld reads a DLL's export table), so
    // it must exist when this is built; delete it afterwards to make it "missing".
    std::vector<std::filesystem::path> imports;
    // DLL names imported with delay-load: functions "<stem>_fn" (e.g. c.dll → c_fn) that
    // c_source calls must be declared there; the DLL itself need not exist.
    std::vector<std::string> delay_imports;
    bool executable = false;  // an .exe instead of a DLL
    int bits = 64;            // 32: i686-w64-mingw32
};
// Builds one PE image. A DLL exports `<stem>_fn` for each stem given by the source; keep it
// simple: `__declspec(dllexport) int x_fn(void) { return 1; }`.
std::filesystem::path build_pe(const PeBuild& build);

// A DLL named `out` exporting `int <stem>_fn(void)` and importing each of `imports` (calls
// their `<stem>_fn`): the quickest way to make import chains. Stems are file stems with
// non-identifier characters replaced by '_' ("libomp140.x86_64.dll" → libomp140_x86_64_fn).
std::filesystem::path build_chain_dll(const std::filesystem::path& out,
                                      const std::vector<std::filesystem::path>& imports = {},
                                      int bits = 64);

struct ElfBuild {
    std::filesystem::path out;  // libx.so (or an executable)
    std::string c_source;
    // Shared objects linked by path; DT_NEEDED gets each one's SONAME (or file name).
    std::vector<std::filesystem::path> needed;
    std::string soname;   // -Wl,-soname; empty: none
    std::string rpath;    // DT_RPATH ("$ORIGIN/../lib"); empty: none
    std::string runpath;  // DT_RUNPATH; empty: none (rpath and runpath are exclusive)
    bool executable = false;
    bool m32 = false;  // -m32 when gcc can (multilib); check have_gcc_m32()
};
std::filesystem::path build_elf(const ElfBuild& build);
bool have_gcc_m32();

// A shared object exporting `int <stem>_fn(void)` that needs each of `needed`.
std::filesystem::path build_chain_so(const std::filesystem::path& out,
                                     const std::vector<std::filesystem::path>& needed = {},
                                     const std::string& soname = {},
                                     const std::string& runpath = {},
                                     const std::string& rpath = {});

// The identifier stem used by the chain builders.
std::string native_stem(const std::filesystem::path& file);

}  // namespace aitk::test
