// Names from inputs that become a path (issue 33, item 3), through the real binary: an
// environment.yml or manifest `name:`, a lock target id, a file name a lock lists, a --target on
// the command line. Each bad one is refused with exit 2 and the place of the value
// (file:line:column), and nothing is written anywhere: no lockfile, no folder, no prefix file.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "hostile_run.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileNames : public VictimWorldTest {
  protected:
    static std::string out(const std::string& name) { return world->path(name).string(); }

    // `args` must exit 2 with every one of `parts` in its error and change nothing.
    static void expect_refused(const std::vector<std::string>& args,
                               const std::vector<std::string>& parts) {
        const auto before = world->state();
        auto r = run_in_world(*world, args);
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err;
        EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
    }

    static std::vector<std::string> lock_args(const std::string& flag, const std::string& file) {
        return {"lock", flag, file, "--python", hostile_python_version, "--target", hostile_target};
    }

    // The world's lock with every `from` replaced by `to`.
    static std::string lock_with(const std::string& from, const std::string& to) {
        std::string text = world->lock_text;
        std::size_t at = 0;
        std::size_t count = 0;
        while ((at = text.find(from, at)) != std::string::npos) {
            text.replace(at, from.size(), to);
            at += to.size();
            ++count;
        }
        EXPECT_GT(count, 0u) << from;
        return text;
    }

    // "file:L:C" of the value after `key` in `text` (`key` holds the ": ").
    static std::string value_place(const std::string& file, const std::string& text,
                                   const std::string& key) {
        const std::string place = position_of(text, key);
        const auto colon = place.find(':');
        const auto column = std::stoul(place.substr(colon + 1)) + key.size();
        return file + ":" + place.substr(0, colon) + ":" + std::to_string(column);
    }
};

TEST_F(HostileNames, AnEnvironmentYmlNameThatClimbsOutOfLockfilesIsRefused) {
    // Before: lockfiles/../../x.lock.yml was written two folders above lockfiles/.
    const std::string project = world->path("in/env-name/a/b").string();
    const auto file = write("env-name/a/b/environment.yml",
                            "name: ../../x\ndependencies:\n  - python=3.11\n  - pip:\n"
                            "    - victim\n");
    auto args = lock_args("-f", file);
    args.insert(args.end(), {"--project", project});
    expect_refused(args, {file + ":1:7: `name` cannot name a file: it contains a path separator "
                                 "'/'",
                          "hint: a name becomes a file name"});
    EXPECT_FALSE(stdfs::exists(world->path("in/env-name/x.lock.yml")));
}

TEST_F(HostileNames, EnvironmentYmlNamesMustBeOneFileNameEvenWithAnOutput) {
    // The lock's own `name:` is where conda creates the environment (envs/<name>).
    for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
             {"/abs", "it contains a path separator '/'"},
             {"..", "'..' names a folder"},
             {"CON", "'CON' is a device name on Windows"},
             {"'env.'", "it ends with a dot"},
             {"'a\\\\b'", "it contains a path separator '\\'"}}) {
        const auto file = write("env-names/environment.yml",
                                "name: " + name + "\ndependencies:\n  - pip:\n    - victim\n");
        auto args = lock_args("-f", file);
        args.insert(args.end(), {"-o", out("named.lock.yml")});
        expect_refused(args, {file + ":1:7: `name` cannot name a file: " + why});
    }
}

TEST_F(HostileNames, AManifestNameWindowsCannotCreateIsRefused) {
    for (const auto& name : {"nul", "Com1", "aux.yml", "env."}) {
        const auto file = write("manifest-name.yaml", std::string("format: 1\nname: ") + name +
                                                          "\nrequirements:\n  - victim\n");
        auto args = lock_args("-m", file);
        args.insert(args.end(), {"-o", out("named.lock.yml")});
        expect_refused(
            args, {file + ":2:7: name: \"" + std::string(name) + "\" cannot name a lockfile: "});
    }
}

TEST_F(HostileNames, TargetIdsOnTheCommandLineAreNamesNotPaths) {
    const std::string lock = out("env.lock.yml");
    const std::string bad = "../../pwned/x";
    const std::vector<std::vector<std::string>> commands = {
        {"lock", "-r", out("requirements.txt"), "-o", out("t.lock.yml"), "--python",
         hostile_python_version, "--target", bad},
        {"setup", "-l", lock, "-p", out("new-prefix"), "--python", hostile_python,
         "--no-smoke-test", "--target", bad},
        {"sync", "-l", lock, "-p", out("prefix"), "--target", bad},
        {"verify", "-p", out("prefix"), "--target", bad},
        {"export", "-l", lock, "--format", "requirements", "-o", out("out/req.txt"), "--target",
         bad},
        {"bundle", "-l", lock, "-o", out("b.tar.zst"), "--no-python", "--target", bad},
        {"mirror", "-l", lock, "-o", out("mirror-out"), "--target", bad},
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args.front());
        expect_refused(args, {"--target",
                              "'../../pwned/x' is not a target id: it contains a "
                              "path separator '/'"});
    }
}

