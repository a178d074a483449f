// A glibc cap written in the inputs: a manifest's `glibc:` and a pyproject.toml's
// [tool.aitk-env] glibc become the input's cap (with where it is written); bad values are
// problems at file:line:column with the fix.
#include <gtest/gtest.h>

#include <string>

#include "aitk/project/manifest.hpp"
#include "aitk/project/project_input.hpp"
#include "pyproject_test_support.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

using pyproject_test::converted;
using pyproject_test::parse_problem;
using pyproject_test::parsed;

const std::string manifest_head =
    "name: demo\n"
    "requirements:\n"
    "  - requests\n";

TEST(GlibcCap, AManifestCapsItsLinuxTargets) {
    auto m = parse_manifest(manifest_head + "glibc: \"2.28\"\n", "demo.yaml");
    ASSERT_TRUE(m) << m.error().describe();
    ASSERT_TRUE(m->glibc);
    EXPECT_EQ(*m->glibc, (pep::OsVersion{2, 28}));
    auto input = from_manifest(*m, std::nullopt);
    ASSERT_TRUE(input) << input.error().describe();
    EXPECT_EQ(input->glibc_cap, (pep::OsVersion{2, 28}));
    EXPECT_EQ(input->glibc_cap_by, "demo.yaml:4:8 (glibc)");

    auto plain = parse_manifest(manifest_head + "glibc: 2.31\n", "demo.yaml");
    ASSERT_TRUE(plain) << plain.error().describe();
    EXPECT_EQ(*plain->glibc, (pep::OsVersion{2, 31}));

    auto none = parse_manifest(manifest_head, "demo.yaml");
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->glibc);
    EXPECT_FALSE(from_manifest(*none, std::nullopt)->glibc_cap);
}

TEST(GlibcCap, ABadManifestValueIsAProblemWithTheFix) {
    for (const char* bad : {"\"3\"", "abc", "\"3.0\"", "[2.28]"}) {
        auto m = parse_manifest(manifest_head + "glibc: " + bad + "\n", "demo.yaml");
        ASSERT_FALSE(m) << bad;
        EXPECT_EQ(m.error().where.line, 4u) << bad;
        EXPECT_NE(m.error().hint.find("glibc: \"2.28\""), std::string::npos) << m.error().hint;
    }
    auto m = parse_manifest(manifest_head + "glibc: abc\n", "demo.yaml");
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("expected MAJOR.MINOR such as 2.28"), std::string::npos)
        << m.error().message;
}

TEST(GlibcCap, PyprojectToolAitkEnvCapsItsLinuxTargets) {
    auto p = parsed(
        "[project]\nname = \"demo\"\ndependencies = [\"requests\"]\n\n"
        "[tool.aitk-env]\nglibc = \"2.28\"\n");
    ASSERT_TRUE(p.glibc);
    EXPECT_EQ(*p.glibc, (pep::OsVersion{2, 28}));
    auto input = converted(p);
    EXPECT_EQ(input.glibc_cap, (pep::OsVersion{2, 28}));
    EXPECT_EQ(input.glibc_cap_by, "pyproject.toml:6:9 (tool.aitk-env.glibc)");

    auto bad = parse_problem("[project]\nname = \"demo\"\n\n[tool.aitk-env]\nglibc = \"3\"\n");
    EXPECT_EQ(bad.where.line, 5u);
    EXPECT_NE(bad.message.find("expected MAJOR.MINOR"), std::string::npos) << bad.message;
    EXPECT_NE(bad.hint.find("glibc = \"2.28\""), std::string::npos) << bad.hint;

    auto number = parse_problem("[project]\nname = \"demo\"\n\n[tool.aitk-env]\nglibc = 2.28\n");
    EXPECT_EQ(number.where.line, 5u);
    EXPECT_NE(number.hint.find("glibc = \"2.28\""), std::string::npos) << number.hint;

    auto unknown =
        parse_problem("[project]\nname = \"demo\"\n\n[tool.aitk-env]\nglibcc = \"2.28\"\n");
    EXPECT_NE(unknown.message.find("unknown key 'glibcc' in tool.aitk-env"), std::string::npos)
        << unknown.message;
    EXPECT_NE(unknown.hint.find("glibc"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
