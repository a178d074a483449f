// The environment policy as data: what `aitk-env run` and every shim change, for POSIX and
// Windows prefixes alike (both are evaluated on any host).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aitk/shim/environment_policy.hpp"

namespace aitk::shim {
namespace AITK_FILE_LOCAL {

using ::testing::ElementsAre;
using util::EnvironmentChanges;

PrefixEnvironment posix_prefix() {
    return {"/srv/envs/train", "/srv/envs/train/bin", {}, ShimOs::posix, {}};
}

PrefixEnvironment windows_prefix() {
    return {"C:\\envs\\train", "", {}, ShimOs::windows, {}};
}

TEST(ScrubbedVariables, NamesThatSendPythonOrPipElsewhere) {
    for (const char* name : {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE",
                             "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_VERSION",
                             "PIP_INDEX_URL", "PIP_NO_CACHE_DIR", "PIP_", "PIP_2"}) {
        EXPECT_TRUE(is_scrubbed_variable(name)) << name;
    }
    for (const char* name : {"PYTHONUNBUFFERED", "PYTHONPATHX", "pythonpath", "PIPX_HOME", "PIP",
                             "pip_index_url", "PIP_X.Y", "CONDA_EXE", "PATH", "PYTORCH_X"}) {
        EXPECT_FALSE(is_scrubbed_variable(name)) << name;
    }
}

TEST(ShadowingLibraryDirs, RuntimeFoldersJudgedFromTheirText) {
    for (const char* entry : {
             "/usr/local/cuda/lib64",
             "/usr/local/cuda-12.4/lib64",
             "/usr/local/cuda/lib64/stubs",
             "/opt/CUDA/lib",
             "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin",
             "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin",
             "cuda/lib64",
             "/opt/conda/pkgs/cudatoolkit-11.8.0-h6a678d5_0/lib",
             "/opt/cudnn/lib",
             "C:\\Program Files\\NVIDIA\\CUDNN\\v9.1\\bin\\12.4",
             "/usr/local/nccl_2.18.3/lib",
             "/opt/llvm-openmp/lib",
             "/opt/homebrew/opt/libomp/lib",
             "C:\\tools\\libiomp5\\bin",
             "/opt/intel/oneapi/compiler/2024.0/lib",
             "C:\\Program Files (x86)\\Intel\\oneAPI\\compiler\\latest\\bin",
             "/home/u/.venv/lib/python3.10/site-packages/nvidia/cublas/lib",
             "/usr/lib/python3/dist-packages/nvidia/cudnn/lib",
             "C:\\other\\Lib\\site-packages\\torch\\lib",
         }) {
        EXPECT_TRUE(is_shadowing_library_dir(entry)) << entry;
    }
    for (const char* entry : {
             "",
             "/usr/lib/x86_64-linux-gnu",
             "/usr/local/nvidia/lib64",
             "/usr/lib/wsl/lib",
             "/usr/local/cuda-12.4/compat",
             "/usr/local/cuda/compat/lib",
             "C:\\Windows\\System32",
             "/opt/barracuda/lib",
             "/home/u/site-packages/numpy/lib",
             "/opt/ok",
         }) {
        EXPECT_FALSE(is_shadowing_library_dir(entry)) << entry;
    }
}

TEST(PrefixText, ScriptsFolderInTheConventionOfThePrefixOs) {
    EXPECT_EQ(scripts_text(posix_prefix()), "/srv/envs/train/bin");
    EXPECT_EQ(scripts_text({"/srv/e", "", {}, ShimOs::posix, {}}), "/srv/e/bin");
    EXPECT_EQ(scripts_text({"/srv/e/", "bin", {}, ShimOs::posix, {}}), "/srv/e/bin");
    EXPECT_EQ(scripts_text(windows_prefix()), "C:\\envs\\train\\Scripts");
    EXPECT_EQ(scripts_text({"C:\\e\\", "Scripts", {}, ShimOs::windows, {}}), "C:\\e\\Scripts");
    EXPECT_EQ(scripts_text({"C:\\e", "D:\\elsewhere\\bin", {}, ShimOs::windows, {}}),
              "D:\\elsewhere\\bin");
    EXPECT_EQ(prefix_text(windows_prefix()), "C:\\envs\\train");
}

TEST(PrefixEnvironment, MinimalPosixEnvironment) {
    auto change = prefix_environment(posix_prefix(), {{"PATH", "/usr/bin:/bin"}, {"HOME", "/h"}});
    EXPECT_EQ(change.changes, (EnvironmentChanges{
                                  {"PATH", "/srv/envs/train/bin:/usr/bin:/bin"},
                                  {"VIRTUAL_ENV", "/srv/envs/train"},
                              }));
    EXPECT_TRUE(change.notes.empty());
}

TEST(PrefixEnvironment, TheIssueExample) {
    PrefixEnvironment prefix = posix_prefix();
    prefix.variables = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                        {"OMP_NUM_THREADS", "4"}};
    util::Environment current = {
        {"PATH", "/usr/local/bin:/usr/bin"},
        {"PYTHONPATH", "x"},
        {"PIP_INDEX_URL", "y"},
        {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/ok"},
        {"PYTORCH_CUDA_ALLOC_CONF", "user-set"},
    };
    auto change = prefix_environment(prefix, current);
    EXPECT_EQ(change.changes, (EnvironmentChanges{
                                  {"LD_LIBRARY_PATH", "/opt/ok"},
                                  {"OMP_NUM_THREADS", "4"},
                                  {"PATH", "/srv/envs/train/bin:/usr/local/bin:/usr/bin"},
                                  {"PIP_INDEX_URL", std::nullopt},
                                  {"PYTHONPATH", std::nullopt},
                                  {"VIRTUAL_ENV", "/srv/envs/train"},
                              }));
    EXPECT_THAT(change.notes, ElementsAre("unset PIP_INDEX_URL", "unset PYTHONPATH",
                                          "dropped /usr/local/cuda/lib64 from LD_LIBRARY_PATH",
                                          "kept PYTORCH_CUDA_ALLOC_CONF as already set"));
}

TEST(PrefixEnvironment, PosixPathKeepsEmptyEntriesAndListsTheScriptsFolderOnce) {
    auto change = prefix_environment(
        posix_prefix(), {{"PATH", "/srv/envs/train/bin::/usr/bin:/srv/envs/train/bin:"}});
    EXPECT_EQ(change.changes.at("PATH"), "/srv/envs/train/bin::/usr/bin:");
    // POSIX PATH is not where the loader looks, so CUDA's bin (nvcc) stays.
    change = prefix_environment(posix_prefix(), {{"PATH", "/usr/local/cuda/bin:/usr/bin"}});
    EXPECT_EQ(change.changes.at("PATH"), "/srv/envs/train/bin:/usr/local/cuda/bin:/usr/bin");
}

TEST(PrefixEnvironment, UnsetOrEmptyPathBecomesTheScriptsFolder) {
    EXPECT_EQ(prefix_environment(posix_prefix(), {}).changes.at("PATH"), "/srv/envs/train/bin");
    EXPECT_EQ(prefix_environment(posix_prefix(), {{"PATH", ""}}).changes.at("PATH"),
              "/srv/envs/train/bin");
}

TEST(PrefixEnvironment, LibraryPathLosesEmptyAndShadowingEntries) {
    struct Case {
        std::string before;
        bool changed;
        std::optional<std::string> after;  // nullopt: unset
    };
    for (const Case& c : std::vector<Case>{
             {"/opt/a:/opt/b", false, std::nullopt},
             {":/opt/a::/opt/b:", true, "/opt/a:/opt/b"},
             {"", false, std::nullopt},  // an empty value names no folder: left alone
             {"/usr/local/cuda/lib64", true, std::nullopt},
             {"/usr/local/cuda-12.4/compat:/usr/local/cuda-12.4/lib64:/usr/local/nvidia/lib64",
              true, "/usr/local/cuda-12.4/compat:/usr/local/nvidia/lib64"},
         }) {
        auto change = prefix_environment(posix_prefix(), {{"LD_LIBRARY_PATH", c.before}});
        auto found = change.changes.find("LD_LIBRARY_PATH");
        if (!c.changed) {
            EXPECT_EQ(found, change.changes.end()) << c.before;
        } else {
            ASSERT_NE(found, change.changes.end()) << c.before;
            EXPECT_EQ(found->second, c.after) << c.before;
        }
    }
}

TEST(PrefixEnvironment, EveryScrubbedVariableGoesAndVirtualEnvPointsAtThePrefix) {
    util::Environment current = {
        {"PATH", "/usr/bin"},          {"PYTHONHOME", "/h"},        {"PYTHONSTARTUP", "/s"},
        {"PYTHONUSERBASE", "/u"},      {"VIRTUAL_ENV", "/other"},   {"CONDA_PREFIX", "/c"},
        {"CONDA_DEFAULT_ENV", "base"}, {"PYENV_VERSION", "3.12.1"}, {"PIP_NO_CACHE_DIR", "1"},
        {"pip_lower", "kept"},         {"PIPX_HOME", "kept"},
    };
    auto change = prefix_environment(posix_prefix(), current);
    EXPECT_EQ(change.changes, (EnvironmentChanges{
                                  {"CONDA_DEFAULT_ENV", std::nullopt},
                                  {"CONDA_PREFIX", std::nullopt},
                                  {"PATH", "/srv/envs/train/bin:/usr/bin"},
                                  {"PIP_NO_CACHE_DIR", std::nullopt},
                                  {"PYENV_VERSION", std::nullopt},
                                  {"PYTHONHOME", std::nullopt},
                                  {"PYTHONSTARTUP", std::nullopt},
                                  {"PYTHONUSERBASE", std::nullopt},
                                  {"VIRTUAL_ENV", "/srv/envs/train"},
                              }));
}

TEST(PrefixEnvironment, LockVariablesTheShimCannotOrMustNotSetAreSkipped) {
    PrefixEnvironment prefix = posix_prefix();
    prefix.variables = {
        {"PATH", "/evil"}, {"PYTHONPATH", "/evil"}, {"LD_LIBRARY_PATH", "/x"}, {"BAD-NAME", "x"},
        {"1ST", "x"},      {"EMPTY", ""},           {"PIP_TARGET", "/t"}};
    auto change = prefix_environment(prefix, {{"PATH", "/usr/bin"}});
    EXPECT_EQ(change.changes, (EnvironmentChanges{
                                  {"EMPTY", ""},
                                  {"PATH", "/srv/envs/train/bin:/usr/bin"},
                                  {"VIRTUAL_ENV", "/srv/envs/train"},
                              }));
    EXPECT_THAT(
        change.notes,
        ElementsAre(
            "skipped lock variable 1ST: not a name every shell can set (letters, digits and '_' "
            "only)",
            "skipped lock variable BAD-NAME: not a name every shell can set (letters, digits and "
            "'_' only)",
            "skipped lock variable LD_LIBRARY_PATH: the shim manages it",
            "skipped lock variable PATH: the shim manages it",
            "skipped lock variable PIP_TARGET: the shim manages it",
            "skipped lock variable PYTHONPATH: the shim manages it"));
}

TEST(PrefixEnvironment, WindowsPathIsFilteredAndNamesIgnoreCase) {
    PrefixEnvironment prefix = windows_prefix();
    prefix.variables = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                        {"OMP_NUM_THREADS", "4"},
                        {"EMPTY", ""},
                        {"path", "x"}};
    util::Environment current = {
        {"Path",
         "C:\\envs\\train\\scripts;;\"C:\\Program Files\\Git\\cmd\";C:\\Program Files\\NVIDIA "
         "GPU Computing Toolkit\\CUDA\\v12.4\\bin;C:\\Windows\\System32;C:\\Program Files\\NVIDIA "
         "GPU Computing Toolkit\\CUDA\\v12.4\\compat"},
        {"Pip_Index_Url", "y"},
        {"PythonPath", "x"},
        {"Virtual_Env", "C:\\old"},
        {"omp_num_threads", "8"},
    };
    auto change = prefix_environment(prefix, current);
    EXPECT_EQ(change.changes,
              (EnvironmentChanges{
                  {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                  {"Path",
                   "C:\\envs\\train\\Scripts;C:\\Program Files\\Git\\cmd;C:\\Windows\\System32;"
                   "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\compat"},
                  {"Pip_Index_Url", std::nullopt},
                  {"PythonPath", std::nullopt},
                  {"Virtual_Env", "C:\\envs\\train"},
              }));
    EXPECT_THAT(change.notes,
                ElementsAre("unset Pip_Index_Url", "unset PythonPath",
                            "dropped C:\\Program Files\\NVIDIA GPU Computing "
                            "Toolkit\\CUDA\\v12.4\\bin from PATH",
                            "skipped lock variable EMPTY: Windows cannot hold an empty value",
                            "kept OMP_NUM_THREADS as already set",
                            "skipped lock variable path: the shim manages it"));
    auto result = util::apply_environment_changes(current, change.changes, true);
    EXPECT_EQ(result.at("Virtual_Env"), "C:\\envs\\train");
    EXPECT_EQ(result.count("PythonPath"), 0u);
}

TEST(PrefixEnvironment, AppliedTwiceGivesTheSameEnvironment) {
    PrefixEnvironment prefix = posix_prefix();
    prefix.variables = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
    util::Environment current = {{"PATH", "/usr/bin"},
                                 {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/ok"},
                                 {"PIP_USER", "1"}};
    auto once = util::apply_environment_changes(current,
                                                prefix_environment(prefix, current).changes, false);
    auto twice =
        util::apply_environment_changes(once, prefix_environment(prefix, once).changes, false);
    EXPECT_EQ(once, twice);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::shim
