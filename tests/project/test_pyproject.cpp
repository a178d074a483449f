// pyproject.toml as an input: PEP 621 [project], PEP 735 [dependency-groups], the project itself,
// dynamic fields, and every problem at file:line:column.
#include "aitk/project/pyproject.hpp"

#include <gtest/gtest.h>

#include "pyproject_test_support.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

using namespace pyproject_test;

constexpr std::string_view basic = R"([project]
name = "Demo_App"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = [
    "requests>=2.31",
    "numpy ; sys_platform == 'linux'",
]

[project.optional-dependencies]
plot = ["matplotlib"]
all = ["demo-app[plot]", "rich"]

[dependency-groups]
dev = ["pytest", { include-group = "lint" }]
lint = ["ruff"]
docs = ["mkdocs"]
)";

TEST(Pyproject, ReadsTheProjectTable) {
    auto p = parsed(basic);
    EXPECT_TRUE(p.has_project);
    EXPECT_EQ(p.name, "demo-app");
    EXPECT_EQ(p.requires_python, ">=3.10");
    ASSERT_EQ(p.dependencies.size(), 2u);
    EXPECT_EQ(p.dependencies[1].where.to_string(), "pyproject.toml:7:5");
    EXPECT_EQ(p.optional_dependencies.size(), 2u);
    EXPECT_EQ(p.groups.at("dev").size(), 2u);
    EXPECT_EQ(p.groups.at("dev")[1].include_group, "lint");
    EXPECT_FALSE(p.has_build_system);
    EXPECT_FALSE(p.installs_itself());
}

TEST(Pyproject, DependenciesAndTheDefaultDevGroup) {
    auto in = converted(parsed(basic));
    EXPECT_EQ(in.name, "demo-app");
    EXPECT_EQ(in.python_requires, ">=3.10");
    EXPECT_EQ(in.described_as, "pyproject.toml (PEP 621)");
    auto lines = lines_for(in, "linux-x86_64-cpu");
    // dev is uv's default group and includes lint; docs and the extras are not asked for.
    EXPECT_EQ(lines, (std::vector<std::string>{"requests>=2.31", "numpy; sys_platform == \"linux\"",
                                               "ruff", "pytest"}));
}

