// What the project readers keep out of messages and paths (issue 33, items 3 and 5): ${VAR}
// values, lines of files outside the input's folder, `name:` values that are not file names.
#include <gtest/gtest.h>

#include <map>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/project/conda_environment.hpp"
#include "aitk/project/requirements_file.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

// A path as messages and locations show it: with this system's separators (backslashes on
// Windows), so the same expectations hold on every OS.
std::string shown(const char* path) {
    return util::utf8_of(std::filesystem::path(path).make_preferred());
}

RequirementsReadOptions tree(std::map<std::string, std::string> files,
                             util::Environment environment = {}) {
    RequirementsReadOptions options;
    options.environment = std::move(environment);
    options.read =
        [files = std::move(files)](
            const std::filesystem::path& path) -> util::Expected<std::string, std::string> {
        auto it = files.find(path.generic_string());
        if (it == files.end()) return util::Unexpected(std::string("No such file or directory"));
        return it->second;
    };
    return options;
}

TEST(InputSecrets, AProblemShowsTheVariableNotItsValue) {
    auto options = tree({}, {{"SECRET_TOKEN", "tok-3f9a7c1e5b"}});
    auto parsed = parse_requirements_text("victim==${SECRET_TOKEN}\n", "/proj/r.txt", options);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().where.to_string(), "/proj/r.txt:1:7");
    EXPECT_NE(parsed.error().message.find("'victim==${SECRET_TOKEN}'"), std::string::npos)
        << parsed.error().message;
    EXPECT_EQ(parsed.error().message.find("tok-3f9a7c1e5b"), std::string::npos);
}

TEST(InputSecrets, TheExpandedValuesAreListedForLaterStages) {
    auto options = tree({}, {{"VERSION", "99.0.7331"}, {"UNUSED", "never"}});
    auto parsed =
        parse_requirements_text("victim==${VERSION}\nother==${VERSION}\n", "/proj/r.txt", options);
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->requirements.front().text, "victim==99.0.7331");
    ASSERT_EQ(parsed->concealed.size(), 1u);
    EXPECT_EQ(parsed->concealed.front(), (util::Concealed{"99.0.7331", "${VERSION}"}));
}

TEST(InputSecrets, AnIncludedPathShowsTheVariableNotItsValue) {
    auto options = tree({}, {{"SECRET_DIR", "private-folder-name"}});
    auto parsed = parse_requirements_text("-r ${SECRET_DIR}/x.txt\n", "/proj/r.txt", options);
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find(shown("/proj/${SECRET_DIR}/x.txt")), std::string::npos)
        << parsed.error().message;
    EXPECT_EQ(parsed.error().message.find("private-folder-name"), std::string::npos);
}

TEST(InputSecrets, ALineOfAFileOutsideTheInputsFolderIsNotShown) {
    auto options = tree({{"/proj/r.txt", "victim\n-r /etc/secret.txt\n"},
                         {"/etc/secret.txt", "victim\nroot:SECRETHASH:1:2\n"}});
    auto parsed = read_requirements_file("/proj/r.txt", options);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().where.to_string(), shown("/etc/secret.txt") + ":2:5");
    EXPECT_NE(parsed.error().message.find("its text is not shown"), std::string::npos);
    EXPECT_EQ(parsed.error().message.find("SECRETHASH"), std::string::npos)
        << parsed.error().message;
    EXPECT_EQ(parsed.error().message.find("root"), std::string::npos);
}

TEST(InputSecrets, ALineOfANestedFileInsideTheFolderIsShown) {
    auto options = tree(
        {{"/proj/r.txt", "-r sub/more.txt\n"}, {"/proj/sub/more.txt", "not a requirement!\n"}});
    auto parsed = read_requirements_file("/proj/r.txt", options);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().where.file, shown("/proj/sub/more.txt"));
    EXPECT_NE(parsed.error().message.find("not a requirement!"), std::string::npos)
        << parsed.error().message;
}

#ifndef _WIN32
TEST(InputSecrets, ALineOfAFileNotEveryoneMayReadIsNotShown) {
    auto dir = fs::TempDir::create("aitk-private");
    const auto file = dir.path() / "requirements.txt";
    fs::write_file_atomic(file, "victim\ntoken=PRIVATEVALUE\n");
    std::filesystem::permissions(file, std::filesystem::perms::owner_read);
    auto parsed = read_requirements_file(file);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().where.line, 2u);
    EXPECT_NE(parsed.error().message.find("not everyone may read the file"), std::string::npos);
    EXPECT_EQ(parsed.error().message.find("PRIVATEVALUE"), std::string::npos)
        << parsed.error().message;
    // Readable by everyone: the line is quoted as before.
    std::filesystem::permissions(file, std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::add);
    parsed = read_requirements_file(file);
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("PRIVATEVALUE"), std::string::npos);
}
#endif

TEST(InputNames, AnEnvironmentYmlNameMustBeOneFileName) {
    auto env = parse_conda_environment("name: ../../x\ndependencies:\n  - pip\n", "env.yml");
    ASSERT_FALSE(env);
    EXPECT_EQ(env.error().describe(),
              "env.yml:1:7: `name` cannot name a file: it contains a path separator '/'");
    env = parse_conda_environment("name: prn\ndependencies:\n  - pip\n", "env.yml");
    ASSERT_FALSE(env);
    EXPECT_EQ(env.error().describe(),
              "env.yml:1:7: `name` cannot name a file: 'prn' is a device name on Windows, not a "
              "file");
    env = parse_conda_environment("name: my-env_1.0\ndependencies:\n  - pip\n", "env.yml");
    ASSERT_TRUE(env) << env.error().describe();
    EXPECT_EQ(env->name_where.to_string(), "env.yml:1:7");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
