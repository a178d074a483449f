// uv's `--locked` check: a uv.lock against the pyproject.toml it was made from. Every real pair
// matches; a changed dependency, extra, group, version or requires-python does not.
#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/lock/uv_lock_project.hpp"
#include "uv_lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

UvProject project_of(const std::string& text) {
    auto parsed = parse_uv_project(text, "pyproject.toml");
    if (!parsed) throw std::runtime_error(parsed.error().describe());
    return std::move(*parsed);
}

std::optional<std::string> mismatch(const std::string& prefix, const std::string& from = {},
                                    const std::string& to = {}) {
    const auto lock = uv_test::read(uv_test::data(prefix + "__uv.lock"));
    std::string text = test::read_file(uv_test::data(prefix + "__pyproject.toml"));
    if (!from.empty()) {
        const auto at = text.find(from);
        if (at == std::string::npos) throw std::logic_error("not in the text: " + from);
        text.replace(at, from.size(), to);
    }
    return uv_lock_mismatch(lock, project_of(text));
}

TEST(UvLockProject, TheCopiedPairsMatch) {
    for (const auto* prefix : {"nari-labs_dia", "karpathy_nanochat", "fishaudio_fish-speech"})
        EXPECT_EQ(mismatch(prefix), std::nullopt) << prefix;
}

// Workspaces, sources split by markers, extras and groups in conflicts, git and URL sources,
// override-dependencies: all fifteen real pairs of /work/shared/realworld/uv.
TEST(UvLockProject, EveryRealPairOfTheSharedCorpusMatches) {
    const auto shared = uv_test::shared_realworld() / "uv";
    std::error_code ec;
    if (!stdfs::is_directory(shared, ec)) GTEST_SKIP() << "no " << shared.string();
    std::size_t pairs = 0;
    for (const auto& entry : stdfs::directory_iterator(shared)) {
        const std::string name = entry.path().filename().string();
        if (!name.ends_with("__uv.lock")) continue;
        const auto prefix = name.substr(0, name.size() - std::string("uv.lock").size());
        const auto lock = uv_test::read(entry.path().string());
        const auto project = project_of(test::read_file(shared / (prefix + "pyproject.toml")));
        EXPECT_EQ(uv_lock_mismatch(lock, project), std::nullopt) << name;
        ++pairs;
    }
    EXPECT_EQ(pairs, 15u);
}

TEST(UvLockProject, AChangedDependencyIsNamed) {
    auto changed = mismatch("nari-labs_dia", "\"numpy>=2.2.4\"", "\"numpy>=2.3\"");
    ASSERT_TRUE(changed);
    EXPECT_EQ(*changed,
              "the project's dependencies differ from the lock's: adds or changes numpy>=2.3; "
              "the lock has numpy>=2.2.4");
    auto added = mismatch("nari-labs_dia", "\"safetensors>=0.5.3\",",
                          "\"safetensors>=0.5.3\",\n    \"einops\",");
    ASSERT_TRUE(added);
    EXPECT_NE(added->find("adds or changes einops"), std::string::npos) << *added;
}

TEST(UvLockProject, ARedirectedTorchOfAnotherVersionIsNamed) {
    // torch comes from the cu126 index on Linux and Windows, from PyPI elsewhere: uv writes two
    // entries; the project now asks for another torch.
    auto changed = mismatch("nari-labs_dia", "\"torch==2.6.0\"", "\"torch==2.7.0\"");
    ASSERT_TRUE(changed);
    EXPECT_NE(changed->find("torch is ==2.7.0 now, ==2.6.0 in the lock"), std::string::npos)
        << *changed;
}

TEST(UvLockProject, AMarkerThatSelectsOtherwiseIsAChange) {
    auto changed =
        mismatch("nari-labs_dia", "\"triton==3.2.0 ; sys_platform == 'linux'\"",
                 "\"triton==3.2.0 ; sys_platform == 'linux' and python_version < '3.13'\"");
    ASSERT_TRUE(changed);
    // The same selection written differently is no change.
    EXPECT_EQ(mismatch("nari-labs_dia", "\"triton==3.2.0 ; sys_platform == 'linux'\"",
                       "\"triton==3.2.0 ; 'linux' == sys_platform\""),
              std::nullopt);
}

TEST(UvLockProject, ExtrasGroupsVersionAndPythonAreCompared) {
    auto extra = mismatch("karpathy_nanochat", "gpu = [\n    \"torch==2.9.1\",\n]",
                          "gpu = [\n    \"torch==2.9.1\",\n]\nrocm = [\"torch==2.9.1\"]");
    ASSERT_TRUE(extra);
    EXPECT_NE(extra->find("the project's extras are cpu, gpu, rocm"), std::string::npos) << *extra;
    auto group = mismatch("nari-labs_dia", "\"packaging>=25.0\"", "\"packaging>=26.0\"");
    ASSERT_TRUE(group);
    EXPECT_EQ(group->rfind("dependency group 'dev' differs from the lock's", 0), 0u) << *group;
    auto version = mismatch("nari-labs_dia", "version = \"0.1.0\"", "version = \"0.2.0\"");
    ASSERT_TRUE(version);
    EXPECT_EQ(*version, "the project's version is 0.2.0, the lock's 0.1.0");
    auto python =
        mismatch("nari-labs_dia", "requires-python = \">=3.10\"", "requires-python = \">=3.11\"");
    ASSERT_TRUE(python);
    EXPECT_EQ(*python, "requires-python is >=3.11 in pyproject.toml, >=3.10 in the lock");
    EXPECT_EQ(mismatch("nari-labs_dia", "version = \"0.1.0\"", "version = \"0.1\""), std::nullopt);
}

TEST(UvLockProject, DefaultGroupsComeFromToolUv) {
    auto nanochat = project_of(test::read_file(uv_test::data("karpathy_nanochat__pyproject.toml")));
    EXPECT_TRUE(nanochat.default_groups.empty());
    auto dia = project_of(test::read_file(uv_test::data("nari-labs_dia__pyproject.toml")));
    EXPECT_EQ(dia.default_groups, std::vector<std::string>{"dev"});
    auto all = project_of("[project]\nname = \"x\"\n[tool.uv]\ndefault-groups = \"all\"\n");
    EXPECT_TRUE(all.all_default_groups);
}

TEST(UvLockProject, BadPyprojectTomlIsNamedAtItsLine) {
    auto parsed =
        parse_uv_project("[project]\nname = \"x\"\ndependencies = \"numpy\"\n", "pyproject.toml");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().describe(),
              "pyproject.toml:3:16: `project.dependencies` must be an array of strings");
    EXPECT_FALSE(parse_uv_project("[project\n", "pyproject.toml"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
