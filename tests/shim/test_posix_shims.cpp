// The POSIX shims run for real: written into a venv, started with a controlled environment, and
// the environment they give checked by running `env`, against prefix_environment() for the
// same input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/shim/shims.hpp"
#include "shim_support.hpp"

namespace aitk::shim {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using test::parse_env0;
using test::run;
using test::without_shell_variables;

class PosixShims : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new fs::TempDir(fs::TempDir::create("aitk-shim-posix"));
        // A quote and a space in the prefix: every rendered literal must survive them.
        prefix_ = dir_->path() / "my env's prefix";
        test::make_venv(prefix_, test::kPython);
        work_ = dir_->path() / "work";
        stdfs::create_directories(work_);
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }

    PrefixEnvironment prefix(std::map<std::string, std::string> variables = {}) const {
        return {prefix_, prefix_ / "bin", std::move(variables), ShimOs::posix, {}};
    }
    std::string scripts() const { return (prefix_ / "bin").string(); }

    // The environment `bin/aitk-run` gives a program started with `environment`.
    util::Environment shim_environment(const util::Environment& environment,
                                       const std::string& interpreter = {}) const {
        std::vector<std::string> argv;
        if (!interpreter.empty()) argv.push_back(interpreter);
        argv.insert(argv.end(), {scripts() + "/aitk-run", "/usr/bin/env", "-0"});
        auto result = run(argv, with_pwd(environment), work_);
        EXPECT_TRUE(result.succeeded()) << result.describe() << result.err;
        EXPECT_EQ(result.err, "");
        return without_shell_variables(parse_env0(result.out));
    }

    util::Environment expected_environment(const PrefixEnvironment& p,
                                           const util::Environment& environment) const {
        auto change = prefix_environment(p, environment);
        return without_shell_variables(
            util::apply_environment_changes(environment, change.changes, false));
    }

    util::Environment with_pwd(util::Environment environment) const {
        environment["PWD"] = work_.string();
        return environment;
    }

    static fs::TempDir* dir_;
    static stdfs::path prefix_;
    static stdfs::path work_;
};

fs::TempDir* PosixShims::dir_ = nullptr;
stdfs::path PosixShims::prefix_;
stdfs::path PosixShims::work_;

TEST_F(PosixShims, RendersThreeFilesInTheScriptsFolder) {
    auto files = render_shims(prefix(), "lib/python3.12/site-packages");
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0].path, "bin/aitk-run");
    EXPECT_TRUE(files[0].executable);
    EXPECT_EQ(files[1].path, "bin/activate");
    EXPECT_FALSE(files[1].executable);
    EXPECT_EQ(files[2].path, "bin/activate.fish");
    std::regex placeholder("@[A-Z0-9_]+@");
    for (const auto& file : files) {
        EXPECT_FALSE(std::regex_search(file.content, placeholder)) << file.path;
    }
    EXPECT_TRUE(files[0].content.starts_with("#!/bin/sh\n"));
    auto quoted = [](std::string text) {
        return "'" + std::regex_replace(text, std::regex("'"), "'\"'\"'") + "'";
    };
    EXPECT_THAT(files[0].content,
                ::testing::HasSubstr("_aitk_prefix=" + quoted(prefix_.string()) +
                                     "\n_aitk_scripts=" + quoted(scripts()) + "\n"));
    EXPECT_THAT(files[0].content, ::testing::HasSubstr("'\"'\"'s prefix'\n"));
}

TEST_F(PosixShims, TheIssueExampleCheckedByRunningEnv) {
    PrefixEnvironment p =
        prefix({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}, {"OMP_NUM_THREADS", "4"}});
    auto written = write_shims(p, "lib/python3.12/site-packages");
    ASSERT_EQ(written.size(), 3u);
    EXPECT_EQ(written[0], prefix_ / "bin/aitk-run");
    EXPECT_NE(stdfs::status(written[0]).permissions() & stdfs::perms::owner_exec,
              stdfs::perms::none);

    util::Environment user = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"HOME", "/root"},
        {"PYTHONPATH", "x"},
        {"PIP_INDEX_URL", "y"},
        {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/ok"},
        {"PYTORCH_CUDA_ALLOC_CONF", "user-set"},
    };
    EXPECT_EQ(shim_environment(user), (util::Environment{
                                          {"PATH", scripts() + ":/usr/local/bin:/usr/bin:/bin"},
                                          {"HOME", "/root"},
                                          {"VIRTUAL_ENV", prefix_.string()},
                                          {"LD_LIBRARY_PATH", "/opt/ok"},
                                          {"PYTORCH_CUDA_ALLOC_CONF", "user-set"},
                                          {"OMP_NUM_THREADS", "4"},
                                      }));
}

