// The setup benchmark: a torch-sized universe (bench/setup_scenario.hpp: 78 wheels, 32,639
// files, 1.99 GB; generated once and kept on disk) served on 127.0.0.1, locked once with
// `aitk-env lock`, then in one run:
//   cold   `aitk-env setup -l LOCK` with an empty cache  vs  `python -m venv` + `pip install
//          --require-hashes -r` (the lock's own pip lines) with an empty pip cache;
//   warm   both again into new prefixes, with the caches the cold runs filled;
//   no-op  `aitk-env sync -l LOCK -p PREFIX` on the finished prefix (median of N);
//   floor  `cp -al` of the warm prefix's site-packages: what any warm install has to do at least.
// Prints times, ratios and each goal's PASS/FAIL; peak RSS of every aitk-env process comes
// from wait4's rusage. The machine is a CUDA 13 box described by doctor's overrides (no GPU
// is probed), so the lock's linux-x86_64-cu130 target is chosen as on a real one.
//
// Usage: bench_setup --aitk-env PATH --python PATH [--mirror-cache DIR] [--work-dir DIR]
//                    [--seed N] [--scale X] [--sync-rounds N] [--pip-no-compile] [--keep]
//                    [--results FILE]   (append every run to FILE for bench/report.sh, see
//                                        bench/results_file.hpp)
//                    [--serve]   (make the universe and the lock, serve them until Enter or a
//                                 signal, and print how to run either side by hand)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/strings.hpp"
#include "http_server.hpp"
#include "results_file.hpp"
#include "setup_scenario.hpp"

extern char** environ;

namespace {

namespace stdfs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* lock_target = "linux-x86_64-cu130";

struct Options {
    std::string aitk_env;
    std::string python;
    stdfs::path mirror_cache;
    stdfs::path work_dir;
    std::string results;
    aitk::bench::ScenarioParameters scenario;
    int sync_rounds = 5;
    bool pip_no_compile = false;
    bool keep = false;
    bool serve = false;
};

[[noreturn]] void usage(const std::string& message) {
    std::fprintf(stderr,
                 "bench_setup: %s\nusage: bench_setup --aitk-env PATH --python PATH "
                 "[--mirror-cache DIR] [--work-dir DIR] [--seed N] [--scale X] "
                 "[--sync-rounds N] [--pip-no-compile] [--keep] [--serve] [--results FILE]\n",
                 message.c_str());
    std::exit(2);
}

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "bench_setup: %s\n", message.c_str());
    std::exit(1);
}

std::string env_or(const char* name, std::string fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

Options parse_options(int argc, char** argv) {
    Options o;
    o.mirror_cache = stdfs::path(env_or("XDG_CACHE_HOME", env_or("HOME", "/tmp") + "/.cache")) /
                     "aitk-env-bench";
    o.work_dir = env_or("TMPDIR", "/tmp");
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
        } else if (arg == "--mirror-cache") {
            o.mirror_cache = value();
        } else if (arg == "--work-dir") {
            o.work_dir = value();
        } else if (arg == "--seed") {
            o.scenario.seed = std::strtoull(value().c_str(), nullptr, 10);
        } else if (arg == "--scale") {
            o.scenario.scale = std::atof(value().c_str());
            if (!(o.scenario.scale > 0)) usage("--scale wants a positive number");
        } else if (arg == "--sync-rounds") {
            o.sync_rounds = std::max(1, std::atoi(value().c_str()));
        } else if (arg == "--pip-no-compile") {
            o.pip_no_compile = true;
        } else if (arg == "--keep") {
            o.keep = true;
        } else if (arg == "--serve") {
            o.serve = true;
        } else if (arg == "--results") {
            o.results = value();
        } else {
            usage("unknown argument " + arg);
        }
    }
    if (o.aitk_env.empty() || o.python.empty()) usage("--aitk-env and --python are needed");
    o.aitk_env = stdfs::absolute(o.aitk_env).string();
    o.python = stdfs::absolute(o.python).string();
    o.mirror_cache = stdfs::absolute(o.mirror_cache);
    return o;
}

