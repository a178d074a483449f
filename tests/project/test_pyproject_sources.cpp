// uv's [tool.uv.sources] and [[tool.uv.index]] in a pyproject.toml: git, url, path and workspace
// sources become `name @ URL` lines where they apply, and the torch family's PyTorch backend
// indexes become the input's backends, tied to their extra, group or marker.
#include <gtest/gtest.h>

#include <algorithm>

#include "aitk/fs/temp.hpp"
#include "pyproject_test_support.hpp"
#include "test_files.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

using namespace pyproject_test;

// fish-speech's shape: one extra per backend, each tied to its explicit index, in conflict.
constexpr std::string_view backend_extras = R"([project]
name = "tts"
version = "1.0"
dependencies = ["torch==2.11.0", "requests"]

[project.optional-dependencies]
cpu = ["torch==2.11.0"]
cu126 = ["torch==2.11.0"]
cu128 = ["torch==2.11.0", "cu128-only"]
cu130 = ["torch==2.11.0"]
webui = ["gradio"]

[tool.uv]
conflicts = [[{ extra = "cpu" }, { extra = "cu126" }, { extra = "cu128" }, { extra = "cu130" }]]

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu126", extra = "cu126" },
  { index = "pytorch-cu128", extra = "cu128" },
  { index = "pytorch-cu130", extra = "cu130" },
]
triton = { index = "pytorch-cu128" }

[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://mirror.example/whl/cpu"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu126"
url = "https://mirror.example/whl/cu126"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "https://mirror.example/whl/cu128/"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu130"
url = "https://mirror.example/whl/cu130"
explicit = true
)";

TEST(PyprojectBackends, ExtrasTiedToBackendIndexesBecomeTheBackends) {
    auto p = parsed(backend_extras);
    ASSERT_EQ(p.uv.sources.at("torch").size(), 4u);
    EXPECT_EQ(p.uv.sources.at("torch")[2].extra, "cu128");
    auto in = converted(p);
    EXPECT_TRUE(in.only_listed_backends);
    EXPECT_EQ(in.torch_index_url, "https://mirror.example/whl");
    // Best first, whatever the file's order.
    EXPECT_EQ(backends_on(in, "linux", "x86_64"),
              (std::vector<std::string>{"cu130", "cu128", "cu126", "cpu"}));
    EXPECT_EQ(backends_on(in, "macos", "arm64"), std::vector<std::string>{"cpu"});
    for (const auto& b : in.backends) {
        if (b.name == "cu128") {
            EXPECT_EQ(b.note, "extra 'cu128' of pyproject.toml:20");
        }
    }
    // The extra of a target's backend is enabled for that target only.
    EXPECT_TRUE(has(lines_for(in, "linux-x86_64-cu128"), "cu128-only"));
    EXPECT_FALSE(has(lines_for(in, "linux-x86_64-cu126"), "cu128-only"));
    EXPECT_FALSE(has(lines_for(in, "linux-x86_64-cpu"), "gradio"));
    EXPECT_EQ(in.torch_packages.at("torch"), "==2.11.0");
    // triton's source is the same PyTorch index: it follows the target's backend.
    EXPECT_EQ(in.backend_index_packages, std::vector<std::string>{"triton"});
}