// The same inputs through bin/aitk-run and through prefix_environment (what `aitk-env run`
// applies) give the same environment.
TEST_F(PosixShims, ShimAndPolicyAgreeOnATableOfEnvironments) {
    std::map<std::string, std::string> lock = {
        {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
        {"OMP_NUM_THREADS", "4"},
        {"TRICKY", "it's $HOME `id` \"q\" \\ * ?\nsecond line %s"},
        {"EMPTY", ""},
        {"PATH", "/evil"},
        {"PYTHONPATH", "/evil"},
        {"LD_LIBRARY_PATH", "/evil"},
        {"BAD-NAME", "x"},
    };
    PrefixEnvironment p = prefix(lock);
    write_shims(p, "lib/python3.12/site-packages");
    const std::string base = "/usr/local/bin:/usr/bin:/bin";
    std::vector<util::Environment> table = {
        {{"PATH", base}},
        {{"PATH", ""}},
        {{"PATH", "/nonexistent"}, {"PIP_NO_CACHE_DIR", "1"}},
        {{"PATH", scripts() + "::" + base + ":" + scripts() + ":"}},
        {{"PATH", "/opt/with space:/opt/*glob:/opt/it's:" + base}},
        {{"PATH", "/usr/local/cuda/bin:" + base}},
        {{"PATH", base},
         {"PYTHONPATH", "x"},
         {"PYTHONHOME", "/h"},
         {"PYTHONSTARTUP", "/s"},
         {"PYTHONUSERBASE", "/u"},
         {"VIRTUAL_ENV", "/other/venv"},
         {"CONDA_PREFIX", "/opt/conda"},
         {"CONDA_DEFAULT_ENV", "base"},
         {"PYENV_VERSION", "3.11"},
         {"PIP_INDEX_URL", "http://127.0.0.1/simple"},
         {"PIP_", "z"},
         {"pip_lower", "kept"},
         {"PIPX_HOME", "kept"},
         {"PYTHONUNBUFFERED", "1"}},
        {{"PATH", base}, {"LD_LIBRARY_PATH", ""}},
        {{"PATH", base}, {"LD_LIBRARY_PATH", ":/opt/a::/opt/b:"}},
        {{"PATH", base}, {"LD_LIBRARY_PATH", "/opt/a:/opt/b"}},
        {{"PATH", base}, {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}},
        {{"PATH", base},
         {"LD_LIBRARY_PATH",
          "/usr/local/cuda-12.4/compat:/usr/local/cuda-12.4/lib64:/opt/cudnn/lib:/home/u/.venv/"
          "lib/python3.10/site-packages/nvidia/cudnn/lib:/opt/homebrew/opt/libomp/lib:/opt/"
          "intel/oneapi/compiler/2024.0/lib:/usr/lib/x86_64-linux-gnu:/usr/local/nvidia/lib64:"
          "/opt/sp ace/CUDA/lib:/opt/NCCL/lib:/opt/it's/lib"}},
        {{"PATH", base},
         {"OMP_NUM_THREADS", "8"},
         {"EMPTY", "user"},
         {"TRICKY", ""},
         {"MULTI", "a\nb"}},
    };
    for (const auto& environment : table) {
        std::string label;
        for (const auto& [name, value] : environment)
            label += name + "=" + value + " ";
        SCOPED_TRACE(label);
        auto expected = expected_environment(p, with_pwd(environment));
        EXPECT_EQ(shim_environment(environment), expected);
        EXPECT_EQ(shim_environment(environment, "/bin/bash"), expected);
        if (auto dash = test::installed("dash")) {
            EXPECT_EQ(shim_environment(environment, dash->string()), expected);
        }
    }
}

TEST_F(PosixShims, RunsPythonByDefaultAndPassesArgumentsAndStatusThrough) {
    write_shims(prefix(), "lib/python3.12/site-packages");
    util::Environment user = {{"PATH", "/usr/bin:/bin"}, {"PYTHONPATH", "/nowhere"}};
    const std::string script =
        "import os, sys; print(sys.prefix); print(os.environ['VIRTUAL_ENV']); "
        "print(os.environ.get('PYTHONPATH'))\n";
    const std::string expected = prefix_.string() + "\n" + prefix_.string() + "\nNone\n";
    // With no command, the prefix's python (reading its program from stdin here).
    util::ProcessRequest request;
    request.argv = {scripts() + "/aitk-run"};
    request.environment = user;
    request.stdin_data = script;
    auto python = util::run_process(request);
    ASSERT_TRUE(python && python->succeeded()) << (python ? python->err : "");
    EXPECT_EQ(python->out, expected);
    // A bare `python` is found in the prefix first.
    auto named = run({scripts() + "/aitk-run", "python", "-c", script}, user, work_);
    EXPECT_EQ(named.out, expected);

    auto printf = run({scripts() + "/aitk-run", "printf", "%s|", "a b", "", "it's", "$HOME", "*"},
                      user, work_);
    EXPECT_EQ(printf.out, "a b||it's|$HOME|*|");

    auto status = run({scripts() + "/aitk-run", "sh", "-c", "exit 7"}, user, work_);
    EXPECT_EQ(status.exit_code, 7);
}

// `source bin/activate && env && deactivate && env` in bash (and zsh when installed).
class ActivateRoundTrip : public PosixShims, public ::testing::WithParamInterface<const char*> {};

TEST_P(ActivateRoundTrip, ActivateThenDeactivateRestoresTheEnvironment) {
    auto shell = test::installed(GetParam());
    if (!shell) GTEST_SKIP() << GetParam() << " is not installed";
    PrefixEnvironment p = prefix(
        {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}, {"TRICKY", "it's $HOME\nline"}});
    write_shims(p, "lib/python3.12/site-packages");
    util::Environment user = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"PYTHONPATH", "x"},
        {"PIP_INDEX_URL", "y"},
        {"PIP_USER", "1"},
        {"VIRTUAL_ENV", "/other/venv"},
        {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/ok"},
        {"PYTORCH_CUDA_ALLOC_CONF", "user-set"},
        {"SPACED", "a  b"},
    };
    // Activating twice must still restore the values from before the first activation.
    const std::string script =
        "set -e; before=${PS1-unset}; . \"$1\"; /usr/bin/env -0; printf 'AITK_MARK\\0'; . \"$1\"; "
        "deactivate; "
        "/usr/bin/env -0; printf 'AITK_MARK\\0'; "
        "if command -v deactivate >/dev/null 2>&1; then echo still-defined; fi; "
        "if [ \"${PS1-unset}\" = \"$before\" ]; then echo same-prompt; fi";
    auto result = run({shell->string(), "-c", script, "shell", scripts() + "/activate"},
                      with_pwd(user), work_);
    ASSERT_TRUE(result.succeeded()) << result.describe() << result.err;
    EXPECT_EQ(result.err, "");
    std::string_view out = result.out;
    std::size_t first = out.find("AITK_MARK");
    std::size_t second = out.find("AITK_MARK", first + 1);
    ASSERT_NE(second, std::string_view::npos) << out;
    EXPECT_EQ(without_shell_variables(parse_env0(out.substr(0, first))),
              expected_environment(p, with_pwd(user)));
    EXPECT_EQ(without_shell_variables(parse_env0(out.substr(first + 10, second - first - 10))),
              without_shell_variables(user));
    // deactivate removed itself, and the prompt is back to what it was.
    EXPECT_EQ(out.substr(second + 10), "same-prompt\n");
}

