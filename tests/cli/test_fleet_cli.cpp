// A cluster provisioned through a pull-through cache, with the real binary: nginx runs the
// shipped templates/nginx-pull-through.conf (adapted to 127.0.0.1: its upstreams point at the
// test mirror, the origin), 16 `aitk-env setup -l LOCK` processes with their own caches and
// prefixes fetch through it by AITK_ENV_REWRITE_URL, and the origin sees each artifact once.
// Also: rewrite rules from the configuration files, their priority and their errors.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/python/standalone_install.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "nginx_process.hpp"
#include "run_cli.hpp"
#include "test_data.hpp"
#include "test_files.hpp"

extern char** environ;

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.11.7/bin";
const std::string template_file =
    std::string(AITK_TEST_DATA_DIR) + "/../../templates/nginx-pull-through.conf";
constexpr int nodes = 16;

// The origin logs paths decoded ("gamma-3.1+local.1"); the lock keeps them encoded.
std::string percent_decode(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size()) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// Every occurrence of `from` replaced; false when there is none (the template changed under
// the test, which must then be adapted rather than silently test something else).
bool replace_all(std::string& text, const std::string& from, const std::string& to) {
    bool found = false;
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
        found = true;
    }
    return found;
}

// The shipped template with its public upstreams, port and paths swapped for the test's.
struct Adapted {
    std::string config;
    std::string node_rewrite;  // the AITK_ENV_REWRITE_URL value its comment documents
    std::vector<std::string> missing;
};

Adapted adapt_template(const std::string& origin, std::uint16_t port, const stdfs::path& dir) {
    std::string text = fs::read_file(template_file);
    const std::string cache = "http://127.0.0.1:" + std::to_string(port);
    const std::vector<std::pair<std::string, std::string>> swaps = {
        {"https://files.pythonhosted.org/", origin + "/files/simple/"},
        {"https://pypi.org/simple/", origin + "/simple/"},
        {"https://download.pytorch.org/", origin + "/"},
        {"https://download.pytorch.org", origin},
        {"http://cache:8080", cache},
        {"listen 8080;", "listen 127.0.0.1:" + std::to_string(port) + ";"},
        {"/var/cache/nginx/aitk-env", (dir / "cache").string()},
        {"/var/log/nginx/", dir.string() + "/"},
    };
    Adapted adapted;
    for (const auto& [from, to] : swaps)
        if (!replace_all(text, from, to)) adapted.missing.push_back(from);
    const std::string marker = "AITK_ENV_REWRITE_URL=\"";
    auto at = text.find(marker);
    if (at != std::string::npos) {
        at += marker.size();
        adapted.node_rewrite = text.substr(at, text.find('"', at) - at);
    }
    adapted.config = text;
    return adapted;
}

// nginx running the adapted template, as a child of the test: one process (no master, no
// daemon), every path it writes under its own folder.
class CacheServer {
  public:
    explicit CacheServer(const std::string& origin) : port_(unused_port()) {
        const auto dir = work_.path();
        adapted_ = adapt_template(origin, port_, dir);
        fs::write_file_atomic(dir / "pull-through.conf", adapted_.config);
        fs::write_file_atomic(
            dir / "nginx.conf",
            "error_log " + (dir / "error.log").string() + ";\npid " + (dir / "nginx.pid").string() +
                ";\nevents { worker_connections 512; }\nhttp {\n  client_body_temp_path " +
                (dir / "body").string() + ";\n  proxy_temp_path " + (dir / "proxy").string() +
                ";\n  include " + (dir / "pull-through.conf").string() + ";\n}\n");
        process_.emplace(dir, port_);
    }

    CacheServer(const CacheServer&) = delete;
    CacheServer& operator=(const CacheServer&) = delete;

    bool running() const { return process_ && process_->running(); }
    const Adapted& adapted() const { return adapted_; }
    std::string error_log() const {
        return aitk::test::read_file_or_empty(work_.path() / "error.log");
    }
    std::string access_log() const {
        return aitk::test::read_file_or_empty(work_.path() / "aitk-env-cache.log");
    }

  private:
    fs::TempDir work_ = fs::TempDir::create("aitk-fleet-nginx");
    std::uint16_t port_;
    Adapted adapted_;
    std::optional<NginxProcess> process_;
};

