// The Windows flow end to end, through aitk-env.exe itself (the cross-built binary, run under
// Wine by .ci/windows): lock for Windows and Linux targets from a local index, setup -l into a
// prefix with the Windows layout (Lib\site-packages, Scripts\*.exe launchers), verify, export,
// bundle and setup --bundle with no network, doctor --scan on real PE files.
//
// What this machine cannot give: a Windows CPython. The interpreter here is a stand-in
// (tests/support/windows/standin_python.c) that answers aitk-env's probe as CPython 3.12.1 for
// win32 would and runs no Python, so the smoke import is skipped (--no-smoke-test) and nothing
// here byte-compiles or builds from source. Everything before the first line of Python runs for
// real: the detection, the lock, the downloads, the venv layout, the launchers, the RECORDs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace {

namespace stdfs = std::filesystem;

#ifdef _WIN32

class WindowsFlowCli : public TorchMirrorTest {
  protected:
    void SetUp() override {
        TorchMirrorTest::SetUp();
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
    }

    // Through the one UTF-8 conversion: `work.path() / name` would read `name` in the ANSI code
    // page on Windows.
    std::string path(const std::string& name) const {
        return util::utf8_of(work.path() / util::path_from_utf8(name));
    }

    CliResult run(std::vector<std::string> args, std::vector<std::string> env = {}) {
        args.insert(args.begin(),
                    {"--cache-dir", path("cache"), "--index-url", server.url("/simple/"),
                     "--torch-index-url", server.url("/whl"), "--no-progress"});
        std::vector<std::string> full_env = {"-u http_proxy", "-u https_proxy",
                                             "-u AITK_ENV_TORCH_BACKEND", "AITK_ENV_NO_GPU=1"};
        full_env.insert(full_env.end(), env.begin(), env.end());
        return run_cli(args, "", full_env);
    }

    CliResult lock() {
        return run({"lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"), "--python",
                    "3.12.1", "--target", "windows-x86_64-cpu", "--target", "linux-x86_64-cpu"});
    }

    CliResult setup(const std::string& prefix) {
        return run({"setup", "-l", path("env.lock.yml"), "-p", path(prefix), "--python",
                    AITK_STANDIN_PYTHON, "--no-smoke-test", "--json"});
    }

    fs::TempDir work = fs::TempDir::create("aitk-windows-flow");
};

TEST_F(WindowsFlowCli, LocksForWindowsAndLinuxTargets) {
    auto locked = lock();
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const auto text = fs::read_file(work.path() / "env.lock.yml");
    EXPECT_NE(text.find("windows-x86_64-cpu"), std::string::npos);
    EXPECT_NE(text.find("linux-x86_64-cpu"), std::string::npos);
    EXPECT_NE(text.find("win_amd64.whl"), std::string::npos);
    EXPECT_NE(text.find("x86_64.whl"), std::string::npos);  // the Linux target's wheels
}

TEST_F(WindowsFlowCli, StdoutCarriesTheSameBytesAsTheFileWithoutCarriageReturns) {
    ASSERT_EQ(lock().exit_code, 0);
    // An export on stdout is byte for byte the one written to a file (stdout is not in text
    // mode, which would write CRLF): piped into a file, it is what a Linux teammate gets.
    auto printed = run({"export", "-l", path("env.lock.yml"), "--format", "env-yml", "--target",
                        "windows-x86_64-cpu"});
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    auto written = run({"export", "-l", path("env.lock.yml"), "--format", "env-yml", "--target",
                        "windows-x86_64-cpu", "-o", path("env.yml")});
    ASSERT_EQ(written.exit_code, 0) << written.err;
    EXPECT_EQ(printed.out, fs::read_file(work.path() / "env.yml"));
    EXPECT_EQ(printed.out.find('\r'), std::string::npos);
    EXPECT_EQ(written.err.find('\r'), std::string::npos);
}

TEST_F(WindowsFlowCli, SetupMakesTheWindowsLayoutAndVerifyChecksIt) {
    ASSERT_EQ(lock().exit_code, 0);
    auto done = setup("env");
    ASSERT_EQ(done.exit_code, 0) << done.err;
    EXPECT_EQ(nlohmann::json::parse(done.out)["target"], "windows-x86_64-cpu");

    const auto prefix = work.path() / "env";
    EXPECT_TRUE(stdfs::is_regular_file(prefix / "pyvenv.cfg"));
    EXPECT_TRUE(stdfs::is_regular_file(prefix / "Scripts" / "python.exe"));
    EXPECT_TRUE(stdfs::is_directory(prefix / "Lib" / "site-packages" / "torch"));
    // torch's console script becomes a real launcher .exe (a PE image, "MZ").
    ASSERT_TRUE(stdfs::is_regular_file(prefix / "Scripts" / "torchrun.exe"));
    EXPECT_EQ(fs::read_file(prefix / "Scripts" / "torchrun.exe").substr(0, 2), "MZ");

    auto clean = run({"verify", "-p", path("env")});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    fs::write_file_atomic(prefix / "Lib" / "site-packages" / "torch" / "__init__.py", "changed\n");
    auto drift = run({"verify", "-p", path("env")});
    EXPECT_EQ(drift.exit_code, 4) << drift.out << drift.err;
    EXPECT_NE((drift.out + drift.err).find("torch"), std::string::npos);
}

