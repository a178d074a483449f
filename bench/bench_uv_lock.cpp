// uv.lock as an input, measured (issue 29, item 3):
//   read   reading a big real uv.lock the way `setup -l uv.lock` does on this machine (TOML,
//          the model, uv's walk and the conversion into lockfile targets: app::read_uv_lock),
//          in this process, ROUNDS x 5 times (goal: <= 100 ms for lerobot's 333 packages);
//   setup  `aitk-env setup -l uv.lock` with a warm cache vs `aitk-env setup -l LOCK` of the
//          lockfile `aitk-env lock --from uv.lock` made of the same lock, into new prefixes,
//          alternating which goes first (goal: <= 1.3x). The graph is nari-labs/dia's uv.lock
//          rebuilt as a local index (tests/support/uv_lock_index.hpp) on 127.0.0.1; both sides
//          run with --no-build and --no-smoke-test, so that they do the same wheel installs and
//          nothing else (the lock's four sdist-only packages and the editable project are left
//          out alike). Both prefixes must hold the same distributions before a number counts.
//
// Usage: bench_uv_lock --aitk-env PATH --python PATH [--rounds N] [--read-lock UV_LOCK]
//                      [--graph-lock UV_LOCK] [--results FILE]   (the work folder: in TMPDIR)
//   --read-lock   default ../shared/realworld/uv/huggingface_lerobot__uv.lock beside the
//                 checkout (with its __pyproject.toml); the read row is left out without it
//   --graph-lock  default tests/data/realworld/uv/nari-labs_dia__uv.lock (with its pyproject)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/uv_lock_input.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/uv_lock.hpp"
#include "http_server.hpp"
#include "results_file.hpp"
#include "uv_lock_index.hpp"

extern char** environ;

namespace {

namespace stdfs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string aitk_env;
    std::string python;
    int rounds = 3;
    stdfs::path read_lock;
    stdfs::path graph_lock;
    std::string results;
};

[[noreturn]] void usage(const std::string& message) {
    std::fprintf(stderr,
                 "bench_uv_lock: %s\nusage: bench_uv_lock --aitk-env PATH --python PATH "
                 "[--rounds N] [--read-lock UV_LOCK] [--graph-lock UV_LOCK] "
                 "[--results FILE]\n",
                 message.c_str());
    std::exit(2);
}

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "bench_uv_lock: %s\n", message.c_str());
    std::exit(1);
}

Options parse_options(int argc, char** argv) {
    Options o;
    const stdfs::path source = stdfs::path(AITK_SOURCE_DIR);
    // ../shared beside the checkout, or beside the folder of worktrees it is in.
    for (const auto& dir : {source.parent_path(), source.parent_path().parent_path()}) {
        const auto candidate = dir / "shared" / "realworld" / "uv" / "huggingface_lerobot__uv.lock";
        std::error_code ec;
        if (stdfs::is_regular_file(candidate, ec)) {
            o.read_lock = candidate;
            break;
        }
    }
    o.graph_lock = source / "tests" / "data" / "realworld" / "uv" / "nari-labs_dia__uv.lock";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("missing value after " + arg);
            return argv[++i];
        };
        if (arg == "--aitk-env") {
            o.aitk_env = value();
        } else if (arg == "--python") {
            o.python = value();
        } else if (arg == "--rounds") {
            o.rounds = std::max(1, std::atoi(value().c_str()));
        } else if (arg == "--read-lock") {
            o.read_lock = value();
        } else if (arg == "--graph-lock") {
            o.graph_lock = value();
        } else if (arg == "--results") {
            o.results = value();
        } else {
            usage("unknown argument " + arg);
        }
    }
    if (o.aitk_env.empty() || o.python.empty()) usage("--aitk-env and --python are required");
    return o;
}

