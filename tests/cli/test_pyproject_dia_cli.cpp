// Dia (nari-labs/dia) through the real binary: `lock --project` on its published pyproject.toml,
// against a local index rebuilt from its uv.lock, picks exactly uv's set for Linux and Windows.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "test_data.hpp"
#include "uv_lock_graph.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// Dia (nari-labs/dia) as published: its pyproject.toml, and a local index rebuilt from its
// uv.lock (every project, version and wheel file uv chose from, with the lock's edges as
// metadata). `lock --project` must pick exactly uv's set for Linux and Windows.
class PyprojectDiaCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        lock_text = new std::string(read_file(data_path("realworld/nari-labs_dia/uv.lock")));
        mirror = new aitk::fs::TempDir(aitk::fs::TempDir::create("aitk-pyproject-dia"));
        auto rebuilt = uv_lock_scenario(*lock_text);
        build_mirror(mirror->path(), rebuilt.scenario);
    }
    static void TearDownTestSuite() {
        delete mirror;
        delete lock_text;
    }

    static inline aitk::fs::TempDir* mirror = nullptr;
    static inline std::string* lock_text = nullptr;
    HttpServer server;
    aitk::fs::TempDir work = aitk::fs::TempDir::create("aitk-pyproject-dia-work");
};

TEST_F(PyprojectDiaCli, LockPicksUvsSetForLinuxAndWindows) {
    server.serve_directory(mirror->path());
    const auto project = work.path() / "dia";
    stdfs::create_directories(project);
    stdfs::copy_file(data_path("realworld/nari-labs_dia/pyproject.toml"),
                     project / "pyproject.toml");
    // The machine's own environment (a Windows process needs its SystemRoot), less proxies.
    auto r =
        run_cli({"--index-url", server.url("/simple/"), "--torch-index-url", server.url("/whl"),
                 "--no-progress", "--cache-dir", (work.path() / "cache").string(), "lock",
                 "--project", project.string(), "--no-install-project", "--target",
                 "linux-x86_64-cu126", "--target", "windows-x86_64-cu126"},
                "",
                {"AITK_ENV_NO_GPU=1", "-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY",
                 "-u all_proxy", "-u ALL_PROXY", "-u AITK_ENV_TORCH_BACKEND",
                 "-u AITK_ENV_INDEX_URL", "-u AITK_ENV_TORCH_INDEX_URL"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto parsed = lock::parse_lockfile(
        aitk::fs::read_file(project / "lockfiles" / "nari-tts.lock.yml"), "nari-tts.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    for (const auto& [id, platform, machine] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"linux-x86_64-cu126", "linux", "x86_64"},
             {"windows-x86_64-cu126", "win32", "AMD64"}}) {
        SCOPED_TRACE(id);
        const auto* target = parsed->find_target(id);
        ASSERT_NE(target, nullptr);
        std::set<std::string> ours;
        for (const auto& p : target->packages)
            ours.insert(p.name + "==" + p.version);
        // uv sync's default: the dev group with the dependencies.
        auto uvs = uv_lock_choice(*lock_text, {platform, machine, target->python}, {"dev"});
        EXPECT_EQ(ours, uvs);
        EXPECT_EQ(ours.count("torch==2.6.0+cu126"), 1u);
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
