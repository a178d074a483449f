// Index strategies end to end (issue 34, point 2): which index a package may come from when
// several list it. Requirements files lock as pip does (every index's versions, the best
// wins); a pyproject.toml as uv does (the first index that has the name, extra indexes before
// the default one) unless its [tool.uv] index-strategy says otherwise; --index-strategy and
// AITK_ENV_INDEX_STRATEGY override both. The torch family's backend index is unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aitk/app/lock.hpp"
#include "aitk/fs/file.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

using json = nlohmann::json;

// The indexes:
// - "simple", the primary (PyPI's stand-in): vllm 0.22.0, numpy and pillow (newest), a plain
//   torch 2.7.0, foo 1.0, bar 1.0, baz 2.0;
// - "vllm", vllm's own wheel index: vllm 0.22.0+cu129;
// - "whl/cu128", a PyTorch backend index: torch 2.7.0+cu128 and OLDER numpy and pillow copies;
// - "other", a second simple index: foo 2.0, bar 2.0, baz 1.0.
// nixl 0.10.1 is on "simple" for aarch64 and on "other" for x86_64.
json scenario() {
    auto wheel = [](const char* index, const char* name, const char* version) {
        return json{{"index", index}, {"name", name}, {"version", version}};
    };
    json s;
    s["indexes"] = {{"simple", json::object()},
                    {"vllm", json::object()},
                    {"other", json::object()},
                    {"whl/cu128", {{"style", "pytorch"}}}};
    s["wheels"] = json::array({
        wheel("simple", "vllm", "0.22.0"),
        wheel("vllm", "vllm", "0.22.0+cu129"),
        wheel("simple", "numpy", "2.2.0"),
        wheel("simple", "numpy", "2.1.2"),
        wheel("simple", "pillow", "11.1.0"),
        wheel("simple", "pillow", "10.4.0"),
        wheel("simple", "torch", "2.7.0"),
        wheel("whl/cu128", "torch", "2.7.0+cu128"),
        wheel("whl/cu128", "numpy", "2.1.2"),
        wheel("whl/cu128", "pillow", "10.4.0"),
        wheel("simple", "foo", "1.0"),
        wheel("simple", "bar", "1.0"),
        wheel("simple", "baz", "2.0"),
        wheel("other", "foo", "2.0"),
        wheel("other", "bar", "2.0"),
        wheel("other", "baz", "1.0"),
        // prime-rl's nixl-cu12 0.10.1: the primary's wheel is for aarch64 alone, a later
        // index has the x86_64 one of the same version.
        {{"index", "simple"},
         {"name", "nixl"},
         {"version", "0.10.1"},
         {"tags", {"py3-none-manylinux_2_28_aarch64"}}},
        {{"index", "other"},
         {"name", "nixl"},
         {"version", "0.10.1"},
         {"tags", {"py3-none-linux_x86_64"}}},
    });
    return s;
}

class IndexStrategyCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror = new TempDir("index-strategy-mirror");
        published = new std::vector<PublishedFile>(build_mirror(mirror->path, scenario()).files());
    }
    static void TearDownTestSuite() {
        delete mirror;
        mirror = nullptr;
        delete published;
        published = nullptr;
    }

    void SetUp() override { server.serve_directory(mirror->path); }

    std::string path(const std::string& name) const { return (work.path / name).string(); }
    void write(const std::string& name, const std::string& text) const {
        std::filesystem::create_directories((work.path / name).parent_path());
        fs::write_file_atomic(work.path / name, text);
    }

    // `aitk-env lock -r INPUT` for linux-x86_64-<backend> with the local primary index (unless
    // `primary` is false: the input names its own) and the local PyTorch index base.
    CliResult lock(const std::string& input, std::vector<std::string> more = {},
                   std::vector<std::string> env = {}, bool primary = true,
                   const std::string& backend = "cpu") {
        std::vector<std::string> args = {"--cache-dir", path("cache"), "--no-progress"};
        if (primary) args.insert(args.end(), {"--index-url", server.url("/simple/")});
        args.insert(args.end(), {"lock", "-r", path(input), "-o", path("env.lock.yml"), "--python",
                                 "3.12.1", "--target", "linux-x86_64-" + backend});
        args.insert(args.end(), more.begin(), more.end());
        // The caller's variables last: they win over these.
        env.insert(env.begin(), {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                                 "-u ALL_PROXY", "-u all_proxy", "-u AITK_ENV_INDEX_STRATEGY",
                                 "-u AITK_ENV_INDEX_URL", "-u AITK_ENV_EXTRA_INDEX_URL"});
        return run_cli(args, "", env);
    }

    // The locked package `name` of the lock's only target.
    lock::LockedPackage locked(const std::string& name) const {
        const auto lockfile = app::read_lockfile(work.path / "env.lock.yml");
        EXPECT_EQ(lockfile.targets.size(), 1u);
        for (const auto& p : lockfile.targets.front().packages) {
            if (p.name == name) return p;
        }
        ADD_FAILURE() << name << " is not in the lock";
        return {};
    }

    // The sha256 of the one file of `name` `version` on `index`.
    static std::string digest(const std::string& index, const std::string& name,
                              const std::string& version) {
        for (const auto& f : *published) {
            if (f.index == index && f.project == name && f.artifact.version == version)
                return f.artifact.sha256;
        }
        ADD_FAILURE() << "no " << name << " " << version << " on " << index;
        return {};
    }

    static TempDir* mirror;
    static std::vector<PublishedFile>* published;
    HttpServer server;
    TempDir work{"index-strategy-cli"};
};