TEST_P(ActivateRoundTrip, PromptShowsThePrefixUnlessDisabled) {
    auto shell = test::installed(GetParam());
    if (!shell) GTEST_SKIP() << GetParam() << " is not installed";
    write_shims(prefix(), "lib/python3.12/site-packages");
    const std::string script =
        "PS1='$ '; . \"$1\"; printf '[%s]' \"$PS1\"; deactivate; printf '[%s]' \"$PS1\"; "
        "VIRTUAL_ENV_DISABLE_PROMPT=1; . \"$1\"; printf '[%s]' \"$PS1\"";
    auto result = run({shell->string(), "-c", script, "shell", scripts() + "/activate"},
                      with_pwd({{"PATH", "/usr/bin:/bin"}}), work_);
    ASSERT_TRUE(result.succeeded()) << result.err;
    EXPECT_EQ(result.out, "[(my_env_s_prefix) $ ][$ ][$ ]");
}

INSTANTIATE_TEST_SUITE_P(Shells, ActivateRoundTrip, ::testing::Values("bash", "zsh"));

TEST_F(PosixShims, FishActivateRoundTripWhenFishIsInstalled) {
    auto fish = test::installed("fish");
    if (!fish) GTEST_SKIP() << "fish is not installed";
    PrefixEnvironment p = prefix({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}});
    write_shims(p, "lib/python3.12/site-packages");
    util::Environment user = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"PYTHONPATH", "x"},
        {"PIP_INDEX_URL", "y"},
        {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/ok"},
    };
    const std::string script =
        "source $argv[1]; /usr/bin/env -0; printf 'AITK_MARK\\0'; deactivate; /usr/bin/env -0";
    auto result =
        run({fish->string(), "-c", script, scripts() + "/activate.fish"}, with_pwd(user), work_);
    ASSERT_TRUE(result.succeeded()) << result.err;
    std::string_view out = result.out;
    std::size_t mark = out.find("AITK_MARK");
    ASSERT_NE(mark, std::string_view::npos);
    EXPECT_EQ(without_shell_variables(parse_env0(out.substr(0, mark))),
              expected_environment(p, with_pwd(user)));
    EXPECT_EQ(without_shell_variables(parse_env0(out.substr(mark + 10))),
              without_shell_variables(user));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::shim
