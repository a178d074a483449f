#include "aitk/build/build_system.hpp"

#include <gtest/gtest.h>

#include "build_test_support.hpp"

namespace aitk::build {
namespace AITK_FILE_LOCAL {

std::vector<std::string> requirement_texts(const BuildSystem& system) {
    std::vector<std::string> out;
    for (const auto& r : system.requirements)
        out.push_back(r.to_string());
    return out;
}

TEST(BuildSystem, ReadsTheDeclaredTable) {
    auto parsed = parse_build_system(R"(
[project]
name = "x"

[build-system]
requires = ["hatchling>=1.10", "hatch-vcs ; python_version >= '3.8'"]
build-backend = "hatchling.build"
backend-path = ["_build", "./tools/backend/"]
)",
                                     "pyproject.toml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_TRUE(parsed->declared);
    EXPECT_EQ(
        requirement_texts(*parsed),
        (std::vector<std::string>{"hatchling>=1.10", "hatch-vcs; python_version >= \"3.8\""}));
    EXPECT_EQ(parsed->backend, "hatchling.build");
    EXPECT_EQ(parsed->backend_path, (std::vector<std::string>{"_build", "tools/backend"}));
}

TEST(BuildSystem, ObjectReferenceBackend) {
    auto parsed = parse_build_system(
        "[build-system]\nrequires = []\nbuild-backend = \"setuptools.build_meta:__legacy__\"\n",
        "p.toml");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->requirements.empty());
    EXPECT_EQ(parsed->backend, "setuptools.build_meta:__legacy__");
}

TEST(BuildSystem, MissingTableGivesTheLegacyDefault) {
    auto parsed = parse_build_system("[project]\nname = \"x\"\n", "pyproject.toml");
    ASSERT_TRUE(parsed);
    EXPECT_FALSE(parsed->declared);
    EXPECT_EQ(requirement_texts(*parsed), (std::vector<std::string>{"setuptools>=40.8.0"}));
    EXPECT_EQ(parsed->backend, "setuptools.build_meta:__legacy__");
    EXPECT_TRUE(parsed->backend_path.empty());
}

TEST(BuildSystem, TableWithoutBackendKeepsItsRequirements) {
    auto parsed =
        parse_build_system("[build-system]\nrequires = [\"setuptools>=61\", \"wheel\"]\n", "p");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(parsed->declared);
    EXPECT_EQ(requirement_texts(*parsed), (std::vector<std::string>{"setuptools>=61", "wheel"}));
    EXPECT_EQ(parsed->backend, "setuptools.build_meta:__legacy__");
}

TEST(BuildSystem, MissingFileGivesTheLegacyDefault) {
    test::TempDir dir;
    auto read = read_build_system(dir.path);
    ASSERT_TRUE(read);
    EXPECT_FALSE(read->declared);
    EXPECT_EQ(read->backend, "setuptools.build_meta:__legacy__");
}

TEST(BuildSystem, ReadsTheProjectsFile) {
    test::TempDir dir;
    test::write_file(dir.path / "pyproject.toml",
                     "[build-system]\nrequires = [\"flit_core >=3.2,<4\"]\n"
                     "build-backend = \"flit_core.buildapi\"\n");
    auto read = read_build_system(dir.path);
    ASSERT_TRUE(read);
    EXPECT_EQ(requirement_texts(*read), (std::vector<std::string>{"flit_core<4,>=3.2"}));
    EXPECT_EQ(read->backend, "flit_core.buildapi");
}

TEST(BuildSystem, BadTomlIsReportedWithLineAndColumn) {
    test::TempDir dir;
    test::write_file(dir.path / "pyproject.toml",
                     "[build-system]\nrequires = [\"setuptools\"\nbuild-backend = 1\n");
    auto read = read_build_system(dir.path);
    ASSERT_FALSE(read);
    EXPECT_EQ(read.error().where.file, (dir.path / "pyproject.toml").string());
    EXPECT_EQ(read.error().where.line, 3u);
    EXPECT_GT(read.error().where.column, 0u);
    EXPECT_TRUE(read.error().message.starts_with("not valid TOML: ")) << read.error().message;
    EXPECT_TRUE(read.error().describe().starts_with((dir.path / "pyproject.toml").string() + ":3:"))
        << read.error().describe();
}

TEST(BuildSystem, RequiresIsMandatoryInADeclaredTable) {
    auto parsed = parse_build_system("\n[build-system]\nbuild-backend = \"flit_core.buildapi\"\n",
                                     "pyproject.toml");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().describe(),
              "pyproject.toml:2:1: [build-system] has no 'requires' key");
    EXPECT_FALSE(parsed.error().hint.empty());
}

TEST(BuildSystem, BadRequirementPointsAtTheElement) {
    auto parsed = parse_build_system(
        "[build-system]\nrequires = [\"ok\", \"not a ==requirement\"]\n", "pyproject.toml");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().where.line, 2u);
    EXPECT_EQ(parsed.error().where.column, 19u);
    EXPECT_TRUE(parsed.error().message.starts_with("build requirement 'not a ==requirement': "))
        << parsed.error().message;
}

TEST(BuildSystem, RequiresMustBeAnArrayOfStrings) {
    auto not_array = parse_build_system("[build-system]\nrequires = \"setuptools\"\n", "p");
    ASSERT_FALSE(not_array);
    EXPECT_EQ(not_array.error().describe(), "p:2:12: 'requires' is not an array of strings");
    auto not_string = parse_build_system("[build-system]\nrequires = [1]\n", "p");
    ASSERT_FALSE(not_string);
    EXPECT_EQ(not_string.error().describe(),
              "p:2:13: 'requires' holds something that is not a string");
}

TEST(BuildSystem, BackendMustBeAnObjectReference) {
    for (const char* bad : {"\"\"", "\"a b\"", "\"mod:\"", "\"1mod\"", "\"a..b\"", "3"}) {
        auto parsed = parse_build_system(
            std::string("[build-system]\nrequires = []\nbuild-backend = ") + bad + "\n", "p");
        ASSERT_FALSE(parsed) << bad;
        EXPECT_EQ(parsed.error().describe(),
                  "p:3:17: 'build-backend' is not a backend object reference")
            << bad;
    }
}

TEST(BuildSystem, BackendPathMustStayInsideTheProject) {
    for (const char* bad : {"\"../outside\"", "\"/abs\"", "\"a/../../b\"", "\"a\\\\b\""}) {
        auto parsed = parse_build_system(
            std::string("[build-system]\nrequires = []\nbuild-backend = \"b\"\nbackend-path = [") +
                bad + "]\n",
            "p");
        ASSERT_FALSE(parsed) << bad;
        EXPECT_EQ(parsed.error().where.line, 4u) << bad;
        EXPECT_TRUE(parsed.error().message.starts_with("backend-path entry "))
            << parsed.error().message;
    }
    auto dot = parse_build_system(
        "[build-system]\nrequires = []\nbuild-backend = \"b\"\nbackend-path = [\".\"]\n", "p");
    ASSERT_TRUE(dot);
    EXPECT_EQ(dot->backend_path, (std::vector<std::string>{"."}));
}

TEST(BuildSystem, BuildSystemThatIsNotATable) {
    auto parsed = parse_build_system("build-system = 3\n", "p");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().describe(), "p:1:16: build-system is not a table");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::build
