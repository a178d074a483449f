// The Windows shims as data: exact rendered text for values that break naive quoting (spaces,
// %, &, ^, parentheses, quotes, typographic quotes, line breaks, non-ASCII). Activate.ps1 also
// runs when pwsh is installed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/shim/shims.hpp"
#include "aitk/util/utf8.hpp"
#include "shim_support.hpp"

namespace aitk::shim {
namespace AITK_FILE_LOCAL {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kPrefix = "C:\\Users\\Zo\xC3\xAB & Co\\100% env (x86)";
// "’j’" with U+2019.
const std::string kTricky = "a\"b ^c &d |e <f> (g) %PATH% !h! 'i' \xE2\x80\x99j\xE2\x80\x99";

PrefixEnvironment tricky_prefix() {
    // A path from UTF-8 text as the CLI makes it (a plain std::string would be read in the
    // ANSI code page on Windows).
    PrefixEnvironment prefix{util::path_from_utf8(kPrefix), "", {}, ShimOs::windows, {}};
    prefix.variables = {
        {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
        {"TRICKY", kTricky},
        {"MULTI", "a\nb"},
        {"EMPTY", ""},
        {"UNICODE", "Zo\xC3\xAB"},
    };
    // Through the one UTF-8 conversion: on Windows a plain std::string would be read in the
    // ANSI code page.
    prefix.dll_directories = {aitk::util::path_from_utf8("D:\\cuda dlls\\bin"),
                              aitk::util::path_from_utf8("C:\\Zo\xC3\xAB's\\bin")};
    return prefix;
}

const ShimFile& file_named(const std::vector<ShimFile>& files, const std::string& path) {
    for (const auto& file : files) {
        if (file.path == path) return file;
    }
    throw std::runtime_error("no shim " + path);
}

TEST(WindowsShims, FilesAndWhereTheyGo) {
    auto files =
        render_shims(tricky_prefix(), util::path_from_utf8(kPrefix + "\\Lib\\site-packages"));
    ASSERT_EQ(files.size(), 4u);
    EXPECT_EQ(files[0].path, "Scripts/aitk-run.cmd");
    EXPECT_EQ(files[1].path, "Scripts/Activate.ps1");
    EXPECT_EQ(files[2].path, "Lib/site-packages/aitk_env_dll_paths.pth");
    EXPECT_EQ(files[3].path, "Lib/site-packages/_aitk_env_dll_paths.py");
    std::regex placeholder("@[A-Z0-9_]+@");
    for (const auto& file : files) {
        EXPECT_FALSE(file.executable);
        EXPECT_FALSE(std::regex_search(file.content, placeholder)) << file.path;
    }
    EXPECT_EQ(files[2].content, "import _aitk_env_dll_paths\n");
    // A relative site-packages and scripts folder are taken as they are.
    PrefixEnvironment relative{kPrefix, "bin", {}, ShimOs::windows, {}};
    auto other = render_shims(relative, "lib/site-packages");
    EXPECT_EQ(other[0].path, "bin/aitk-run.cmd");
    EXPECT_EQ(other[2].path, "lib/site-packages/aitk_env_dll_paths.pth");
}

TEST(WindowsShims, CmdEscapesEveryValueForSet) {
    auto files = render_shims(tricky_prefix(), "Lib\\site-packages");
    const std::string& cmd = file_named(files, "Scripts/aitk-run.cmd").content;
    // Batch files need CRLF (LF-only files break goto and call :label).
    for (std::size_t i = cmd.find('\n'); i != std::string::npos; i = cmd.find('\n', i + 1)) {
        ASSERT_TRUE(i > 0 && cmd[i - 1] == '\r') << "bare LF at byte " << i;
    }
    EXPECT_THAT(cmd, StartsWith("@echo off\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nsetlocal EnableExtensions DisableDelayedExpansion\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nset _AITK_PREFIX=C:\\Users\\Zo\xC3\xAB ^& Co\\100%% env "
                               "^(x86^)\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nset _AITK_SCRIPTS=C:\\Users\\Zo\xC3\xAB ^& Co\\100%% env "
                               "^(x86^)\\Scripts\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nif not defined TRICKY set TRICKY=a^\"b ^^c ^&d ^|e ^<f^> "
                               "^(g^) %%PATH%% !h! 'i' \xE2\x80\x99j\xE2\x80\x99\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nif not defined PYTORCH_CUDA_ALLOC_CONF set "
                               "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nif not defined UNICODE set UNICODE=Zo\xC3\xAB\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nrem MULTI is not set here: a batch file cannot hold its line "
                               "break.\r\n"));
    EXPECT_THAT(cmd, Not(HasSubstr("EMPTY")));
    EXPECT_THAT(cmd, HasSubstr("\r\nfor %%N in (PYTHONPATH PYTHONHOME PYTHONSTARTUP "
                               "PYTHONUSERBASE VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV "
                               "PYENV_VERSION) do set \"%%N=\"\r\n"));
    EXPECT_THAT(cmd, HasSubstr("\r\nif not \"%_AITK_T:/compat/=%\"==\"%_AITK_T%\" goto "
                               "aitk_path_keep\r\nif not \"%_AITK_T:/cuda=%\"==\"%_AITK_T%\" goto "
                               "aitk_path_next\r\nif not \"%_AITK_T:cudnn=%\"==\"%_AITK_T%\" goto "
                               "aitk_path_next\r\n"));
    // Non-ASCII values are read with the console on UTF-8, and the old code page comes back
    // before the program runs.
    std::size_t switch_on = cmd.find("\r\nchcp 65001 >nul\r\n");
    std::size_t first_value = cmd.find("set _AITK_PREFIX=");
    std::size_t switch_back = cmd.find("\r\nchcp %_AITK_CP% >nul\r\n");
    std::size_t run = cmd.find("\r\nset \"_AITK_SCRIPTS=\" & %*\r\n");
    ASSERT_NE(switch_on, std::string::npos);
    ASSERT_NE(switch_back, std::string::npos);
    ASSERT_NE(run, std::string::npos);
    EXPECT_LT(switch_on, first_value);
    EXPECT_LT(cmd.rfind("UNICODE"), switch_back);
    EXPECT_LT(switch_back, run);
    EXPECT_THAT(cmd, HasSubstr("\r\n:aitk_run_python\r\nset \"_AITK_SCRIPTS=\" & "
                               "\"%_AITK_SCRIPTS%\\python.exe\"\r\n"));
}

TEST(WindowsShims, CmdLeavesTheCodePageAloneForAsciiValues) {
    PrefixEnvironment prefix{
        "C:\\envs\\train", "", {{"OMP_NUM_THREADS", "4"}}, ShimOs::windows, {}};
    const std::string cmd = render_shims(prefix, "Lib\\site-packages")[0].content;
    EXPECT_THAT(cmd, HasSubstr("\r\nrem Every value below is ASCII.\r\n"));
    EXPECT_THAT(cmd, Not(HasSubstr("chcp")));
    EXPECT_THAT(cmd, HasSubstr("\r\nset _AITK_SCRIPTS=C:\\envs\\train\\Scripts\r\n"));
}

TEST(WindowsShims, PowerShellQuotesEveryValue) {
    auto files = render_shims(tricky_prefix(), "Lib\\site-packages");
    const std::string& ps1 = file_named(files, "Scripts/Activate.ps1").content;
    // Windows PowerShell 5.1 reads a script without a BOM in the ANSI code page.
    EXPECT_THAT(ps1, StartsWith("\xEF\xBB\xBF# Dot-source this file"));
    EXPECT_THAT(ps1, HasSubstr("\n$_aitkPrefix = 'C:\\Users\\Zo\xC3\xAB & Co\\100% env (x86)'\n"));
    EXPECT_THAT(ps1, HasSubstr("\n$_aitkScripts = 'C:\\Users\\Zo\xC3\xAB & Co\\100% env "
                               "(x86)\\Scripts'\n"));
    EXPECT_THAT(ps1, HasSubstr("\n_aitk_default 'TRICKY' 'a\"b ^c &d |e <f> (g) %PATH% !h! ''i'' "
                               "\xE2\x80\x99\xE2\x80\x99j\xE2\x80\x99\xE2\x80\x99'\n"));
    EXPECT_THAT(ps1, HasSubstr("\n_aitk_default 'MULTI' 'a\nb'\n"));
    EXPECT_THAT(ps1, Not(HasSubstr("'EMPTY'")));
    EXPECT_THAT(ps1,
                HasSubstr("Write-Host -NoNewline -ForegroundColor Green '(100__env__x86_) '\n"));
    EXPECT_THAT(ps1, HasSubstr("foreach ($needle in @('/compat/')) {"));
    EXPECT_THAT(ps1, HasSubstr("foreach ($needle in @('/cuda', 'cudnn', 'nccl', 'openmp', "
                               "'/libomp', '/libiomp', '/oneapi/compiler/', "
                               "'/site-packages/nvidia/', '/dist-packages/nvidia/', "
                               "'/site-packages/torch/', '/dist-packages/torch/')) {"));
}

TEST(WindowsShims, DllModuleListsTheExtraFoldersAsAsciiPython) {
    auto files = render_shims(tricky_prefix(), "Lib\\site-packages");
    const std::string& module =
        file_named(files, "Lib/site-packages/_aitk_env_dll_paths.py").content;
    EXPECT_THAT(module, HasSubstr("\nEXTRA_DIRECTORIES = ['D:\\\\cuda dlls\\\\bin', "
                                  "'C:\\\\Zo\\u00eb\\'s\\\\bin']\n"));
    for (char c : module)
        ASSERT_LT(static_cast<unsigned char>(c), 0x80u);
}

// Activate.ps1 for real, when PowerShell is installed (never on the build machines so far).
TEST(WindowsShims, ActivatePs1RunsInPwshWhenInstalled) {
    auto pwsh = test::installed("pwsh");
    if (!pwsh) GTEST_SKIP() << "pwsh is not installed";
    auto dir = fs::TempDir::create("aitk-shim-pwsh");
    PrefixEnvironment prefix{"C:\\envs\\it's here", "", {}, ShimOs::windows, {}};
    prefix.variables = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                        {"TRICKY", kTricky}};
    const std::string ps1 = render_shims(prefix, "Lib\\site-packages")[1].content;
    fs::write_file_atomic(dir.path() / "Activate.ps1", ps1);
    const std::string script =
        ". ./Activate.ps1; "
        "foreach ($n in 'VIRTUAL_ENV','PYTHONPATH','PIP_INDEX_URL','TRICKY',"
        "'PYTORCH_CUDA_ALLOC_CONF','PATH') { \"$n=$([Environment]::GetEnvironmentVariable($n))\" "
        "}; "
        "deactivate; "
        "foreach ($n in 'VIRTUAL_ENV','PYTHONPATH','PIP_INDEX_URL','TRICKY','PATH') { "
        "\"$n=$([Environment]::GetEnvironmentVariable($n))\" }";
    util::Environment user = {{"PATH", "/usr/bin;C:\\CUDA\\v12.4\\bin"},
                              {"PYTHONPATH", "x"},
                              {"PIP_INDEX_URL", "y"},
                              {"HOME", dir.path().string()}};
    auto result = test::run({pwsh->string(), "-NoProfile", "-NonInteractive", "-Command", script},
                            user, dir.path());
    ASSERT_TRUE(result.succeeded()) << result.err;
    EXPECT_EQ(result.out,
              "VIRTUAL_ENV=C:\\envs\\it's here\n"
              "PYTHONPATH=\n"
              "PIP_INDEX_URL=\n"
              "TRICKY=" +
                  kTricky +
                  "\n"
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                  "PATH=C:\\envs\\it's here\\Scripts;/usr/bin\n"
                  "VIRTUAL_ENV=\n"
                  "PYTHONPATH=x\n"
                  "PIP_INDEX_URL=y\n"
                  "TRICKY=\n"
                  "PATH=/usr/bin;C:\\CUDA\\v12.4\\bin\n");
}

// verify leaves out exactly the site-packages files the shims write (else every Windows prefix
// would report them as extra right after setup).
TEST(WindowsShims, TheSitePackagesFilesTheyWriteAreListedAsTheirOwn) {
    std::vector<std::string> written;
    for (const auto& file : render_shims(tricky_prefix(), "Lib\\site-packages")) {
        const auto text = file.path.generic_string();
        if (text.rfind("Lib/site-packages/", 0) == 0) written.push_back(text.substr(18));
    }
    EXPECT_EQ(written, site_packages_shim_files(true));
    EXPECT_TRUE(site_packages_shim_files(false).empty());
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::shim