// cpp-httplib listens with a backlog of 5; a dropped SYN costs a client 1 s (see bench_lock).
void raise_listen_backlog(std::uint16_t port) {
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator("/proc/self/fd", ec)) {
        const int fd = std::atoi(entry.path().filename().c_str());
        int listening = 0;
        socklen_t size = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || !listening) {
            continue;
        }
        sockaddr_in address{};
        socklen_t length = sizeof address;
        if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
            address.sin_family == AF_INET && ntohs(address.sin_port) == port) {
            ::listen(fd, SOMAXCONN);
        }
    }
}

// ---- running programs, with wait4's accounting ----

struct Run {
    double seconds = 0;
    long peak_rss_kib = 0;
    std::string out;  // stdout
    std::string err;  // stderr (the tail, for failures)
};

// The environment every measured program gets: this one without pip/aitk-env settings and
// proxies, plus `changes`.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& changes) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        auto eq = entry.find('=');
        if (eq == std::string::npos) continue;
        std::string name = entry.substr(0, eq);
        if (name.starts_with("PIP_") || name.starts_with("AITK_ENV_") || name.ends_with("_proxy") ||
            name.ends_with("_PROXY") || name == "VIRTUAL_ENV" || name == "PYTHONPATH") {
            continue;
        }
        env[name] = entry.substr(eq + 1);
    }
    for (const auto& [name, value] : changes)
        env[name] = value;
    std::vector<std::string> out;
    for (const auto& [name, value] : env)
        out.push_back(name + "=" + value);
    return out;
}

// Programs are started by a small helper process forked at the very start, before the server's
// threads and the generator's memory exist: a child's ru_maxrss includes the RSS of the process
// it was forked from (the kernel keeps the old mm's high-water mark at exec), so forking from
// the benchmark itself would charge its memory to aitk-env and pip.
class Spawner {
  public:
    Spawner() {
        int request[2], reply[2];
        if (::pipe(request) != 0 || ::pipe(reply) != 0) fail("pipe failed");
        pid_ = ::fork();
        if (pid_ < 0) fail("fork failed");
        if (pid_ == 0) {
            ::close(request[1]);
            ::close(reply[0]);
            serve(request[0], reply[1]);
            ::_exit(0);
        }
        ::close(request[0]);
        ::close(reply[1]);
        to_ = request[1];
        from_ = reply[0];
    }
    ~Spawner() {
        ::close(to_);
        ::close(from_);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
    Spawner(const Spawner&) = delete;
    Spawner& operator=(const Spawner&) = delete;

    struct Result {
        double seconds = 0;
        long peak_rss_kib = 0;
        int status = 0;
    };

    Result run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& out_path, const std::string& err_path) {
        const std::string message = nlohmann::json{
            {"argv", argv},
            {"env", env},
            {"out", out_path},
            {"err", err_path}}.dump();
        write_all(to_, message);
        Result r;
        if (!read_exact(from_, &r, sizeof r)) fail("the spawner helper died");
        return r;
    }

  private:
    static void write_all(int fd, const std::string& message) {
        const std::uint64_t size = message.size();
        std::string frame(reinterpret_cast<const char*>(&size), sizeof size);
        frame += message;
        for (std::size_t done = 0; done < frame.size();) {
            ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
            if (n <= 0 && errno != EINTR) fail("the spawner helper died");
            if (n > 0) done += static_cast<std::size_t>(n);
        }
    }
    static bool read_exact(int fd, void* data, std::size_t size) {
        auto* p = static_cast<char*>(data);
        for (std::size_t done = 0; done < size;) {
            ssize_t n = ::read(fd, p + done, size - done);
            if (n == 0) return false;
            if (n < 0 && errno != EINTR) return false;
            if (n > 0) done += static_cast<std::size_t>(n);
        }
        return true;
    }

