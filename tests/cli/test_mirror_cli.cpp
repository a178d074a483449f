// `aitk-env mirror` through the real binary, and installing from what it wrote: a lock made
// against a local index, mirrored into a folder, the folder served by nginx (as a user would
// publish it), the original index stopped, then `setup -l LOCK --index-url <nginx>/simple` and
// `--rewrite-url`. Hashes are the lock's throughout.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aitk/archive/reader.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "nginx_process.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

// nginx serving `root` on 127.0.0.1 with the PEP 691 media type for .json.
class Nginx {
  public:
    explicit Nginx(const stdfs::path& root) : port_(unused_port()) {
        const auto dir = work_.path();
        fs::write_file_atomic(
            dir / "nginx.conf",
            "error_log " + (dir / "error.log").string() + ";\npid " + (dir / "nginx.pid").string() +
                ";\nevents { worker_connections 64; }\nhttp {\n  access_log " +
                (dir / "access.log").string() + ";\n" + nginx_temp_paths(dir) +
                "  types { text/html html; application/vnd.pypi.simple.v1+json json; }\n"
                "  default_type application/octet-stream;\n  server {\n    listen 127.0.0.1:" +
                std::to_string(port_) + ";\n    root " + root.string() +
                ";\n    index index.html;\n  }\n}\n");
        process_.emplace(dir, port_);
    }

    bool running() const { return process_ && process_->running(); }
    std::string url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + path;
    }
    std::string error_log() const {
        return aitk::test::read_file_or_empty(work_.path() / "error.log");
    }
    std::string access_log() const {
        return aitk::test::read_file_or_empty(work_.path() / "access.log");
    }

  private:
    fs::TempDir work_ = fs::TempDir::create("aitk-nginx");
    std::uint16_t port_;
    std::optional<NginxProcess> process_;
};

class MirrorCli : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        auto scenario = nlohmann::json::parse(R"({
          "indexes": {"simple": {}},
          "wheels": [
            {"index": "simple", "name": "Alpha.Pkg", "version": "1.0",
             "requires_dist": ["beta>=2"]},
            {"index": "simple", "name": "beta", "version": "2.0", "requires_python": ">=3.8"},
            {"index": "simple", "name": "beta", "version": "1.0"},
            {"index": "simple", "name": "gamma", "version": "3.1+local.1"}
          ]})");
        built_ = std::make_unique<MirrorBuilder>(build_mirror(work.path() / "origin", scenario));
        origin.serve_directory(work.path() / "origin", "/");
        fs::write_file_atomic(work.path() / "requirements.txt", "alpha-pkg\ngamma\n");
        auto locked = run({"--index-url", origin.url("/simple/"), "--cache-dir", path("c-lock"),
                           "lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"),
                           "--python", "3.12.1", "--target", "linux-x86_64-cpu"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
        auto parsed = lock::parse_lockfile(fs::read_file(path("env.lock.yml")), "env.lock.yml");
        ASSERT_TRUE(parsed);
        lockfile = *parsed;
        ASSERT_EQ(lockfile.targets.size(), 1u);
        ASSERT_EQ(lockfile.targets[0].packages.size(), 3u);
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    CliResult run(std::vector<std::string> args) {
        args.insert(args.begin(), "--no-progress");
        return run_cli(
            args, "",
            {"-u http_proxy", "-u https_proxy", "-u HTTPS_PROXY", "-u AITK_ENV_TORCH_BACKEND",
             "-u AITK_ENV_INDEX_URL", "PATH=" + python_bin + ":/usr/bin:/bin",
             "PYENV_ROOT=/nonexistent", "AITK_ENV_NO_GPU=1", "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
             "AITK_ENV_NVIDIA_SMI=/nonexistent"});
    }

    CliResult mirror(const std::string& out, std::vector<std::string> more = {}) {
        std::vector<std::string> args = {
            "--cache-dir", path("c-mirror"), "mirror", "-l", path("env.lock.yml"),
            "-o",          path(out),        "--json"};
        args.insert(args.end(), more.begin(), more.end());
        return run(args);
    }

    const lock::LockedFile& wheel(const std::string& name) const {
        return *lockfile.targets[0].find(name)->wheel;
    }

    fs::TempDir work = fs::TempDir::create("aitk-mirror-cli");
    HttpServer origin;
    std::unique_ptr<MirrorBuilder> built_;
    lock::Lockfile lockfile;
};

