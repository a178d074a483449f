// Hostile files the user hands over (requirements files, manifests, environment.yml,
// lockfiles), through the real binary: each is refused with exit 2 and a message that names the
// file, the line and column and the problem (without echoing megabytes or control bytes), and
// nothing changes: no lockfile appears, the prefix and the cache stay as they were.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileUserFiles : public VictimWorldTest {
  protected:
    // `args` must exit 2 with an error holding every one of `parts`, change nothing, and keep
    // its message short.
    static void expect_bad_input(const std::vector<std::string>& args,
                                 const std::vector<std::string>& parts) {
        const auto before = world->state();
        auto r = world->cli(args);
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err.substr(0, 2000);
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err.substr(0, 2000);
        EXPECT_LT(r.err.size(), 4096u) << "the error repeats the input";
        EXPECT_EQ(r.err.find('\0'), std::string::npos) << "the error holds a NUL byte";
        EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
    }

    static std::vector<std::string> lock_args(const std::string& flag, const std::string& file) {
        return {"lock",
                flag,
                file,
                "-o",
                world->path("out.lock.yml").string(),
                "--python",
                hostile_python_version,
                "--target",
                hostile_target};
    }

    static std::vector<std::string> sync_args(const std::string& lock) {
        return {"sync", "-l", lock, "-p", world->path("prefix").string()};
    }

    // The world's lock with `from` replaced by `to` (which must be there once).
    static std::string lock_with(const std::string& from, const std::string& to) {
        std::string text = world->lock_text;
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) text.replace(at, from.size(), to);
        return text;
    }
};

// Made by the tests that use it: a global would be made at every start of test_cli, once per
// test, and 50 MB took 0.17 s of each (0.39 s under Wine).
const std::string& fifty_megabytes() {
    static const std::string text(50u << 20, 'a');
    return text;
}
const std::string nul(1, '\0');

TEST_F(HostileUserFiles, RequirementFileCyclesAreRefused) {
    const auto a = write("cycle-r/a.txt", "victim\n-r b.txt\n");
    const auto b = write("cycle-r/b.txt", "-r a.txt\n");
    expect_bad_input(lock_args("-r", a), {b + ":1:1: requirements files include each other: " + a +
                                              " -> " + b + " -> " + a,
                                          "remove one of the -r lines of the cycle"});
    const auto c = write("cycle-c/a.txt", "victim\n-c b.txt\n");
    const auto d = write("cycle-c/b.txt", "-c a.txt\n");
    expect_bad_input(lock_args("-r", c), {d + ":1:1: requirements files include each other",
                                          "remove one of the -c lines of the cycle"});
}

TEST_F(HostileUserFiles, RequirementFilesMustBeText) {
    auto file = write("utf8.txt", "victim\nfoo\xff\xfe==1\n");
    expect_bad_input(lock_args("-r", file), {file + ":2:4: invalid UTF-8 (byte 0xff)"});
    file = write("has-nul.txt", "victim\nfo" + nul + "o\n");
    expect_bad_input(lock_args("-r", file), {file + ":2:3: NUL byte"});
    file = write("escape.txt", "victim\nfoo\x1b[2J\n");
    expect_bad_input(lock_args("-r", file), {file + ":2:4: control character 0x1b"});
    file = write("long.txt", "victim\n" + fifty_megabytes() + "\n");
    expect_bad_input(lock_args("-r", file), {file + ":2:1: line 2 is longer than 1048576 bytes"});
    stdfs::remove(file);  // 50 MB: hashed by every later state()
    file = write("long-comment.txt", "victim\n# " + fifty_megabytes() + "\n");
    expect_bad_input(lock_args("-r", file), {file + ":2:1: line 2 is longer than 1048576 bytes"});
    stdfs::remove(file);  // 50 MB: hashed by every later state()
}