TEST_F(HostileNames, ALockWhoseTargetIdIsAPathIsRefusedWhereItIsWritten) {
    // Before: setup -l wrote the id into <prefix>/.aitk-env/target and exited 0.
    std::string bad_text = lock_with("id: " + hostile_target, "id: ../../pwned/x");
    const std::string default_key = "default-target: " + hostile_target;
    bad_text.replace(bad_text.find(default_key), default_key.size(),
                     "default-target: ../../pwned/x");
    const auto file = write("bad-id.lock.yml", bad_text);
    const std::string place = value_place(file, bad_text, "- id: ");
    const std::vector<std::string> parts = {
        place +
        ": `x-aitk-env.targets[0].id` `../../pwned/x` cannot name a file: it contains a "
        "path separator '/'"};
    expect_refused({"setup", "-l", file, "-p", out("new-prefix"), "--python", hostile_python,
                    "--no-smoke-test"},
                   parts);
    EXPECT_FALSE(stdfs::exists(world->path("new-prefix")));
    expect_refused({"sync", "-l", file, "-p", out("prefix")}, parts);
    expect_refused({"export", "-l", file, "--format", "dockerfile", "-o", out("docker/Dockerfile")},
                   parts);
    EXPECT_FALSE(stdfs::exists(world->path("docker")));
    expect_refused({"bundle", "-l", file, "-o", out("b.tar.zst"), "--no-python"}, parts);
    expect_refused({"mirror", "-l", file, "-o", out("mirror-out")}, parts);
}

TEST_F(HostileNames, ALockedFileNameThatIsAPathIsRefusedBeforeExportOrBundle) {
    // Before: export --format pylock wrote `name = "../../evil.whl"` for installers to follow,
    // and bundle refused it only when it was about to cache it, without saying where it was.
    const std::string good_name = "filename: " + world->victim.filename;
    const std::string bad_text = lock_with(good_name, "filename: ../../evil.whl");
    const auto file = write("bad-file.lock.yml", bad_text);
    const std::vector<std::string> parts = {
        value_place(file, bad_text, "filename: ") +
        ": `x-aitk-env.targets[0].packages[0].wheel.filename` `../../evil.whl` cannot name a "
        "file"};
    expect_refused({"export", "-l", file, "--format", "pylock", "-o", out("pylock/pylock.toml")},
                   parts);
    EXPECT_FALSE(stdfs::exists(world->path("pylock")));
    expect_refused({"bundle", "-l", file, "-o", out("b.tar.zst"), "--no-python"}, parts);
    expect_refused({"mirror", "-l", file, "-o", out("mirror-out")}, parts);
    expect_refused({"sync", "-l", file, "-p", out("prefix")}, parts);
}

TEST_F(HostileNames, ABundleMemberNamedAfterAWindowsDeviceIsRefusedBeforeTheCacheGainsIt) {
    // Before: setup --bundle stored the member as <cache>/…/CON.whl and exited 0.
    auto made = run_in_world(
        *world, {"bundle", "-l", out("env.lock.yml"), "-o", out("good.tar.zst"), "--no-python"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const std::string from = world->victim.sha256 + "/" + world->victim.filename;
    const std::string to = world->victim.sha256 + "/CON.whl";
    std::vector<archive::WriteEntry> entries;
    {  // The reader closes the file before it is removed (Windows refuses to remove an open one).
        auto reader = archive::Reader::open(world->path("good.tar.zst"));
        while (const auto* e = reader.next()) {
            std::string name = e->path;
            std::string content = reader.read_all(1ull << 30);
            if (const auto at = name.find(from); at != std::string::npos)
                name.replace(at, from.size(), to);
            if (const auto at = content.find(from);
                at != std::string::npos && name == "manifest.json")
                content.replace(at, from.size(), to);
            entries.push_back(archive::WriteEntry::file(name, content));
        }
    }
    archive::WriteOptions options;
    options.sort = false;
    archive::write_archive(world->path("bad.tar.zst"), archive::Format::tar_zst, entries, options);
    stdfs::remove(world->path("good.tar.zst"));

    const auto before = world->state();
    auto r = run_in_world(*world, {"setup", "--bundle", out("bad.tar.zst"), "-p", out("new-prefix"),
                                   "--python", hostile_python, "--no-smoke-test"});
    EXPECT_EQ(r.exit_code, 1) << r.err;  // a damaged bundle, as docs/cli.md says
    EXPECT_NE(r.err.find("manifest.json lists an invalid member \"artifacts/" + to +
                         "\": 'CON.whl' cannot be a cached file name: 'CON' is a device name on "
                         "Windows, not a file"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(VictimWorld::changes(before, world->state()), "");
    stdfs::remove(world->path("bad.tar.zst"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