TEST_F(WindowsFlowCli, AUnicodePrefixNameIsKeptAsItIs) {
    ASSERT_EQ(lock().exit_code, 0);
    auto done = setup("Zoë env");
    ASSERT_EQ(done.exit_code, 0) << done.err;
    const auto prefix = work.path() / util::path_from_utf8("Zoë env");
    EXPECT_TRUE(stdfs::is_regular_file(prefix / "pyvenv.cfg"));
    // Not double-encoded: no folder named with the code-page reading of the UTF-8 bytes.
    EXPECT_FALSE(stdfs::exists(work.path() / util::path_from_utf8("ZoÃ« env")));
    auto clean = run({"verify", "-p", path("Zoë env")});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
}

TEST_F(WindowsFlowCli, ExportWritesTheWindowsTarget) {
    ASSERT_EQ(lock().exit_code, 0);
    auto requirements = run({"export", "-l", path("env.lock.yml"), "--format", "requirements",
                             "--target", "windows-x86_64-cpu"});
    ASSERT_EQ(requirements.exit_code, 0) << requirements.err;
    EXPECT_NE(requirements.out.find("torch==2.9.0+cpu"), std::string::npos) << requirements.out;
    EXPECT_NE(requirements.out.find("--hash=sha256:"), std::string::npos);
    auto yml = run({"export", "-l", path("env.lock.yml"), "--format", "env-yml", "--target",
                    "windows-x86_64-cpu"});
    ASSERT_EQ(yml.exit_code, 0) << yml.err;
    EXPECT_NE(yml.out.find("windows-x86_64-cpu"), std::string::npos) << yml.out;
    EXPECT_NE(yml.out.find("torch==2.9.0+cpu"), std::string::npos) << yml.out;
}

TEST_F(WindowsFlowCli, ABundleSetsUpWithNoNetwork) {
    ASSERT_EQ(lock().exit_code, 0);
    auto bundled = run({"bundle", "-l", path("env.lock.yml"), "-o", path("env.tar.zst"), "--target",
                        "windows-x86_64-cpu", "--no-python"});
    ASSERT_EQ(bundled.exit_code, 0) << bundled.err;
    // Nothing listens on the indexes now: every byte must come from the bundle.
    CliResult offline =
        run_cli({"--cache-dir", path("other-cache"), "--index-url", "http://127.0.0.1:9/simple/",
                 "--no-progress", "setup", "--bundle", path("env.tar.zst"), "-p", path("restored"),
                 "--python", AITK_STANDIN_PYTHON, "--no-smoke-test"},
                "", {"AITK_ENV_NO_GPU=1"});
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    EXPECT_TRUE(stdfs::is_directory(work.path() / "restored" / "Lib" / "site-packages" / "torch"));
    EXPECT_EQ(run({"verify", "-p", path("restored")}).exit_code, 0);
}

// Real DLLs from mingw-w64 (tests/CMakeLists.txt): aitk_pe_user.dll imports aitk_pe_dep.dll.
TEST_F(WindowsFlowCli, DoctorScanNamesTheMissingDll) {
    const auto tree = work.path() / "tree";
    stdfs::create_directories(tree);
    stdfs::copy_file(AITK_PE_USER_DLL, tree / "aitk_pe_user.dll");
    auto missing = run_cli({"doctor", "--scan", path("tree"), "--os", "windows", "--json"});
    EXPECT_NE(missing.exit_code, 0) << missing.out;
    EXPECT_NE(missing.out.find("aitk_pe_dep.dll"), std::string::npos) << missing.out;

    stdfs::copy_file(AITK_PE_DEP_DLL, tree / "aitk_pe_dep.dll");
    auto complete = run_cli({"doctor", "--scan", path("tree"), "--os", "windows", "--json"});
    EXPECT_EQ(complete.exit_code, 0) << complete.out << complete.err;
}

#else

TEST(WindowsFlowCli, RunsOnWindowsOnly) {
    GTEST_SKIP() << "the Windows flow runs with the windows-cross build under Wine (.ci/windows)";
}

#endif

}  // namespace
}  // namespace aitk::test
