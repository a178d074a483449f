// The first line(s) of a console script (posix_script_text, and the `#!python` rewrite of
// .data/scripts, which uses the same shebang): nothing in the interpreter's path may be
// interpreted, by sh or by Python. Each hostile prefix path gets a real bin/python (a link to
// pyenv's CPython 3.11, with a pyvenv.cfg so sys.prefix names the prefix), a script written by
// posix_script_text, run by the kernel (shebang or the /bin/sh trampoline); it must print its
// arguments from the prefix's python and leave no PWNED file anywhere; and the script text must
// compile as Python with warnings as errors. POSIX only (tests/windows-excluded.txt).
#include "aitk/install/wheel_install.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/shell_quote.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const stdfs::path real_python = "/root/.pyenv/versions/3.11.7/bin/python3.11";

// Directory names that would run, break or change something if any byte of them were read as
// sh or Python code; each one becomes a prefix of its own.
std::vector<std::string> hostile_names() {
    return {
        "with space",
        "$HOME",
        "$(touch PWNED)",
        "`touch PWNED`",
        "dq\"x",
        "sq'x",
        "'lead",
        "trail'",
        "'''",
        "a''b''''c",
        "bs\\x",
        "\\N{BULLET}\\x4\\u12\\U1\\d\\",
        "nl\nx $(touch PWNED)",
        "cr\rimport os; os.system('touch PWNED')#",
        "cr\rimport\tos;os.system('touch\tPWNED')#",
        "tab\tx",
        "mix '\"$(touch PWNED)\"' \\'\\\" `touch PWNED`",
        std::string(200, 'L'),
    };
}

class ScriptTrampoline : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(real_python)) GTEST_SKIP() << "no " << real_python;
    }

    // <dir>/<name>/bin/python and the script `tool` beside it, importing `argvmod` from bin/.
    stdfs::path make_prefix(const std::string& name) {
        const stdfs::path prefix = dir.path() / "prefixes" / name;
        stdfs::create_directories(prefix / "bin");
        stdfs::create_symlink(real_python, prefix / "bin/python");
        fs::write_file_atomic(prefix / "pyvenv.cfg",
                              "home = " + real_python.parent_path().string() + "\n");
        fs::write_file_atomic(prefix / "bin/argvmod.py",
                              "import sys\n"
                              "def main():\n"
                              "    print(repr(sys.argv[1:]))\n"
                              "    print(repr(sys.prefix))\n"
                              "    return 0\n");
        const stdfs::path tool = prefix / "bin/tool";
        fs::write_file_atomic(tool, posix_script_text(prefix / "bin/python", "argvmod", "main"));
        stdfs::permissions(tool, stdfs::perms::owner_exec, stdfs::perm_options::add);
        return prefix;
    }

    util::ProcessResult run(const std::vector<std::string>& argv) {
        util::ProcessRequest request;
        request.argv = argv;
        request.working_directory = cwd;
        request.environment_changes["HOME"] = (dir.path() / "home").string();
        request.environment_changes["PYTHONPATH"] = std::nullopt;
        request.environment_changes["PYTHONHOME"] = std::nullopt;
        auto result = util::run_process(request);
        EXPECT_TRUE(result.has_value()) << argv.front();
        return result ? *result : util::ProcessResult{};
    }

    // Every file named PWNED under the test's folder, removed (so each case is judged alone).
    std::vector<std::string> pwned() {
        std::vector<std::string> found;
        for (const auto& entry : stdfs::recursive_directory_iterator(dir.path())) {
            if (entry.path().filename() == "PWNED") found.push_back(entry.path().string());
        }
        for (const auto& f : found)
            stdfs::remove(f);
        return found;
    }

    fs::TempDir dir = fs::TempDir::create("trampoline-test");
    stdfs::path cwd = [this] {
        stdfs::create_directories(dir.path() / "cwd");
        stdfs::create_directories(dir.path() / "home");
        return dir.path() / "cwd";
    }();
};

// Python's repr() of a str of printable ASCII and \n, \r, \t (what the names above hold).
std::string python_repr(const std::string& s) {
    const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char quote = use_double ? '"' : '\'';
    std::string out(1, quote);
    for (char c : s) {
        if (c == '\\' || c == quote) {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            out += c;
        }
    }
    return out + quote;
}

TEST(ShellQuote, WritesQuotesAndBackslashesWithoutABackslashInsideSingleQuotes) {
    EXPECT_EQ(util::sh_quote(""), "''");
    EXPECT_EQ(util::sh_quote("/a b/$HOME"), "'/a b/$HOME'");
    EXPECT_EQ(util::sh_quote("it's"), "'it'\"'\"'s'");
    EXPECT_EQ(util::sh_quote("a\\b"), "'a'\"\\\\\"'b'");
    EXPECT_EQ(util::sh_quote("'''").find("'''"), std::string::npos);
}

TEST_F(ScriptTrampoline, PlainPathsKeepAPlainShebang) {
    EXPECT_TRUE(
        posix_script_text("/envs/a/bin/python", "m", "f").starts_with("#!/envs/a/bin/python\n"));
    // A path the kernel would split, cut or that Python would read as a line break: trampoline.
    for (std::string odd : {"/a b/python", "/a\tb/python", "/a\nb/python", "/a\rb/python",
                            "/a\vb/python", "/a\fb/python"}) {
        EXPECT_TRUE(posix_script_text(odd, "m", "f").starts_with("#!/bin/sh\n")) << odd;
    }
    EXPECT_TRUE(posix_script_text("/" + std::string(200, 'x') + "/python", "m", "f")
                    .starts_with("#!/bin/sh\n"));
}

TEST_F(ScriptTrampoline, HostilePrefixPathsRunThePrefixPythonAndExpandNothing) {
    for (const std::string& name : hostile_names()) {
        SCOPED_TRACE(python_repr(name));
        const stdfs::path prefix = make_prefix(name);
        const stdfs::path tool = prefix / "bin/tool";
        auto r = run({tool.string(), "one arg", "$HOME", "`x`"});
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        EXPECT_EQ(r.out, "['one arg', '$HOME', '`x`']\n" + python_repr(prefix.string()) + "\n")
            << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(pwned(), std::vector<std::string>{});

        // Run as `python tool` (as runpy or a debugger would): the first lines are no code.
        auto direct = run({real_python.string(), tool.string(), "two"});
        EXPECT_EQ(direct.exit_code, 0) << direct.err;
        EXPECT_TRUE(direct.out.starts_with("['two']\n")) << direct.out << direct.err;
        EXPECT_EQ(pwned(), std::vector<std::string>{});

        // Python reads the same file as a script: no SyntaxError, no SyntaxWarning (invalid
        // escapes), from the bytes as the interpreter reads them and as text.
        auto compiled = run({real_python.string(), "-W", "error", "-c",
                             "import sys\n"
                             "p = sys.argv[1]\n"
                             "with open(p, 'rb') as f: compile(f.read(), p, 'exec')\n"
                             "with open(p, encoding='utf-8') as f: compile(f.read(), p, 'exec')\n",
                             tool.string()});
        EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
        EXPECT_EQ(compiled.err, "");
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
