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
#include "../platform/fake_machine.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

#ifdef _WIN32

class WindowsFlowCli : public TorchMirrorTest {
  protected:
    void SetUp() override {
        TorchMirrorTest::SetUp();
        aitk::fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
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

    aitk::fs::TempDir work = aitk::fs::TempDir::create("aitk-windows-flow");
};

TEST_F(WindowsFlowCli, LocksForWindowsAndLinuxTargets) {
    auto locked = lock();
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const auto text = aitk::fs::read_file(work.path() / "env.lock.yml");
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
    EXPECT_EQ(printed.out, aitk::fs::read_file(work.path() / "env.yml"));
    EXPECT_EQ(printed.out.find('\r'), std::string::npos);
    EXPECT_EQ(written.err.find('\r'), std::string::npos);
}

// The stand-in NVML as a DLL, loaded by aitk-env.exe through LoadLibrary, with Windows driver
// numbers: each GPU gets the CUDA build of torch it runs, and a GPU no build runs is refused
// rather than given the CPU build.
TEST_F(WindowsFlowCli, EachGpuGetsTheCudaBuildItRunsAndNeverTheCpuBuildSilently) {
    struct Case {
        const char* name;
        const char* nvml;  // nullptr: no NVIDIA driver
        int exit_code;
        const char* torch;  // exit 0: the build the plan installs; else part of the error
    };
    // This mirror has torch 2.9.0 for cpu, cu126 and cu130; torch 2.9.0's CUDA builds are cu126
    // and cu128 (cu130 experimental), and CUDA 12 minor-version compatibility lets every CUDA 12
    // build run on a Windows driver >= 528.33.
    const Case cases[] = {
        // cu128 is preferred, is not on the index, and is passed over for cu126.
        {"rtx4090-581", "driver=581.57\ncuda=13000\ngpu=NVIDIA GeForce RTX 4090|24564|8.9\n", 0,
         "2.9.0+cu126"},
        // A CUDA 11.8 driver runs none of torch 2.9.0's builds.
        {"rtx3090-522", "driver=522.06\ncuda=11080\ngpu=NVIDIA GeForce RTX 3090|24576|8.6\n", 3,
         "update the driver"},
        // sm_120: cu128 is passed over as above, and the experimental cu130 (which the index
        // has, and this driver runs) is taken; never the CPU build.
        {"rtx5090-581", "driver=581.57\ncuda=13000\ngpu=NVIDIA GeForce RTX 5090|32607|12.0\n", 0,
         "2.9.0+cu130"},
        {"no-gpu", nullptr, 0, "2.9.0+cpu"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<std::string> env = {"-u AITK_ENV_NO_GPU", "AITK_ENV_NVIDIA_SOURCES=nvml"};
        if (c.nvml != nullptr) {
            env.push_back("AITK_ENV_NVML_LIBRARY=" +
                          util::utf8_of(install_fake_nvml(work.path() / c.name, c.nvml)));
        } else {
            env.push_back("AITK_ENV_NVML_LIBRARY=" + path("no-such-nvml.dll"));
        }
        auto r = run({"setup", "-r", path("requirements.txt"), "--project", path(""), "-p",
                      path(std::string("env-") + c.name), "--python", AITK_STANDIN_PYTHON,
                      "--dry-run", "--json"},
                     env);
        ASSERT_EQ(r.exit_code, c.exit_code) << r.err << r.out;
        if (c.exit_code != 0) {
            EXPECT_NE(r.err.find(c.torch), std::string::npos) << r.err;
            EXPECT_EQ(r.out, "") << "a refusal plans nothing";
            continue;
        }
        std::string planned;
        const auto outcome = nlohmann::json::parse(r.out);
        for (const auto& p : outcome["sync"]["install"]) {
            if (p["name"] == "torch") planned = p["version"].get<std::string>();
        }
        EXPECT_EQ(planned, c.torch) << r.out;
    }
}

TEST_F(WindowsFlowCli, AVariableHoldingANonAsciiPathNamesThatFolder) {
    // CLI11 reads AITK_ENV_* through getenv, in the ANSI code page; the value is read again
    // as UTF-16. The flag still wins over the variable.
    const std::string cache = path("Zoë 日本 cache");
    auto r = run_cli({"cache", "dir"}, "", {"AITK_ENV_CACHE_DIR=" + cache});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, cache + "\n");
    r = run_cli({"--cache-dir", path("flag cache"), "cache", "dir"}, "",
                {"AITK_ENV_CACHE_DIR=" + cache});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, path("flag cache") + "\n");
}

TEST_F(WindowsFlowCli, TheExeAsksForLongPathsAndUtf8AndNoElevation) {
    // The application manifest (src/cli/windows/aitk-env.manifest) is embedded as a resource.
    const auto exe = aitk::fs::read_file(AITK_ENV_EXE);
    EXPECT_NE(exe.find("<longPathAware xmlns=\"http://schemas.microsoft.com/SMI/2016/"
                       "WindowsSettings\">true</longPathAware>"),
              std::string::npos);
    EXPECT_NE(exe.find("<activeCodePage xmlns=\"http://schemas.microsoft.com/SMI/2019/"
                       "WindowsSettings\">UTF-8</activeCodePage>"),
              std::string::npos);
    EXPECT_NE(exe.find("<requestedExecutionLevel level=\"asInvoker\""), std::string::npos);
}

TEST_F(WindowsFlowCli, ASyncThatDropsAPackageMovesItsFilesOutAndVerifies) {
    // Removal moves files into the transaction's trash, whose folders do not exist yet:
    // Windows reports that as ERROR_PATH_NOT_FOUND, not as ENOENT.
    ASSERT_EQ(lock().exit_code, 0);
    ASSERT_EQ(setup("env").exit_code, 0);
    const auto site = work.path() / "env" / "Lib" / "site-packages";
    ASSERT_TRUE(stdfs::is_directory(site / "requests"));
    aitk::fs::write_file_atomic(work.path() / "less.txt", "torch==2.9.0\n");
    auto relocked = run({"lock", "-r", path("less.txt"), "-o", path("less.lock.yml"), "--python",
                         "3.12.1", "--target", "windows-x86_64-cpu"});
    ASSERT_EQ(relocked.exit_code, 0) << relocked.err;
    auto synced = run({"sync", "-l", path("less.lock.yml"), "-p", path("env")});
    ASSERT_EQ(synced.exit_code, 0) << synced.err;
    EXPECT_FALSE(stdfs::exists(site / "requests"));
    EXPECT_TRUE(stdfs::is_directory(site / "torch"));
    auto clean = run({"verify", "-p", path("env")});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
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
    EXPECT_EQ(aitk::fs::read_file(prefix / "Scripts" / "torchrun.exe").substr(0, 2), "MZ");

    auto clean = run({"verify", "-p", path("env")});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    aitk::fs::write_file_atomic(prefix / "Lib" / "site-packages" / "torch" / "__init__.py",
                                "changed\n");
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

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
