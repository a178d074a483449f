// `aitk-env doctor --scan` and `doctor -p` through the real binary on real native libraries:
// the fbgemm.dll case (a Windows torch\lib copied to Linux, MSVC runtime and libomp140 missing)
// and a Linux prefix whose bundled cuDNN is shadowed by an LD_LIBRARY_PATH entry.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "native_fixtures.hpp"
#include "run_cli.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

using CliRun = aitk::test::CliResult;

CliRun run(const std::vector<std::string>& args, aitk::util::Environment env) {
    return aitk::test::run_cli_in(args, std::move(env));
}

class DoctorScanCli : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("doctor-scan");
    aitk::util::Environment env;

    void SetUp() override {
        env = {{"PATH", "/usr/bin:/bin"},
               {"HOME", dir.path().string()},
               {"AITK_ENV_CACHE_DIR", (dir.path() / "cache").string()},
               {"AITK_ENV_NO_GPU", "1"},
               {"AITK_ENV_PROBE_TIMEOUT", "10"}};
    }

    // site-packages/torch/lib/{c10.dll, fbgemm.dll} as torch 2.4.0's Windows wheel ships them:
    // fbgemm.dll imports libomp140.x86_64.dll (not shipped) and the MSVC runtime (System32's
    // job). The imported DLLs are built so the linker records them, then deleted.
    fs::path make_fbgemm_site() {
        fs::path site = dir.path() / "site-packages";
        fs::path lib = site / "torch" / "lib";
        fs::path gone = dir.path() / "gone";
        auto omp = aitk::test::build_chain_dll(gone / "libomp140.x86_64.dll");
        auto msvcp = aitk::test::build_chain_dll(gone / "msvcp140.dll");
        auto vcrt = aitk::test::build_chain_dll(gone / "vcruntime140_1.dll");
        auto c10 = aitk::test::build_chain_dll(lib / "c10.dll", {msvcp, vcrt});
        aitk::test::build_chain_dll(lib / "fbgemm.dll", {c10, omp, msvcp, vcrt});
        fs::remove_all(gone);
        fs::create_directories(site / "torch-2.4.0.dist-info");
        aitk::fs::write_file_atomic(site / "torch-2.4.0.dist-info" / "METADATA",
                                    "Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0\n");
        return site;
    }
};

