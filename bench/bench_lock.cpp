// The lock benchmark: an AI-Toolkit-sized universe (tests/support/generated_scenario.hpp, ~170
// packages in the resolution, the torch family on a cu130 backend index) served on 127.0.0.1,
// then in the same run `aitk-env lock` with an empty and with a warm cache, and
// `pip install --dry-run --ignore-installed --report -` without and with pip's cache, several
// rounds; checks that both picked the same versions (but for the few that a conflict lets two
// correct resolvers choose differently, which it lists), then prints the medians and ratios.
// Also replays the cold lock's requests, 8 at a time, to show what the server alone costs.
//
// Usage: bench_lock --aitk-env PATH --python PATH [--rounds N] [--seed N] [--keep]
//                   [--memory-cache DIR]   (tmpfs for one more cold lock; default /dev/shm,
//                                           "" for none)
//                   [--results FILE]   (append every run, with its peak RSS measured by GNU
//                                       time, to FILE for bench/report.sh)
//                   [--scenario DIR]   (instead of the generated universe: DIR/scenario.json
//                                       for build_mirror, requirements.txt (@INDEX@ in it
//                                       becomes the mirror's base URL), expected.txt
//                                       "name==version" lines both sides must pick exactly,
//                                       info.json with "target", "backend"; see real_graph.py
//                                       and real_projects.py)
//                   [--label NAME]     (results measurement prefix, default "lock")
//                   [--server nginx|builtin]   (what serves the mirror: nginx (default when
//                                       /usr/sbin/nginx exists; a static file server like a real
//                                       index or CDN) or the test server of tests/support)
//        bench_lock --serve [--seed N]   (build and serve the universe until Enter)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/subprocess.hpp"
#include "generated_scenario.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "nginx_process.hpp"
#include "results_file.hpp"

namespace {

namespace stdfs = std::filesystem;
using aitk::test::HttpServer;

struct Options {
    std::string aitk_env;
    std::string python;
    int rounds = 3;
    std::uint64_t seed = 1;
    bool keep = false;
    bool serve = false;
    std::string memory_cache;  // a tmpfs folder for one more cold run ("" = none)
    std::string results;       // where runs are appended for bench/report.sh ("" = nowhere)
    std::string scenario;      // a folder from real_graph.py ("" = the generated universe)
    std::string label = "lock";
    std::string server;  // "nginx" or "builtin"
};

[[noreturn]] void usage(const char* message) {
    std::fprintf(stderr,
                 "bench_lock: %s\nusage: bench_lock --aitk-env PATH --python PATH [--rounds N] "
                 "[--seed N] [--keep] [--memory-cache DIR] [--results FILE]\n       bench_lock "
                 "--serve [--seed N]\n",
                 message);
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    Options o;
    std::error_code ec;
    if (stdfs::is_directory("/dev/shm", ec)) o.memory_cache = "/dev/shm";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
            return argv[++i];
        };
        if (arg == "--aitk-env") {
            o.aitk_env = value();
        } else if (arg == "--python") {
            o.python = value();
        } else if (arg == "--rounds") {
            o.rounds = std::max(1, std::atoi(value().c_str()));
        } else if (arg == "--seed") {
            o.seed = std::strtoull(value().c_str(), nullptr, 10);
        } else if (arg == "--keep") {
            o.keep = true;
        } else if (arg == "--serve") {
            o.serve = true;
        } else if (arg == "--memory-cache") {
            o.memory_cache = value();
        } else if (arg == "--results") {
            o.results = value();
        } else if (arg == "--scenario") {
            o.scenario = stdfs::absolute(value()).string();
        } else if (arg == "--label") {
            o.label = value();
        } else if (arg == "--server") {
            o.server = value();
            if (o.server != "nginx" && o.server != "builtin") usage("--server nginx|builtin");
        } else {
            usage(("unknown argument " + arg).c_str());
        }
    }
    if (!o.serve && (o.aitk_env.empty() || o.python.empty())) usage("--aitk-env and --python");
    if (o.server.empty()) o.server = aitk::test::have_nginx() ? "nginx" : "builtin";
    // The lock runs in a temporary folder.
    if (!o.aitk_env.empty()) o.aitk_env = stdfs::absolute(o.aitk_env).string();
    return o;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// cpp-httplib (the test server) listens with its compiled-in backlog of 5: when aitk-env opens
