// `aitk-env doctor --scan DIR --os windows` through the real binary on real mingw-w64 DLLs: the
// WinError 127 / 1114 / 193 findings fail doctor, with their win_error code and fields in the
// JSON; a DLL loaded at run time that is found nowhere is a warning that leaves the exit code 0.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "pe_fixtures.hpp"
#include "run_cli.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;
using aitk::test::build_win_dll;
using aitk::test::WinDll;

using CliRun = aitk::test::CliResult;

class DoctorWindowsScanCli : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
        tmp_ = std::make_unique<aitk::fs::TempDir>(aitk::fs::TempDir::create("doctor-winscan"));
        root = dir() / "site-packages";
        env = {{"PATH", "/usr/bin:/bin"},
               {"HOME", dir().string()},
               {"AITK_ENV_CACHE_DIR", (dir() / "cache").string()},
               {"AITK_ENV_NO_GPU", "1"},
               {"AITK_ENV_PROBE_TIMEOUT", "10"}};
    }
    fs::path dir() const { return tmp_->path(); }

    CliRun run(std::vector<std::string> args) {
        args.insert(args.begin(), {"doctor", "--scan", root.string(), "--os", "windows"});
        return aitk::test::run_cli_in(args, env);
    }

    // The one finding of a --json run.
    json only_finding(const CliRun& r) {
        json report = json::parse(r.out);
        EXPECT_EQ(report["findings"].size(), 1u) << r.out;
        return report["findings"].empty() ? json::object() : report["findings"][0];
    }

    fs::path root;
    aitk::util::Environment env;

  private:
    std::unique_ptr<aitk::fs::TempDir> tmp_;
};