// One node: `aitk-env` as its own process, output in files under `dir`.
class Node {
  public:
    Node(const std::vector<std::string>& args, const std::vector<std::string>& env,
         const stdfs::path& dir)
        : dir_(dir) {
        stdfs::create_directories(dir);
        std::string cmd = "exec env";
        for (const auto& e : env)
            cmd += " " + (e.rfind("-u ", 0) == 0 ? e : shell_quote(e));
        cmd += " " + shell_quote(AITK_ENV_EXE);
        for (const auto& a : args)
            cmd += " " + shell_quote(a);
        cmd += " </dev/null >" + shell_quote((dir / "out").string()) + " 2>" +
               shell_quote((dir / "err").string());
        std::vector<std::string> argv_text = {"/bin/sh", "-c", cmd};
        std::vector<char*> argv;
        for (auto& a : argv_text)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        if (::posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
    }
    CliResult wait() {
        CliResult result;
        int status = 0;
        if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_ && WIFEXITED(status))
            result.exit_code = WEXITSTATUS(status);
        pid_ = -1;
        result.out = aitk::test::read_file_or_empty(dir_ / "out");
        result.err = aitk::test::read_file_or_empty(dir_ / "err");
        return result;
    }
    ~Node() {
        if (pid_ > 0) wait();
    }
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

  private:
    stdfs::path dir_;
    pid_t pid_ = -1;
};

