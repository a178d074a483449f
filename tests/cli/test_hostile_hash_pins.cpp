// pip's hash-checking mode through the real binary (issue 33, item 1): `--hash` pins restrict a
// requirement to files with one of those digests, `--require-hashes` (or any --hash) requires
// every package, dependencies included, to be pinned with hashes, and what aitk-env accepts or
// refuses is what pip 23.2 accepts or refuses on the same file against the same index (pip runs
// here too, when pyenv's CPython 3.11 is installed). A refused lock writes nothing; a refused
// setup makes no prefix.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/fs/digest.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string zeros(64, '0');

// victim 1.0 needs dep>=1; dep 1.0; "plain 1.0" is published without a digest on its link, so
// only its bytes can answer a pin.
class HashPins : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        world = new World;
        MirrorBuilder mirror(world->path("mirror"));
        IndexOptions html_only;  // PEP 503 pages only: a link without a fragment has no digest
        html_only.json = false;
        mirror.add_index("simple", html_only);
        WheelSpec victim;
        victim.name = "victim";
        victim.version = "1.0";
        victim.requires_dist = {"dep>=1"};
        world->victim = mirror.add_wheel("simple", victim).artifact;
        WheelSpec dep;
        dep.name = "dep";
        dep.version = "1.0";
        world->dep = mirror.add_wheel("simple", dep).artifact;
        WheelSpec plain;
        plain.name = "plain";
        plain.version = "1.0";
        PublishOptions no_digest;
        no_digest.hash_fragment = false;
        world->plain = mirror.add_wheel("simple", plain, no_digest).artifact;
        mirror.write();
        world->server.serve_directory(world->path("mirror"), "/");
    }
    static void TearDownTestSuite() {
        delete world;
        world = nullptr;
    }

    struct World {
        stdfs::path path(const std::string& name) const { return work.path() / name; }
        fs::TempDir work = fs::TempDir::create("aitk-hash-pins");
        HttpServer server;
        BuiltArtifact victim, dep, plain;
    };
    static inline World* world = nullptr;

    static std::string pin(const BuiltArtifact& a) { return "--hash=sha256:" + a.sha256; }
    static std::string pinned(const BuiltArtifact& a) {
        return a.name + "==" + a.version + " " + pin(a);
    }

    // A fresh folder holding `requirements.txt` with `text` (and more files), per case.
    stdfs::path write_case(const std::string& text,
                           const std::vector<std::pair<std::string, std::string>>& more = {}) {
        static int counter = 0;
        auto dir = world->path("case-" + std::to_string(counter++));
        stdfs::create_directories(dir);
        fs::write_file_atomic(dir / "requirements.txt", text);
        for (const auto& [name, content] : more)
            fs::write_file_atomic(dir / name, content);
        return dir;
    }

    static CliResult aitk(std::vector<std::string> args) {
        std::vector<std::string> global = {"--no-progress", "--cache-dir",
                                           world->path("cache").string(), "--index-url",
                                           world->server.url("/simple/")};
        args.insert(args.begin(), global.begin(), global.end());
        return run_cli(args, "", isolated_environment(world->work.path(), hostile_python_bin));
    }

    static CliResult lock(const stdfs::path& dir, std::vector<std::string> extra = {},
                          const std::string& input = "requirements.txt") {
        std::vector<std::string> args = {"lock",
                                         input == "environment.yml" ? "-f" : "-r",
                                         (dir / input).string(),
                                         "-o",
                                         (dir / "env.lock.yml").string(),
                                         "--python",
                                         "3.11.7",
                                         "--target",
                                         "linux-x86_64-cpu"};
        args.insert(args.end(), extra.begin(), extra.end());
        return aitk(args);
    }

    // pip 23.2's verdict on the same file and index: true when it downloads everything.
    static std::optional<bool> pip_accepts(const stdfs::path& dir,
                                           std::vector<std::string> extra = {}) {
#ifdef _WIN32
        (void)dir;
        (void)extra;
        return std::nullopt;
#else
        const stdfs::path python = "/root/.pyenv/versions/3.11.7/bin/python";
        if (!stdfs::exists(python)) return std::nullopt;
        util::ProcessRequest request;
        request.argv = {python.string(),
                        "-m",
                        "pip",
                        "download",
                        "--isolated",
                        "--no-cache-dir",
                        "--disable-pip-version-check",
                        "-q",
                        "-d",
                        (dir / "pip-downloads").string(),
                        "--index-url",
                        world->server.url("/simple/"),
                        "-r",
                        (dir / "requirements.txt").string()};
        request.argv.insert(request.argv.end(), extra.begin(), extra.end());
        request.environment_changes["PIP_CONFIG_FILE"] = "/dev/null";
        for (const char* name : {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
                                 "PIP_REQUIRE_HASHES", "http_proxy", "https_proxy"})
            request.environment_changes[name] = std::nullopt;
        request.timeout = std::chrono::minutes(2);
        auto result = util::run_process(request);
        if (!result) return std::nullopt;
        stdfs::remove_all(dir / "pip-downloads");
        return result->exit_code == 0;
#endif
    }

    // `aitk` refused (exit `code`) with every part of `parts` in its error and no lock written;
    // pip, when it runs here, refused too.
    void expect_refused(const stdfs::path& dir, const CliResult& r, int code,
                        const std::vector<std::string>& parts,
                        std::vector<std::string> pip_extra = {}) {
        EXPECT_EQ(r.exit_code, code) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err;
        EXPECT_FALSE(stdfs::exists(dir / "env.lock.yml"));
        if (auto pip = pip_accepts(dir, std::move(pip_extra))) {
            EXPECT_FALSE(*pip) << "pip accepts what aitk-env refused";
        }
    }

    void expect_accepted(const stdfs::path& dir, const CliResult& r,
                         std::vector<std::string> pip_extra = {}) {
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        if (auto pip = pip_accepts(dir, std::move(pip_extra))) {
            EXPECT_TRUE(*pip) << "pip refuses what aitk-env accepted";
        }
    }
};