    static void serve(int in, int out) {
        for (;;) {
            std::uint64_t size = 0;
            if (!read_exact(in, &size, sizeof size)) return;
            std::string message(size, '\0');
            if (!read_exact(in, message.data(), size)) return;
            auto json = nlohmann::json::parse(message);
            const auto argv = json.at("argv").get<std::vector<std::string>>();
            const auto env = json.at("env").get<std::vector<std::string>>();
            const auto out_path = json.at("out").get<std::string>();
            const auto err_path = json.at("err").get<std::string>();
            std::vector<char*> args, envp;
            for (const auto& a : argv)
                args.push_back(const_cast<char*>(a.c_str()));
            args.push_back(nullptr);
            for (const auto& e : env)
                envp.push_back(const_cast<char*>(e.c_str()));
            envp.push_back(nullptr);

            Result r;
            const auto start = Clock::now();
            const pid_t pid = ::fork();
            if (pid == 0) {
                int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                int i = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (o < 0 || e < 0 || i < 0) ::_exit(126);
                ::dup2(i, 0);
                ::dup2(o, 1);
                ::dup2(e, 2);
                ::execve(args[0], args.data(), envp.data());
                ::_exit(127);
            }
            struct rusage usage {};
            if (pid < 0) {
                r.status = -1;
            } else {
                while (::wait4(pid, &r.status, 0, &usage) < 0 && errno == EINTR) {
                }
            }
            r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
            r.peak_rss_kib = usage.ru_maxrss;
            std::string reply(reinterpret_cast<const char*>(&r), sizeof r);
            for (std::size_t done = 0; done < reply.size();) {
                ssize_t n = ::write(out, reply.data() + done, reply.size() - done);
                if (n <= 0) return;
                done += static_cast<std::size_t>(n);
            }
        }
    }

    pid_t pid_ = -1;
    int to_ = -1;
    int from_ = -1;
};

Spawner* spawner = nullptr;

Run run_measured(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const stdfs::path& log_stem) {
    const std::string out_path = log_stem.string() + ".out";
    const std::string err_path = log_stem.string() + ".err";
    const auto result = spawner->run(argv, env, out_path, err_path);
    Run r;
    r.seconds = result.seconds;
    r.peak_rss_kib = result.peak_rss_kib;
    r.out = aitk::fs::read_file(out_path);
    r.err = aitk::fs::read_file(err_path);
    const int status = result.status;
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string tail = r.err.size() > 4000 ? r.err.substr(r.err.size() - 4000) : r.err;
        fail(aitk::util::join(argv, " ") + "\nfailed (" +
             (status < 0          ? std::string("fork failed")
              : WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                  : "signal " + std::to_string(WTERMSIG(status))) +
             "):\n" + tail + "\n(logs: " + log_stem.string() + ".{out,err})");
    }
    return r;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Writes dirty pages out, so a run does not pay for the previous run's writeback; then, on a VM
// that hands free memory back to its host, waits until the memory the previous run freed has
// been given back (bench/settle-memory.sh says why), so every run starts from the same state.
void settle_disk() {
    ::sync();
    const stdfs::path counter = "/sys/module/page_reporting/parameters/reported_kib";
    auto read_counter = [&] {
        std::ifstream in(counter);
        std::string value;
        in >> value;
        return value;
    };
    std::string previous = read_counter();
    if (previous.empty()) return;
    int steady = 0;
    for (int i = 0; i < 60 && steady < 4; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        std::string current = read_counter();
        steady = current == previous ? steady + 1 : 0;
        previous = std::move(current);
    }
}

// Reads every file under `root`, so no run pays for reading the mirror from disk.
void warm_page_cache(const stdfs::path& root) {
    std::vector<char> buffer(1 << 20);
    for (const auto& entry : stdfs::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) ||
               in.gcount() > 0) {
        }
    }
}

// What an install put in site-packages: files outside __pycache__, not pip's own (which
// `python -m venv` adds), and the number of .dist-info folders.
struct PrefixCount {
    std::size_t files = 0;
    std::size_t distributions = 0;
};

stdfs::path site_packages(const stdfs::path& prefix, const std::string& python_xy) {
    return prefix / "lib" / ("python" + python_xy) / "site-packages";
}

PrefixCount count_tree(const stdfs::path& site) {
    PrefixCount c;
    for (auto it = stdfs::recursive_directory_iterator(site);
         it != stdfs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().filename().string();
        if (it.depth() == 0 &&
            (name == "pip" || (name.starts_with("pip-") && name.ends_with(".dist-info")))) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_directory()) {
            if (name == "__pycache__") it.disable_recursion_pending();
            if (it.depth() == 0 && name.ends_with(".dist-info")) ++c.distributions;
            continue;
        }
        if (!name.ends_with(".pyc")) ++c.files;
    }
    return c;
}

PrefixCount count_site_packages(const stdfs::path& prefix, const std::string& python_xy) {
    return count_tree(site_packages(prefix, python_xy));
}