TEST_F(DoctorWindowsScanCli, AMissingExportIsWinError127AndFails) {
    auto full = build_win_dll({dir() / "build" / "zlibwapi.dll", {"f1", "f2"}, {}, {}, {}, {}});
    build_win_dll({root / "torch" / "lib" / "torch_cpu.dll", {"g"}, {"f1", "f2"}, {full}, {}, {}});
    fs::remove_all(dir() / "build");
    fs::path old = dir() / "old-zlib";
    build_win_dll({old / "zlibwapi.dll", {"f1"}, {}, {}, {}, {}});

    CliRun j = run({"--search-path", old.string(), "--json"});
    EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
    json f = only_finding(j);
    EXPECT_EQ(f["kind"], "missing-export");
    EXPECT_EQ(f["status"], "fail");
    EXPECT_EQ(f["win_error"], 127);
    EXPECT_EQ(f["name"], "zlibwapi.dll");
    EXPECT_EQ(f["symbols"], json::array({"f2"}));
    EXPECT_EQ(f["symbol_count"], 1);
    EXPECT_EQ(f["found"], (old / "zlibwapi.dll").string());
    EXPECT_EQ(f["found_origin"], "PATH");
    EXPECT_EQ(f["found_entry"], old.string());
    ASSERT_EQ(f["chain"].size(), 1u);
    EXPECT_EQ(fs::path(f["chain"][0].get<std::string>()).filename(), "torch_cpu.dll");
    EXPECT_NE(f["message"].get<std::string>().find("does not export f2 (WinError 127"),
              std::string::npos)
        << f["message"];
    EXPECT_NE(f["fix"].get<std::string>().find("drop " + old.string() + " from PATH"),
              std::string::npos)
        << f["fix"];
    EXPECT_NE(f["fix"].get<std::string>().find("shims keep it"), std::string::npos) << f["fix"];
    EXPECT_EQ(f["version"], "");

    CliRun text = run({"--search-path", old.string()});
    EXPECT_EQ(text.exit_code, 1);
    EXPECT_NE(text.out.find("native.missing-export"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("WinError 127"), std::string::npos) << text.out;
}

TEST_F(DoctorWindowsScanCli, AnOldVisualCppRuntimeIsWinError1114AndFails) {
    auto msvcp = build_win_dll({dir() / "build" / "msvcp140.dll", {"m"}, {}, {}, {}, {}});
    build_win_dll({root / "torch" / "lib" / "c10.dll", {"c"}, {"m"}, {msvcp}, {}, {}});
    fs::remove_all(dir() / "build");
    fs::create_directories(root / "torch-2.6.0.dist-info");
    fs::path system32 = dir() / "System32";
    build_win_dll({system32 / "msvcp140.dll", {"m"}, {}, {}, {}, "14,38,33135,0"});

    CliRun j = run({"--system32", system32.string(), "--json"});
    EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
    json f = only_finding(j);
    EXPECT_EQ(f["kind"], "outdated-runtime");
    EXPECT_EQ(f["status"], "fail");
    EXPECT_EQ(f["win_error"], 1114);
    EXPECT_EQ(f["version"], "14.38.33135.0");
    EXPECT_EQ(f["minimum_version"], "14.40");
    EXPECT_EQ(f["found_origin"], "System32");
    EXPECT_NE(f["message"].get<std::string>().find("torch 2.6.0 is built with (WinError 1114"),
              std::string::npos)
        << f["message"];
    EXPECT_EQ(f["fix"],
              "install the latest Microsoft Visual C++ Redistributable (x64) from "
              "https://aka.ms/vs/17/release/vc_redist.x64.exe");

    // The current runtime: clean, exit 0.
    fs::remove(system32 / "msvcp140.dll");
    build_win_dll({system32 / "msvcp140.dll", {"m"}, {}, {}, {}, "14,42,34433,0"});
    CliRun ok = run({"--system32", system32.string(), "--json"});
    EXPECT_EQ(ok.exit_code, 0) << ok.out;
    EXPECT_TRUE(json::parse(ok.out)["findings"].empty()) << ok.out;
}

TEST_F(DoctorWindowsScanCli, ARuntimeLoadIsAWarningAndLeavesExitZero) {
    build_win_dll({root / "nvidia" / "cudnn" / "bin" / "cudnn64_9.dll",
                   {"f"},
                   {},
                   {},
                   "#include <windows.h>\n__declspec(dllexport) void* ops(void) { return "
                   "LoadLibraryA(\"cudnn_ops64_9.dll\"); }\n",
                   {}});
    CliRun j = run({"--json"});
    EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
    json f = only_finding(j);
    EXPECT_EQ(f["kind"], "runtime-load");
    EXPECT_EQ(f["status"], "warn");
    EXPECT_EQ(f["win_error"], 126);
    EXPECT_EQ(f["name"], "cudnn_ops64_9.dll");
    EXPECT_EQ(f["searched"].size(), 2u) << "own folder, System32";
    EXPECT_NE(f["message"].get<std::string>().find(
                  "cudnn64_9.dll \u2192 cudnn_ops64_9.dll: loaded at run time with LoadLibrary, "
                  "not in the import tables: not found"),
              std::string::npos)
        << f["message"];

    CliRun text = run({});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("native.runtime-load"), std::string::npos) << text.out;
}

TEST_F(DoctorWindowsScanCli, AWrongArchitectureSaysWinError193) {
    if (!aitk::test::have_mingw(32)) GTEST_SKIP() << "i686-w64-mingw32-gcc is not installed";
    aitk::test::build_chain_dll(root / "a.dll");
    aitk::test::build_chain_dll(root / "b.dll");
    aitk::test::build_chain_dll(root / "old" / "x86.dll", {}, 32);
    CliRun j = run({"--json"});
    EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
    json f = only_finding(j);
    EXPECT_EQ(f["kind"], "wrong-architecture");
    EXPECT_EQ(f["win_error"], 193);
    EXPECT_NE(
        f["message"].get<std::string>().find("(WinError 193: %1 is not a valid Win32 application)"),
        std::string::npos)
        << f["message"];
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
