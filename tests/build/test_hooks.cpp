#include "aitk/build/hooks.hpp"

#include <gtest/gtest.h>

#include "aitk/build/error.hpp"
#include "build_test_support.hpp"

namespace aitk::build {
namespace AITK_FILE_LOCAL {

using test::read_file;
using test::write_file;

// A project whose backend module "b" is `source`, in-tree under backend/.
struct Project {
    test::TempDir dir;
    std::filesystem::path root = dir.path / "project";
    std::filesystem::path out = dir.path / "out";
    BuildSystem system;

    explicit Project(const std::string& source) {
        write_file(root / "backend" / "b.py", source);
        std::filesystem::create_directories(out);
        system.backend = "b";
        system.backend_path = {"backend"};
        system.declared = true;
    }
    HookCall call(Hook hook) const {
        HookCall c;
        c.hook = hook;
        c.project = root;
        c.build_system = system;
        c.wheel_directory = out;
        c.metadata_directory = out;
        c.label = "demo";
        return c;
    }
    HookRunner runner(const std::filesystem::path& python = test::python312) const {
        HookRunner r;
        r.python = python;
        r.work_dir = dir.path;
        r.timeout = std::chrono::seconds(60);
        return r;
    }
};

TEST(BackendEnvironment, KeepsCompilerSettingsAndDropsPythonAndPip) {
    util::Environment base = {{"PATH", "/usr/bin"},
                              {"HOME", "/root"},
                              {"CC", "gcc-12"},
                              {"CUDA_HOME", "/usr/local/cuda"},
                              {"PYTHONPATH", "/user/lib"},
                              {"PYTHONHOME", "/x"},
                              {"PYTHONSTARTUP", "/s.py"},
                              {"PIP_INDEX_URL", "https://i"},
                              {"VIRTUAL_ENV", "/venv"},
                              {"__PYVENV_LAUNCHER__", "/p"}};
    BuildEnvironment env{{"/env/a/site-packages", "/env/b/site-packages"}, {"/env/bin"}};
    util::Environment expected = {{"PATH", "/env/bin:/usr/bin"},
                                  {"HOME", "/root"},
                                  {"CC", "gcc-12"},
                                  {"CUDA_HOME", "/usr/local/cuda"},
                                  {"PYTHONPATH", "/env/a/site-packages:/env/b/site-packages"},
                                  {"PYTHONNOUSERSITE", "1"},
                                  {"PYTHONUNBUFFERED", "1"},
                                  {"PYTHONDONTWRITEBYTECODE", "1"}};
    EXPECT_EQ(backend_environment(base, env), expected);

    auto empty = backend_environment(base, BuildEnvironment{});
    EXPECT_FALSE(empty.contains("PYTHONPATH"));
    EXPECT_EQ(empty.at("PATH"), "/usr/bin");

    auto windows = backend_environment({{"Path", "C:\\Windows"}}, env, true);
    EXPECT_EQ(windows.at("Path"), "/env/bin;C:\\Windows");
    EXPECT_EQ(windows.at("PYTHONPATH"), "/env/a/site-packages;/env/b/site-packages");
}

TEST(ShellQuote, QuotesWhatTheShellWouldSplit) {
    EXPECT_EQ(shell_quote("/usr/bin/python3.12"), "/usr/bin/python3.12");
    EXPECT_EQ(shell_quote("A=b:c"), "A=b:c");
    EXPECT_EQ(shell_quote("two words"), "'two words'");
    EXPECT_EQ(shell_quote("it's"), "'it'\"'\"'s'");
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
}

TEST(Hooks, GetRequiresReturnsWhatTheBackendSays) {
    Project p(
        "def get_requires_for_build_wheel(config_settings=None):\n"
        "    return ['cython>=3', 'numpy ; python_version >= \"3.9\"', config_settings['x']]\n");
    auto call = p.call(Hook::get_requires_for_build_wheel);
    call.config_settings = {{"x", "from-config"}};
    auto result = run_hook(p.runner(), call);
    EXPECT_EQ(result.requirements,
              (std::vector<std::string>{"cython>=3", "numpy ; python_version >= \"3.9\"",
                                        "from-config"}));
    EXPECT_FALSE(result.hook_missing);
}

TEST(Hooks, MissingGetRequiresMeansNone) {
    Project p(
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    raise RuntimeError('not called')\n");
    auto result = run_hook(p.runner(), p.call(Hook::get_requires_for_build_wheel));
    EXPECT_TRUE(result.requirements.empty());
    EXPECT_TRUE(result.hook_missing);
}

TEST(Hooks, BackendSeesACleanEnvironmentInItsProject) {
    Project p(
        "import os, sys\n"
        "def get_requires_for_build_wheel(config_settings=None):\n"
        "    return [os.getcwd(), os.environ.get('PYTHONPATH', '-'),\n"
        "            os.environ.get('PYTHONNOUSERSITE', '-'), os.environ.get('PIP_INDEX_URL', "
        "'-'),\n"
        "            os.environ.get('KEEP_ME', '-'), sys.executable]\n");
    auto runner = p.runner();
    runner.environment = util::current_environment();
    (*runner.environment)["PYTHONPATH"] = "/not/this";
    (*runner.environment)["PIP_INDEX_URL"] = "https://not.this/simple";
    (*runner.environment)["KEEP_ME"] = "kept";
    auto result = run_hook(runner, p.call(Hook::get_requires_for_build_wheel));
    EXPECT_EQ(result.requirements, (std::vector<std::string>{p.root.string(), "-", "1", "-", "kept",
                                                             test::python312.string()}));
}

TEST(Hooks, IsolatedBuildsDoNotSeeTheInterpretersSitePackages) {
    const std::filesystem::path python = "/root/.pyenv/versions/3.11.7/bin/python3.11";
    const std::string own = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages";
    if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";
    Project p(
        "import sys\n"
        "def get_requires_for_build_wheel(config_settings=None):\n"
        "    return list(sys.path)\n");
    auto env_dir = p.dir.path / "env";
    std::filesystem::create_directories(env_dir);
    auto call = p.call(Hook::get_requires_for_build_wheel);
    call.environment.site_packages = {env_dir};

    auto isolated = run_hook(p.runner(python), call).requirements;
    EXPECT_EQ(std::count(isolated.begin(), isolated.end(), own), 0);
    EXPECT_EQ(std::count(isolated.begin(), isolated.end(), env_dir.string()), 1);
    EXPECT_EQ(isolated.front(), (p.root / "backend").string());  // backend-path first

    call.isolated = false;
    auto shared = run_hook(p.runner(python), call).requirements;
    EXPECT_EQ(std::count(shared.begin(), shared.end(), own), 1);
}

TEST(Hooks, FailingHookGivesTracebackTailAndReproduceCommand) {
    Project p(
        "import sys\n"
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    for i in range(100):\n"
        "        print('noise line %d' % i)\n"
        "    sys.stdout.flush()\n"
        "    explode()\n"
        "def explode():\n"
        "    raise RuntimeError('backend exploded on purpose')\n");
    try {
        run_hook(p.runner(), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        std::string what = e.what();
        EXPECT_TRUE(what.starts_with(
            "building demo: build_wheel raised RuntimeError: backend exploded on purpose\n"))
            << what;
        auto tail = test::lines_of(e.output_tail());
        ASSERT_EQ(tail.size(), 30u) << e.output_tail();
        EXPECT_EQ(tail.back(),
                  "aitk-env: build_wheel raised RuntimeError: backend exploded on purpose");
        EXPECT_EQ(tail[tail.size() - 2], "RuntimeError: backend exploded on purpose");
        EXPECT_NE(e.output_tail().find("Traceback (most recent call last):"), std::string::npos);
        EXPECT_NE(e.output_tail().find("in explode"), std::string::npos);
        EXPECT_NE(e.output_tail().find("noise line 99\n"), std::string::npos);
        EXPECT_EQ(e.output_tail().find("noise line 1\n"), std::string::npos);
        EXPECT_NE(what.find(e.output_tail()), std::string::npos);
        EXPECT_NE(what.find("--- to rerun the build_wheel hook ---\n" + e.reproduce_command()),
                  std::string::npos);
        EXPECT_TRUE(e.reproduce_command().starts_with("cd " + p.root.string() + " && env "))
            << e.reproduce_command();
        EXPECT_FALSE(e.hint().empty());

        // The command reruns the hook, printing to the terminal.
        util::ProcessRequest rerun;
        rerun.argv = {"/bin/sh", "-c", e.reproduce_command()};
        auto again = util::run_process(rerun);
        ASSERT_TRUE(again);
        EXPECT_EQ(again->exit_code, 1);
        EXPECT_NE(again->out.find("noise line 99"), std::string::npos);
        EXPECT_NE(again->err.find("RuntimeError: backend exploded on purpose"), std::string::npos)
            << again->err;
    }
}

TEST(Hooks, TimeoutKillsTheBackend) {
    Project p(
        "import time\n"
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    print('about to hang', flush=True)\n"
        "    time.sleep(600)\n");
    auto runner = p.runner();
    runner.timeout = std::chrono::seconds(3);
    try {
        run_hook(runner, p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        std::string what = e.what();
        EXPECT_TRUE(what.starts_with(
            "building demo: the backend's build_wheel hook did not finish within 3 s\n"))
            << what;
        EXPECT_EQ(e.output_tail(), "about to hang\n");
    }
}

TEST(Hooks, UnimportableBackend) {
    Project p("");
    p.system.backend = "no_such_backend_module";
    p.system.backend_path.clear();
    try {
        run_hook(p.runner(), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        std::string what = e.what();
        EXPECT_TRUE(
            what.starts_with("building demo: cannot import build backend "
                             "'no_such_backend_module': ModuleNotFoundError: No module "
                             "named 'no_such_backend_module'\n"))
            << what;
        EXPECT_NE(e.hint().find("[build-system] requires"), std::string::npos);
    }
}

TEST(Hooks, BackendPathMustHoldTheBackend) {
    Project p("");
    p.system.backend = "json";  // importable, but from the standard library
    try {
        run_hook(p.runner(), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("build backend 'json' was loaded from "), std::string::npos) << what;
        EXPECT_NE(what.find(", not from backend-path backend"), std::string::npos) << what;
    }
}

TEST(Hooks, BackendPathLinkLeavingTheTreeIsRefused) {
    Project p("");
    write_file(p.dir.path / "outside" / "b.py", "");
    std::filesystem::create_directory_symlink(p.dir.path / "outside", p.root / "escape");
    p.system.backend_path = {"escape"};
    try {
        run_hook(p.runner(), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        EXPECT_TRUE(std::string(e.what()).starts_with(
            "building demo: backend-path entry 'escape' is outside the source tree " +
            p.root.string() + "\n"))
            << e.what();
    }
}

TEST(Hooks, ReturnedNameMustExist) {
    Project p(
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    return 'ghost-1.0-py3-none-any.whl'\n");
    try {
        run_hook(p.runner(), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        EXPECT_TRUE(std::string(e.what()).starts_with(
            "building demo: build_wheel returned 'ghost-1.0-py3-none-any.whl', which does not "
            "exist in " +
            p.out.string() + "\n"))
            << e.what();
    }
}

TEST(Hooks, EditableHookMissing) {
    Project p(
        "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    pass\n");
    try {
        run_hook(p.runner(), p.call(Hook::build_editable));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        EXPECT_TRUE(std::string(e.what()).starts_with(
            "building demo: the backend has no build_editable hook\n"))
            << e.what();
        EXPECT_NE(e.hint().find("PEP 660"), std::string::npos);
    }
}

TEST(Hooks, InterpreterThatCannotStart) {
    Project p("");
    try {
        run_hook(p.runner(p.dir.path / "no-python"), p.call(Hook::build_wheel));
        FAIL() << "no error";
    } catch (const BuildError& e) {
        EXPECT_TRUE(
            std::string(e.what()).starts_with("building demo: cannot run the build backend with " +
                                              (p.dir.path / "no-python").string() + ": "))
            << e.what();
    }
}

TEST(Hooks, SucceededCallLeavesNoFiles) {
    Project p("def get_requires_for_build_wheel(config_settings=None):\n    return []\n");
    run_hook(p.runner(), p.call(Hook::get_requires_for_build_wheel));
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(p.dir.path)) {
        left.push_back(e.path().filename().string());
    }
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"out", "project"}));
}

// The driver sticks to what Python 3.8 has, and still works on the newest.
class DriverVersions : public ::testing::TestWithParam<std::string> {};

TEST_P(DriverVersions, PreparesMetadataThroughTheFallback) {
    const std::filesystem::path python = "/root/.pyenv/versions/" + GetParam() + "/bin/python3";
    if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";
    test::BackendSpec spec;
    spec.prepare_metadata_hook = false;
    Project p(test::backend_source(spec));
    auto call = p.call(Hook::prepare_metadata_for_build_wheel);
    call.metadata_directory = p.dir.path / "metadata";
    std::filesystem::create_directories(call.metadata_directory);
    auto result = run_hook(p.runner(python), call);
    EXPECT_TRUE(result.hook_missing);
    EXPECT_EQ(result.name, "demo_pkg-1.2.3.dist-info");
    EXPECT_EQ(result.fallback_wheel, "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_EQ(read_file(call.metadata_directory / result.name / "METADATA"),
              test::expected_metadata(spec));
    EXPECT_TRUE(std::filesystem::exists(p.out / result.fallback_wheel));
}

INSTANTIATE_TEST_SUITE_P(Python, DriverVersions, ::testing::Values("3.8.18", "3.12.1", "3.13.0"),
                         [](const auto& info) {
                             std::string name = "py" + info.param;
                             for (char& c : name)
                                 c = c == '.' ? '_' : c;
                             return name;
                         });

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::build