// "x__uv.lock" → "x__pyproject.toml" beside it.
stdfs::path pyproject_of(const stdfs::path& lock) {
    std::string name = lock.filename().string();
    const auto at = name.rfind("uv.lock");
    return lock.parent_path() / (name.substr(0, at) + "pyproject.toml");
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Ran {
    int status = -1;
    double seconds = 0;
    long peak_rss_kib = 0;
    std::string out;
};

// Runs argv with `env` added, stdout into a file read back, stderr to our stderr on failure.
Ran run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
        const stdfs::path& log) {
    Ran r;
    std::fflush(stdout);  // the child must not print our buffered lines again
    std::fflush(stderr);
    const auto start = Clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) fail("fork failed");
    if (pid == 0) {
        FILE* out = std::freopen(log.c_str(), "w", stdout);
        FILE* err = std::freopen((log.string() + ".err").c_str(), "w", stderr);
        (void)out;
        (void)err;
        for (const auto& e : env)
            ::putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        std::_Exit(127);
    }
    struct rusage usage {};
    while (::wait4(pid, &r.status, 0, &usage) < 0) {
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.peak_rss_kib = usage.ru_maxrss;
    r.out = aitk::fs::read_file(log);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
        std::cerr << aitk::fs::read_file(log.string() + ".err");
        fail(aitk::bench::ResultsFile::quote(argv) + " failed");
    }
    return r;
}

void bench_read(const Options& o, const stdfs::path& work, aitk::bench::ResultsFile& results) {
    std::error_code ec;
    if (!stdfs::is_regular_file(o.read_lock, ec)) {
        std::cout << "read: no " << o.read_lock.string() << ", left out\n";
        return;
    }
    const auto dir = work / "read";
    stdfs::create_directories(dir);
    stdfs::copy_file(o.read_lock, dir / "uv.lock");
    if (stdfs::is_regular_file(pyproject_of(o.read_lock), ec))
        stdfs::copy_file(pyproject_of(o.read_lock), dir / "pyproject.toml");
    aitk::app::Machine machine;
    machine.os = "linux";
    machine.arch = "x86_64";
    aitk::app::UvLockRequest request;
    request.path = dir / "uv.lock";
    request.machine = &machine;
    std::size_t packages = 0;
    std::vector<double> times;
    for (int i = 0; i < o.rounds * 5; ++i) {
        const auto start = Clock::now();
        auto input = aitk::app::read_uv_lock(request);
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        results.run("uv_lock_read", "aitk", times.back(), -1);
        packages = input.lockfile.targets.front().packages.size();
    }
    const auto text = aitk::fs::read_file(dir / "uv.lock");
    auto parsed = aitk::lock::parse_uv_lock(text, "uv.lock");
    results.info("uv_lock_read_lock", o.read_lock.filename().string() + ": " +
                                          std::to_string(parsed->packages.size()) + " packages, " +
                                          std::to_string(text.size() / 1024) + " KiB; " +
                                          std::to_string(packages) + " installed for linux-x86_64");
    results.command("uv_lock_read", "aitk",
                    "app::read_uv_lock (parse, walk, convert for linux-x86_64) on " +
                        o.read_lock.filename().string());
    std::printf("read: %s (%zu packages): median %.1f ms over %zu reads (goal <= 100 ms) %s\n",
                o.read_lock.filename().c_str(), parsed->packages.size(), median(times) * 1000,
                times.size(), median(times) <= 0.1 ? "PASS" : "FAIL");
}