TEST_F(MirrorCli, WritesAStaticSimpleIndexOfTheLockedFiles) {
    auto result = mirror("m");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto summary = nlohmann::json::parse(result.out);
    EXPECT_EQ(summary["projects"], 3);
    EXPECT_EQ(summary["files"], 3);
    EXPECT_EQ(summary["downloaded"], 3);
    const stdfs::path m = work.path() / "m";

    // Only the locked files (beta 1.0 is on the index, not in the lock), with the lock's bytes.
    for (const char* name : {"alpha-pkg", "beta", "gamma"}) {
        const auto& w = wheel(name);
        auto file = m / "files" / name / w.filename;
        ASSERT_TRUE(stdfs::exists(file)) << file;
        EXPECT_EQ(fs::sha256_file_hex(file), w.sha256);
        auto metadata = archive::read_wheel_metadata(file).content;
        EXPECT_EQ(fs::read_file(file.string() + ".metadata"), metadata);
    }
    EXPECT_FALSE(stdfs::exists(m / "files" / "beta" / "beta-1.0-py3-none-any.whl"));
    // Nothing else: no temporary files left behind.
    std::vector<std::string> beta_files;
    for (const auto& entry : stdfs::directory_iterator(m / "files" / "beta"))
        beta_files.push_back(entry.path().filename().string());
    std::sort(beta_files.begin(), beta_files.end());
    EXPECT_EQ(beta_files, (std::vector<std::string>{wheel("beta").filename,
                                                    wheel("beta").filename + ".metadata"}));

    auto root = fs::read_file(m / "simple" / "index.html");
    EXPECT_NE(root.find("<meta name=\"pypi:repository-version\" content=\"1.1\">"),
              std::string::npos);
    EXPECT_NE(root.find("<a href=\"alpha-pkg/\">alpha-pkg</a><br>\n    <a href=\"beta/\">beta</a>"
                        "<br>\n    <a href=\"gamma/\">gamma</a><br>\n"),
              std::string::npos)
        << root;

    const auto& beta = wheel("beta");
    auto beta_meta =
        fs::sha256_hex(fs::read_file(m / "files" / "beta" / (beta.filename + ".metadata")));
    auto page = fs::read_file(m / "simple" / "beta" / "index.html");
    EXPECT_NE(page.find("<a href=\"../../files/beta/" + beta.filename + "#sha256=" + beta.sha256 +
                        "\" data-requires-python=\"&gt;=3.8\" data-dist-info-metadata=\"sha256=" +
                        beta_meta + "\" data-core-metadata=\"sha256=" + beta_meta + "\">" +
                        beta.filename + "</a><br>"),
              std::string::npos)
        << page;
    // '+' in a filename is escaped in the link.
    auto gamma_page = fs::read_file(m / "simple" / "gamma" / "index.html");
    EXPECT_NE(gamma_page.find("href=\"../../files/gamma/gamma-3.1%2Blocal.1-py3-none-any.whl#"),
              std::string::npos)
        << gamma_page;

    auto json = nlohmann::json::parse(fs::read_file(m / "simple" / "beta" / "index.json"));
    EXPECT_EQ(json["meta"]["api-version"], "1.1");
    EXPECT_EQ(json["name"], "beta");
    EXPECT_EQ(json["versions"], nlohmann::json::array({"2.0"}));
    ASSERT_EQ(json["files"].size(), 1u);
    const auto& f = json["files"][0];
    EXPECT_EQ(f["filename"], beta.filename);
    EXPECT_EQ(f["url"], "../../files/beta/" + beta.filename);
    EXPECT_EQ(f["hashes"], nlohmann::json({{"sha256", beta.sha256}}));
    EXPECT_EQ(f["requires-python"], ">=3.8");
    EXPECT_EQ(f["core-metadata"], nlohmann::json({{"sha256", beta_meta}}));
    EXPECT_EQ(f["size"], stdfs::file_size(m / "files" / "beta" / beta.filename));
    auto root_json = nlohmann::json::parse(fs::read_file(m / "simple" / "index.json"));
    EXPECT_EQ(root_json["meta"]["api-version"], "1.1");
    EXPECT_EQ(root_json["projects"],
              nlohmann::json::parse(R"([{"name":"alpha-pkg"},{"name":"beta"},{"name":"gamma"}])"));

    // Again over the same folder: nothing to write, the same bytes.
    auto again = mirror("m");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    auto second = nlohmann::json::parse(again.out);
    EXPECT_EQ(second["written"], 0);
    EXPECT_EQ(second["downloaded"], 0);
    EXPECT_EQ(fs::read_file(m / "simple" / "beta" / "index.html"), page);

    // A damaged copy in the mirror is replaced by the right bytes.
    auto damaged = m / "files" / "beta" / beta.filename;
    auto bytes = fs::read_file(damaged);
    bytes[bytes.size() / 2] ^= 0x5a;
    fs::write_file_atomic(damaged, bytes);
    auto repaired = mirror("m");
    ASSERT_EQ(repaired.exit_code, 0) << repaired.err;
    EXPECT_EQ(nlohmann::json::parse(repaired.out)["written"], 1);
    EXPECT_EQ(fs::sha256_file_hex(damaged), beta.sha256);
}