class FleetCli : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.11")) GTEST_SKIP() << "no 3.11.7";
        auto scenario = nlohmann::json::parse(R"({
          "indexes": {"simple": {}},
          "wheels": [
            {"index": "simple", "name": "Alpha.Pkg", "version": "1.0",
             "requires_dist": ["beta>=2"]},
            {"index": "simple", "name": "beta", "version": "2.0", "padding": 200000},
            {"index": "simple", "name": "gamma", "version": "3.1+local.1"}
          ]})");
        built_ = std::make_unique<MirrorBuilder>(build_mirror(work.path() / "origin", scenario));
        origin.serve_directory(work.path() / "origin", "/");
        fs::write_file_atomic(work.path() / "requirements.txt", "alpha-pkg\ngamma\n");
        stdfs::create_directories(work.path() / "xdg" / "aitk-env");
        stdfs::create_directories(work.path() / "etc");
        auto locked = run({"--index-url", origin.url("/simple/"), "--cache-dir", path("c-lock"),
                           "lock", "-r", path("requirements.txt"), "-o", path("env.lock.yml"),
                           "--python", "3.11.7", "--target", "linux-x86_64-cpu"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
        auto parsed = lock::parse_lockfile(fs::read_file(path("env.lock.yml")), "env.lock.yml");
        ASSERT_TRUE(parsed);
        ASSERT_EQ(parsed->targets.size(), 1u);
        for (const auto& package : parsed->targets[0].packages) {
            ASSERT_TRUE(package.wheel);
            artifact_paths.push_back(
                percent_decode(package.wheel->url.substr(origin.base_url().size())));
        }
        ASSERT_EQ(artifact_paths.size(), 3u);
        origin.clear_log();
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    std::vector<std::string> environment(const std::vector<std::string>& more = {}) const {
        std::vector<std::string> env = {"-u http_proxy",
                                        "-u https_proxy",
                                        "-u HTTPS_PROXY",
                                        "-u AITK_ENV_TORCH_BACKEND",
                                        "-u AITK_ENV_INDEX_URL",
                                        "-u AITK_ENV_REWRITE_URL",
                                        "PATH=" + python_bin + ":/usr/bin:/bin",
                                        "PYENV_ROOT=/nonexistent",
                                        "AITK_ENV_NO_GPU=1",
                                        "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
                                        "AITK_ENV_NVIDIA_SMI=/nonexistent",
                                        "XDG_CONFIG_HOME=" + path("xdg"),
                                        "AITK_ENV_SYSTEM_CONFIG_DIR=" + path("etc")};
        // Unquoted: run_cli passes them as they are (no shell); Node quotes them for its shell.
        for (const auto& m : more)
            env.push_back(m);
        return env;
    }

    CliResult run(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
        args.insert(args.begin(), "--no-progress");
        return run_cli(args, "", environment(env));
    }

    std::vector<std::string> setup_args(int node) const {
        const auto n = std::to_string(node);
        return {"--no-progress",
                "--cache-dir",
                path("cache-" + n),
                "setup",
                "-l",
                path("env.lock.yml"),
                "-p",
                path("node-" + n),
                "--python",
                python_bin + "/python3.11",
                "--no-smoke-test",
                "--json"};
    }

    // Origin requests per path.
    std::map<std::string, int> origin_hits() const {
        std::map<std::string, int> hits;
        for (const auto& request : origin.requests())
            ++hits[request.path];
        return hits;
    }

    void expect_each_artifact_once(const std::string& context) const {
        auto hits = origin_hits();
        for (const auto& artifact : artifact_paths)
            EXPECT_EQ(hits[artifact], 1) << artifact << "\n" << context;
        // Nothing else reached the origin (a lock install asks no index).
        EXPECT_EQ(hits.size(), artifact_paths.size()) << context;
    }

    fs::TempDir work = fs::TempDir::create("aitk-fleet-cli");
    HttpServer origin;
    std::unique_ptr<MirrorBuilder> built_;
    std::vector<std::string> artifact_paths;  // "/files/simple/beta/beta-2.0-py3-none-any.whl"
};

TEST_F(FleetCli, SixteenNodesThroughTheShippedCacheFetchEachArtifactOnce) {
    if (!have_nginx()) GTEST_SKIP() << "no nginx (CI installs nginx-light)";
    CacheServer cache(origin.base_url());
    ASSERT_TRUE(cache.adapted().missing.empty())
        << "the template no longer holds " << cache.adapted().missing.front();
    ASSERT_TRUE(cache.running()) << cache.error_log();
    const std::string rewrite = cache.adapted().node_rewrite;
    ASSERT_NE(rewrite.find(origin.url("/files/simple/") + "="), std::string::npos) << rewrite;

    std::vector<std::unique_ptr<Node>> fleet;
    for (int i = 0; i < nodes; ++i) {
        fleet.push_back(std::make_unique<Node>(setup_args(i),
                                               environment({"AITK_ENV_REWRITE_URL=" + rewrite}),
                                               work.path() / ("out-" + std::to_string(i))));
    }
    for (int i = 0; i < nodes; ++i) {
        auto result = fleet[i]->wait();
        ASSERT_EQ(result.exit_code, 0) << "node " << i << ": " << result.err;
        EXPECT_EQ(nlohmann::json::parse(result.out)["sync"]["downloaded"], 3) << result.out;
    }
    for (int i = 0; i < nodes; ++i) {
        auto verify = run({"verify", "-p", path("node-" + std::to_string(i))});
        EXPECT_EQ(verify.exit_code, 0) << "node " << i << ": " << verify.out << verify.err;
    }
    expect_each_artifact_once(cache.access_log());
    // Every node's download went through the cache.
    const auto log = cache.access_log();
    std::size_t through = 0;
    for (auto at = log.find("GET /files/"); at != std::string::npos;
         at = log.find("GET /files/", at + 1))
        ++through;
    EXPECT_EQ(through, static_cast<std::size_t>(nodes) * artifact_paths.size()) << log;
}

TEST_F(FleetCli, NodesSucceedFromTheCacheAfterTheOriginIsGone) {
    if (!have_nginx()) GTEST_SKIP() << "no nginx (CI installs nginx-light)";
    CacheServer cache(origin.base_url());
    ASSERT_TRUE(cache.adapted().missing.empty());
    ASSERT_TRUE(cache.running()) << cache.error_log();
    const std::string rewrite = cache.adapted().node_rewrite;

    auto first =
        Node(setup_args(0), environment({"AITK_ENV_REWRITE_URL=" + rewrite}), work.path() / "out-0")
            .wait();
    ASSERT_EQ(first.exit_code, 0) << first.err;
    expect_each_artifact_once(cache.access_log());
    origin.stop();

    std::vector<std::unique_ptr<Node>> fleet;
    for (int i = 1; i < nodes; ++i) {
        fleet.push_back(std::make_unique<Node>(setup_args(i),
                                               environment({"AITK_ENV_REWRITE_URL=" + rewrite}),
                                               work.path() / ("out-" + std::to_string(i))));
    }
    for (int i = 1; i < nodes; ++i) {
        auto result = fleet[i - 1]->wait();
        ASSERT_EQ(result.exit_code, 0) << "node " << i << ": " << result.err << cache.error_log();
        auto verify = run({"verify", "-p", path("node-" + std::to_string(i))});
        EXPECT_EQ(verify.exit_code, 0) << "node " << i << ": " << verify.out << verify.err;
    }
}

// The rewrite set once in the site's config.yaml, as an administrator does on a cluster.
TEST_F(FleetCli, SiteConfigFileRewritesDownloads) {
    HttpServer elsewhere;
    elsewhere.serve_directory(work.path() / "origin", "/copy/");
    fs::write_file_atomic(work.path() / "etc" / "config.yaml",
                          "# site-wide\nrewrite-url:\n  - \"" + origin.url("/files/") + "=" +
                              elsewhere.url("/copy/files/") + "\"\n");
    auto result = run({"--cache-dir", path("c-site"), "setup", "-l", path("env.lock.yml"), "-p",
                       path("p-site"), "--python", python_bin + "/python3.11", "--no-smoke-test"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(origin.requests().empty());
    EXPECT_EQ(elsewhere.requests().size(), 3u);
}

// Command line, then AITK_ENV_REWRITE_URL, then the user's file, then the site's: the first
// matching rule wins.
TEST_F(FleetCli, RewritePriorityIsFlagThenEnvironmentThenUserThenSite) {
    HttpServer flag, env, user, site;
    for (auto* server : {&flag, &env, &user, &site})
        server->serve_directory(work.path() / "origin", "/");
    const std::string from = origin.url("/files/");
    auto rule = [&](HttpServer& to) { return from + "=" + to.url("/files/"); };
    fs::write_file_atomic(work.path() / "xdg" / "aitk-env" / "config.yaml",
                          "rewrite-url: [\"" + rule(user) + "\"]\n");
    fs::write_file_atomic(work.path() / "etc" / "config.yaml",
                          "rewrite-url: [\"" + rule(site) + "\"]\n");
    int step = 0;
    auto fetch = [&](std::vector<std::string> more, const std::vector<std::string>& env_more) {
        const auto n = std::to_string(step++);
        std::vector<std::string> args = {"--cache-dir",
                                         path("c-prio-" + n),
                                         "setup",
                                         "-l",
                                         path("env.lock.yml"),
                                         "-p",
                                         path("p-prio-" + n),
                                         "--python",
                                         python_bin + "/python3.11",
                                         "--no-smoke-test"};
        args.insert(args.end(), more.begin(), more.end());
        return run(args, env_more);
    };
    ASSERT_EQ(fetch({"--rewrite-url", rule(flag)}, {"AITK_ENV_REWRITE_URL=" + rule(env)}).exit_code,
              0);
    EXPECT_EQ(flag.requests().size(), 3u);
    ASSERT_EQ(fetch({}, {"AITK_ENV_REWRITE_URL=" + rule(env)}).exit_code, 0);
    EXPECT_EQ(env.requests().size(), 3u);
    ASSERT_EQ(fetch({}, {}).exit_code, 0);
    EXPECT_EQ(user.requests().size(), 3u);
    stdfs::remove(work.path() / "xdg" / "aitk-env" / "config.yaml");
    ASSERT_EQ(fetch({}, {}).exit_code, 0);
    EXPECT_EQ(site.requests().size(), 3u);
    EXPECT_TRUE(origin.requests().empty());
}

// Index pages come through the rewrite too; the lock still names the index's own URLs, and the
// page cache is keyed by them (a second lock with another rewrite revalidates, not refetches).
TEST_F(FleetCli, LockFetchesIndexPagesThroughTheRewrite) {
    HttpServer proxy;
    proxy.serve_directory(work.path() / "origin", "/proxied/");
    // Pages, and the PEP 658 .metadata files the resolver reads, both come through the proxy.
    const std::string rule = origin.url("/simple/") + "=" + proxy.url("/proxied/simple/") + " " +
                             origin.url("/files/") + "=" + proxy.url("/proxied/files/");
    auto locked = run({"--index-url", origin.url("/simple/"), "--cache-dir", path("c-relock"),
                       "lock", "-r", path("requirements.txt"), "-o", path("relock.yml"), "--python",
                       "3.11.7", "--target", "linux-x86_64-cpu"},
                      {"AITK_ENV_REWRITE_URL=" + rule});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    EXPECT_EQ(fs::read_file(path("relock.yml")), fs::read_file(path("env.lock.yml")));
    for (const auto& request : origin.requests())
        ADD_FAILURE() << "the origin was asked for " << request.path;
    std::size_t metadata = 0;
    for (const auto& request : proxy.requests())
        metadata += request.path.ends_with(".metadata");
    EXPECT_GT(metadata, 0u);
    std::size_t pages = 0;
    for (const auto& request : proxy.requests())
        pages += request.path.rfind("/proxied/simple/", 0) == 0;
    EXPECT_EQ(pages, 3u);
}

// Standalone CPython downloads follow the rewrite (here to a server with the wrong bytes: the
// table's sha256 still decides, so the install is refused after asking the rewritten URL).
TEST_F(FleetCli, PythonInstallDownloadsThroughTheRewrite) {
    const auto& build = python::select_standalone_build("3.12", {"linux", "x86_64", "gnu"},
                                                        python::standalone_builds());
    const std::string rest = build.url.substr(python::standalone_release_base.size());
    HttpServer cache;
    std::string served = percent_decode("/pbs" + rest);
    cache.add_file(served, "not the archive");
    auto result = run({"python", "install", "3.12", "--cache-dir", path("c-python")},
                      {"AITK_ENV_REWRITE_URL=" + std::string(python::standalone_release_base) +
                       "=" + cache.url("/pbs")});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("sha256 mismatch for " + cache.url("/pbs" + rest)), std::string::npos)
        << result.err;
    // Asked again once after the mismatch (the downloader's one restart), always there.
    ASSERT_FALSE(cache.requests().empty());
    for (const auto& request : cache.requests())
        EXPECT_EQ(request.path, served);
}

// setup's own --rewrite-url reaches the standalone CPython it installs when the machine has no
// interpreter for the lock's Python (here none for 3.12: PATH has 3.11, no pyenv, no HOME one).
TEST_F(FleetCli, SetupsStandalonePythonFollowsTheRewriteFlag) {
    auto locked = run({"--index-url", origin.url("/simple/"), "--cache-dir", path("c-312"), "lock",
                       "-r", path("requirements.txt"), "-o", path("env312.lock.yml"), "--python",
                       "3.12.1", "--target", "linux-x86_64-cpu"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const auto& build = python::select_standalone_build("3.12", {"linux", "x86_64", "gnu"},
                                                        python::standalone_builds());
    const std::string rest = build.url.substr(python::standalone_release_base.size());
    HttpServer cache;
    cache.add_file(percent_decode("/pbs" + rest), "not the archive");
    auto result = run({"--cache-dir", path("c-312"), "setup", "-l", path("env312.lock.yml"), "-p",
                       path("p-312"), "--no-smoke-test", "--rewrite-url",
                       std::string(python::standalone_release_base) + "=" + cache.url("/pbs")},
                      {"HOME=" + path("home")});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("sha256 mismatch for " + cache.url("/pbs" + rest)), std::string::npos)
        << result.err;
}

TEST_F(FleetCli, BadConfigFileIsBadInputWithItsPosition) {
    const auto file = work.path() / "xdg" / "aitk-env" / "config.yaml";
    auto setup = [&] {
        return run({"--cache-dir", path("c-bad"), "setup", "-l", path("env.lock.yml"), "-p",
                    path("p-bad"), "--python", python_bin + "/python3.11", "--no-smoke-test"});
    };
    fs::write_file_atomic(file, "# mirror\nrewrite-urls: []\n");
    auto unknown = setup();
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find(file.string() + ":2:1: unknown setting 'rewrite-urls'"),
              std::string::npos)
        << unknown.err;

    fs::write_file_atomic(file, "rewrite-url: \"https://a/=https://b/\"\n");
    auto scalar = setup();
    EXPECT_EQ(scalar.exit_code, 2);
    EXPECT_NE(scalar.err.find(file.string() + ":1:14: 'rewrite-url' must be a list"),
              std::string::npos)
        << scalar.err;

    fs::write_file_atomic(file, "rewrite-url:\n  - \"https://a/\"\n");
    auto no_equals = setup();
    EXPECT_EQ(no_equals.exit_code, 2);
    EXPECT_NE(no_equals.err.find(file.string() + ":2:5: rewrite-url 'https://a/'"),
              std::string::npos)
        << no_equals.err;

    stdfs::remove(file);
    auto env = run({"--cache-dir", path("c-bad"), "setup", "-l", path("env.lock.yml"), "-p",
                    path("p-bad"), "--python", python_bin + "/python3.11", "--no-smoke-test"},
                   {"AITK_ENV_REWRITE_URL=nothing-to-split"});
    EXPECT_EQ(env.exit_code, 2);
    EXPECT_NE(env.err.find("AITK_ENV_REWRITE_URL"), std::string::npos) << env.err;
    EXPECT_TRUE(origin.requests().empty());
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