// ROCm and XPU indexes are backends too (InvokeAI's rocm extra, Intel's xpu index), ROCm on
// Linux x86_64 only, as torch ships it; an index whose last part names no PyTorch build is not.
TEST(PyprojectBackends, RocmAndXpuIndexesAreBackends) {
    auto in = converted(parsed(R"([project]
name = "gpu-app"
version = "0.1.0"
dependencies = ["torch==2.9.0"]

[project.optional-dependencies]
rocm = ["torch==2.9.0"]
xpu = ["torch==2.9.0"]
cpu = ["torch==2.9.0"]

[tool.uv]
conflicts = [[{ extra = "rocm" }, { extra = "xpu" }, { extra = "cpu" }]]

[tool.uv.sources]
torch = [
  { index = "torch-rocm", extra = "rocm" },
  { index = "torch-xpu", extra = "xpu" },
  { index = "torch-cpu", extra = "cpu" },
]

[[tool.uv.index]]
name = "torch-rocm"
url = "https://download.pytorch.org/whl/rocm6.4"
explicit = true

[[tool.uv.index]]
name = "torch-xpu"
url = "https://download.pytorch.org/whl/xpu"
explicit = true

[[tool.uv.index]]
name = "torch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true
)"));
    EXPECT_TRUE(in.only_listed_backends);
    const auto linux_backends = backends_on(in, "linux", "x86_64");
    for (const char* b : {"rocm6.4", "xpu", "cpu"}) {
        EXPECT_NE(std::find(linux_backends.begin(), linux_backends.end(), b), linux_backends.end())
            << b << " in " << testing::PrintToString(linux_backends);
    }
    const auto windows_backends = backends_on(in, "windows", "x86_64");
    EXPECT_EQ(std::find(windows_backends.begin(), windows_backends.end(), "rocm6.4"),
              windows_backends.end())
        << testing::PrintToString(windows_backends);
    for (const auto& b : in.backends) {
        if (b.name == "rocm6.4") {
            EXPECT_EQ(b.note, "extra 'rocm' of pyproject.toml:16");
        }
    }
}

TEST(PyprojectBackends, TheUsersExtraNamesTheBackend) {
    auto p = parsed(backend_extras);
    PyprojectSelection s;
    s.extras = {"cu126", "webui"};
    auto in = converted(p, s);
    EXPECT_EQ(in.selected_backend, "cu126");
    EXPECT_EQ(in.selected_backend_by, "--extra cu126");
    EXPECT_TRUE(has(lines_for(in, "linux-x86_64-cu126"), "gradio"));

    s.extras = {"cu126", "cu128"};
    auto problem = conversion_problem(p, s);
    EXPECT_NE(problem.message.find("take torch from cu126 and cu128 at once"), std::string::npos)
        << problem.message;

    // --all-extras enables the other extras; the backend's stays the hardware's choice.
    s = {};
    s.all_extras = true;
    in = converted(p, s);
    EXPECT_FALSE(in.selected_backend);
    EXPECT_TRUE(has(lines_for(in, "linux-x86_64-cpu"), "gradio"));
    EXPECT_FALSE(has(lines_for(in, "linux-x86_64-cpu"), "cu128-only"));
}

TEST(PyprojectBackends, DiaStyleMarkerSourcesArePerOsBackends) {
    auto in = converted(parsed(R"([project]
name = "nari-tts"
version = "0.1.0"
dependencies = ["torch==2.6.0", "triton==3.2.0 ; sys_platform == 'linux'"]

[tool.uv.sources]
torch = [
  { index = "pytorch-cu126", marker = "sys_platform == 'linux' or sys_platform == 'win32'" },
]

[[tool.uv.index]]
name = "pytorch-cu126"
url = "https://download.pytorch.org/whl/cu126"
explicit = true
)"));
    EXPECT_EQ(backends_on(in, "linux", "x86_64"), std::vector<std::string>{"cu126"});
    EXPECT_EQ(backends_on(in, "windows", "x86_64"), std::vector<std::string>{"cu126"});
    EXPECT_TRUE(backends_on(in, "macos", "arm64").empty());
    EXPECT_EQ(in.backends.front().note, "the torch source of pyproject.toml:8");
    EXPECT_EQ(in.torch_index_url, "https://download.pytorch.org/whl");
}

TEST(PyprojectBackends, GroupsAndMarkersTogether) {
    // open-instruct's shape: the backend by dependency group, and a marker-only source.
    auto in = converted(parsed(R"([project]
name = "oi"
version = "1"
dependencies = ["torch>=2.10"]
[dependency-groups]
cuda12 = ["torch>=2.10", "vllm"]
cuda13 = ["torch>=2.10"]
[tool.uv]
default-groups = ["cuda12"]
conflicts = [[{ group = "cuda12" }, { group = "cuda13" }]]
[tool.uv.sources]
torch = [
  { index = "cu128", group = "cuda12" },
  { index = "cu130", group = "cuda13" },
  { index = "cu130", marker = "platform_system == 'Linux' and platform_machine == 'aarch64'" },
]
[[tool.uv.index]]
name = "cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true
[[tool.uv.index]]
name = "cu130"
url = "https://download.pytorch.org/whl/cu130"
explicit = true
)"));
    EXPECT_EQ(backends_on(in, "linux", "x86_64"), (std::vector<std::string>{"cu130", "cu128"}));
    EXPECT_TRUE(has(lines_for(in, "linux-x86_64-cu128"), "vllm"));
    EXPECT_FALSE(has(lines_for(in, "linux-x86_64-cu130"), "vllm"));
    // The default group that picks a build is the hardware's choice here, and a note says so.
    bool noted = false;
    for (const auto& n : in.notes)
        noted = noted || n.find("default group 'cuda12' picks a torch build") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(PyprojectBackends, WhatTheBackendsCannotBeIsAProblem) {
    const std::string head =
        "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"torch\"]\n"
        "[project.optional-dependencies]\ngpu = [\"torch\"]\n";
    const std::string indexes =
        "[[tool.uv.index]]\nname = \"a\"\nurl = \"https://h/whl/cu126\"\n"
        "[[tool.uv.index]]\nname = \"b\"\nurl = \"https://h/whl/cu128\"\n"
        "[[tool.uv.index]]\nname = \"plain\"\nurl = \"https://private.example/simple\"\n"
        "[[tool.uv.index]]\nname = \"other\"\nurl = \"https://other.example/whl/cu128\"\n";
    auto problem = conversion_problem(
        parsed(head +
               "[tool.uv.sources]\ntorch = [{ index = \"a\", extra = \"gpu\" }, { index = \"b\", "
               "extra = \"gpu\" }]\n" +
               indexes));
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:8:42");
    EXPECT_NE(problem.message.find("torch is taken from cu128 for extra 'gpu'"), std::string::npos)
        << problem.message;

    problem = conversion_problem(
        parsed(head + "[tool.uv.sources]\ntorch = { index = \"plain\" }\n" + indexes));
    EXPECT_NE(problem.message.find("neither a PyTorch backend index"), std::string::npos);

    problem = conversion_problem(
        parsed(head +
               "[tool.uv.sources]\ntorch = [{ index = \"a\", extra = \"gpu\" }, { index = "
               "\"other\", marker = \"sys_platform == 'win32'\" }]\n" +
               indexes));
    EXPECT_NE(problem.message.find("under two bases"), std::string::npos) << problem.message;

    problem = conversion_problem(
        parsed(head + "[tool.uv.sources]\ntorch = { index = \"missing\" }\n" + indexes));
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:8:9");
    EXPECT_NE(problem.message.find("names the index 'missing'"), std::string::npos);

    problem = conversion_problem(parsed(
        head + "[tool.uv.sources]\ntorch = { index = \"a\", extra = \"nope\" }\n" + indexes));
    EXPECT_NE(problem.message.find("limited to extra 'nope'"), std::string::npos);

    // One package pinned to its own index is not something aitk-env's routing does.
    problem = conversion_problem(
        parsed("[project]\nname = \"x\"\ndependencies = [\"requests\"]\n[tool.uv.sources]\n"
               "requests = { index = \"plain\" }\n" +
               indexes));
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:5:12");
    EXPECT_NE(problem.message.find("cannot pin one package to an index"), std::string::npos)
        << problem.message;
    converted(parsed(head + "[tool.uv.sources]\ntorch = { index = \"a\" }\n" + indexes));
}

TEST(PyprojectSources, GitUrlPathAndMarkers) {
    aitk::test::TempDir dir("pyproject-sources");
    aitk::test::write_file(dir.path / "libs" / "mylib" / "pyproject.toml",
                           "[project]\nname='mylib'\n");
    const auto file = dir.path / "pyproject.toml";
    auto p = parsed(R"([project]
name = "app"
version = "1"
dependencies = ["mylib", "gitpkg>=1", "wheelpkg", "pynini", "pinned"]

[tool.uv.sources]
mylib = { path = "libs/mylib", editable = true }
gitpkg = { git = "https://example.org/gitpkg.git", tag = "v1.2", subdirectory = "python" }
wheelpkg = { url = "https://example.org/wheelpkg-1.0-py3-none-any.whl" }
pynini = [{ url = "https://example.org/pynini-2.1-cp312-cp312-win_amd64.whl", marker = "sys_platform == 'win32'" }]
pinned = { index = "pypi" }

[[tool.uv.index]]
name = "pypi"
url = "https://pypi.org/simple/"
explicit = true
)",
                    file);
    auto in = converted(p);
    auto linux_lines = lines_for(in, "linux-x86_64-cpu");
    auto windows_lines = lines_for(in, "windows-x86_64-cpu");
    const std::string lib_url = file_url_of(dir.path / "libs" / "mylib");
    EXPECT_TRUE(has(linux_lines, "-e mylib @ " + lib_url)) << testing::PrintToString(linux_lines);
    EXPECT_TRUE(
        has(linux_lines, "gitpkg @ git+https://example.org/gitpkg.git@v1.2#subdirectory=python"));
    EXPECT_TRUE(has(linux_lines, "wheelpkg @ https://example.org/wheelpkg-1.0-py3-none-any.whl"));
    EXPECT_TRUE(has(linux_lines, "pynini"));
    EXPECT_TRUE(
        has(windows_lines, "pynini @ https://example.org/pynini-2.1-cp312-cp312-win_amd64.whl"));
    EXPECT_FALSE(has(windows_lines, "pynini"));
    // An index source naming the default index changes nothing.
    EXPECT_TRUE(has(linux_lines, "pinned"));
    for (const auto* r : in.requirements_for(target("linux-x86_64-cpu"))) {
        if (r->line.name() == "gitpkg") {
            ASSERT_TRUE(r->line.vcs);
            EXPECT_EQ(r->line.vcs->revision, "v1.2");
        }
    }
    // tool.uv.no-sources: the plain requirements.
    auto none = converted(parsed(std::string(R"([project]
name = "app"
dependencies = ["mylib"]
[tool.uv]
no-sources = true
[tool.uv.sources]
mylib = { path = "libs/mylib" }
)"),
                                 file));
    EXPECT_EQ(lines_for(none, "linux-x86_64-cpu"), std::vector<std::string>{"mylib"});
}

TEST(PyprojectSources, SourcesLimitedToAnExtraApplyToThatExtraOnly) {
    auto p = parsed(R"([project]
name = "app"
dependencies = ["flash-attn"]
[project.optional-dependencies]
fast = ["flash-attn"]
[tool.uv.sources]
flash-attn = { url = "https://example.org/flash_attn-2.8-py3-none-any.whl", extra = "fast" }
)");
    EXPECT_EQ(lines_for(converted(p), "linux-x86_64-cpu"), std::vector<std::string>{"flash-attn"});
    PyprojectSelection s;
    s.extras = {"fast"};
    EXPECT_EQ(lines_for(converted(p, s), "linux-x86_64-cpu"),
              (std::vector<std::string>{"flash-attn",
                                        "flash-attn @ "
                                        "https://example.org/flash_attn-2.8-py3-none-any.whl"}));
}

TEST(PyprojectSources, BadSourcesAreProblemsAtTheirPlace) {
    const std::string head = "[project]\nname = \"x\"\ndependencies = [\"a\"]\n[tool.uv.sources]\n";
    auto problem = parse_problem(head + "a = { git = \"https://x/a\", branh = \"main\" }\n");
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:5:28");
    EXPECT_NE(problem.message.find("unknown key 'branh' in a [tool.uv.sources] entry"),
              std::string::npos)
        << problem.message;
    problem = parse_problem(head + "a = { git = \"https://x/a\", tag = \"v1\", rev = \"abc\" }\n");
    EXPECT_NE(problem.message.find("more than one of rev, tag and branch"), std::string::npos);
    problem = parse_problem(head + "a = { path = \"../a\", tag = \"v1\" }\n");
    EXPECT_NE(problem.message.find("tag belongs to git sources only"), std::string::npos);
    problem = parse_problem(head + "a = { index = \"x\", url = \"https://x\" }\n");
    EXPECT_NE(problem.message.find("names several sources"), std::string::npos);
    problem = parse_problem(head + "a = { git = \"https://x/a\", lfs = true }\n");
    EXPECT_NE(problem.message.find("Git LFS"), std::string::npos);
    problem = parse_problem(head + "a = { index = \"x\", marker = \"sys_platform = 'linux'\" }\n");
    EXPECT_EQ(problem.where.line, 5u);
    EXPECT_NE(problem.message.find("invalid marker"), std::string::npos);
    auto path_problem = conversion_problem(parsed(head + "a = { path = \"missing\" }\n"));
    EXPECT_NE(path_problem.message.find("the path missing does not exist"), std::string::npos);
}

TEST(PyprojectSources, WorkspaceMembersAreEditablePaths) {
    aitk::test::TempDir dir("pyproject-workspace");
    aitk::test::write_file(dir.path / "packages" / "core" / "pyproject.toml",
                           "[project]\nname = \"ws-core\"\nversion = \"1\"\n");
    aitk::test::write_file(dir.path / "packages" / "skip" / "pyproject.toml",
                           "[project]\nname = \"ws-skip\"\n");
    auto p = parsed(R"([project]
name = "app"
dependencies = ["ws-core"]
[tool.uv.sources]
ws-core = { workspace = true }
[tool.uv.workspace]
members = ["packages/*"]
exclude = ["packages/skip"]
)",
                    dir.path / "pyproject.toml");
    auto lines = lines_for(converted(p), "linux-x86_64-cpu");
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines.front(), "-e ws-core @ " + file_url_of(dir.path / "packages" / "core"));

    aitk::test::write_file(
        dir.path / "packages" / "core" / "pyproject.toml",
        "[project]\nname = \"ws-core\"\n[tool.uv.sources]\nx = { path = \"y\" }\n");
    auto problem = conversion_problem(p);
    EXPECT_NE(problem.message.find("declares its own [tool.uv.sources]"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