// its 8 connections at once, the accept queue overflows now and then, and each dropped SYN
// costs the client a 1 s retransmission. The benchmark measures the client, so it raises the
// backlog of the server's socket (listen() on a listening socket only changes the backlog).
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

// TcpExt ListenOverflows of the whole machine (/proc/net/netstat), -1 when unknown.
long long listen_overflows() {
    std::ifstream in("/proc/net/netstat");
    std::string names, values;
    while (std::getline(in, names) && std::getline(in, values)) {
        if (!names.starts_with("TcpExt:")) continue;
        std::istringstream n(names), v(values);
        std::string name, value;
        while (n >> name && v >> value) {
            if (name == "ListenOverflows") return std::atoll(value.c_str());
        }
    }
    return -1;
}

// What serves the mirror: the test server, or nginx (one worker, keep-alive, sendfile, an
// access log with each request's time), the way a static index or a CDN serves files.
class Served {
  public:
    Served(const stdfs::path& mirror, const stdfs::path& dir, bool nginx) {
        if (!nginx) {
            builtin_.emplace();
            builtin_->serve_directory(mirror);
            raise_listen_backlog(builtin_->port());
            base_ = builtin_->base_url();
            return;
        }
        port_ = free_port();
        stdfs::create_directories(dir);
        log_ = dir / "access.log";
        std::ofstream conf(dir / "nginx.conf");
        conf << "worker_processes 1;\nerror_log " << (dir / "error.log").string()
             << ";\npid " << (dir / "nginx.pid").string()
             << ";\nevents { worker_connections 1024; }\nhttp {\n"
             << aitk::test::nginx_temp_paths(dir)
             << "log_format timed '$request_time $status $body_bytes_sent $msec $connection "
                "\"$request\" \"$http_range\"';\n"
             << "access_log " << log_.string() << " timed;\n"
             << "sendfile on; tcp_nopush on; tcp_nodelay on; keepalive_timeout 75s;\n"
             << "keepalive_requests 10000;\n"
             // PEP 691 by content negotiation, as PyPI does: index.json beside index.html.
             << "map $http_accept $page { \"~application/vnd\\.pypi\\.simple\\.v1\\+json\" "
                "index.json; default index.html; }\n"
             << "types { text/html html; application/vnd.pypi.simple.v1+json json; }\n"
             << "default_type application/octet-stream;\n"
             << "server {\n  listen 127.0.0.1:" << port_ << " backlog=4096;\n  root "
             << mirror.string() << ";\n  location / { index $page index.html; }\n}\n}\n";
        conf.close();
        nginx_.emplace(dir, port_);
        // std::exit (a failed run) skips the destructors: nginx must not outlive the benchmark.
        running_ = this;
        std::atexit([] {
            if (running_) running_->nginx_.reset();
        });
        if (!nginx_->running()) {
            std::fprintf(stderr, "bench_lock: nginx did not start:\n%s\n",
                         aitk::fs::read_file(dir / "error.log").c_str());
            std::exit(1);
        }
        base_ = "http://127.0.0.1:" + std::to_string(port_);
    }
    ~Served() { running_ = nullptr; }
    Served(const Served&) = delete;
    Served& operator=(const Served&) = delete;
    std::string url(const std::string& path) const { return base_ + path; }
    const char* kind() const { return builtin_ ? "the test server" : "nginx"; }
    HttpServer* builtin() { return builtin_ ? &*builtin_ : nullptr; }
    const stdfs::path& access_log() const { return log_; }