TEST_F(DoctorScanCli, FbgemmCaseNamesTheMissingDllsAndTheFixes) {
    if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
    fs::path site = make_fbgemm_site();

    CliRun r = run({"doctor", "--scan", site.string(), "--os", "windows"}, env);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("fbgemm.dll → libomp140.x86_64.dll: not found"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("2.4.1 or later"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("msvcp140.dll: not found"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("vcruntime140_1.dll: not found"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("https://aka.ms/vs/17/release/vc_redist.x64.exe"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("2.4.0"), std::string::npos) << r.out;

    CliRun j = run({"doctor", "--scan", site.string(), "--os", "windows", "--json"}, env);
    EXPECT_EQ(j.exit_code, 1) << j.err;
    json report = json::parse(j.out);
    EXPECT_EQ(report["os"], "windows");
    EXPECT_EQ(report["torch_version"], "2.4.0");
    EXPECT_EQ(report["libraries"], 2);
    std::map<std::string, json> by_name;
    for (const auto& f : report["findings"])
        by_name[f["name"].get<std::string>()] = f;
    ASSERT_TRUE(by_name.count("libomp140.x86_64.dll")) << j.out;
    const json& omp = by_name["libomp140.x86_64.dll"];
    EXPECT_EQ(omp["kind"], "missing");
    EXPECT_EQ(omp["status"], "fail");
    ASSERT_EQ(omp["chain"].size(), 1u);
    EXPECT_EQ(fs::path(omp["chain"][0].get<std::string>()).filename(), "fbgemm.dll");
    EXPECT_NE(omp["fix"].get<std::string>().find("2.4.1"), std::string::npos);
    ASSERT_TRUE(by_name.count("msvcp140.dll"));
    EXPECT_EQ(by_name["msvcp140.dll"]["importers"].size(), 2u) << "c10.dll and fbgemm.dll";
    EXPECT_NE(by_name["msvcp140.dll"]["fix"].get<std::string>().find("vc_redist.x64.exe"),
              std::string::npos);
}

TEST_F(DoctorScanCli, ASystem32WithTheRuntimeLeavesOnlyLibomp) {
    if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
    fs::path site = make_fbgemm_site();
    fs::path system32 = dir.path() / "Windows" / "System32";
    for (auto name : {"msvcp140.dll", "vcruntime140_1.dll"})
        aitk::test::build_chain_dll(system32 / name);

    CliRun j = run({"doctor", "--scan", site.string(), "--os", "windows", "--system32",
                    system32.string(), "--json"},
                   env);
    json report = json::parse(j.out);
    std::vector<std::string> names;
    for (const auto& f : report["findings"])
        names.push_back(f["name"]);
    EXPECT_EQ(names, std::vector<std::string>{"libomp140.x86_64.dll"}) << j.out;
}

// A venv whose torch/lib/libtorch_cuda.so finds cuDNN through DT_RUNPATH
// $ORIGIN/../../nvidia/cudnn/lib, while LD_LIBRARY_PATH names a system CUDA folder holding
// another libcudnn.so.9: ld.so searches LD_LIBRARY_PATH first, so the system copy loads.
class ShadowedPrefix : public DoctorScanCli {
  protected:
    fs::path prefix, system_cuda, bundled;

    void SetUp() override {
        DoctorScanCli::SetUp();
        prefix = dir.path() / "venv";
        fs::path site = prefix / "lib" / "python3.11" / "site-packages";
        fs::create_directories(site);
        aitk::fs::write_file_atomic(prefix / "pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n");
        bundled = site / "nvidia" / "cudnn" / "lib";
        auto cudnn = aitk::test::build_chain_so(bundled / "libcudnn.so.9", {}, "libcudnn.so.9");
        aitk::test::build_chain_so(site / "torch" / "lib" / "libtorch_cuda.so", {cudnn},
                                   "libtorch_cuda.so", "$ORIGIN/../../nvidia/cudnn/lib");
        system_cuda = dir.path() / "usr-local" / "cuda" / "lib64";
        aitk::test::build_chain_so(system_cuda / "libcudnn.so.9", {}, "libcudnn.so.9");
    }
};

TEST_F(ShadowedPrefix, DoctorOnThePrefixNamesTheLdLibraryPathEntry) {
    env["LD_LIBRARY_PATH"] = system_cuda.string();
    CliRun r = run({"doctor", "-p", prefix.string(), "--json"}, env);
    json report = json::parse(r.out);
    ASSERT_TRUE(report["native_libraries"].is_object()) << r.out;
    const json& findings = report["native_libraries"]["findings"];
    ASSERT_EQ(findings.size(), 1u) << r.out;
    const json& f = findings[0];
    EXPECT_EQ(f["kind"], "shadowed");
    EXPECT_EQ(f["name"], "libcudnn.so.9");
    EXPECT_EQ(f["found_origin"], "LD_LIBRARY_PATH");
    EXPECT_EQ(f["found_entry"], system_cuda.string());
    EXPECT_EQ(fs::path(f["bundled"].get<std::string>()).filename(), "libcudnn.so.9");
    EXPECT_NE(f["message"].get<std::string>().find(system_cuda.string()), std::string::npos);
    EXPECT_NE(f["fix"].get<std::string>().find("drop " + system_cuda.string()), std::string::npos)
        << f["fix"];
    EXPECT_NE(f["fix"].get<std::string>().find("shims already drop"), std::string::npos);
    bool check_found = false;
    for (const auto& c : report["checks"]) {
        if (c["id"] == "native.shadowed") {
            check_found = true;
            EXPECT_EQ(c["status"], "warn");
        }
    }
    EXPECT_TRUE(check_found) << r.out;

    CliRun text = run({"doctor", "-p", prefix.string()}, env);
    std::string flat;  // the report wraps long lines: join them again
    for (std::size_t i = 0; i < text.out.size(); ++i) {
        if (text.out[i] != '\n') {
            flat += text.out[i];
            continue;
        }
        flat += ' ';
        while (i + 1 < text.out.size() && text.out[i + 1] == ' ')
            ++i;
    }
    EXPECT_NE(
        flat.find("libcudnn.so.9 found first in " + system_cuda.string() + " (LD_LIBRARY_PATH)"),
        std::string::npos)
        << flat;
}

TEST_F(ShadowedPrefix, WithoutTheEntryThePrefixIsClean) {
    CliRun r = run({"doctor", "--scan", prefix.string(), "--json"}, env);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    json report = json::parse(r.out);
    EXPECT_EQ(report["os"], "linux");
    EXPECT_EQ(report["libraries"], 2);
    EXPECT_TRUE(report["findings"].empty()) << r.out;

    // --search-path simulates an LD_LIBRARY_PATH without touching the environment; an entry
    // the shims keep makes the finding a failure.
    fs::path other = dir.path() / "opt" / "vendor" / "lib";
    aitk::test::build_chain_so(other / "libcudnn.so.9", {}, "libcudnn.so.9");
    CliRun s =
        run({"doctor", "--scan", prefix.string(), "--search-path", other.string(), "--json"}, env);
    EXPECT_EQ(s.exit_code, 1) << s.out;
    json shadow = json::parse(s.out);
    ASSERT_EQ(shadow["findings"].size(), 1u);
    EXPECT_EQ(shadow["findings"][0]["status"], "fail");
    EXPECT_NE(shadow["findings"][0]["fix"].get<std::string>().find(
                  "shims keep it: remove it from LD_LIBRARY_PATH"),
              std::string::npos);
}

TEST_F(DoctorScanCli, BadInputIsExitTwo) {
    CliRun missing = run({"doctor", "--scan", (dir.path() / "nope").string()}, env);
    EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
    EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
    CliRun bad_os = run({"doctor", "--scan", dir.path().string(), "--os", "macos"}, env);
    EXPECT_EQ(bad_os.exit_code, 2);
    EXPECT_NE(bad_os.err.find("--os windows or --os linux"), std::string::npos) << bad_os.err;
    CliRun orphan = run({"doctor", "--os", "windows"}, env);
    EXPECT_EQ(orphan.exit_code, 2) << "--os needs --scan";
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
