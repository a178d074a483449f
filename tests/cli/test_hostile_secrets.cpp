// No secrets in messages (issue 33, item 5), through the real binary. A line of a file outside
// the folder of the input the user named (an `-r /etc/shadow` inside a requirements file) is
// never echoed: its place is. The value of a ${VAR} reference (pip's way to keep a token out of
// a requirements file) is never shown: the reference is, in errors, notes and --json output,
// and nothing written holds it.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "hostile_run.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string token = "tok-3f9a7c1e5b";
const std::string token_variable = "SECRET_TOKEN=" + token;

class HostileSecrets : public VictimWorldTest {
  protected:
    static std::vector<std::string> lock_args(const std::string& flag, const std::string& file,
                                              bool json = false) {
        std::vector<std::string> args = {"lock",
                                         flag,
                                         file,
                                         "-o",
                                         world->path("out.lock.yml").string(),
                                         "--python",
                                         hostile_python_version,
                                         "--target",
                                         hostile_target};
        if (json) args.insert(args.begin(), "--json");
        return args;
    }

    // Every file under the world's folder (inputs excepted) and the cache: none may hold `secret`.
    static std::string files_holding(const std::string& secret) {
        std::string found;
        for (const auto& root : {world->path("cache"), world->path("prefix"), world->work.path()}) {
            std::error_code ec;
            for (auto it = stdfs::recursive_directory_iterator(root, ec);
                 !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
                const bool input = it->path().string().rfind(world->path("in").string(), 0) == 0;
                if (input || !it->is_regular_file(ec)) continue;
                if (fs::read_file(it->path()).find(secret) != std::string::npos)
                    found += it->path().string() + "\n";
            }
        }
        return found;
    }

    static void expect_hidden(const CliResult& r, const std::string& secret) {
        EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
        EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
        EXPECT_EQ(files_holding(secret), "");
    }
};

TEST_F(HostileSecrets, ALineOfAFileOutsideTheInputsFolderIsNeverShown) {
    // Before: "error: /etc/shadow:1:5: invalid requirement 'root:*:20228:0:99999:7:::'".
    auto outside = fs::TempDir::create("aitk-secret-elsewhere");
    const auto secret = outside.path() / "secret.txt";
    fs::write_file_atomic(secret, "victim\nroot:$6$salt$SECRETHASHVALUE:20228:0:99999:7:::\n");
    const auto file =
        write("project/requirements.txt", "victim\n-r " + secret.generic_string() + "\n");
    for (const bool json : {false, true}) {
        const auto before = world->state();
        auto r = run_in_world(*world, lock_args("-r", file, json));
        EXPECT_EQ(r.exit_code, 2) << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(
            r.err,
            {secret.string() + ":2:5: ", "its text is not shown",
             "lies outside " + stdfs::weakly_canonical(world->path("in/project")).string()},
            missing))
            << missing << " in " << r.err;
        for (const std::string part : {"SECRETHASHVALUE", "salt", "root:"}) {
            EXPECT_EQ(r.err.find(part), std::string::npos) << r.err;
            EXPECT_EQ(r.out.find(part), std::string::npos) << r.out;
        }
        EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
    }
}

#ifndef _WIN32
TEST_F(HostileSecrets, ALineOfAFileNotEveryoneMayReadIsNeverShown) {
    // Before: "lock -r /etc/shadow" printed root's line. A file of mode 0600 or 0640 (a token
    // file, /etc/shadow) is private even when it is the input itself.
    const auto file = write("private/requirements.txt", "victim\nuser:PRIVATEVALUE:1:2\n");
    stdfs::permissions(file, stdfs::perms::owner_read | stdfs::perms::owner_write);
    const auto before = world->state();
    auto r = run_in_world(*world, lock_args("-r", file));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(file + ":2:5: this line is not a valid requirement or option (its text "
                                "is not shown: not everyone may read the file"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("PRIVATEVALUE"), std::string::npos) << r.err;
    EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
}
#endif

TEST_F(HostileSecrets, ALineOfANestedFileInsideTheFolderIsStillShown) {
    write("nested/sub/more.txt", "victim\nnot a requirement!\n");
    const auto file = write("nested/requirements.txt", "victim\n-r sub/more.txt\n");
    auto r = run_in_world(*world, lock_args("-r", file));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("not a requirement!"), std::string::npos) << r.err;
}

TEST_F(HostileSecrets, AnInvalidRequirementShowsTheVariableNotItsValue) {
    // Before: "invalid requirement 'victim==tok-3f9a7c1e5b'".
    const auto file = write("token.txt", "victim==${SECRET_TOKEN}\n");
    for (const bool json : {false, true}) {
        HostileRun how;
        how.environment = {token_variable};
        auto r = run_in_world(*world, lock_args("-r", file, json), how);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(file + ":1:7: invalid requirement 'victim==${SECRET_TOKEN}'"),
                  std::string::npos)
            << r.err;
        expect_hidden(r, token);
    }
}

TEST_F(HostileSecrets, AnUnsatisfiableRequirementShowsTheVariableNotItsValue) {
    // Before: "Because victim==99.0.7331 is required (…) and no version of victim matches".
    const auto file = write("version.txt", "victim==${SECRET_VERSION}\n");
    HostileRun how;
    how.environment = {"SECRET_VERSION=99.0.7331"};
    auto r = run_in_world(*world, lock_args("-r", file), how);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("victim==${SECRET_VERSION}"), std::string::npos) << r.err;
    expect_hidden(r, "99.0.7331");
}

TEST_F(HostileSecrets, NotesShowTheVariableNotItsValue) {
    // Before: the note "pkg @ https://example.invalid/tok-…/pkg-1.0.tar.gz: an sdist; …".
    const auto file =
        write("note.txt", "victim\nhttps://example.invalid/${SECRET_TOKEN}/pkg-1.0.tar.gz\n");
    HostileRun how;
    how.environment = {token_variable};
    auto args = lock_args("-r", file, true);
    args.push_back("--no-build");
    auto r = run_in_world(*world, args, how);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("${SECRET_TOKEN}"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(token), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(token), std::string::npos) << r.err;
    stdfs::remove(world->path("out.lock.yml"));  // the lock holds the URL it must download
}

TEST_F(HostileSecrets, AnEnvironmentYmlPipItemShowsTheVariableNotItsValue) {
    const auto file = write("env/environment.yml",
                            "name: demo\ndependencies:\n  - python=3.11\n  - pip:\n"
                            "    - victim==${SECRET_TOKEN}\n");
    for (const bool json : {false, true}) {
        HostileRun how;
        how.environment = {token_variable};
        auto r = run_in_world(*world, lock_args("-f", file, json), how);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(file + ":5:"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("'victim==${SECRET_TOKEN}'"), std::string::npos) << r.err;
        expect_hidden(r, token);
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