TEST_F(HashPins, MatchingPinsLockThePinnedFiles) {
    auto dir = write_case(pinned(world->victim) + "\n" + pinned(world->dep) + "\n");
    auto r = lock(dir);
    expect_accepted(dir, r);
    const auto text = fs::read_file(dir / "env.lock.yml");
    EXPECT_NE(text.find(world->victim.sha256), std::string::npos) << text;
    EXPECT_NE(text.find(world->dep.sha256), std::string::npos) << text;
}

TEST_F(HashPins, AWrongPinIsAMismatchNamingPackageFileAndBothDigests) {
    // The finding: the index's hash was locked and installed, exit 0, no message.
    auto dir = write_case("victim==1.0 --hash=sha256:" + zeros + "\n" + pinned(world->dep) + "\n");
    expect_refused(dir, lock(dir), 1,
                   {"victim 1.0", world->victim.filename, "requirements.txt:1:1", "sha256:" + zeros,
                    "sha256:" + world->victim.sha256, "do not match"});
}

TEST_F(HashPins, OneOfSeveralPinsMatchingIsEnough) {
    auto dir = write_case("victim==1.0 --hash=sha256:" + zeros + " " + pin(world->victim) + "\n" +
                          pinned(world->dep) + "\n");
    expect_accepted(dir, lock(dir));
}

TEST_F(HashPins, ADependencyWithoutAPinIsRefusedWithTheLineToAdd) {
    auto dir = write_case(pinned(world->victim) + "\n");
    expect_refused(dir, lock(dir), 2,
                   {"hash-checking mode is on", "dep 1.0", "a dependency of victim",
                    "dep==1.0 --hash=sha256:" + world->dep.sha256});
}

TEST_F(HashPins, APinnedLineWithoutAHashIsRefused) {
    auto dir = write_case(pinned(world->victim) + "\ndep==1.0\n");
    expect_refused(
        dir, lock(dir), 2,
        {"dep 1.0: its requirement has no --hash", "dep==1.0 --hash=sha256:" + world->dep.sha256});
}

TEST_F(HashPins, AnUnpinnedRequirementIsRefusedAtItsLine) {
    auto dir = write_case("victim>=1.0 " + pin(world->victim) + "\n" + pinned(world->dep) + "\n");
    expect_refused(dir, lock(dir), 2,
                   {"requirements.txt:1:1", "pinned with == or ===", "victim>=1.0"});
}

TEST_F(HashPins, RequireHashesInTheFileOrOnTheCommandLine) {
    auto in_file = write_case("--require-hashes\nvictim==1.0\ndep==1.0\n");
    expect_refused(in_file, lock(in_file), 2,
                   {"--require-hashes", "victim 1.0: its requirement has no --hash",
                    "victim==1.0 --hash=sha256:" + world->victim.sha256});

    auto flag = write_case("victim==1.0\ndep==1.0\n");
    expect_refused(flag, lock(flag, {"--require-hashes"}), 2,
                   {"--require-hashes on the command line"}, {"--require-hashes"});
    // Without it, the same file locks as before.
    auto off = write_case("victim==1.0\ndep==1.0\n");
    expect_accepted(off, lock(off));
}

