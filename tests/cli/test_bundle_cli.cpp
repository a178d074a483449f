// `aitk-env bundle` and `setup --bundle` through the real binary: lock the torch-like mirror on
// 127.0.0.1 for a Linux and a Windows target, bundle, stop the server, install from the bundle
// into a fresh prefix with a fresh cache, and `verify`. Damaged and truncated bundles fail with
// exit 1 and leave no prefix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "run_cli.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

class BundleCli : public TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        TorchMirrorTest::SetUp();
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
        auto locked =
            run({"lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"), "--python",
                 "3.12.1", "--target", "linux-x86_64-cpu", "--target", "windows-x86_64-cu130"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    CliResult run(std::vector<std::string> args, const std::string& cache = "cache") {
        args.insert(args.begin(),
                    {"--cache-dir", path(cache), "--index-url", server.url("/simple/"),
                     "--torch-index-url", server.url("/whl"), "--no-progress"});
        return run_cli(
            args, "",
            {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY", "-u AITK_ENV_TORCH_BACKEND",
             "-u AITK_ENV_OFFLINE", "PATH=" + python_bin + ":/usr/bin:/bin",
             "PYENV_ROOT=/nonexistent", "AITK_ENV_NO_GPU=1"});
    }

    // Interpreter archives come from GitHub, which tests never reach: --no-python.
    CliResult bundle(const std::string& out, std::vector<std::string> extra = {},
                     const std::string& cache = "cache") {
        std::vector<std::string> args = {
            "bundle", "-l", path("env.lock.yml"), "-o", path(out), "--no-python", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args, cache);
    }

    CliResult setup_from(const std::string& bundle_file) {
        return run({"setup", "--bundle", path(bundle_file), "-p", path("prefix"), "--json"},
                   "fresh-cache");
    }

    fs::TempDir work = fs::TempDir::create("aitk-bundle-cli");
};

TEST_F(BundleCli, BundleStopTheServerSetupFromItAndVerify) {
    auto made = bundle("env.tar.zst");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    auto json = nlohmann::json::parse(made.out);
    EXPECT_EQ(json["sha256"], fs::sha256_file_hex(path("env.tar.zst")));
    EXPECT_EQ(json["targets"], nlohmann::json::array({"linux-x86_64-cpu", "windows-x86_64-cu130"}));

    server.stop();
    auto installed = setup_from("env.tar.zst");
    ASSERT_EQ(installed.exit_code, 0) << installed.err;
    auto outcome = nlohmann::json::parse(installed.out);
    EXPECT_EQ(outcome["target"], "linux-x86_64-cpu");
    EXPECT_EQ(outcome["smoke"], "torch 2.9.0+cpu None None");
    EXPECT_EQ(outcome["sync"]["downloaded"], 0);
    auto verified = run({"verify", "-p", path("prefix")}, "fresh-cache");
    EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

TEST_F(BundleCli, TwoBundlesOfOneLockAreIdenticalEvenFromAColdCache) {
    ASSERT_EQ(bundle("a.tar.zst").exit_code, 0);
    auto cold = bundle("b.tar.zst", {}, "cold-cache");
    ASSERT_EQ(cold.exit_code, 0) << cold.err;
    EXPECT_GT(nlohmann::json::parse(cold.out)["downloaded"].get<int>(), 0);
    EXPECT_EQ(fs::sha256_file_hex(path("a.tar.zst")), fs::sha256_file_hex(path("b.tar.zst")));
}

TEST_F(BundleCli, ADamagedMemberIsExitOneNamingItAndNoPrefixIsMade) {
    ASSERT_EQ(bundle("env.tar.zst").exit_code, 0);
    std::vector<archive::WriteEntry> entries;
    std::string damaged;
    auto reader = archive::Reader::open(path("env.tar.zst"));
    while (const auto* e = reader.next()) {
        std::string name = e->path;
        entries.push_back(archive::WriteEntry::file(name, reader.read_all(1ull << 30)));
        if (damaged.empty() && name.find("/torch-") != std::string::npos) {
            damaged = name;
            entries.back().content[100] ^= 1;
        }
    }
    ASSERT_FALSE(damaged.empty());
    archive::WriteOptions options;
    options.sort = false;
    archive::write_archive(path("bad.tar.zst"), archive::Format::tar_zst, entries, options);

    auto refused = setup_from("bad.tar.zst");
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("member " + damaged + " is damaged: sha256 expected "),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find(", actual "), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(path("prefix")));

    std::string bytes = fs::read_file(path("env.tar.zst"));
    fs::write_file_atomic(path("cut.tar.zst"), bytes.substr(0, bytes.size() / 2));
    auto truncated = setup_from("cut.tar.zst");
    EXPECT_EQ(truncated.exit_code, 1);
    EXPECT_NE(truncated.err.find("is damaged or truncated"), std::string::npos) << truncated.err;
    EXPECT_FALSE(std::filesystem::exists(path("prefix")));
}

TEST_F(BundleCli, ATargetSubsetListsOnlyItsArtifacts) {
    auto made = bundle("win.tar.zst", {"--target", "windows-x86_64-cu130"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    auto manifest =
        nlohmann::json::parse(*archive::read_member(path("win.tar.zst"), "manifest.json"));
    ASSERT_EQ(manifest["targets"].size(), 1u);
    EXPECT_EQ(manifest["targets"][0]["interpreter_note"], "left out (--no-python)");
    std::size_t wheels = 0;
    for (const auto& m : manifest["members"]) {
        if (m["kind"] != "wheel") continue;
        ++wheels;
        EXPECT_EQ(m["targets"], nlohmann::json::array({"windows-x86_64-cu130"}));
    }
    EXPECT_GT(wheels, 3u);
}

TEST_F(BundleCli, UsageErrorsAreExitTwo) {
    EXPECT_EQ(run({"bundle", "-l", path("env.lock.yml")}).exit_code, 2);  // no -o
    auto unknown = bundle("x.tar.zst", {"--target", "macos-arm64-mps"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("--target macos-arm64-mps"), std::string::npos) << unknown.err;
    EXPECT_EQ(run({"setup", "--bundle", path("x"), "-l", path("env.lock.yml")}).exit_code, 2);
    auto missing = setup_from("nothing.tar.zst");
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