// The machine's load (1, 5, 15 minutes): other work on it skews both sides' times.
std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

double mib(long kib) {
    return kib / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it comes, also into a file
    Spawner spawn_helper;
    spawner = &spawn_helper;
    aitk::bench::ResultsFile results(options.results);
    for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                             "no_proxy", "NO_PROXY"}) {
        ::unsetenv(name);
    }

    // ---- the universe ----
    const auto info = aitk::bench::ensure_scenario(options.mirror_cache, options.scenario);
    const double gb = info.wheel_bytes / 1e9;
    std::printf(
        "universe: %zu wheels, %zu files, %.2f GB of wheels (%.2f GB unpacked)%s\n", info.wheels,
        info.files, gb, info.unpacked_bytes / 1e9,
        info.built_seconds < 0
            ? ", from the cache"
            : (", generated in " + std::to_string(static_cast<int>(info.built_seconds)) + " s")
                  .c_str());
    const bool scenario_ok = info.wheels >= 60 && info.files >= 30000 && info.wheel_bytes >= 1.5e9;
    std::printf("  torch-like size (>= 60 wheels, >= 30,000 files, >= 1.5 GB): %s\n",
                scenario_ok ? "yes" : "NO (the goals below are not comparable)");
    std::fflush(stdout);
    warm_page_cache(info.root);

    auto work = aitk::fs::TempDir::create_in(options.work_dir, "aitk-setup-bench");
    const stdfs::path& w = work.path();
    const stdfs::path logs = w / "logs";
    stdfs::create_directories(logs);

    aitk::test::HttpServer server;
    server.serve_directory(info.root);
    raise_listen_backlog(server.port());
    const std::string index_url = server.url("/simple/");
    const std::string torch_url = server.url("/whl");

    // The interpreter's exact version: the lock is made for it.
    const std::string python_bin = stdfs::path(options.python).parent_path().string();
    const auto plain_env = child_environment({{"PIP_CONFIG_FILE", "/dev/null"}});
    std::string python_version =
        run_measured({options.python, "-c", "import platform; print(platform.python_version())"},
                     plain_env, logs / "python-version")
            .out;
    python_version = std::string(aitk::util::trim(python_version));
    const auto parts = aitk::util::split(python_version, '.');
    const std::string python_xy = std::string(parts.at(0)) + "." + std::string(parts.at(1));

    // A CUDA 13 machine as doctor's overrides describe it; no GPU, driver or pyenv is probed.
    const auto aitk_env = child_environment({{"PATH", python_bin + ":/usr/bin:/bin"},
                                             {"PYENV_ROOT", "/nonexistent"},
                                             {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
                                             {"AITK_ENV_NVIDIA_SMI", "/nonexistent"},
                                             {"AITK_ENV_CUDA_DRIVER_VERSION", "580.65.06"},
                                             {"AITK_ENV_GPU_COMPUTE_CAPABILITY", "12.0"},
                                             {"PIP_CONFIG_FILE", "/dev/null"}});
    auto aitk_argv = [&](const stdfs::path& cache, std::vector<std::string> rest) {
        std::vector<std::string> a = {options.aitk_env, "--cache-dir", cache.string(),
                                      "--no-progress", "--json"};
        a.insert(a.end(), rest.begin(), rest.end());
        return a;
    };

    // ---- the lock, and its pip lines ----
    const stdfs::path requirements = w / "requirements.txt";
    aitk::fs::write_file_atomic(requirements, info.requirements);
    const stdfs::path lockfile = w / "bench.lock.yml";
    const Run locked = run_measured(
        aitk_argv(w / "lock-cache", {"--index-url", index_url, "--torch-index-url", torch_url,
                                     "lock", "-r", requirements.string(), "--target", lock_target,
                                     "--python", python_version, "-o", lockfile.string()}),
        aitk_env, logs / "lock");
    auto parsed = aitk::lock::parse_lockfile(aitk::fs::read_file(lockfile), lockfile.string());
    if (!parsed) fail("cannot read the lock " + lockfile.string());
    const auto* target = parsed->find_target(lock_target);
    if (!target) fail("the lock has no " + std::string(lock_target));
    if (target->packages.size() != info.wheels) {
        fail("the lock has " + std::to_string(target->packages.size()) +
             " packages, the universe " + std::to_string(info.wheels) + " wheels");
    }
    const auto pip = aitk::lock::pip_section(*parsed, *target);
    if (!pip.left_out.empty()) fail("the lock's pip section leaves out packages");
    const stdfs::path pip_requirements = w / "pip-requirements.txt";
    aitk::fs::write_file_atomic(pip_requirements, aitk::util::join(pip.lines, "\n") + "\n");
    std::printf("locked %zu packages for %s (Python %s) in %.2f s\n", target->packages.size(),
                lock_target, python_version.c_str(), locked.seconds);
    char universe[128];
    std::snprintf(universe, sizeof universe, "%zu wheels, %zu files, %.2f GB of wheels",
                  info.wheels, info.files, gb);
    results.info("setup_universe", universe);
    results.info("setup_python", python_version);
    results.info("setup_target", lock_target);
    std::fflush(stdout);
    if (options.serve) {
        std::printf(
            "serving %s\nindex %s\ntorch index %s (backend cu130)\nlock %s\npip lines %s\n"
            "aitk-env's machine: AITK_ENV_NVIDIA_SOURCES=nvidia-smi "
            "AITK_ENV_NVIDIA_SMI=/nonexistent AITK_ENV_CUDA_DRIVER_VERSION=580.65.06 "
            "AITK_ENV_GPU_COMPUTE_CAPABILITY=12.0\npress Enter to stop\n",
            info.root.c_str(), index_url.c_str(), torch_url.c_str(), lockfile.c_str(),
            pip_requirements.c_str());
        std::fflush(stdout);
        std::string line;
        if (!std::getline(std::cin, line)) ::pause();  // no terminal: until a signal
        work.keep();
        return 0;
    }

    // ---- the runs ----
    const stdfs::path aitk_cache = w / "aitk-cache";
    const stdfs::path pip_cache = w / "pip-cache";
    struct Measured {
        Run run;
        double served_mib = 0;
        std::size_t requests = 0;
        std::string note;
    };
    auto served = [&](Measured& m) {
        std::uint64_t bytes = 0;
        for (const auto& r : server.requests()) {
            bytes += r.bytes_sent;
            ++m.requests;
        }
        m.served_mib = bytes / 1048576.0;
    };
    auto setup = [&](const std::string& name, const std::string& key) {
        settle_disk();
        server.clear_log();
        Measured m;
        const auto argv = aitk_argv(
            aitk_cache, {"-v", "setup", "-l", lockfile.string(), "-p", (w / name).string(),
                         "--python", options.python, "--no-smoke-test"});
        m.run = run_measured(argv, aitk_env, logs / name);
        served(m);
        results.command(key, "aitk", argv);
        auto json = nlohmann::json::parse(m.run.out);
        const auto& sync = json.at("sync");
        if (json.at("target") != lock_target || sync.at("install").size() != info.wheels) {
            fail(name + ": expected " + std::to_string(info.wheels) + " installs on " +
                 lock_target + ", got:\n" + m.run.out);
        }
        m.note = "link mode " + sync.value("link_mode", std::string("?")) + ", " +
                 std::to_string(sync.value("downloaded", 0)) + " downloaded";
        return m;
    };
    auto pip_install = [&](const std::string& name, const std::string& key) {
        settle_disk();
        server.clear_log();
        Measured m;
        const stdfs::path venv = w / name;
        Run made = run_measured({options.python, "-m", "venv", venv.string()}, plain_env,
                                logs / (name + "-venv"));
        std::vector<std::string> a = {
            (venv / "bin" / "python").string(), "-m", "pip", "install", "--require-hashes", "-r",
            pip_requirements.string(), "--cache-dir", pip_cache.string(),
            // pip caches plain-http downloads for trusted hosts only.
            "--trusted-host", "127.0.0.1", "--disable-pip-version-check", "--no-input", "-q"};
        if (options.pip_no_compile) a.push_back("--no-compile");
        Run installed = run_measured(a, plain_env, logs / name);
        served(m);
        results.command(
            key, "ref",
            aitk::bench::ResultsFile::quote({options.python, "-m", "venv", venv.string()}) +
                " && " + aitk::bench::ResultsFile::quote(a));
        m.run.seconds = made.seconds + installed.seconds;
        m.run.peak_rss_kib = std::max(made.peak_rss_kib, installed.peak_rss_kib);
        char note[96];
        std::snprintf(note, sizeof note, "venv %.1f s + pip %.1f s", made.seconds,
                      installed.seconds);
        m.note = note;
        return m;
    };
    auto report_run = [](const char* what, const Measured& m) {
        std::printf("  %-40s %8.3f s  %7.1f MiB RSS  served %7.1f MiB in %4zu requests  (%s)\n",
                    what, m.run.seconds, mib(m.run.peak_rss_kib), m.served_mib, m.requests,
                    m.note.c_str());
        std::fflush(stdout);
    };

    // Nothing is deleted until the end: on ext4 without a journal, creating an inode skips the
    // inodes freed in the last ~30 s one by one (recently_deleted() in find_inode_bit()), so a
    // big deletion would slow down whichever run comes next.
    std::printf("runs (load average before: %s):\n", load_average().c_str());
    const Measured aitk_cold = setup("setup-cold", "setup_cold");
    report_run("aitk-env setup, empty cache", aitk_cold);
    const Measured pip_cold = pip_install("pip-cold", "setup_cold");
    report_run("venv + pip install, empty pip cache", pip_cold);
    {
        const Run pip_version =
            run_measured({(w / "pip-cold" / "bin" / "python").string(), "-m", "pip", "--version"},
                         plain_env, logs / "pip-version");
        results.info("setup_pip", std::string(aitk::util::trim(pip_version.out)));
    }
    // Both did the same work (pip's own files and .pyc files aside).
    const auto ours = count_site_packages(w / "setup-cold", python_xy);
    const auto theirs = count_site_packages(w / "pip-cold", python_xy);
    std::printf("  site-packages: aitk-env %zu files in %zu distributions, pip %zu files in %zu\n",
                ours.files, ours.distributions, theirs.files, theirs.distributions);
    if (ours.distributions != info.wheels || theirs.distributions != info.wheels) {
        fail("an installer left distributions out");
    }

    for (const char* tool : {"/usr/bin/curl", "/usr/bin/unzip"}) {
        if (::access(tool, X_OK) != 0) {
            fail(std::string("the cold setup's floor is measured with ") + tool +
                 ", which is not installed: apt-get install -y curl unzip");
        }
    }
    // The physical floor of the cold setup: the same wheels fetched as fast as curl fetches
    // them (8 at a time, in the lock's order), and unpacked as fast as unzip unpacks them (one
    // wheel per core, the largest first). A setup that overlapped everything perfectly would
    // still take the larger of the two.
    std::vector<std::string> wheel_urls;
    {
        std::ifstream in(lockfile);
        std::string line;
        while (std::getline(in, line)) {
            const auto at = line.find("url: ");
            if (at != std::string::npos && line.ends_with(".whl")) {
                wheel_urls.push_back(line.substr(at + 5));
            }
        }
    }
    std::vector<std::pair<std::uintmax_t, std::string>> wheel_files;
    for (const auto& entry : stdfs::recursive_directory_iterator(info.root)) {
        if (entry.is_regular_file() && entry.path().extension() == ".whl") {
            wheel_files.emplace_back(entry.file_size(), entry.path().string());
        }
    }
    std::sort(wheel_files.rbegin(), wheel_files.rend());
    if (wheel_urls.size() != info.wheels || wheel_files.size() != info.wheels) {
        fail("the floor wants " + std::to_string(info.wheels) + " wheels; the lock names " +
             std::to_string(wheel_urls.size()) + " and the mirror holds " +
             std::to_string(wheel_files.size()));
    }
    const stdfs::path curl_dir = w / "floor-curl";
    stdfs::create_directories(curl_dir);
    {
        std::ofstream config(w / "floor-curl.cfg");
        for (const auto& url : wheel_urls)
            config << "url = \"" << url << "\"\noutput = \""
                   << (curl_dir / url.substr(url.rfind('/') + 1)).string() << "\"\n";
    }
    settle_disk();
    const std::vector<std::string> curl_argv = {"/usr/bin/curl",
                                                "--silent",
                                                "--show-error",
                                                "--fail",
                                                "--parallel",
                                                "--parallel-max",
                                                "8",
                                                "--config",
                                                (w / "floor-curl.cfg").string()};
    const Run floor_download = run_measured(curl_argv, plain_env, logs / "floor-curl");
    std::uintmax_t curled = 0;
    for (const auto& entry : stdfs::directory_iterator(curl_dir))
        curled += entry.file_size();
    if (curled != info.wheel_bytes) {
        fail("curl fetched " + std::to_string(curled) + " bytes, the wheels are " +
             std::to_string(info.wheel_bytes));
    }
    {
        std::ofstream script(w / "floor-unzip.sh");
        script << "#!/bin/sh\n# unzip every wheel named, JOBS at a time, each into a folder of "
                  "its own\ndest=$1; jobs=$2; shift 2\nprintf '%s\\n' \"$@\" | xargs -P "
                  "\"$jobs\" -I{} sh -c 'unzip -q \"$1\" -d \"$2/$(basename \"$1\")\"' _ {} "
                  "\"$dest\"\n";
    }
    const stdfs::path unzip_dir = w / "floor-unzip";
    stdfs::create_directories(unzip_dir);
    std::vector<std::string> unzip_argv = {
        "/bin/sh", (w / "floor-unzip.sh").string(), unzip_dir.string(),
        std::to_string(std::max(1u, std::thread::hardware_concurrency()))};
    for (const auto& [size, file] : wheel_files)
        unzip_argv.push_back(file);
    settle_disk();
    const Run floor_unzip = run_measured(unzip_argv, plain_env, logs / "floor-unzip");
    std::size_t unzipped = 0;
    for (const auto& entry : stdfs::recursive_directory_iterator(unzip_dir))
        unzipped += entry.is_regular_file() ? 1 : 0;
    if (unzipped != info.files) {
        fail("unzip wrote " + std::to_string(unzipped) + " files, the wheels hold " +
             std::to_string(info.files));
    }
    const double cold_floor = std::max(floor_download.seconds, floor_unzip.seconds);
    std::printf("  %-40s %8.3f s  (curl %.3f s, parallel unzip %.3f s)\n", "the cold setup's floor",
                cold_floor, floor_download.seconds, floor_unzip.seconds);
    results.command("setup_floor", "aitk", "(the cold setup above)");
    results.command("setup_floor", "ref",
                    aitk::bench::ResultsFile::quote(curl_argv) + "  vs  " +
                        aitk::bench::ResultsFile::quote(unzip_argv).substr(0, 160) + " ...");

    const Measured aitk_warm = setup("setup-warm", "setup_warm");
    report_run("aitk-env setup, warm cache, new prefix", aitk_warm);
    const Measured pip_warm = pip_install("pip-warm", "setup_warm");
    report_run("venv + pip install, warm pip cache", pip_warm);

    // The floor of a warm install: hard links of the finished tree, nothing read or checked.
    settle_disk();
    const std::vector<std::string> cp_argv = {"/bin/cp", "-al",
                                              site_packages(w / "setup-warm", python_xy).string(),
                                              (w / "cp-al-site-packages").string()};
    const Run floor = run_measured(cp_argv, plain_env, logs / "cp-al");
    const auto linked = count_tree(w / "cp-al-site-packages");
    const auto warm_tree = count_site_packages(w / "setup-warm", python_xy);
    if (linked.files != warm_tree.files || linked.distributions != warm_tree.distributions) {
        fail("cp -al copied " + std::to_string(linked.files) + " files, the prefix has " +
             std::to_string(warm_tree.files));
    }
    std::printf("  %-40s %8.3f s  %7.1f MiB RSS  (%zu files)\n", "cp -al of the warm site-packages",
                floor.seconds, mib(floor.peak_rss_kib), linked.files);
    results.command("floor", "ref", cp_argv);

    std::vector<double> syncs;
    long sync_rss = 0;
    const auto sync_argv =
        aitk_argv(aitk_cache, {"sync", "-l", lockfile.string(), "-p", (w / "setup-warm").string()});
    results.command("sync_noop", "aitk", sync_argv);
    for (int i = 0; i < options.sync_rounds; ++i) {
        Run r = run_measured(sync_argv, aitk_env, logs / ("sync-" + std::to_string(i)));
        auto json = nlohmann::json::parse(r.out);
        if (!json.at("install").empty() || !json.at("reinstall").empty() ||
            !json.at("remove").empty()) {
            fail("the no-op sync changed something:\n" + r.out);
        }
        syncs.push_back(r.seconds);
        sync_rss = std::max(sync_rss, r.peak_rss_kib);
        results.run("sync_noop", "aitk", r.seconds, r.peak_rss_kib);
    }
    std::string sync_list;
    for (double s : syncs)
        sync_list +=
            (sync_list.empty() ? "" : " ") + std::to_string(static_cast<int>(s * 1000 + 0.5));
    const double sync_median = median(syncs);
    std::printf("  %-40s %8.3f s  %7.1f MiB RSS  (runs, ms: %s)\n", "aitk-env sync, no-op (median)",
                sync_median, mib(sync_rss), sync_list.c_str());

    std::printf("  load average after: %s\n", load_average().c_str());

    // Written only now, when every check above has passed.
    results.run("setup_cold", "aitk", aitk_cold.run.seconds, aitk_cold.run.peak_rss_kib);
    results.run("setup_cold", "ref", pip_cold.run.seconds, pip_cold.run.peak_rss_kib);
    results.run("setup_warm", "aitk", aitk_warm.run.seconds, aitk_warm.run.peak_rss_kib);
    results.run("setup_warm", "ref", pip_warm.run.seconds, pip_warm.run.peak_rss_kib);
    results.run("floor", "ref", floor.seconds, floor.peak_rss_kib);
    results.run("setup_floor", "aitk", aitk_cold.run.seconds, aitk_cold.run.peak_rss_kib);
    results.run("setup_floor", "ref", cold_floor,
                std::max(floor_download.peak_rss_kib, floor_unzip.peak_rss_kib));
    results.run("setup_floor_download", "ref", floor_download.seconds, floor_download.peak_rss_kib);
    results.run("setup_floor_unzip", "ref", floor_unzip.seconds, floor_unzip.peak_rss_kib);

    // ---- the verdict ----
    const long aitk_rss =
        std::max({aitk_cold.run.peak_rss_kib, aitk_warm.run.peak_rss_kib, sync_rss});
    const double cold_ratio = pip_cold.run.seconds / aitk_cold.run.seconds;
    const double warm_ratio = pip_warm.run.seconds / aitk_warm.run.seconds;
    int missed = 0;
    auto goal = [&](bool met) {
        missed += met ? 0 : 1;
        return met ? "PASS" : "FAIL";
    };
    std::printf("\nsetup benchmark: %zu wheels, %zu files, %.2f GB, Python %s, %s%s\n", info.wheels,
                info.files, gb, python_version.c_str(), lock_target,
                options.pip_no_compile ? ", pip --no-compile" : "");
    std::printf("  %-44s %9s %9s %8s\n", "", "aitk-env", "pip", "ratio");
    std::printf("  %-44s %8.2fs %8.2fs %7.1fx  goal >= 5x   %s\n", "cold (empty caches)",
                aitk_cold.run.seconds, pip_cold.run.seconds, cold_ratio, goal(cold_ratio >= 5));
    const double floor_ratio = aitk_cold.run.seconds / cold_floor;
    std::printf("  %-44s %8.2fs %8.2fs %7.2fx  goal <= 1.5x %s\n",
                "cold vs its floor (aitk / floor)", aitk_cold.run.seconds, cold_floor, floor_ratio,
                goal(floor_ratio <= 1.5));
    std::printf("  %-44s %8.2fs %8.2fs %7.1fx  goal >= 30x  %s\n",
                "warm (filled caches, new prefix)", aitk_warm.run.seconds, pip_warm.run.seconds,
                warm_ratio, goal(warm_ratio >= 30));
    std::printf("  %-44s %7.0fms %9s %8s  goal <= 150 ms %s\n", "no-op sync", sync_median * 1000,
                "", "", goal(sync_median <= 0.150));
    std::printf("  %-44s %7.0fMB %9s %8s  goal <= 250 MB %s\n", "peak RSS of aitk-env (any run)",
                aitk_rss * 1024.0 / 1e6, "", "", goal(aitk_rss * 1024.0 <= 250e6));
    std::printf("  %s\n", missed == 0 ? "all goals met"
                                      : (std::to_string(missed) + " goal(s) missed").c_str());
    if (!scenario_ok) std::printf("  (the universe is smaller than the goals assume)\n");

    if (options.keep) {
        std::printf("kept %s\n", work.keep().c_str());
    } else {
        work.remove();
    }
    return 0;
}
