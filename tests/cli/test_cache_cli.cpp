// `aitk-env cache …` through the real binary, on a cache filled with the cache layer's API.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "aitk/cache/cache.hpp"
#include "aitk/fs/hash.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

using aitk::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void add_artifact(const fs::path& root, const std::string& content, const std::string& filename) {
    aitk::cache::Cache cache(root);
    fs::path temp = root / ("incoming-" + filename);
    std::ofstream(temp, std::ios::binary) << content;
    cache.insert_artifact(temp, aitk::fs::sha256_hex(content), filename);
}

}  // namespace

TEST(CacheCli, DirFollowsFlagThenEnvironment) {
    auto from_env = run_cli({"cache", "dir"}, "", {"AITK_ENV_CACHE_DIR=/tmp/aitk-env-x"});
    EXPECT_EQ(from_env.out, "/tmp/aitk-env-x\n");
    auto flag_wins = run_cli({"cache", "dir", "--cache-dir", "/tmp/aitk-env-y"}, "",
                             {"AITK_ENV_CACHE_DIR=/tmp/aitk-env-x"});
    EXPECT_EQ(flag_wins.out, "/tmp/aitk-env-y\n");
    auto xdg =
        run_cli({"cache", "dir"}, "", {"-u AITK_ENV_CACHE_DIR", "XDG_CACHE_HOME=/tmp/xdg-home"});
    EXPECT_EQ(xdg.out, "/tmp/xdg-home/aitk-env\n");
}

TEST(CacheCli, InfoCountsAndCleanEmpties) {
    aitk::test::TempDir dir("cache-cli-info");
    const fs::path& root = dir.path;
    add_artifact(root, std::string(5000, 'a'), "a-1.0-py3-none-any.whl");
    add_artifact(root, "second", "b-1.0-py3-none-any.whl");

    auto info = run_cli({"--json", "cache", "info", "--cache-dir", root.string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    auto report = json::parse(info.out);
    EXPECT_EQ(report["kinds"]["artifacts"]["entries"], 2);
    EXPECT_EQ(report["kinds"]["artifacts"]["bytes"], 5006);

    auto human = run_cli({"cache", "info", "--cache-dir", root.string()});
    EXPECT_NE(human.out.find("artifacts"), std::string::npos);
    EXPECT_NE(human.out.find("4.9 KiB"), std::string::npos) << human.out;

    auto clean = run_cli({"cache", "clean", "artifacts", "--cache-dir", root.string()});
    ASSERT_EQ(clean.exit_code, 0) << clean.err;
    auto after =
        json::parse(run_cli({"--json", "cache", "info", "--cache-dir", root.string()}).out);
    EXPECT_EQ(after["kinds"]["artifacts"]["entries"], 0);
    fs::remove_all(root);
}

TEST(CacheCli, UnknownKindIsBadInput) {
    aitk::test::TempDir dir("cache-cli-bad-kind");
    const fs::path& root = dir.path;
    auto r = run_cli({"cache", "clean", "wheels", "--cache-dir", root.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown cache kind 'wheels'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("artifacts, unpacked, metadata, http, temp"), std::string::npos);
    fs::remove_all(root);
}

}  // namespace AITK_FILE_LOCAL
