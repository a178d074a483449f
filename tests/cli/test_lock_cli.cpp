// `aitk-env lock` through the real binary against the torch-like mirror: exit codes 0/1/2/3,
// --check for team CI, --json, and the global network flags.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

class LockCli : public TorchMirrorTest {
  protected:
    void SetUp() override {
        TorchMirrorTest::SetUp();
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-lock-cli"));
    }

    std::string path(const std::string& name) const { return (work->path() / name).string(); }

    void write(const std::string& name, const std::string& text) {
        fs::write_file_atomic(work->path() / name, text);
    }

    CliResult lock(std::vector<std::string> extra) {
        std::vector<std::string> args = {"lock",
                                         "-r",
                                         path("requirements.txt"),
                                         "-o",
                                         path("env.lock.yml"),
                                         "--python",
                                         "3.12.1",
                                         "--index-url",
                                         server.url("/simple/"),
                                         "--torch-index-url",
                                         server.url("/whl"),
                                         "--cache-dir",
                                         path("cache"),
                                         "--no-progress"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(
            args, "",
            {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY", "-u ALL_PROXY", "-u all_proxy"});
    }

    std::unique_ptr<fs::TempDir> work;
};

TEST_F(LockCli, WritesTheLockfileAndCheckTellsWhenItIsStale) {
    write("requirements.txt", "torch==2.9.0\nrequests\n");
    auto first = lock({"--target", "linux-x86_64-cu130", "--json"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto json = nlohmann::json::parse(first.out);
    EXPECT_EQ(json["lockfile"], path("env.lock.yml"));
    EXPECT_EQ(json["written"], true);
    EXPECT_EQ(json["default_target"], "linux-x86_64-cu130");
    auto text = fs::read_file(work->path() / "env.lock.yml");
    EXPECT_NE(text.find("python=3.12.1"), std::string::npos);
    EXPECT_NE(text.find("torch==2.9.0+cu130 --hash=sha256:"), std::string::npos) << text;

    auto check = lock({"--target", "linux-x86_64-cu130", "--check"});
    EXPECT_EQ(check.exit_code, 0) << check.err;
    EXPECT_NE(check.err.find("is up to date"), std::string::npos);

    write("requirements.txt", "torch==2.9.0\nrequests\nsix\n");
    auto stale = lock({"--target", "linux-x86_64-cu130", "--check"});
    EXPECT_EQ(stale.exit_code, 1);
    EXPECT_NE(stale.err.find("stale: "), std::string::npos) << stale.err;
}

TEST_F(LockCli, ExitCodesFollowTheContract) {
    write("requirements.txt", "torch==2.9.0+cpu\n");
    auto unsatisfiable = lock({"--target", "linux-x86_64-cu130"});
    EXPECT_EQ(unsatisfiable.exit_code, 3) << unsatisfiable.err;
    EXPECT_NE(unsatisfiable.err.find("error: no environment satisfies the requirements for "
                                     "linux-x86_64-cu130"),
              std::string::npos)
        << unsatisfiable.err;

    write("requirements.txt", "torch==2.9.0\n--frobnicate\n");
    auto bad = lock({"--target", "linux-x86_64-cu130"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("requirements.txt:2"), std::string::npos) << bad.err;

    write("requirements.txt", "torch==2.9.0\n");
    auto bad_target = lock({"--target", "linux-x86_64-cuda"});
    EXPECT_EQ(bad_target.exit_code, 2) << bad_target.err;

    auto missing_cert = lock({"--target", "linux-x86_64-cu130", "--cert", path("nope.pem")});
    EXPECT_EQ(missing_cert.exit_code, 2);
    EXPECT_NE(missing_cert.err.find("--cert"), std::string::npos) << missing_cert.err;

    auto bad_concurrency = lock({"--target", "linux-x86_64-cu130", "--concurrency", "0"});
    EXPECT_EQ(bad_concurrency.exit_code, 2);
}

TEST_F(LockCli, OfflineUsesOnlyTheCache) {
    write("requirements.txt", "requests\n");
    auto offline_cold = lock({"--target", "linux-x86_64-cpu", "--offline"});
    EXPECT_EQ(offline_cold.exit_code, 1);
    EXPECT_NE(offline_cold.err.find("offline"), std::string::npos) << offline_cold.err;

    ASSERT_EQ(lock({"--target", "linux-x86_64-cpu"}).exit_code, 0);
    std::filesystem::remove(work->path() / "env.lock.yml");
    server.clear_log();
    auto offline_warm = lock({"--target", "linux-x86_64-cpu", "--offline"});
    EXPECT_EQ(offline_warm.exit_code, 0) << offline_warm.err;
    EXPECT_TRUE(server.requests().empty());
}

// No network: an index whose host does not resolve, or whose port refuses the connection, on
// the first request of the run ends the command at once with what to do instead. The retries
// the environment allows are not spent (the message would say "after N attempts").
TEST(LockCliNoNetwork, AnUnreachableIndexFailsAtOnceWithWhatToDo) {
    auto dir = fs::TempDir::create("aitk-lock-no-network");
    fs::write_file_atomic(dir.path() / "requirements.txt", "requests\n");
    const auto refused = "http://127.0.0.1:" + std::to_string(unused_port());
    for (const std::string& base : {std::string("http://pypi.aitk-env-test.invalid"), refused}) {
        SCOPED_TRACE(base);
        auto r = run_cli(
            {"lock", "-r", (dir.path() / "requirements.txt").string(), "-o",
             (dir.path() / "env.lock.yml").string(), "--python", "3.12.1", "--target",
             "linux-x86_64-cpu", "--index-url", base + "/simple/", "--torch-index-url",
             base + "/whl", "--cache-dir", (dir.path() / "cache").string(), "--no-progress"},
            "",
            {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY", "-u ALL_PROXY", "-u all_proxy",
             "AITK_ENV_HTTP_RETRIES=4", "AITK_ENV_HTTP_RETRY_DELAY_MS=0"});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(base + "/"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("so it was not retried"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("attempts"), std::string::npos) << r.err;
        for (const char* advice : {"https_proxy", "--offline", "--index-url", "setup --bundle"})
            EXPECT_NE(r.err.find(advice), std::string::npos) << advice << "\n" << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir.path() / "env.lock.yml"));
    }
}

TEST(LockCliManifest, ABadManifestIsExitTwoWithItsLocationAndAHint) {
    auto dir = fs::TempDir::create("aitk-lock-bad-manifest");
    fs::write_file_atomic(dir.path() / "m.yaml",
                          "format: 1\nname: demo\npython:\n  requires: \">=3.10\"\n"
                          "requirements:\n  - numpy>=\n");
    auto bad_requirement =
        run_cli({"lock", "-m", (dir.path() / "m.yaml").string(), "--target", "linux-x86_64-cpu"});
    EXPECT_EQ(bad_requirement.exit_code, 2);
    EXPECT_NE(bad_requirement.err.find("m.yaml:6:"), std::string::npos) << bad_requirement.err;

    fs::write_file_atomic(dir.path() / "m.yaml", "format: 1\nname: demo\nrequirments: []\n");
    auto unknown_key =
        run_cli({"lock", "-m", (dir.path() / "m.yaml").string(), "--target", "linux-x86_64-cpu"});
    EXPECT_EQ(unknown_key.exit_code, 2);
    EXPECT_NE(unknown_key.err.find("m.yaml:3:1"), std::string::npos) << unknown_key.err;
    EXPECT_NE(unknown_key.err.find("hint: "), std::string::npos) << unknown_key.err;
}

// The torch index sometimes gives no sha256 (docs/data-sources.md §2): lock downloads such a wheel
// once to hash it, shows that download as progress lines (no terminal here), and the next lock
// finds the file in the cache.
TEST(LockCliHashing, WheelsWithoutAnIndexHashAreDownloadedAndHashedWithProgress) {
    auto dir = fs::TempDir::create("aitk-lock-nohash");
    MirrorBuilder m(dir.path() / "mirror");
    m.add_index("simple");
    m.add_index("whl/cpu", IndexOptions::pytorch());
    WheelSpec torch;
    torch.name = "torch";
    torch.version = "2.9.0+cpu";
    torch.tag = "cp312-cp312-manylinux_2_28_x86_64";
    PublishOptions no_hash;
    no_hash.hash_fragment = false;
    const auto& published = m.add_wheel("whl/cpu", torch, no_hash);
    m.write();
    HttpServer server;
    server.serve_directory(dir.path() / "mirror");
    fs::write_file_atomic(dir.path() / "requirements.txt", "torch\n");

    std::vector<std::string> args = {"lock",
                                     "-r",
                                     (dir.path() / "requirements.txt").string(),
                                     "-o",
                                     (dir.path() / "env.lock.yml").string(),
                                     "--python",
                                     "3.12.1",
                                     "--target",
                                     "linux-x86_64-cpu",
                                     "--index-url",
                                     server.url("/simple/"),
                                     "--torch-index-url",
                                     server.url("/whl"),
                                     "--cache-dir",
                                     (dir.path() / "cache").string()};
    std::vector<std::string> env = {"-u http_proxy", "-u HTTPS_PROXY", "-u https_proxy"};
    auto result = run_cli(args, "", env);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("fetched torch-2.9.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("1 file, "), std::string::npos) << result.err;
    auto text = fs::read_file(dir.path() / "env.lock.yml");
    EXPECT_NE(text.find("torch==2.9.0+cpu --hash=sha256:" + published.artifact.sha256),
              std::string::npos)
        << text;
    aitk::cache::Cache cache(dir.path() / "cache");
    EXPECT_TRUE(cache.find_artifact(published.artifact.sha256));

    // --quiet: no progress at all.
    std::filesystem::remove(dir.path() / "env.lock.yml");
    std::filesystem::remove_all(dir.path() / "cache");
    args.push_back("-q");
    auto quiet = run_cli(args, "", env);
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
