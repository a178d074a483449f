#pragma once
// The fixture of the tests of a target's OS caps (test_glibc_cli.cpp, test_macos_cap_cli.cpp):
// a mirror built once per suite from the suite's `mirror_json` (build_mirror's scenario) and
// served on 127.0.0.1 for each test, a work folder, and the real binary run with that index,
// the work folder's cache, no proxy, no GPU and pyenv's 3.12.1 on PATH.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"

namespace aitk::test {

// Suite: the derived fixture, with a public `static constexpr const char* mirror_json`.
template <class Suite>
class OsCapCliTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror_dir = new fs::TempDir(fs::TempDir::create("aitk-os-cap-mirror"));
        build_mirror(mirror_dir->path(), nlohmann::json::parse(Suite::mirror_json));
    }
    static void TearDownTestSuite() {
        delete mirror_dir;
        mirror_dir = nullptr;
    }

    void SetUp() override { server.serve_directory(mirror_dir->path()); }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }
    void write(const std::string& name, const std::string& text) {
        fs::write_file_atomic(work.path() / name, text);
    }
    std::string read(const std::string& name) const { return fs::read_file(work.path() / name); }

    // `env` entries after the fixture's own (run_cli's form: "NAME=value", "-u NAME").
    CliResult run(std::vector<std::string> args, std::vector<std::string> env = {}) {
        args.insert(args.begin(), {"--cache-dir", path("cache"), "--index-url",
                                   server.url("/simple/"), "--no-progress"});
        std::vector<std::string> full_env = {"-u http_proxy",
                                             "-u https_proxy",
                                             "-u HTTPS_PROXY",
                                             "-u ALL_PROXY",
                                             "-u all_proxy",
                                             "-u AITK_ENV_TORCH_BACKEND",
                                             "-u AITK_ENV_GLIBC_VERSION",
                                             "PATH=" + std::string(python_dir) + ":/usr/bin:/bin",
                                             "PYENV_ROOT=/nonexistent",
                                             "AITK_ENV_NO_GPU=1"};
        full_env.insert(full_env.end(), env.begin(), env.end());
        return run_cli(args, "", full_env);
    }

    // `lock` of requirements.txt for `target`, Python 3.12.1, into env.lock.yml.
    CliResult lock_for(const std::string& target, std::vector<std::string> extra = {},
                       std::vector<std::string> env = {}) {
        std::vector<std::string> args = {"lock",
                                         "-r",
                                         path("requirements.txt"),
                                         "-o",
                                         path("env.lock.yml"),
                                         "--python",
                                         "3.12.1",
                                         "--target",
                                         target};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args, std::move(env));
    }

    static constexpr const char* python_dir = "/root/.pyenv/versions/3.12.1/bin";
    static inline fs::TempDir* mirror_dir = nullptr;
    HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-os-cap-cli");
};

}  // namespace aitk::test