TEST_F(HashPins, OtherAlgorithmsAreCheckedAgainstTheBytes) {
    const auto sha512 = fs::file_digests_hex(world->victim.path, {"sha512"}).at("sha512");
    auto good =
        write_case("victim==1.0 --hash=sha512:" + sha512 + "\n" + pinned(world->dep) + "\n");
    expect_accepted(good, lock(good));
    EXPECT_NE(fs::read_file(good / "env.lock.yml").find(world->victim.sha256), std::string::npos);

    auto bad = write_case("victim==1.0 --hash=sha512:" + std::string(128, '0') + "\n" +
                          pinned(world->dep) + "\n");
    expect_refused(bad, lock(bad), 1,
                   {"victim 1.0", "sha512:" + std::string(128, '0'), "sha512:" + sha512});
}

TEST_F(HashPins, AFileTheIndexGivesNoDigestForIsHashedOnDownload) {
    auto good = write_case(pinned(world->plain) + "\n");
    expect_accepted(good, lock(good));
    auto bad = write_case("plain==1.0 --hash=sha256:" + zeros + "\n");
    expect_refused(
        bad, lock(bad), 1,
        {"plain 1.0", world->plain.filename, "sha256:" + world->plain.sha256, "the file has"});
}

TEST_F(HashPins, AConstraintsHashIsCheckedToo) {
    // pip 23.2 ignores a constraint's --hash; aitk-env never drops a pin the user wrote.
    auto dir = write_case(pinned(world->victim) + "\n" + pinned(world->dep) + "\n-c c.txt\n",
                          {{"c.txt", "dep==1.0 --hash=sha256:" + zeros + "\n"}});
    auto r = lock(dir);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("sha256:" + zeros + " (a constraint)"), std::string::npos) << r.err;
    EXPECT_FALSE(stdfs::exists(dir / "env.lock.yml"));
}

TEST_F(HashPins, EditableVcsAndFolderLinesCannotBeHashChecked) {
    auto dir = write_case(pinned(world->victim) + "\n" + pinned(world->dep) +
                          "\n-e ./local\ngitpkg @ git+https://example.invalid/x.git@v1\n");
    stdfs::create_directories(dir / "local");
    fs::write_file_atomic(dir / "local" / "setup.py", "");
    auto r = lock(dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    std::string missing;
    EXPECT_TRUE(mentions_all(
        r.err, {"requirements.txt:3", "editable", "requirements.txt:4", "version-control URL"},
        missing))
        << missing << r.err;
    EXPECT_FALSE(stdfs::exists(dir / "env.lock.yml"));
}

TEST_F(HashPins, EnvironmentYmlPipSectionsArePinnedTheSameWay) {
    auto dir = write_case("", {{"environment.yml",
                                "name: pinned\ndependencies:\n  - python=3.11\n  - pip:\n"
                                "    - victim==1.0 --hash=sha256:" +
                                    zeros + "\n    - " + pinned(world->dep) + "\n"}});
    auto r = lock(dir, {}, "environment.yml");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("sha256:" + zeros), std::string::npos) << r.err;
    EXPECT_FALSE(stdfs::exists(dir / "env.lock.yml"));

    auto good = write_case(
        "",
        {{"environment.yml", "name: pinned\ndependencies:\n  - python=3.11\n  - pip:\n    - " +
                                 pinned(world->victim) + "\n    - " + pinned(world->dep) + "\n"}});
    auto ok = lock(good, {}, "environment.yml");
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(HashPins, SetupFromAWronglyPinnedFileMakesNoPrefix) {
    if (!VictimWorld::available()) GTEST_SKIP() << "no " << hostile_python;
    auto dir = write_case("victim==1.0 --hash=sha256:" + zeros + "\n" + pinned(world->dep) + "\n");
    auto r =
        aitk({"setup", "-r", (dir / "requirements.txt").string(), "-p", (dir / "prefix").string(),
              "--python", hostile_python, "--no-smoke-test", "--target", hostile_target});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("sha256:" + zeros), std::string::npos) << r.err;
    EXPECT_FALSE(stdfs::exists(dir / "prefix"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