    void clear_log() {
        if (builtin_) {
            builtin_->clear_log();
        } else {
            std::error_code ec;
            log_offset_ = stdfs::file_size(log_, ec);
            if (ec) log_offset_ = 0;
        }
    }
    // Requests and body bytes since clear_log().
    std::pair<std::size_t, std::uint64_t> seen() const {
        std::size_t n = 0;
        std::uint64_t bytes = 0;
        if (builtin_) {
            for (const auto& r : builtin_->requests()) {
                ++n;
                bytes += r.bytes_sent;
            }
            return {n, bytes};
        }
        std::ifstream in(log_);
        in.seekg(static_cast<std::streamoff>(log_offset_));
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string time, status;
            std::uint64_t body = 0;
            fields >> time >> status >> body;
            ++n;
            bytes += body;
        }
        return {n, bytes};
    }

  private:
    static std::uint16_t free_port() {
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof addr;
        ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
        ::close(fd);
        return ntohs(addr.sin_port);
    }
    static inline Served* running_ = nullptr;
    std::optional<HttpServer> builtin_;
    std::optional<aitk::test::NginxProcess> nginx_;
    std::uint16_t port_ = 0;
    stdfs::path log_;
    std::uintmax_t log_offset_ = 0;
    std::string base_;
};

// One timed run of a program, with what the server saw meanwhile.
struct Timed {
    double seconds = 0;
    std::size_t requests = 0;
    std::uint64_t bytes = 0;
    std::string out;
    long peak_rss_kib = -1;  // -1: not measured
};

// GNU time reports the peak RSS of its own child, which it forks while small: wait4 on a child
// of this process would also count this process's RSS (kept in the child's high-water mark
// across exec), and the universe makes it large.
constexpr const char* gnu_time = "/usr/bin/time";

Timed run_timed(aitk::util::ProcessRequest request, Served& server,
                const stdfs::path& rss_file = {}) {
    if (!rss_file.empty()) {
        request.argv.insert(request.argv.begin(), {gnu_time, "-f", "%M", "-o", rss_file.string()});
    }
    server.clear_log();
    const auto start = Clock::now();
    auto result = aitk::util::run_process(request);
    Timed t;
    t.seconds = seconds_since(start);
    if (!rss_file.empty()) {
        std::istringstream lines(aitk::fs::read_file(rss_file));
        std::string line, last;
        while (std::getline(lines, line))
            if (!line.empty()) last = line;
        t.peak_rss_kib = std::atol(last.c_str());
    }
    if (!result) {
        std::fprintf(stderr, "bench_lock: cannot run %s: %s\n", request.argv[0].c_str(),
                     result.error().message.c_str());
        std::exit(1);
    }
    if (!result->succeeded()) {
        std::fprintf(stderr, "bench_lock: %s %s\n%s\n%s\n", request.argv[0].c_str(),
                     result->describe().c_str(), result->out.c_str(), result->err.c_str());
        std::exit(1);
    }
    std::tie(t.requests, t.bytes) = server.seen();
    t.out = std::move(result->out);
    return t;
}

// pip and aitk-env see neither the machine's proxies nor its pip configuration.
void clean_environment(aitk::util::ProcessRequest& request) {
    for (const auto& [name, value] : aitk::util::current_environment()) {
        if (name.starts_with("PIP_") || name.starts_with("AITK_ENV_") || name.ends_with("_proxy") ||
            name.ends_with("_PROXY")) {
            request.environment_changes[name] = std::nullopt;
        }
    }
    request.environment_changes["PIP_CONFIG_FILE"] = "/dev/null";
    request.timeout = std::chrono::minutes(10);
    request.output_limit = 64u << 20;
}

std::string python_version(const std::string& python) {
    aitk::util::ProcessRequest request;
    request.argv = {python, "-c", "import platform; print(platform.python_version())"};
    auto result = aitk::util::run_process(request);
    if (!result || !result->succeeded()) {
        std::fprintf(stderr, "bench_lock: cannot run %s\n", python.c_str());
        std::exit(2);
    }
    std::string v = result->out;
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
        v.pop_back();
    return v;
}

