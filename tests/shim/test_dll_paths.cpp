// The site-packages module that calls os.add_dll_directory, run by real interpreters with
// os.name set to "nt" and a recorder in place of os.add_dll_directory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/shim/shims.hpp"
#include "shim_support.hpp"

namespace aitk::shim {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// argv: site-packages, sys.prefix to pretend, mode (nt, posix, refuse-cudnn).
constexpr std::string_view kHarness = R"(import json, os, sys
site, prefix, mode = sys.argv[1:4]
calls = []
def record(path):
    if mode == "refuse-cudnn" and path.endswith(os.path.join("cudnn", "bin")):
        raise OSError(5, "refused")
    calls.append(path)
    return path
os.name = "posix" if mode == "posix" else "nt"
os.add_dll_directory = record
sys.prefix = prefix
sys.path.insert(0, site)
import _aitk_env_dll_paths as module
print(json.dumps({"calls": calls, "added": len(module.added)}))
)";

class DllPaths : public ::testing::Test {
  protected:
    void SetUp() override {
        site_ = dir_.path() / "site-packages";
        extra_ = dir_.path() / "Zo\xC3\xAB's dlls";
        fake_prefix_ = dir_.path() / "prefix";
        for (const auto& folder :
             {site_ / "torch/lib", site_ / "nvidia/cudnn/bin", site_ / "nvidia/cublas/bin",
              site_ / "nvidia/nccl/lib", extra_, fake_prefix_ / "Library/bin"}) {
            stdfs::create_directories(folder);
        }
        fs::write_file_atomic(site_ / "nvidia/README.txt", "not a folder");
        PrefixEnvironment prefix{"C:\\env", "", {}, ShimOs::windows, {}};
        prefix.dll_directories = {extra_, dir_.path() / "missing", site_ / "torch/lib"};
        for (const auto& file : render_shims(prefix, "Lib/site-packages")) {
            if (file.path.parent_path() == "Lib/site-packages") {
                fs::write_file_atomic(site_ / file.path.filename(), file.content);
            }
        }
        fs::write_file_atomic(dir_.path() / "harness.py", kHarness);
    }

    nlohmann::json run_harness(const stdfs::path& python, const std::string& mode) {
        auto result = test::run({python.string(), (dir_.path() / "harness.py").string(),
                                 site_.string(), fake_prefix_.string(), mode});
        EXPECT_TRUE(result.succeeded()) << result.err;
        EXPECT_EQ(result.err, "");
        return nlohmann::json::parse(result.out);
    }

    fs::TempDir dir_ = fs::TempDir::create("aitk-shim-dll");
    stdfs::path site_, extra_, fake_prefix_;
};

std::vector<stdfs::path> interpreters() {
    std::vector<stdfs::path> found;
    for (const char* version : {"3.8.18", "3.12.1", "3.13.0"}) {
        stdfs::path python = stdfs::path("/root/.pyenv/versions") / version / "bin/python";
        if (stdfs::exists(python)) found.push_back(python);
    }
    return found;
}

TEST_F(DllPaths, OnWindowsAddsEachExistingFolderOnce) {
    auto pythons = interpreters();
    ASSERT_FALSE(pythons.empty());
    for (const auto& python : pythons) {
        SCOPED_TRACE(python.string());
        nlohmann::json expected = {
            {"calls",
             {(site_ / "torch/lib").string(), (site_ / "nvidia/cublas/bin").string(),
              (site_ / "nvidia/cudnn/bin").string(), (fake_prefix_ / "Library/bin").string(),
              extra_.string()}},
            {"added", 5},
        };
        EXPECT_EQ(run_harness(python, "nt"), expected);
    }
}

TEST_F(DllPaths, ElsewhereDoesNothing) {
    EXPECT_EQ(run_harness(test::kPython, "posix"),
              (nlohmann::json{{"calls", nlohmann::json::array()}, {"added", 0}}));
}

TEST_F(DllPaths, AFolderTheSystemRefusesIsSkippedWithoutARaise) {
    nlohmann::json expected = {
        {"calls",
         {(site_ / "torch/lib").string(), (site_ / "nvidia/cublas/bin").string(),
          (fake_prefix_ / "Library/bin").string(), extra_.string()}},
        {"added", 4},
    };
    EXPECT_EQ(run_harness(test::kPython, "refuse-cudnn"), expected);
}

TEST_F(DllPaths, ThePthFileImportsTheModuleQuietlyAtInterpreterStart) {
    stdfs::path venv = dir_.path() / "venv";
    test::make_venv(venv, test::kPython);
    stdfs::path venv_site = venv / "lib/python3.12/site-packages";
    ASSERT_TRUE(stdfs::is_directory(venv_site));
    for (const char* name : {"aitk_env_dll_paths.pth", "_aitk_env_dll_paths.py"}) {
        stdfs::copy_file(site_ / name, venv_site / name);
    }
    auto result = test::run({(venv / "bin/python").string(), "-c",
                             "import sys; print('_aitk_env_dll_paths' in sys.modules)"});
    ASSERT_TRUE(result.succeeded()) << result.err;
    EXPECT_EQ(result.out, "True\n");
    EXPECT_EQ(result.err, "");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::shim
