// The scan options doctor builds for a prefix: a Windows prefix's aitk_env_dll_paths.pth turns
// into the os.add_dll_directory folders of the simulation, in the module's order, so DLLs in
// torch\lib and nvidia\*\bin are found for extension modules elsewhere in site-packages.
#include <gtest/gtest.h>

#include "aitk/app/native_check.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "native_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using aitk::app::NativeScanRequest;

class WindowsPrefix : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("native-check");
    fs::path prefix, site, extra;

    void SetUp() override {
        prefix = dir.path() / "venv";
        site = prefix / "Lib" / "site-packages";
        for (auto d : {site / "torch" / "lib", site / "nvidia" / "cudnn" / "bin",
                       site / "nvidia" / "cublas" / "bin", prefix / "Library" / "bin"})
            fs::create_directories(d);
        extra = dir.path() / "extra's dir";
        fs::create_directories(extra);
        aitk::fs::write_file_atomic(prefix / "pyvenv.cfg",
                                    "home = C:\\Python312\nversion = 3.12.1\n");
    }

    void write_pth() {
        aitk::fs::write_file_atomic(site / "aitk_env_dll_paths.pth",
                                    "import _aitk_env_dll_paths\n");
        std::string literal = extra.string();
        std::string escaped;
        for (char c : literal) {
            if (c == '\'' || c == '\\') escaped += '\\';
            escaped += c;
        }
        aitk::fs::write_file_atomic(site / "_aitk_env_dll_paths.py",
                                    "\"\"\"doc\"\"\"\n\nimport os\n\nEXTRA_DIRECTORIES = ['" +
                                        escaped + "', '" + (dir.path() / "gone").string() + "']\n");
    }

    NativeScanRequest request() const {
        NativeScanRequest r;
        r.root = prefix;
        r.os = aitk::diag::TargetOs::windows;
        r.host_os = false;
        return r;
    }
};

TEST_F(WindowsPrefix, ThePthFoldersBecomeDllDirectoriesInTheModulesOrder) {
    write_pth();
    auto options = aitk::app::native_scan_options(request());
    std::vector<fs::path> want = {site / "torch" / "lib", site / "nvidia" / "cublas" / "bin",
                                  site / "nvidia" / "cudnn" / "bin", prefix / "Library" / "bin",
                                  extra};
    EXPECT_EQ(options.windows.dll_directories, want) << "existing folders only, extra last";
    EXPECT_FALSE(options.windows.system32.has_value()) << "another OS: System32 unknown";
    EXPECT_TRUE(options.windows.path.empty());
}

TEST_F(WindowsPrefix, WithoutThePthNothingIsAdded) {
    auto options = aitk::app::native_scan_options(request());
    EXPECT_TRUE(options.windows.dll_directories.empty());
}

TEST_F(WindowsPrefix, AnExtensionModuleFindsTorchDllsOnlyThroughThePth) {
    if (!aitk::test::have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
    auto c10 = aitk::test::build_chain_dll(site / "torch" / "lib" / "c10.dll");
    aitk::test::build_chain_dll(site / "torchvision" / "_C.pyd", {c10});

    auto without = aitk::app::run_native_scan(request());
    ASSERT_EQ(without.findings.size(), 1u);
    EXPECT_EQ(without.findings[0].name, "c10.dll");
    EXPECT_EQ(without.findings[0].kind, aitk::diag::FindingKind::missing);

    write_pth();
    auto with = aitk::app::run_native_scan(request());
    EXPECT_TRUE(with.findings.empty()) << with.findings[0].message;
    EXPECT_EQ(with.libraries, 2u);
}

TEST(NativeCheckStatus, ShadowingIsAWarningOnlyWhenTheShimsDropTheEntry) {
    aitk::diag::Finding f;
    f.kind = aitk::diag::FindingKind::shadowed;
    f.found_origin = "LD_LIBRARY_PATH";
    f.found_entry = "/usr/local/cuda-12.4/lib64";
    EXPECT_EQ(aitk::app::finding_status(f), aitk::app::CheckStatus::warn);
    f.found_entry = "/opt/vendor/lib";
    EXPECT_EQ(aitk::app::finding_status(f), aitk::app::CheckStatus::fail);
    f.kind = aitk::diag::FindingKind::missing;
    f.delay_load = true;
    EXPECT_EQ(aitk::app::finding_status(f), aitk::app::CheckStatus::warn);
    f.delay_load = false;
    EXPECT_EQ(aitk::app::finding_status(f), aitk::app::CheckStatus::fail);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