TEST_F(MirrorCli, BaseUrlMakesLinksAbsolute) {
    auto result = mirror("abs", {"--base-url", "https://mirror.example/aitk/"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto& beta = wheel("beta");
    auto page = fs::read_file(work.path() / "abs" / "simple" / "beta" / "index.html");
    EXPECT_NE(page.find("href=\"https://mirror.example/aitk/files/beta/" + beta.filename +
                        "#sha256=" + beta.sha256 + "\""),
              std::string::npos)
        << page;
    auto root = fs::read_file(work.path() / "abs" / "simple" / "index.html");
    EXPECT_NE(root.find("href=\"https://mirror.example/aitk/simple/beta/\""), std::string::npos);
}

TEST_F(MirrorCli, UnknownTargetIsBadInput) {
    auto result = mirror("x", {"--target", "linux-x86_64-cu999"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("linux-x86_64-cu999"), std::string::npos) << result.err;
}

TEST_F(MirrorCli, SetupInstallsFromTheServedMirrorWithTheOriginGone) {
    if (!have_nginx()) GTEST_SKIP() << "no nginx (CI installs nginx-light)";
    ASSERT_EQ(mirror("m").exit_code, 0);
    Nginx nginx(work.path() / "m");
    ASSERT_TRUE(nginx.running()) << nginx.error_log();
    origin.stop();

    auto setup = run({"--index-url", nginx.url("/simple"), "--cache-dir", path("c-a"), "setup",
                      "-l", path("env.lock.yml"), "-p", path("p"), "--json"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err << nginx.error_log();
    EXPECT_EQ(nlohmann::json::parse(setup.out)["sync"]["downloaded"], 3);
    const auto& beta = wheel("beta");
    EXPECT_NE(nginx.access_log().find("GET /files/beta/" + beta.filename + " "), std::string::npos)
        << nginx.access_log();
    auto verify = run({"verify", "-p", path("p"), "-l", path("env.lock.yml")});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    // The prefix keeps the lock as it was: its URLs are the origin's.
    auto own = fs::read_file(work.path() / "p" / ".aitk-env" / "lock.yml");
    EXPECT_NE(own.find(beta.url), std::string::npos);
    EXPECT_EQ(own.find(nginx.url("/")), std::string::npos);
    auto noop = run({"--index-url", nginx.url("/simple"), "--cache-dir", path("c-a"), "sync", "-l",
                     path("env.lock.yml"), "-p", path("p"), "--json"});
    ASSERT_EQ(noop.exit_code, 0) << noop.err;
    EXPECT_EQ(nlohmann::json::parse(noop.out)["keep"].size(), 3u);

    // --rewrite-url: the origin's files/simple/ tree is the mirror's files/ tree.
    auto rewritten =
        run({"--cache-dir", path("c-b"), "setup", "-l", path("env.lock.yml"), "-p", path("q"),
             "--rewrite-url", origin.url("/files/simple/") + "=" + nginx.url("/files/"), "--json"});
    ASSERT_EQ(rewritten.exit_code, 0) << rewritten.err;
    EXPECT_EQ(nlohmann::json::parse(rewritten.out)["sync"]["downloaded"], 3);
    EXPECT_EQ(run({"verify", "-p", path("q")}).exit_code, 0);
}

TEST_F(MirrorCli, SetupRefusesAMirroredFileWithOtherBytes) {
    if (!have_nginx()) GTEST_SKIP() << "no nginx (CI installs nginx-light)";
    ASSERT_EQ(mirror("m").exit_code, 0);
    const auto& beta = wheel("beta");
    auto file = work.path() / "m" / "files" / "beta" / beta.filename;
    auto bytes = fs::read_file(file);
    bytes[bytes.size() / 3] ^= 0x01;
    fs::write_file_atomic(file, bytes);
    Nginx nginx(work.path() / "m");
    ASSERT_TRUE(nginx.running()) << nginx.error_log();
    origin.stop();

    auto setup = run({"--index-url", nginx.url("/simple"), "--cache-dir", path("c-a"), "setup",
                      "-l", path("env.lock.yml"), "-p", path("p")});
    EXPECT_EQ(setup.exit_code, 1) << setup.err;
    EXPECT_NE(setup.err.find(beta.filename), std::string::npos) << setup.err;
    EXPECT_NE(setup.err.find(beta.sha256), std::string::npos) << setup.err;
    EXPECT_FALSE(
        stdfs::exists(work.path() / "p" / "lib" / "python3.12" / "site-packages" / "beta"));

    // A page that lists the file with another hash is refused before any download.
    auto page = work.path() / "m" / "simple" / "gamma" / "index.html";
    auto text = fs::read_file(page);
    const auto& gamma = wheel("gamma");
    auto at = text.find(gamma.sha256);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 64, std::string(64, 'a'));
    fs::write_file_atomic(page, text);
    auto listed = run({"--index-url", nginx.url("/simple"), "--cache-dir", path("c-b"), "setup",
                       "-l", path("env.lock.yml"), "-p", path("p2")});
    EXPECT_EQ(listed.exit_code, 1) << listed.err;
    EXPECT_NE(listed.err.find(gamma.filename + ": "), std::string::npos) << listed.err;
    EXPECT_NE(listed.err.find("lists it with sha256 " + std::string(64, 'a') + ", the lock has " +
                              gamma.sha256),
              std::string::npos)
        << listed.err;
}

TEST_F(MirrorCli, AFileMissingFromTheIndexNamesFileAndIndex) {
    // The origin's index has the projects, but a second index with only part of them does not.
    HttpServer partial;
    partial.add_file("/simple/alpha-pkg/index.html",
                     "<html><body><a href=\"/f/alpha_pkg-0.9-py3-none-any.whl\">"
                     "alpha_pkg-0.9-py3-none-any.whl</a></body></html>",
                     "text/html");
    auto setup = run({"--index-url", partial.url("/simple/"), "--cache-dir", path("c-a"), "setup",
                      "-l", path("env.lock.yml"), "-p", path("p")});
    EXPECT_EQ(setup.exit_code, 1) << setup.err;
    const auto& alpha = wheel("alpha-pkg");
    EXPECT_NE(setup.err.find(alpha.filename + ": not on " + partial.url("/simple/alpha-pkg/")),
              std::string::npos)
        << setup.err;
    EXPECT_NE(setup.err.find(wheel("beta").filename + ": project beta is not on " +
                             partial.url("/simple/")),
              std::string::npos)
        << setup.err;
}

TEST_F(MirrorCli, BadRewriteRulesAreUsageErrors) {
    for (const char* rule : {"no-equals-sign", "=http://to/"}) {
        auto setup =
            run({"setup", "-l", path("env.lock.yml"), "-p", path("p"), "--rewrite-url", rule});
        EXPECT_EQ(setup.exit_code, 2) << rule << setup.err;
        EXPECT_NE(setup.err.find("FROM"), std::string::npos) << setup.err;
    }
    auto sync = run({"sync", "-l", path("env.lock.yml"), "-p", path("p"), "--rewrite-url", "x"});
    EXPECT_EQ(sync.exit_code, 2) << sync.err;
    EXPECT_NE(sync.err.find("--rewrite-url x"), std::string::npos) << sync.err;
    auto m = run({"mirror", "-l", path("env.lock.yml"), "-o", path("m"), "--rewrite-url", "=y"});
    EXPECT_EQ(m.exit_code, 2) << m.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
