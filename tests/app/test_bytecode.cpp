// `--compile-bytecode` against a real venv of CPython 3.12: good modules get their
// __pycache__/*.cpython-312.pyc, a module with a syntax error is skipped as pip skips it, and an
// interpreter that cannot run is an error that says so.
#include "aitk/app/bytecode.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

const std::filesystem::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

class BytecodeTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python312)) GTEST_SKIP() << "no " << python312;
        util::ProcessRequest venv;
        venv.argv = {python312.string(), "-m", "venv", "--without-pip",
                     (work.path() / "venv").string()};
        auto made = util::run_process(venv);
        ASSERT_TRUE(made && made->succeeded()) << (made ? made->err : made.error().message);
        auto read = install::PrefixLayout::read(work.path() / "venv", false);
        ASSERT_TRUE(read);
        layout = *read;
    }

    std::filesystem::path module(const std::string& relative, const std::string& source) {
        auto path = layout.purelib / relative;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << source;  // no fsync: hundreds of files
        return path;
    }

    static std::filesystem::path pyc(const std::filesystem::path& py) {
        return py.parent_path() / "__pycache__" / (py.stem().string() + ".cpython-312.pyc");
    }

    fs::TempDir work = fs::TempDir::create("aitk-bytecode");
    install::PrefixLayout layout;
};

TEST_F(BytecodeTest, GoodModulesGetPycFilesAndASyntaxErrorIsSkipped) {
    std::vector<std::filesystem::path> files = {
        module("pkg/__init__.py", "from .core import answer\n"),
        module("pkg/core.py", "def answer():\n    return 42\n"),
        module("pkg/sub/deep.py", "VALUE = 'deep'\n"),
        module("pkg/py2_leftover.py", "print 'hello'\n"),
        module("pkg/m\xc3\xb6"
               "dule.py",
               "X = 1\n"),  // a non-ASCII name arrives intact
    };
    auto outcome = compile_bytecode(layout, files, 2);
    EXPECT_EQ(outcome.files, 5u);
    EXPECT_TRUE(std::filesystem::is_regular_file(pyc(files[0])));
    EXPECT_TRUE(std::filesystem::is_regular_file(pyc(files[1])));
    EXPECT_TRUE(std::filesystem::is_regular_file(pyc(files[2])));
    EXPECT_FALSE(std::filesystem::exists(pyc(files[3])));
    EXPECT_TRUE(std::filesystem::is_regular_file(pyc(files[4])));

    // The venv's interpreter imports through them: the .pyc of pkg.core is what it loads.
    util::ProcessRequest run;
    run.argv = {layout.python.string(), "-c",
                "import pkg, pkg.core; print(pkg.answer(), pkg.core.__cached__)"};
    auto ran = util::run_process(run);
    ASSERT_TRUE(ran && ran->succeeded()) << (ran ? ran->err : ran.error().message);
    EXPECT_EQ(ran->out, "42 " + pyc(files[1]).string() + "\n");
}

TEST_F(BytecodeTest, AListLargerThanOneWorkerTakesIsSplitAndEveryFileIsCompiled) {
    std::vector<std::filesystem::path> files;
    for (int i = 0; i < 600; ++i) {
        files.push_back(
            module("many/m" + std::to_string(i) + ".py", "N = " + std::to_string(i) + "\n"));
    }
    files.push_back(module("many/broken.py", "def f(:\n"));
    auto outcome = compile_bytecode(layout, files, 4);
    EXPECT_EQ(outcome.files, 601u);
    std::size_t compiled = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(layout.purelib / "many" / "__pycache__")) {
        compiled += entry.path().extension() == ".pyc";
    }
    EXPECT_EQ(compiled, 600u);
}

TEST_F(BytecodeTest, NoFilesRunsNothing) {
    // compileall without names would compile the whole sys.path; no interpreter is even needed.
    auto missing = layout;
    missing.python = work.path() / "no-such-python";
    EXPECT_EQ(compile_bytecode(missing, {}, 0).files, 0u);
    EXPECT_EQ(compile_bytecode(missing, {"/a/line\nbreak.py"}, 0).files, 0u);
}

TEST_F(BytecodeTest, AMissingInterpreterIsAClearError) {
    auto missing = layout;
    missing.python = work.path() / "no-such-python";
    auto file = module("pkg/core.py", "X = 1\n");
    try {
        compile_bytecode(missing, {file}, 1);
        FAIL() << "expected util::Error";
    } catch (const util::Error& e) {
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        std::string what = e.what();
        EXPECT_NE(what.find("cannot run " + missing.python.string()), std::string::npos) << what;
        EXPECT_NE(e.hint().find("--compile-bytecode"), std::string::npos) << e.hint();
    }
    EXPECT_FALSE(std::filesystem::exists(pyc(file)));
}

TEST_F(BytecodeTest, AnInterpreterThatFailsIsNotMistakenForASyntaxError) {
    // Exit 1 as compileall's "some files failed", but without its report: a broken interpreter.
    auto broken = layout;
    broken.python = work.path() / "broken-python";
    fs::write_file_atomic(broken.python,
                          "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n");
    ::chmod(broken.python.c_str(), 0755);
    try {
        compile_bytecode(broken, {module("pkg/core.py", "X = 1\n")}, 1);
        FAIL() << "expected util::Error";
    } catch (const util::Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("exited with status 1"), std::string::npos) << what;
        EXPECT_NE(what.find("Fatal Python error: init_fs_encoding"), std::string::npos) << what;
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
