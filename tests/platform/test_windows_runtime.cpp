// The MSVC runtime check, run as data against a fake System32 folder.
#include "aitk/platform/windows_runtime.hpp"

#include <gtest/gtest.h>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::TempDir;
using aitk::test::write_file;

TEST(MsvcRuntime, ReportsMissingDllsCaseInsensitively) {
    TempDir root;
    auto system32 = system32_folder({{"SystemRoot", root.path.string()}});
    EXPECT_EQ(system32, root.path / "System32");
    EXPECT_EQ(missing_msvc_runtime_dlls(system32),
              (std::vector<std::string>{"msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll",
                                        "vcomp140.dll"}));
    write_file(system32 / "MSVCP140.dll", "MZ");
    write_file(system32 / "vcruntime140.dll", "MZ");
    write_file(system32 / "kernel32.dll", "MZ");
    EXPECT_EQ(missing_msvc_runtime_dlls(system32),
              (std::vector<std::string>{"vcruntime140_1.dll", "vcomp140.dll"}));
    write_file(system32 / "VCRUNTIME140_1.DLL", "MZ");
    write_file(system32 / "vcomp140.dll", "MZ");
    EXPECT_TRUE(missing_msvc_runtime_dlls(system32).empty());
}

TEST(MsvcRuntime, DefaultsAndLink) {
    EXPECT_EQ(system32_folder({}), std::filesystem::path("C:\\Windows") / "System32");
    EXPECT_EQ(system32_folder({{"systemroot", "D:\\Win"}}),
              std::filesystem::path("D:\\Win") / "System32");
    EXPECT_EQ(kVcRedistUrl, "https://aka.ms/vs/17/release/vc_redist.x64.exe");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