std::map<std::string, std::string> locked_versions(const stdfs::path& lockfile) {
    auto parsed = aitk::lock::parse_lockfile(aitk::fs::read_file(lockfile), lockfile.string());
    if (!parsed || parsed->targets.empty()) {
        std::fprintf(stderr, "bench_lock: cannot read %s\n", lockfile.c_str());
        std::exit(1);
    }
    std::map<std::string, std::string> out;
    for (const auto& p : parsed->targets.front().packages)
        out[p.name] = p.version;
    return out;
}

std::map<std::string, std::string> pip_versions(const std::string& report) {
    std::map<std::string, std::string> out;
    auto json = nlohmann::json::parse(report);
    for (const auto& item : json.at("install")) {
        const auto& metadata = item.at("metadata");
        auto text = metadata.at("version").get<std::string>();
        auto version = aitk::pep::Version::parse(text);
        out[aitk::pep::canonicalize_name(metadata.at("name").get<std::string>())] =
            version ? version->to_string() : text;
    }
    return out;
}

// The requests of one run again, all at once (8 in flight): the server's share of a run.
double replay(const std::vector<aitk::test::RequestRecord>& records, HttpServer& server) {
    std::vector<aitk::net::FetchRequest> requests;
    for (const auto& r : records) {
        aitk::net::FetchRequest f;
        f.url = server.url(r.path);
        for (const char* name : {"accept", "range"}) {
            const auto value = r.header(name);
            if (!value.empty()) f.headers.push_back({name, value});
        }
        requests.push_back(std::move(f));
    }
    aitk::net::DownloaderOptions options;
    options.concurrency = 8;
    aitk::net::Downloader downloader(options);
    const auto start = Clock::now();
    auto outcomes = downloader.fetch(requests);
    const double s = seconds_since(start);
    for (const auto& o : outcomes) {
        if (!o) std::fprintf(stderr, "bench_lock: replay: %s\n", o.error().message.c_str());
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse_options(argc, argv);
    for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                             "no_proxy", "NO_PROXY"}) {
        ::unsetenv(name);
    }

    auto work = aitk::fs::TempDir::create("aitk-lock-bench");
    const stdfs::path mirror = work.path() / "mirror";
    auto start = Clock::now();
    const stdfs::path requirements = work.path() / "requirements.txt";
    std::string target = "linux-x86_64-cu130", backend = "cu130", universe_text;
    // A real graph (--scenario): what both sides must pick, exactly.
    std::map<std::string, std::string> expected;
    if (options.scenario.empty()) {
        const auto universe =
            aitk::test::generate_universe(aitk::test::ai_toolkit_sized_universe(options.seed));
        aitk::test::build_universe_mirror(mirror, universe);
        aitk::fs::write_file_atomic(requirements, universe.requirements_text());
        universe_text = std::to_string(universe.projects.size()) + " projects, " +
                        std::to_string(universe.wheel_count()) + " wheels, " +
                        std::to_string(universe.requirements.size()) + " root requirements";
        std::printf("universe (seed %llu): %s; built in %.1f s\n",
                    static_cast<unsigned long long>(options.seed), universe_text.c_str(),
                    seconds_since(start));
    } else {
        const stdfs::path dir = options.scenario;
        const auto info = nlohmann::json::parse(aitk::fs::read_file(dir / "info.json"));
        target = info.at("target").get<std::string>();
        backend = info.at("backend").get<std::string>();
        const auto mirrored = aitk::test::build_mirror(
            mirror, nlohmann::json::parse(aitk::fs::read_file(dir / "scenario.json")));
        std::istringstream lines(aitk::fs::read_file(dir / "expected.txt"));
        std::string line;
        while (std::getline(lines, line)) {
            const auto eq = line.find("==");
            if (eq != std::string::npos) expected[line.substr(0, eq)] = line.substr(eq + 2);
        }
        universe_text = std::to_string(info.at("projects").get<int>()) + " projects, " +
                        std::to_string(mirrored.files().size()) + " wheels, " +
                        std::to_string(info.at("root_requirements").get<int>()) +
                        " root requirements (" + info.at("root").get<std::string>() + ")";
        std::printf("real graph %s: %s; %zu packages expected for %s; built in %.1f s\n",
                    dir.c_str(), universe_text.c_str(), expected.size(), target.c_str(),
                    seconds_since(start));
    }

    Served server(mirror, work.path() / "nginx", options.server == "nginx");
    std::printf("served by %s at %s\n", server.kind(), server.url("/").c_str());
    if (!options.scenario.empty()) {
        // bench/real_projects.py writes the mirror's own index URLs as @INDEX@ (its port is
        // known only now): `--extra-index-url @INDEX@/whl/cu128/`.
        std::string text = aitk::fs::read_file(stdfs::path(options.scenario) / "requirements.txt");
        const std::string placeholder = "@INDEX@";
        for (auto at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder, at)) {
            text.replace(at, placeholder.size(), server.url(""));
        }
        aitk::fs::write_file_atomic(requirements, text);
    }
    const std::string index_url = server.url("/simple/");
    const std::string torch_url = server.url("/whl");
    if (options.serve) {
        std::printf(
            "index %s\ntorch index %s (backend %s: %s/%s/)\ntarget %s\nrequirements %s\n"
            "press Enter to stop\n",
            index_url.c_str(), torch_url.c_str(), backend.c_str(), torch_url.c_str(),
            backend.c_str(), target.c_str(), requirements.c_str());
        std::fflush(stdout);
        std::string line;
        std::getline(std::cin, line);
        return 0;
    }

    const std::string python = python_version(options.python);
    aitk::bench::ResultsFile results(options.results);
    if (results.enabled() && ::access(gnu_time, X_OK) != 0) {
        std::fprintf(stderr, "bench_lock: --results needs GNU time (%s): apt-get install time\n",
                     gnu_time);
        return 2;
    }
    // Where GNU time leaves each run's peak RSS ("" = not measured).
    const stdfs::path rss_file = results.enabled() ? work.path() / "peak-rss" : stdfs::path();
    // A new cache folder for each round, all removed at the end: a cache removed just before a
    // run makes ext4 skip the freed inodes one by one when the run creates its files
    // (recently_deleted: twice the cold time here), which a user's first run never meets.
    auto cache_of_round = [&](int round) {
        return work.path() / ("aitk-cache-" + std::to_string(round));
    };
    stdfs::path cache = cache_of_round(0);
    const stdfs::path lockfile = work.path() / "bench.lock.yml";
    const stdfs::path pip_cache = work.path() / "pip-cache";

    // The cache on disk (the normal case) and, for the cold runs, also in memory (tmpfs): the
    // difference is what the cache's writes (fsync, rename) cost on this disk.
    std::optional<aitk::fs::TempDir> memory;
    if (!options.memory_cache.empty()) {
        memory = aitk::fs::TempDir::create_in(options.memory_cache, "aitk-lock-bench-cache");
    }
    auto aitk_run = [&](const stdfs::path& cache_dir) {
        aitk::util::ProcessRequest r;
        r.argv = {options.aitk_env, "--cache-dir", cache_dir.string(), "-q", "--no-progress"};
        r.argv.insert(r.argv.end(), {"--index-url", index_url, "--torch-index-url", torch_url});
        r.argv.insert(r.argv.end(), {"lock", "--target", target, "--python", python});
        r.argv.insert(r.argv.end(), {"-r", requirements.string(), "-o", lockfile.string()});
        r.working_directory = work.path();
        clean_environment(r);
        return r;
    };

    auto pip_run = [&](bool cached) {
        aitk::util::ProcessRequest r;
        r.argv = {options.python, "-m", "pip", "install", "--dry-run", "--ignore-installed"};
        r.argv.insert(r.argv.end(), {"--quiet", "--disable-pip-version-check", "--report", "-"});
        r.argv.insert(r.argv.end(), {"--only-binary=:all:", "--index-url", index_url});
        r.argv.insert(r.argv.end(), {"--extra-index-url", torch_url + "/" + backend + "/"});
        r.argv.insert(r.argv.end(), {"-r", requirements.string()});
        if (cached) {
            r.argv.insert(r.argv.end(), {"--cache-dir", pip_cache.string()});
        } else {
            r.argv.push_back("--no-cache-dir");
        }
        clean_environment(r);
        return r;
    };

    std::vector<double> aitk_cold, aitk_warm, aitk_memory, pip_cold, pip_warm;
    std::vector<aitk::test::RequestRecord> cold_requests;
    std::size_t packages = 0;
    std::vector<std::string> differences;  // "name ours | pip"
    const long long overflows_before = listen_overflows();
    // pip's cache is primed once, outside the measurements.
    run_timed(pip_run(true), server);
    for (int round = 1; round <= options.rounds; ++round) {
        std::error_code ec;
        cache = cache_of_round(round);
        stdfs::remove(lockfile, ec);
        const Timed cold = run_timed(aitk_run(cache), server, rss_file);
        if (round == 1 && server.builtin()) cold_requests = server.builtin()->requests();
        stdfs::remove(lockfile, ec);
        const Timed warm = run_timed(aitk_run(cache), server, rss_file);
        if (memory) {
            stdfs::remove(lockfile, ec);
            const auto in_memory = memory->path() / ("cache-" + std::to_string(round));
            aitk_memory.push_back(run_timed(aitk_run(in_memory), server).seconds);
        }
        const auto ours = locked_versions(lockfile);
        const Timed pc = run_timed(pip_run(false), server, rss_file);
        const Timed pw = run_timed(pip_run(true), server, rss_file);
        const auto theirs = pip_versions(pc.out);
        if (!expected.empty()) {
            // A real graph: both sides must pick exactly the published lock's set.
            bool same = true;
            for (const auto& [side, picked] : {std::pair{"aitk-env", &ours}, {"pip", &theirs}}) {
                if (*picked == expected) continue;
                same = false;
                std::fprintf(stderr, "bench_lock: %s did not pick the lock's set:\n", side);
                for (const auto& [name, version] : expected) {
                    auto it = picked->find(name);
                    if (it == picked->end() || it->second != version)
                        std::fprintf(stderr, "  %s %s | %s\n", name.c_str(), version.c_str(),
                                     it == picked->end() ? "-" : it->second.c_str());
                }
                for (const auto& [name, version] : *picked)
                    if (!expected.count(name))
                        std::fprintf(stderr, "  %s - | %s\n", name.c_str(), version.c_str());
            }
            if (!same) return 1;
        }
        // The same work: the same packages, give or take the few a conflict lets two correct
        // resolvers choose differently (tests/app/test_lock_vs_pip.cpp shows such cases).
        std::vector<std::string> differ;
        for (const auto& [name, version] : ours) {
            auto it = theirs.find(name);
            if (it == theirs.end() || it->second != version) {
                differ.push_back(name + " " + version + " | " +
                                 (it == theirs.end() ? "-" : it->second));
            }
        }
        for (const auto& [name, version] : theirs) {
            if (!ours.count(name)) differ.push_back(name + " - | " + version);
        }
        if (differ.size() * 10 > theirs.size()) {
            std::fprintf(stderr,
                         "bench_lock: aitk-env and pip chose different versions "
                         "(aitk-env | pip):\n");
            for (const auto& d : differ)
                std::fprintf(stderr, "  %s\n", d.c_str());
            return 1;
        }
        if (round == 1) differences = differ;
        packages = ours.size();
        std::printf(
            "round %d: aitk-env cold %.3f s (%zu requests), warm %.3f s (%zu requests) | "
            "pip cold %.2f s (%zu requests), warm cache %.2f s (%zu requests)\n",
            round, cold.seconds, cold.requests, warm.seconds, warm.requests, pc.seconds,
            pc.requests, pw.seconds, pw.requests);
        std::fflush(stdout);
        aitk_cold.push_back(cold.seconds);
        aitk_warm.push_back(warm.seconds);
        pip_cold.push_back(pc.seconds);
        pip_warm.push_back(pw.seconds);
        // After the check above: only runs that did the same work are reported.
        results.run(options.label + "_cold", "aitk", cold.seconds, cold.peak_rss_kib);
        results.run(options.label + "_warm", "aitk", warm.seconds, warm.peak_rss_kib);
        results.run(options.label + "_cold", "ref", pc.seconds, pc.peak_rss_kib);
        results.run(options.label + "_warm", "ref", pw.seconds, pw.peak_rss_kib);
        if (round == 1) {
            results.command(options.label + "_cold", "aitk", aitk_run(cache).argv);
            results.command(options.label + "_warm", "aitk", aitk_run(cache).argv);
            results.command(options.label + "_cold", "ref", pip_run(false).argv);
            results.command(options.label + "_warm", "ref", pip_run(true).argv);
            results.info(options.label + "_universe", universe_text);
            results.info(options.label + "_packages", std::to_string(ours.size()));
            results.info(options.label + "_differences", std::to_string(differ.size()));
            results.info(options.label + "_python", python);
            results.info(options.label + "_target", target);
            results.info(options.label + "_server", server.kind());
        }
    }
    const double floor = server.builtin() ? replay(cold_requests, *server.builtin()) : -1;
    const long long overflows = listen_overflows() - overflows_before;

    const double ac = median(aitk_cold), aw = median(aitk_warm);
    const double pc = median(pip_cold), pw = median(pip_warm);
    std::printf(
        "lock benchmark: %zu packages (Python %s, %s, served by %s), median of %d "
        "rounds\n",
        packages, python.c_str(), target.c_str(), server.kind(), options.rounds);
    if (!differences.empty()) {
        std::printf("  note: %zu packages differ after a conflict both solved (aitk-env | pip):",
                    differences.size());
        for (const auto& d : differences)
            std::printf(" %s;", d.c_str());
        std::printf("\n");
    }
    std::printf("  %-44s %8.3f s\n", "aitk-env lock, empty cache", ac);
    std::printf("  %-44s %8.3f s (goal <= 0.5 s)\n", "aitk-env lock, warm cache", aw);
    if (!aitk_memory.empty()) {
        std::printf("  %-44s %8.3f s (the cache's disk writes cost %.3f s)\n",
                    ("aitk-env lock, empty cache in " + options.memory_cache).c_str(),
                    median(aitk_memory), ac - median(aitk_memory));
    }
    std::printf("  %-44s %8.3f s\n", "pip install --dry-run, no cache", pc);
    std::printf("  %-44s %8.3f s\n", "pip install --dry-run, warm cache", pw);
    std::printf("  ratio pip / aitk-env, cold: %.1fx (goal >= 10x)", pc / ac);
    if (!aitk_memory.empty()) {
        std::printf("; with the cache in memory %.1fx", pc / median(aitk_memory));
    }
    std::printf("\n");
    std::printf("  ratio pip (warm cache) / aitk-env (warm cache): %.1fx\n", pw / aw);
    if (floor >= 0) {
        std::printf(
            "  server alone: the cold lock's %zu requests replayed 8 at a time take %.3f s "
            "(%.0f%% of the cold lock)\n",
            cold_requests.size(), floor, 100.0 * floor / ac);
    }
    if (overflows_before >= 0) {
        std::printf("  listen queue overflows meanwhile (each costs a client 1 s): %lld\n",
                    overflows);
    }
    if (options.keep) {
        std::printf("kept %s\n", work.path().c_str());
        work.keep();
    }
    return 0;
}