TEST(Pyproject, ExtrasGroupsAndTheirFlags) {
    auto p = parsed(basic);
    PyprojectSelection s;
    s.extras = {"all"};
    s.groups = {"docs"};
    s.no_default_groups = true;
    auto lines = lines_for(converted(p, s), "linux-x86_64-cpu");
    // A self-reference (demo-app[plot]) brings the extra's requirements, not the project.
    EXPECT_TRUE(has(lines, "matplotlib"));
    EXPECT_TRUE(has(lines, "rich"));
    EXPECT_TRUE(has(lines, "mkdocs"));
    EXPECT_FALSE(has(lines, "pytest"));
    for (const auto& l : lines)
        EXPECT_EQ(l.find("demo-app"), std::string::npos) << l;

    s = {};
    s.all_extras = true;
    lines = lines_for(converted(p, s), "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "matplotlib"));
    EXPECT_TRUE(has(lines, "pytest"));

    s = {};
    s.extras = {"nope"};
    auto problem = conversion_problem(p, s);
    EXPECT_NE(problem.message.find("--extra nope: the project defines no such extra"),
              std::string::npos)
        << problem.message;
    EXPECT_NE(problem.hint.find("all, plot"), std::string::npos) << problem.hint;
    s = {};
    s.groups = {"nope"};
    EXPECT_NE(conversion_problem(p, s).message.find("--group nope"), std::string::npos);
}

TEST(Pyproject, ToolUvDefaultGroupsAndDevDependencies) {
    auto p = parsed(std::string(basic) +
                    "[tool.uv]\ndefault-groups = [\"docs\"]\ndev-dependencies = [\"ipdb\"]\n");
    auto lines = lines_for(converted(p), "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "mkdocs"));
    EXPECT_FALSE(has(lines, "pytest"));
    EXPECT_FALSE(has(lines, "ipdb"));
    PyprojectSelection s;
    s.groups = {"dev"};
    lines = lines_for(converted(p, s), "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "ipdb"));  // uv joins dev-dependencies to the dev group
    EXPECT_TRUE(has(lines, "pytest"));

    p = parsed(std::string(basic) + "[tool.uv]\ndefault-groups = \"all\"\n");
    lines = lines_for(converted(p), "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "mkdocs") && has(lines, "pytest") && has(lines, "ruff"));

    p = parsed(std::string(basic) + "[tool.uv]\ndefault-groups = [\"nope\"]\n");
    auto problem = conversion_problem(p);
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:19:1");
    EXPECT_NE(problem.message.find("'nope'"), std::string::npos);
}

TEST(Pyproject, IncludeGroupCyclesAreProblems) {
    auto p = parsed(R"([project]
name = "x"
[dependency-groups]
a = [{ include-group = "b" }]
b = [{ include-group = "a" }]
)");
    PyprojectSelection s;
    s.groups = {"a"};
    auto problem = conversion_problem(p, s);
    EXPECT_NE(problem.message.find("a → b → a"), std::string::npos) << problem.message;
}

TEST(Pyproject, MalformedTomlNamesLineAndColumn) {
    auto problem = parse_problem("[project]\nname = \"x\"\ndependencies = [\"a\",, \"b\"]\n");
    EXPECT_EQ(problem.where.file, "pyproject.toml");
    EXPECT_EQ(problem.where.line, 3u);
    EXPECT_GT(problem.where.column, 1u);
    EXPECT_NE(problem.message.find("not valid TOML"), std::string::npos) << problem.message;
}

TEST(Pyproject, RequirementsReadAsUvReadsThem) {
    // uv ends a URL at "; " (NVIDIA-NeMo/Automodel writes its dion requirement so).
    auto p = parsed(
        "[project]\nname = \"x\"\ndependencies = [\"dion @ "
        "git+https://github.com/microsoft/dion.git; platform_machine == 'x86_64'\"]\n");
    ASSERT_EQ(p.dependencies.size(), 1u);
    EXPECT_EQ(*p.dependencies[0].requirement.url(), "git+https://github.com/microsoft/dion.git");
    EXPECT_TRUE(p.dependencies[0].requirement.marker());
}

TEST(Pyproject, InvalidRequirementsAndNamesAreProblemsAtTheirPlace) {
    auto problem = parse_problem("[project]\nname = \"x\"\ndependencies = [\"ok\", \"bad==\"]\n");
    EXPECT_EQ(problem.where.line, 3u);
    EXPECT_EQ(problem.where.column, 27u) << problem.describe();  // at "=="
    EXPECT_NE(problem.message.find("invalid requirement 'bad=='"), std::string::npos);

    problem = parse_problem("[project]\nname = \"../evil\"\n");
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:2:8");
    problem = parse_problem("[project]\nname = \"CON\"\n");
    EXPECT_NE(problem.message.find("'con'"), std::string::npos) << problem.message;
    problem = parse_problem("[project]\nversion = \"1\"\n");
    EXPECT_NE(problem.message.find("[project] has no name"), std::string::npos);
    problem = parse_problem("[project]\nname = \"x\"\nrequires-python = \">=3.1O\"\n");
    EXPECT_EQ(problem.where.line, 3u);
}

TEST(Pyproject, WithoutAProjectTableThereIsNothingToInstall) {
    auto p = parsed("[tool.ruff]\nline-length = 100\n");
    EXPECT_FALSE(p.has_project);
    auto problem = conversion_problem(p);
    EXPECT_NE(problem.message.find("no [project] table"), std::string::npos);
}

TEST(Pyproject, TheProjectItselfIsInstalledEditableWhenUvWouldInstallIt) {
    const std::string with_backend = std::string(basic) +
                                     "[build-system]\nrequires = [\"hatchling\"]\n"
                                     "build-backend = \"hatchling.build\"\n";
    auto lines = lines_for(converted(parsed(with_backend)), "linux-x86_64-cpu");
    EXPECT_EQ(lines.back(), "-e demo-app @ " + file_url_of("/project"));

    PyprojectSelection s;
    s.install_project = false;
    lines = lines_for(converted(parsed(with_backend), s), "linux-x86_64-cpu");
    EXPECT_FALSE(has(lines, "-e demo-app @ " + file_url_of("/project")));

    lines = lines_for(converted(parsed(with_backend + "[tool.uv]\npackage = false\n")),
                      "linux-x86_64-cpu");
    EXPECT_FALSE(has(lines, "-e demo-app @ " + file_url_of("/project")));
    // tool.uv.package = true installs it without a [build-system] (setuptools' legacy backend).
    lines = lines_for(converted(parsed(std::string(basic) + "[tool.uv]\npackage = true\n")),
                      "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "-e demo-app @ " + file_url_of("/project")));
}

TEST(Pyproject, DynamicDependenciesComeFromTheBuildBackend) {
    auto p = parsed(R"([project]
name = "dyn"
version = "1.0"
dynamic = ["dependencies", "optional-dependencies"]
[build-system]
requires = ["setuptools"]
)");
    EXPECT_TRUE(p.is_dynamic("dependencies"));
    auto problem = conversion_problem(p);
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:4:11");
    EXPECT_NE(problem.message.find("'dependencies' and 'optional-dependencies'"),
              std::string::npos);
    EXPECT_NE(problem.message.find("--no-build"), std::string::npos) << problem.message;

    auto built = pep::CoreMetadata::parse(
        "Metadata-Version: 2.1\nName: dyn\nVersion: 1.0\nRequires-Dist: requests\n"
        "Provides-Extra: gpu\nRequires-Dist: cupy; extra == \"gpu\" and sys_platform == "
        "\"linux\"\n");
    ASSERT_TRUE(built);
    auto lines = lines_for(converted(p, {}, &*built), "linux-x86_64-cpu");
    EXPECT_TRUE(has(lines, "requests"));
    EXPECT_FALSE(has(lines, "cupy"));
    PyprojectSelection s;
    s.extras = {"gpu"};
    auto in = converted(p, s, &*built);
    bool cupy = false;
    for (const auto* r : in.requirements_for(target("linux-x86_64-cpu"))) {
        if (r->line.name() != "cupy") continue;
        cupy = true;
        // The extra's marker holds for a root requirement, the rest stays.
        pep::MarkerEnvironment env =
            marker_environment(target("linux-x86_64-cpu"), *pep::Version::parse("3.12.1"));
        EXPECT_TRUE(*r->line.requirement->applies(env));
        env = marker_environment(target("windows-x86_64-cpu"), *pep::Version::parse("3.12.1"));
        EXPECT_FALSE(*r->line.requirement->applies(env));
    }
    EXPECT_TRUE(cupy);

    s = {};
    s.dynamic_may_stay_unread = true;
    in = converted(p, s);
    EXPECT_NE(in.notes.front().find("not read here"), std::string::npos);
}

TEST(Pyproject, ConflictsAreCheckedAgainstTheExtrasAndGroups) {
    auto p = parsed(std::string(basic) + R"([tool.uv]
conflicts = [
    [{ extra = "plot" }, { extra = "missing" }],
]
)");
    auto problem = conversion_problem(p);
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:20:26");
    EXPECT_NE(problem.message.find("the extra 'missing'"), std::string::npos) << problem.message;

    p = parsed(std::string(basic) + R"([tool.uv]
conflicts = [[{ extra = "plot" }, { extra = "all" }], [{ group = "docs" }, { group = "dev" }]]
)");
    PyprojectSelection s;
    s.extras = {"plot", "all"};
    problem = conversion_problem(p, s);
    EXPECT_NE(problem.message.find("declared conflicting"), std::string::npos) << problem.message;
    s = {};
    s.groups = {"docs"};  // dev is a default group
    problem = conversion_problem(p, s);
    EXPECT_NE(problem.message.find("'dev' and 'docs'"), std::string::npos) << problem.message;
    s.no_default_groups = true;
    converted(p, s);
}

TEST(Pyproject, UnsupportedKeysThatChangeTheInstallAreRefusedWithTheirPlace) {
    auto p =
        parsed(std::string(basic) + "[tool.uv]\nmanaged = true\nexclude-newer = \"2025-01-01\"\n");
    ASSERT_EQ(p.uv.refused.size(), 1u);
    auto problem = conversion_problem(p);
    EXPECT_EQ(problem.where.to_string(), "pyproject.toml:20:1");
    EXPECT_NE(problem.message.find("tool.uv.exclude-newer is not supported"), std::string::npos)
        << problem.message;

    // uv's index strategies are followed (issue 34); uv's default when none is named.
    EXPECT_EQ(converted(parsed(basic)).index_strategy, "first-index");
    for (const char* strategy : {"first-index", "unsafe-first-match", "unsafe-best-match"}) {
        auto in = converted(
            parsed(std::string(basic) + "[tool.uv]\nindex-strategy = \"" + strategy + "\"\n"));
        EXPECT_EQ(in.index_strategy, strategy);
    }
    auto bad_strategy =
        parse_problem(std::string(basic) + "[tool.uv]\nindex-strategy = \"best-match\"\n");
    EXPECT_EQ(bad_strategy.where.to_string(), "pyproject.toml:19:18");
    EXPECT_NE(bad_strategy.message.find("\"best-match\" is not an index strategy"),
              std::string::npos)
        << bad_strategy.message;
    EXPECT_NE(bad_strategy.hint.find("\"unsafe-best-match\""), std::string::npos);

    // Keys that change nothing installed are a note.
    auto in =
        converted(parsed(std::string(basic) + "[tool.uv]\nmanaged = true\ncache-dir = \"x\"\n"));
    ASSERT_FALSE(in.notes.empty());
    EXPECT_NE(in.notes.back().find("tool.uv.cache-dir, tool.uv.managed"), std::string::npos)
        << in.notes.back();

    auto unknown = parse_problem(std::string(basic) + "[tool.uv]\nsorces = {}\n");
    EXPECT_EQ(unknown.where.to_string(), "pyproject.toml:19:1");
    EXPECT_NE(unknown.message.find("unknown key 'sorces' in [tool.uv]"), std::string::npos);
}

TEST(Pyproject, OverridesConstraintsEnvironmentsAndPipSettings) {
    auto p = parsed(std::string(basic) + R"([tool.uv]
override-dependencies = ["numpy==1.26.4", "apex ; sys_platform == 'never'"]
constraint-dependencies = ["urllib3<3"]
environments = ["sys_platform == 'linux'", "sys_platform == 'win32' and platform_machine == 'AMD64'"]
prerelease = "allow"
no-binary-package = ["Pillow"]
)");
    auto in = converted(p);
    ASSERT_EQ(in.overrides.size(), 2u);
    EXPECT_EQ(in.overrides[0].line.text, "numpy==1.26.4");
    ASSERT_EQ(in.constraints.size(), 1u);
    EXPECT_TRUE(in.options.pre);
    EXPECT_EQ(in.options.no_binary, std::vector<std::string>{"pillow"});
    auto allowed = [&](std::string_view os, std::string_view arch) {
        for (const auto& a : in.platforms) {
            if (a.applies(os, arch, {})) return true;
        }
        return false;
    };
    EXPECT_TRUE(allowed("linux", "x86_64"));
    EXPECT_TRUE(allowed("linux", "aarch64"));
    EXPECT_TRUE(allowed("windows", "x86_64"));
    EXPECT_FALSE(allowed("windows", "aarch64"));
    EXPECT_FALSE(allowed("macos", "arm64"));
    EXPECT_EQ(in.platforms_by, "pyproject.toml:21:17 (tool.uv.environments)");

    auto scoped = parsed(std::string(basic) +
                         "[tool.uv]\noverride-dependencies = [{ package = { name = \"flask\" }, "
                         "dependencies = [\"x==1\"] }]\n");
    EXPECT_NE(conversion_problem(scoped).message.find("scoped"), std::string::npos);
}

TEST(Pyproject, TheInputHashFollowsWhatDecidesTheLockOnly) {
    auto a = converted(parsed(basic));
    auto b = converted(parsed(std::string(basic) + "[tool.ruff]\nline-length = 120\n"));
    EXPECT_EQ(a.hashed_inputs, b.hashed_inputs);
    PyprojectSelection s;
    s.extras = {"plot"};
    EXPECT_NE(converted(parsed(basic), s).hashed_inputs, a.hashed_inputs);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