TEST_F(HostileUserFiles, ManifestsAreStrictAndSuggestTheKeyMeant) {
    const std::string good = "format: 1\nname: demo\nrequirements:\n  - victim\n";
    auto file = write("typo.yaml", "format: 1\nname: demo\nrequirments:\n  - victim\n");
    expect_bad_input(lock_args("-m", file), {file + ":3:1: unknown key \"requirments\"",
                                             "did you mean \"requirements\"?"});
    file = write("unknown.yaml", good + "zzzz: 1\n");
    expect_bad_input(lock_args("-m", file),
                     {file + ":5:1: unknown key \"zzzz\" at the top level", "known keys: format"});
    file = write("type.yaml", "format: 1\nname: [demo]\nrequirements:\n  - victim\n");
    expect_bad_input(lock_args("-m", file), {file + ":2:7: name: expected text, got a list"});
    file = write("utf8.yaml", "format: 1\nname: demo\nrequirements:\n  - vic\xfftim\n");
    expect_bad_input(lock_args("-m", file), {file + ":4:8: invalid UTF-8 (byte 0xff)"});
    file = write("has-nul.yaml", "format: 1\nname: demo\nrequirements:\n  - vic" + nul + "tim\n");
    expect_bad_input(lock_args("-m", file), {file + ":4:8: NUL byte"});
    file = write("long.yaml", good + "description: " + fifty_megabytes() + "\n");
    expect_bad_input(lock_args("-m", file), {file + ":5:1: line 5 is longer than 1048576 bytes"});
    stdfs::remove(file);  // 50 MB: hashed by every later state()
}

TEST_F(HostileUserFiles, EnvironmentYmlMustBeText) {
    const std::string good =
        "name: demo\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n      - victim\n";
    auto file = write("utf8.yml", "name: demo\ndependencies:\n  - pip:\n      - vic\xfftim\n");
    expect_bad_input(lock_args("-f", file), {file + ":4:12: invalid UTF-8 (byte 0xff)"});
    file = write("has-nul.yml", "name: demo\ndependencies:\n  - pip:\n      - vic" + nul + "tim\n");
    expect_bad_input(lock_args("-f", file), {file + ":4:12: NUL byte"});
    file = write("long.yml", good + "# " + fifty_megabytes() + "\n");
    expect_bad_input(lock_args("-f", file), {file + ":7:1: line 7 is longer than 1048576 bytes"});
    stdfs::remove(file);  // 50 MB: hashed by every later state()
}

TEST_F(HostileUserFiles, LockfilesWeWroteAcceptNoStrangers) {
    // An unknown key is an error at its line: a lockfile is written by aitk-env, never by hand.
    auto file =
        write("unknown.lock.yml", lock_with("  format: 1\n", "  format: 1\n  formatt: 2\n"));
    expect_bad_input(sync_args(file),
                     {"unknown.lock.yml:15:3: unknown key `formatt` in `x-aitk-env`",
                      "the keys here are: format, generator"});
    file = write("unknown-deep.lock.yml",
                 lock_with("          requested: true\n",
                           "          requested: true\n          extraz: [a]\n"));
    expect_bad_input(sync_args(file),
                     {":47:11: unknown key `extraz` in `x-aitk-env.targets[0].packages[0]`"});
    file = write("type.lock.yml",
                 lock_with("          requested: true\n", "          requested: [true]\n"));
    expect_bad_input(
        sync_args(file),
        {":46:22: `x-aitk-env.targets[0].packages[0].requested` must be true or false"});
    file = write("size.lock.yml",
                 lock_with("size: " + std::to_string(world->victim.size), "size: lots"));
    expect_bad_input(sync_args(file),
                     {"`x-aitk-env.targets[0].packages[0].wheel.size` must be a whole number"});
    file = write("utf8.lock.yml", lock_with("name: requirements", "name: requ\xffirements"));
    expect_bad_input(sync_args(file), {"utf8.lock.yml:3:7: invalid UTF-8"});
    file = write("has-nul.lock.yml", lock_with("name: requirements", "name: requ" + nul + "i"));
    expect_bad_input(sync_args(file), {"has-nul.lock.yml:3:11: NUL byte"});
    file = write("long.lock.yml", lock_with("name: requirements", "name: " + fifty_megabytes()));
    expect_bad_input(sync_args(file), {"long.lock.yml:3:1: line 3 is longer than 1048576 bytes"});
    stdfs::remove(file);  // 50 MB: hashed by every later state()
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