void bench_setup(const Options& o, const stdfs::path& work, aitk::bench::ResultsFile& results) {
    aitk::test::UvLockIndexOptions index_options;
    aitk::pep::TargetPlatform linux_platform;
    linux_platform.os_version = {2, 28};
    index_options.platforms = {linux_platform};
    aitk::test::UvLockIndex index(work / "mirror", aitk::fs::read_file(o.graph_lock),
                                  index_options);
    aitk::test::HttpServer server;
    server.serve_directory(index.root());
    const auto project = work / "project";
    stdfs::create_directories(project);
    aitk::fs::write_file_atomic(project / "uv.lock", index.rewritten_lock(server.base_url()));
    std::error_code ec;
    if (stdfs::is_regular_file(pyproject_of(o.graph_lock), ec))
        stdfs::copy_file(pyproject_of(o.graph_lock), project / "pyproject.toml");

    const std::string python_dir = stdfs::path(o.python).parent_path().string();
    const std::vector<std::string> env = {
        "PATH=" + python_dir + ":/usr/bin:/bin",  "PYENV_ROOT=/nonexistent",
        "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",     "AITK_ENV_NVIDIA_SMI=/nonexistent",
        "AITK_ENV_CUDA_DRIVER_VERSION=570.86.10", "AITK_ENV_GPU_COMPUTE_CAPABILITY=8.6"};
    const std::string cache = (work / "cache").string();
    auto setup_argv = [&](const std::string& lock, const std::string& prefix) {
        return std::vector<std::string>{
            o.aitk_env, "--cache-dir", cache,  "--no-progress", "setup",          "-l",
            lock,       "-p",          prefix, "--no-build",    "--no-smoke-test"};
    };
    const std::string uv_lock = (project / "uv.lock").string();
    const std::string converted = (work / "dia.lock.yml").string();
    run(setup_argv(uv_lock, (work / "cold").string()), env, work / "cold.log");
    run({o.aitk_env, "--cache-dir", cache, "--no-progress", "lock", "--from", uv_lock, "--target",
         "linux-x86_64-cu126", "-o", converted},
        env, work / "lock.log");
    auto listing = [&](const std::string& prefix) {
        auto r = run({o.aitk_env, "list", "-p", prefix, "--json"}, env, work / "list.log");
        return nlohmann::json::parse(r.out);
    };
    std::vector<double> ours, theirs;
    for (int round = 0; round < o.rounds; ++round) {
        const std::string a = (work / ("uv-" + std::to_string(round))).string();
        const std::string b = (work / ("lock-" + std::to_string(round))).string();
        auto uv_side = [&] {
            auto r = run(setup_argv(uv_lock, a), env, work / "a.log");
            ours.push_back(r.seconds);
            results.run("setup_uv_warm", "aitk", r.seconds, r.peak_rss_kib);
        };
        auto lock_side = [&] {
            auto r = run(setup_argv(converted, b), env, work / "b.log");
            theirs.push_back(r.seconds);
            results.run("setup_uv_warm", "ref", r.seconds, r.peak_rss_kib);
        };
        if (round % 2 == 0) {
            uv_side();
            lock_side();
        } else {
            lock_side();
            uv_side();
        }
        if (listing(a) != listing(b)) fail("the two prefixes hold different distributions");
        stdfs::remove_all(a);
        stdfs::remove_all(b);
    }
    results.command("setup_uv_warm", "aitk", setup_argv(uv_lock, (work / "uv-0").string()));
    results.command("setup_uv_warm", "ref", setup_argv(converted, (work / "lock-0").string()));
    results.info("setup_uv_graph", o.graph_lock.filename().string() +
                                       " rebuilt: " + std::to_string(index.wheels()) + " wheels, " +
                                       std::to_string(listing((work / "cold").string()).size()) +
                                       " distributions installed for linux-x86_64-cu126");
    const double ratio = median(ours) / median(theirs);
    std::printf("setup, warm: -l uv.lock %.2f s, -l its lockfile %.2f s: %.2fx (goal <= 1.3x) %s\n",
                median(ours), median(theirs), ratio, ratio <= 1.3 ? "PASS" : "FAIL");
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_options(argc, argv);
    aitk::bench::ResultsFile results(o.results);
    auto work = aitk::fs::TempDir::create("aitk-bench-uv-lock");
    bench_read(o, work.path(), results);
    bench_setup(o, work.path(), results);
    return 0;
}