TempDir* IndexStrategyCli::mirror = nullptr;
std::vector<PublishedFile>* IndexStrategyCli::published = nullptr;

// (a) NeMo Curator's case: a +local pin found on an extra index while the primary lists the
// public release. pip and uv both find it; the lock takes the extra index's file.
TEST_F(IndexStrategyCli, ALocalPinOnAnExtraIndexIsFoundThoughThePrimaryListsTheProject) {
    write("curator.txt", "--extra-index-url " + server.url("/vllm/") + "\nvllm==0.22.0+cu129\n");
    auto r = lock("curator.txt");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto vllm = locked("vllm");
    EXPECT_EQ(vllm.version, "0.22.0+cu129");
    EXPECT_EQ(vllm.index, "extra-index 1");
    ASSERT_TRUE(vllm.wheel);
    EXPECT_NE(vllm.wheel->url.find("/files/vllm/vllm/"), std::string::npos) << vllm.wheel->url;
}

// (b) kohya_ss's requirements: the PyTorch index named with --extra-index-url carries older
// copies of numpy and pillow; as with pip, the newest come from the primary, and torch from
// the cu128 index.
TEST_F(IndexStrategyCli, KohyaStyleFileTakesTheNewestFromThePrimaryAndTorchFromItsIndex) {
    write("kohya.txt", "--extra-index-url " + server.url("/whl/cu128") +
                           "\ntorch==2.7.0+cu128\nnumpy\npillow\n");
    auto r = lock("kohya.txt", {}, {}, true, "cu128");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(locked("numpy").version, "2.2.0");
    EXPECT_EQ(locked("numpy").index, "primary");
    EXPECT_EQ(locked("pillow").version, "11.1.0");
    EXPECT_EQ(locked("pillow").index, "primary");
    const auto torch = locked("torch");
    EXPECT_EQ(torch.version, "2.7.0+cu128");
    EXPECT_EQ(torch.index, "torch cu128");
}

// (b2) A version two indexes list: a requirements file takes the files of both, as pip does
// (the x86_64 wheel of the later index); a pyproject.toml takes the first index's entry, as uv
// does, so its aarch64-only wheel leaves no version for this target.
TEST_F(IndexStrategyCli, AVersionOnSeveralIndexesHasEveryIndexsFilesForPipButTheFirstsForUv) {
    write("nixl.txt", "--extra-index-url " + server.url("/other/") + "\nnixl==0.10.1\n");
    auto pip = lock("nixl.txt");
    ASSERT_EQ(pip.exit_code, 0) << pip.err;
    const auto nixl = locked("nixl");
    EXPECT_EQ(nixl.version, "0.10.1");
    ASSERT_TRUE(nixl.wheel);
    EXPECT_NE(nixl.wheel->url.find("linux_x86_64.whl"), std::string::npos) << nixl.wheel->url;
    EXPECT_NE(nixl.wheel->url.find("/files/other/"), std::string::npos) << nixl.wheel->url;

    std::filesystem::remove(work.path / "env.lock.yml");
    write("app/pyproject.toml",
          "[project]\nname = \"nixl-app\"\nversion = \"0.1.0\"\n"
          "requires-python = \">=3.10\"\ndependencies = [\"nixl==0.10.1\"]\n\n[tool.uv]\n"
          "index-url = \"" +
              server.url("/other/") +
              "\"\nindex-strategy = \"unsafe-best-match\"\n"
              "\n[[tool.uv.index]]\nname = \"first\"\nurl = \"" +
              server.url("/simple/") + "\"\n");
    auto uv = lock("app/pyproject.toml", {}, {}, false);
    EXPECT_EQ(uv.exit_code, 3) << uv.err;
    EXPECT_NE(uv.err.find("nixl"), std::string::npos) << uv.err;
    EXPECT_FALSE(std::filesystem::exists(work.path / "env.lock.yml"));
}

