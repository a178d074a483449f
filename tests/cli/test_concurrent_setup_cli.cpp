// Several `aitk-env setup` processes at once: four into four prefixes sharing one
// AITK_ENV_CACHE_DIR, and two into the same prefix. Every run succeeds (the second into one
// prefix waits for the first: one lock per prefix, held from making the venv to the smoke test),
// every prefix verifies and imports its packages with its real CPython, and the cache holds each
// wheel and unpacked tree once.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "wheel_builder.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

WheelSpec package(const std::string& name, const std::string& version, int modules) {
    const std::string module = module_name(name);
    WheelSpec spec;
    spec.name = name;
    spec.version = version;
    spec.files.push_back({module + "/__init__.py", "__version__ = '" + version + "'\n"});
    for (int i = 0; i < modules; ++i) {
        spec.files.push_back(
            {module + "/m" + std::to_string(i) + ".py",
             "VALUE = " + std::to_string(i) + "\n" + std::string(100, '#') + "\n"});
    }
    spec.console_scripts = {name + "-tool = " + module + ":main"};
    return spec;
}

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

class ConcurrentSetup : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        MirrorBuilder mirror(work.path() / "mirror");
        for (const auto& spec : {package("alpha", "1.0", 80), package("beta", "2.0", 60),
                                 package("gamma", "3.0", 40), package("delta", "4.0", 20)}) {
            mirror.add_wheel("simple", spec);
        }
        mirror.write();
        for (const auto& f : mirror.files())
            wheel_paths[f.artifact.sha256] = f.url_path;
        server.serve_directory(mirror.root());
        fs::write_file_atomic(work.path() / "requirements.txt", "alpha\nbeta\ngamma\ndelta\n");
        // Locked with a cache of its own: the shared cache starts empty.
        auto locked =
            aitk({"--cache-dir", path("lock-cache"), "lock", "-r", path("requirements.txt"), "-o",
                  path("env.lock.yml"), "--python", "3.12.1", "--target", "linux-x86_64-cpu"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
        server.clear_log();
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    util::Environment environment() const {
        return {{"PATH", python_bin + ":/usr/bin:/bin"},
                {"HOME", work.path().string()},
                {"PYENV_ROOT", "/nonexistent"},
                {"AITK_ENV_CACHE_DIR", path("cache")},
                {"AITK_ENV_NO_GPU", "1"},
                {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
                {"AITK_ENV_NVIDIA_SMI", "/nonexistent"}};
    }

    Outcome process(std::vector<std::string> argv) const {
        util::ProcessRequest request;
        request.argv = std::move(argv);
        request.environment = environment();
        request.working_directory = work.path();
        request.timeout = std::chrono::minutes(2);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err + "\n(" + result->describe() + ")"};
    }

    Outcome aitk(std::vector<std::string> args) const {
        args.insert(args.begin(),
                    {AITK_ENV_EXE, "--no-progress", "--index-url", server.url("/simple/")});
        return process(std::move(args));
    }

    // One download at a time per process.
    Outcome setup(const std::string& prefix) const {
        return aitk({"--concurrency", "1", "setup", "-l", path("env.lock.yml"), "-p", path(prefix),
                     "--json"});
    }

    // What the prefix's interpreter imports: module → __version__.
    std::map<std::string, std::string> imports(const std::string& prefix) const {
        auto r = process({path(prefix) + "/bin/python", "-c",
                          "import json, alpha, beta, gamma, delta\n"
                          "print(json.dumps({m.__name__: m.__version__ "
                          "for m in (alpha, beta, gamma, delta)}))"});
        EXPECT_EQ(r.exit_code, 0) << prefix << ": " << r.err;
        std::map<std::string, std::string> got;
        if (r.exit_code != 0) return got;
        const auto parsed = nlohmann::json::parse(r.out);
        for (const auto& [name, version] : parsed.items())
            got[name] = version.is_string() ? version.get<std::string>() : version.dump();
        return got;
    }

    void expect_clean(const std::string& prefix) const {
        auto verify = aitk({"verify", "-p", path(prefix)});
        EXPECT_EQ(verify.exit_code, 0) << prefix << ":\n" << verify.out << verify.err;
        EXPECT_EQ(imports(prefix), wanted);
    }

    // Digest → names inside each entry of <cache>/v1/<kind>/sha256/.
    std::map<std::string, std::vector<std::string>> store(const std::string& kind) const {
        std::map<std::string, std::vector<std::string>> entries;
        for (const auto& shard :
             stdfs::directory_iterator(work.path() / "cache" / "v1" / kind / "sha256")) {
            for (const auto& entry : stdfs::directory_iterator(shard.path())) {
                auto& names =
                    entries[shard.path().filename().string() + entry.path().filename().string()];
                for (const auto& inside : stdfs::directory_iterator(entry.path()))
                    names.push_back(inside.path().filename().string());
            }
        }
        return entries;
    }

    fs::TempDir work = fs::TempDir::create("aitk-concurrent-setup");
    HttpServer server;
    std::map<std::string, std::string> wheel_paths;  // sha256 → URL path on the mirror
    const std::map<std::string, std::string> wanted = {
        {"alpha", "1.0"}, {"beta", "2.0"}, {"gamma", "3.0"}, {"delta", "4.0"}};
};

TEST_F(ConcurrentSetup, FourSetupsShareOneCache) {
    // Every request waits until four are in flight at once: the four processes (one download
    // each at a time) were downloading at the same moment.
    server.set_in_flight_gate(4, std::chrono::seconds(60));
    std::vector<Outcome> runs(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < runs.size(); ++i)
        threads.emplace_back([&, i] { runs[i] = setup("p" + std::to_string(i)); });
    for (auto& t : threads)
        t.join();
    EXPECT_GE(server.max_in_flight(), 4u);
    std::size_t downloaded = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        ASSERT_EQ(runs[i].exit_code, 0) << "p" << i << ": " << runs[i].err;
        auto json = nlohmann::json::parse(runs[i].out);
        EXPECT_EQ(json["smoke"], "python 3.12.1 no-torch");
        downloaded += json["sync"]["downloaded"].get<std::size_t>();
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        expect_clean("p" + std::to_string(i));

    // A process fetches what the cache lacks when it looks; processes that look before any has
    // stored a wheel each fetch it (each download is hash-checked, and the store keeps one).
    // So every wheel is fetched once per process at most, and every fetch is one that a
    // process reports as its own download.
    std::size_t fetches = 0;
    for (const auto& [sha, url_path] : wheel_paths) {
        std::size_t gets = 0;
        for (const auto& r : server.requests_for(url_path))
            gets += r.method == "GET" && r.status == 200 ? 1 : 0;
        EXPECT_GE(gets, 1u) << url_path;
        EXPECT_LE(gets, runs.size()) << url_path;
        fetches += gets;
    }
    EXPECT_EQ(fetches, downloaded);

    // Each wheel once under its own name, each unpacked tree once, no staging debris.
    auto artifacts = store("artifacts");
    ASSERT_EQ(artifacts.size(), wheel_paths.size());
    for (const auto& [sha, url_path] : wheel_paths) {
        EXPECT_EQ(artifacts[sha], std::vector<std::string>{stdfs::path(url_path).filename()});
    }
    auto unpacked = store("unpacked");
    EXPECT_EQ(unpacked.size(), wheel_paths.size());
    for (const auto& [sha, names] : unpacked)
        EXPECT_TRUE(wheel_paths.count(sha)) << sha;
    const auto tmp = work.path() / "cache" / "v1" / "tmp";
    EXPECT_TRUE(!stdfs::exists(tmp) || stdfs::is_empty(tmp)) << "left in " << tmp;
}

TEST_F(ConcurrentSetup, TwoSetupsIntoOnePrefixOneWaitsForTheOther) {
    Outcome first, second;
    std::thread other([&] { second = setup("same"); });
    first = setup("same");
    other.join();
    for (const auto* run : {&first, &second}) {
        ASSERT_EQ(run->exit_code, 0) << run->err;
        EXPECT_EQ(nlohmann::json::parse(run->out)["smoke"], "python 3.12.1 no-torch");
    }
    expect_clean("same");
    // The second to get the prefix found it current: nothing was installed twice.
    std::size_t installed = 0;
    for (const auto* run : {&first, &second})
        installed += nlohmann::json::parse(run->out)["sync"]["install"].size();
    EXPECT_EQ(installed, wanted.size());
}

// The waiting made observable without timing: the test holds the prefix lock, a setup says
// who it waits for and touches nothing, and finishes once the lock is let go.
TEST_F(ConcurrentSetup, ASetupWaitsForTheHolderOfThePrefixLock) {
    auto first = setup("held");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    stdfs::remove_all(work.path() / "held" / "lib" / "python3.12" / "site-packages" / "gamma");

    auto lock =
        fs::FileLock::acquire(work.path() / "held" / ".aitk-env" / "lock", fs::LockMode::exclusive);
    lock.record_owner();
    const auto err_file = work.path() / "waiting.err";
    std::vector<std::string> args = {AITK_ENV_EXE,
                                     "--no-progress",
                                     "--index-url",
                                     server.url("/simple/"),
                                     "setup",
                                     "-l",
                                     path("env.lock.yml"),
                                     "-p",
                                     path("held")};
    std::vector<std::string> env;
    for (const auto& [name, value] : environment())
        env.push_back(name + "=" + value);
    const pid_t pid = spawn_background(args, env, err_file.string());
    ASSERT_GT(pid, 0) << std::strerror(errno);

    // The notice comes once the setup has found the lock taken (a minute at most, as a guard).
    const std::string expected = "waiting for another aitk-env (pid " + std::to_string(::getpid()) +
                                 ") using " + path("held");
    std::string said;
    for (int i = 0; i < 6000 && said.find(expected) == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        said = fs::read_file(err_file);
    }
    EXPECT_NE(said.find(expected), std::string::npos) << said;
    // While it waits, the prefix is as the holder left it.
    EXPECT_FALSE(
        stdfs::exists(work.path() / "held" / "lib" / "python3.12" / "site-packages" / "gamma"));
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "the setup did not wait";

    lock.release();
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << fs::read_file(err_file);
    expect_clean("held");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