// (c) first-index stops at the primary: the pin is unsatisfiable, and the message says where
// the version is and which flag reaches it.
TEST_F(IndexStrategyCli, FirstIndexNamesTheIndexItPassedOverAndTheFlag) {
    write("curator.txt", "--extra-index-url " + server.url("/vllm/") + "\nvllm==0.22.0+cu129\n");
    auto r = lock("curator.txt", {"--index-strategy", "first-index"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("primary lists vllm (0.22.0) and first-index stops there"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("extra-index 1 has 0.22.0+cu129"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--index-strategy unsafe-best-match"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(work.path / "env.lock.yml"));
}

// (d) unsafe-first-match takes the first index's versions while one fits (foo 1.0 where
// best-match takes 2.0) and goes on to the next index when none does (bar 2.0, which
// first-index never reaches).
TEST_F(IndexStrategyCli, UnsafeFirstMatchExhaustsTheFirstIndexBeforeTheNext) {
    write("two.txt", "--extra-index-url " + server.url("/other/") + "\nfoo\nbar>=1.5\n");
    auto first_match = lock("two.txt", {"--index-strategy", "unsafe-first-match"});
    ASSERT_EQ(first_match.exit_code, 0) << first_match.err;
    EXPECT_EQ(locked("foo").version, "1.0");
    EXPECT_EQ(locked("foo").index, "primary");
    EXPECT_EQ(locked("bar").version, "2.0");
    EXPECT_EQ(locked("bar").index, "extra-index 1");

    auto best_match = lock("two.txt", {"--upgrade"});
    ASSERT_EQ(best_match.exit_code, 0) << best_match.err;
    EXPECT_EQ(locked("foo").version, "2.0");
    EXPECT_EQ(locked("foo").index, "extra-index 1");

    auto first_index = lock("two.txt", {"--index-strategy", "first-index"});
    EXPECT_EQ(first_index.exit_code, 3) << first_index.err;
}

// (e) A pyproject.toml follows uv: its own index comes before the default one and the first
// index that has a name is the only one asked (baz 1.0 though the default index has 2.0);
// [tool.uv] index-strategy = "unsafe-best-match" is honoured, and so is the flag.
TEST_F(IndexStrategyCli, APyprojectFollowsUvFirstIndexUnlessItSaysOtherwise) {
    const std::string head =
        "[project]\nname = \"strategy-app\"\nversion = \"0.1.0\"\n"
        "requires-python = \">=3.10\"\ndependencies = [\"baz\"]\n\n";
    const std::string indexes =
        "\n[[tool.uv.index]]\nname = \"other\"\nurl = \"" + server.url("/other/") + "\"\n";
    write("app/pyproject.toml",
          head + "[tool.uv]\nindex-url = \"" + server.url("/simple/") + "\"\n" + indexes);
    auto uv_default = lock("app/pyproject.toml", {}, {}, false);
    ASSERT_EQ(uv_default.exit_code, 0) << uv_default.err;
    EXPECT_EQ(locked("baz").version, "1.0");

    auto flag = lock("app/pyproject.toml", {"--index-strategy", "unsafe-best-match", "--upgrade"},
                     {}, false);
    ASSERT_EQ(flag.exit_code, 0) << flag.err;
    EXPECT_EQ(locked("baz").version, "2.0");

    write("app/pyproject.toml", head + "[tool.uv]\nindex-url = \"" + server.url("/simple/") +
                                    "\"\nindex-strategy = \"unsafe-best-match\"\n" + indexes);
    auto best = lock("app/pyproject.toml", {"--upgrade"}, {}, false);
    ASSERT_EQ(best.exit_code, 0) << best.err;
    EXPECT_EQ(locked("baz").version, "2.0");
    auto overridden = lock("app/pyproject.toml", {"--index-strategy", "first-index"}, {}, false);
    ASSERT_EQ(overridden.exit_code, 0) << overridden.err;
    EXPECT_EQ(locked("baz").version, "1.0");
}

// (e2) uv's precedence for a pyproject.toml's indexes and the command line's: --index-url
// takes the default index's place (the last), never the project's own [[tool.uv.index]]; an
// --extra-index-url comes before the project's indexes. Under first-index the first that
// lists baz decides: "other" has baz 1.0, the local primary 2.0.
TEST_F(IndexStrategyCli, APyprojectsIndexesTakeTheCommandLinesAsUvDoes) {
    const std::string head =
        "[project]\nname = \"order-app\"\nversion = \"0.1.0\"\n"
        "requires-python = \">=3.10\"\ndependencies = [\"baz\"]\n\n";
    write("own/pyproject.toml",
          head + "[[tool.uv.index]]\nname = \"other\"\nurl = \"" + server.url("/other/") + "\"\n");
    // The default index (PyPI, unreachable here) is replaced by the local primary; "other"
    // stays first.
    auto replaced = lock("own/pyproject.toml");
    ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
    EXPECT_EQ(locked("baz").version, "1.0");
    ASSERT_TRUE(locked("baz").wheel);
    EXPECT_NE(locked("baz").wheel->url.find("/files/other/"), std::string::npos);

    write("plain/pyproject.toml", head);
    std::filesystem::remove(work.path / "env.lock.yml");
    auto extra = lock("plain/pyproject.toml", {"--extra-index-url", server.url("/other/")});
    ASSERT_EQ(extra.exit_code, 0) << extra.err;
    EXPECT_EQ(locked("baz").version, "1.0");  // from the command line's extra index, tried first
    // A requirements file keeps pip's order: the primary first, and best-match anyway.
    write("plain.txt", "baz\n");
    auto pip = lock("plain.txt", {"--extra-index-url", server.url("/other/"), "--index-strategy",
                                  "first-index"});
    ASSERT_EQ(pip.exit_code, 0) << pip.err;
    EXPECT_EQ(locked("baz").version, "2.0");
}

// (f) A strategy aitk-env does not know is a usage error naming the valid ones, on the command
// line and in the environment.
TEST_F(IndexStrategyCli, AnUnknownStrategyIsExitTwoWithTheValidValues) {
    write("plain.txt", "foo\n");
    for (const auto& r : {lock("plain.txt", {"--index-strategy", "best-match"}),
                          lock("plain.txt", {}, {"AITK_ENV_INDEX_STRATEGY=first"})}) {
        EXPECT_EQ(r.exit_code, 2) << r.err;
        for (const char* value : {"first-index", "unsafe-first-match", "unsafe-best-match"})
            EXPECT_NE(r.err.find(value), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(work.path / "env.lock.yml"));
    }
}

// (g) AITK_ENV_INDEX_STRATEGY works as the flag does; the flag wins over it.
TEST_F(IndexStrategyCli, TheEnvironmentVariableSetsTheStrategy) {
    write("curator.txt", "--extra-index-url " + server.url("/vllm/") + "\nvllm==0.22.0+cu129\n");
    auto by_env = lock("curator.txt", {}, {"AITK_ENV_INDEX_STRATEGY=first-index"});
    EXPECT_EQ(by_env.exit_code, 3) << by_env.err;
    EXPECT_NE(by_env.err.find("--index-strategy unsafe-best-match"), std::string::npos)
        << by_env.err;
    auto flag_wins = lock("curator.txt", {"--index-strategy", "unsafe-best-match"},
                          {"AITK_ENV_INDEX_STRATEGY=first-index"});
    ASSERT_EQ(flag_wins.exit_code, 0) << flag_wins.err;
    EXPECT_EQ(locked("vllm").version, "0.22.0+cu129");
}

// Dependency confusion under pip's semantics: hash pins still decide. The pinned version's
// file is the primary's (a version on several indexes is the first index's entry), and a file
// whose digest matches no pin is never taken, whichever index serves it.
TEST_F(IndexStrategyCli, HashPinsKeepASquattedNameOnAnExtraIndexOut) {
    write("pinned.txt", "--extra-index-url " + server.url("/other/") +
                            "\nfoo==1.0 --hash=sha256:" + digest("simple", "foo", "1.0") + "\n");
    auto r = lock("pinned.txt");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(locked("foo").version, "1.0");
    EXPECT_EQ(locked("foo").index, "primary");

    // Pinned to the extra index's 2.0 with the primary's digest: refused, nothing written.
    std::filesystem::remove(work.path / "env.lock.yml");
    write("pinned.txt", "--extra-index-url " + server.url("/other/") +
                            "\nfoo==2.0 --hash=sha256:" + digest("simple", "foo", "1.0") + "\n");
    auto refused = lock("pinned.txt");
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("foo"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(work.path / "env.lock.yml"));
}

// The strategy decides the lock: a lock made under one is stale under another, while naming
// the input's own default changes nothing (the same bytes, up to date).
TEST_F(IndexStrategyCli, AnotherStrategyMakesTheLockStaleTheDefaultDoesNot) {
    write("two.txt", "--extra-index-url " + server.url("/other/") + "\nfoo\n");
    ASSERT_EQ(lock("two.txt").exit_code, 0);
    const auto bytes = fs::read_file(work.path / "env.lock.yml");
    auto same = lock("two.txt", {"--index-strategy", "unsafe-best-match", "--check"});
    EXPECT_EQ(same.exit_code, 0) << same.err;
    auto again = lock("two.txt", {"--index-strategy", "unsafe-best-match", "--json"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(json::parse(again.out)["written"], false);
    EXPECT_EQ(fs::read_file(work.path / "env.lock.yml"), bytes);
    auto other = lock("two.txt", {"--index-strategy", "unsafe-first-match", "--check"});
    EXPECT_EQ(other.exit_code, 1) << other.err;
    EXPECT_NE(other.err.find("stale"), std::string::npos) << other.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
