// A fault matrix for `aitk-env setup`: 200 seeded random fault schedules against the in-process
// fault-injecting server (resets, truncations, 5xx and 429 + Retry-After, wrong bytes, a trickle,
// a server that is down), for `setup -l LOCK` (artifacts) and `setup -r REQS` (index pages, PEP
// 658 metadata and artifacts), on a fresh prefix or over an older one. Whatever the schedule:
// - the run ends with 0, or with 1 and a message naming the URL and the reason;
// - every artifact in the cache hashes to its key, and nothing half-written lies outside the
//   cache's staging folder;
// - a failed run leaves no prefix, or the old one intact (`verify` clean, old versions);
// - the same setup with the faults cleared succeeds and `verify` finds the prefix clean.
// Schedules whose faults all fit within the retry limits must succeed; those with a fault beyond
// them must fail; the index URL carries credentials that no message may show. The first 40
// schedules run the real binary; the rest call app::run_setup in this process with the same
// checks (the error → exit code mapping of main), two at a time. A failing schedule prints its
// seed; AITK_FAULT_SEED=N runs that schedule alone (through the binary), AITK_FAULT_VERBOSE=1
// prints every schedule and its duration.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aitk/app/prefix.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/error.hpp"
#include "app_calls.hpp"
#include "http_server.hpp"
#include "matrix_share.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "test_files.hpp"
#include "test_machine.hpp"

extern char** environ;

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.11.7/bin";
constexpr int schedule_count = 200;
constexpr int cli_schedules = 40;
constexpr int workers = 2;
// AITK_ENV_HTTP_TIMEOUT of the schedules: long enough that a busy machine does not stall a
// healthy transfer that long; a schedule with a slow fault (and nothing else) uses 1 s.
constexpr int http_timeout_s = 2;

// ---- the binary, run in a folder of its own ------------------------------------------------

struct Run {
    int exit_code = -1;  // -1: killed by a signal
    std::string out;
    std::string err;
};

Run run_binary(const stdfs::path& cwd, const std::vector<std::string>& args,
               const std::vector<std::string>& env) {
    static std::atomic<int> counter{0};
    const auto n = std::to_string(counter++);
    const auto out = cwd / ("out-" + n);
    const auto err = cwd / ("err-" + n);
    std::string cmd = "cd " + shell_quote(cwd.string()) + " && exec env";
    for (const auto& e : env)
        cmd += " " + e;
    cmd += " " + shell_quote(AITK_ENV_EXE);
    for (const auto& a : args)
        cmd += " " + shell_quote(a);
    cmd += " </dev/null >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    std::vector<std::string> argv_text = {"/bin/sh", "-c", cmd};
    std::vector<char*> argv;
    for (auto& a : argv_text)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    Run run;
    pid_t pid = -1;
    if (::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv.data(), environ) != 0) return run;
    int status = 0;
    if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    run.out = aitk::test::read_file_or_empty(out);
    run.err = aitk::test::read_file_or_empty(err);
    std::error_code ec;
    stdfs::remove(out, ec);
    stdfs::remove(err, ec);
    return run;
}

// The machine as the binary sees it: no GPU, Python 3.11.7 only, no proxies, no config files.
std::vector<std::string> child_environment(const stdfs::path& home,
                                           const std::vector<std::string>& more) {
    std::vector<std::string> env = {"-u http_proxy",
                                    "-u https_proxy",
                                    "-u HTTPS_PROXY",
                                    "-u HTTP_PROXY",
                                    "-u all_proxy",
                                    "-u AITK_ENV_TORCH_BACKEND",
                                    "-u AITK_ENV_INDEX_URL",
                                    "-u AITK_ENV_REWRITE_URL",
                                    "-u AITK_ENV_CACHE_DIR",
                                    "-u AITK_ENV_HTTP_RETRIES",
                                    "-u AITK_ENV_HTTP_TIMEOUT",
                                    "-u AITK_ENV_HTTP_RETRY_DELAY_MS",
                                    "PATH=" + python_bin + ":/usr/bin:/bin",
                                    "PYENV_ROOT=/nonexistent",
                                    "HOME=" + home.string(),
                                    "AITK_ENV_NO_GPU=1",
                                    "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
                                    "AITK_ENV_NVIDIA_SMI=/nonexistent",
                                    "XDG_CONFIG_HOME=" + (home / "xdg").string(),
                                    "AITK_ENV_SYSTEM_CONFIG_DIR=" + (home / "etc").string()};
    for (const auto& m : more)
        env.push_back(shell_quote(m));
    return env;
}

// ---- the mirror ------------------------------------------------------------------------------

// What a healthy setup asks the server for, by kind.
enum class PathKind { page, metadata, artifact };

struct ServedPath {
    std::string path;  // as the server logs it (decoded)
    PathKind kind = PathKind::artifact;
    std::uint64_t size = 0;
    bool in_old_lock = false;  // an artifact the old prefix already has (never downloaded)
};

enum class Mode { lock, requirements };

// Requirements runs reach the index with credentials in its URL (the server does not ask for
// them): no message may show them.
constexpr std::string_view index_secret = "s3cret-t0ken";
std::string index_url(const HttpServer& server) {
    return server.url_with_credentials("fault", std::string(index_secret), "/simple/");
}

// One worker's server and the locks made against it (the URLs name its port).
struct Station {
    std::unique_ptr<HttpServer> server;
    stdfs::path lock_a, lock_b;
};

struct Suite {
    std::optional<fs::TempDir> work;
    stdfs::path mirror, requirements_a, requirements_b, warm_cache;
    std::vector<Station> stations;
    std::map<Mode, std::vector<ServedPath>> served;
    std::map<std::string, std::string> versions_a, versions_b;
    std::map<std::string, std::string> metadata_by_sha256;  // what each wheel's METADATA says
    std::string setup_error;
};

Suite& suite() {
    static Suite s;
    return s;
}

std::map<std::string, std::string> lock_versions(const stdfs::path& lock_path) {
    std::map<std::string, std::string> out;
    auto parsed = lock::parse_lockfile(fs::read_file(lock_path), lock_path.string());
    if (!parsed || parsed->targets.size() != 1) return out;
    for (const auto& p : parsed->targets[0].packages)
        out[p.name] = p.version;
    return out;
}

std::map<std::string, std::string> installed_versions(const stdfs::path& prefix) {
    std::map<std::string, std::string> out;
    auto layout = app::open_prefix(prefix, false);
    for (const auto& d : install::installed_distributions(layout))
        out[d.name] = d.version;
    return out;
}

std::string setup_suite() {
    auto& s = suite();
    s.work.emplace(fs::TempDir::create("aitk-fault-matrix"));
    const auto root = s.work->path();
    s.mirror = root / "mirror";
    auto scenario = nlohmann::json::parse(R"({
      "indexes": {"simple": {}},
      "wheels": [
        {"index": "simple", "name": "alpha", "version": "1.0", "requires_dist": ["beta"],
         "padding": 120000},
        {"index": "simple", "name": "alpha", "version": "2.0",
         "requires_dist": ["beta>=2", "gamma"], "padding": 300000},
        {"index": "simple", "name": "beta", "version": "1.0", "padding": 90000},
        {"index": "simple", "name": "beta", "version": "2.0", "padding": 200000},
        {"index": "simple", "name": "gamma", "version": "1.0", "padding": 150000},
        {"index": "simple", "name": "delta", "version": "1.0", "requires_dist": ["epsilon"],
         "padding": 250000},
        {"index": "simple", "name": "epsilon", "version": "1.0", "padding": 100000},
        {"index": "simple", "name": "zeta", "version": "1.0", "padding": 60000}
      ]})");
    const auto built = build_mirror(s.mirror, scenario);
    for (const auto& file : built.files())
        s.metadata_by_sha256[file.artifact.sha256] = file.artifact.metadata;
    s.requirements_a = root / "reqs-a.txt";
    s.requirements_b = root / "reqs-b.txt";
    fs::write_file_atomic(s.requirements_a, "alpha==1.0\nbeta==1.0\nzeta\n");
    fs::write_file_atomic(s.requirements_b, "alpha==2.0\ndelta\nzeta\n");
    s.warm_cache = root / "warm-cache";
    const auto home = root / "home";
    stdfs::create_directories(home);
    const auto env = child_environment(home, {});

    for (int w = 0; w < workers; ++w) {
        Station station;
        ServerOptions options;
        options.threads = 24;
        station.server = std::make_unique<HttpServer>(options);
        station.server->serve_directory(s.mirror, "/");
        const auto dir = root / ("station-" + std::to_string(w));
        stdfs::create_directories(dir);
        station.lock_a = dir / "a.lock.yml";
        station.lock_b = dir / "b.lock.yml";
        for (const auto& [reqs, out] : {std::pair{s.requirements_a, station.lock_a},
                                        std::pair{s.requirements_b, station.lock_b}}) {
            auto r = run_binary(
                dir,
                {"--no-progress", "--index-url", station.server->url("/simple/"), "--cache-dir",
                 (dir / "lock-cache").string(), "lock", "-r", reqs.string(), "-o", out.string(),
                 "--python", "3.11.7", "--target", "linux-x86_64-cpu"},
                env);
            if (r.exit_code != 0) return "lock " + reqs.string() + ": " + r.err;
        }
        s.stations.push_back(std::move(station));
    }
    s.versions_a = lock_versions(s.stations[0].lock_a);
    s.versions_b = lock_versions(s.stations[0].lock_b);
    if (s.versions_a.size() != 3 || s.versions_b.size() != 6) return "unexpected lock contents";

    // Healthy runs tell which paths each mode asks for; the old lock's artifacts warm a cache
    // shared by every schedule that starts from an old prefix.
    auto& station = s.stations[0];
    auto& server = *station.server;
    const auto scratch = root / "healthy";
    stdfs::create_directories(scratch);
    auto setup_a = run_binary(scratch,
                              {"--no-progress", "--cache-dir", s.warm_cache.string(), "setup", "-l",
                               station.lock_a.string(), "-p", (scratch / "a").string(), "--python",
                               python_bin + "/python3.11", "--no-smoke-test"},
                              env);
    if (setup_a.exit_code != 0) return "healthy setup -l a: " + setup_a.err;
    std::set<std::string> old_artifacts;
    for (const auto& record : server.requests())
        old_artifacts.insert(record.path);
    for (Mode mode : {Mode::lock, Mode::requirements}) {
        server.clear_log();
        std::vector<std::string> args = {"--no-progress", "--cache-dir",
                                         (scratch / (mode == Mode::lock ? "cl" : "cr")).string(),
                                         "setup"};
        if (mode == Mode::lock) {
            args.insert(args.end(),
                        {"-l", station.lock_b.string(), "--python", python_bin + "/python3.11"});
        } else {
            args.insert(args.end(), {"--index-url", index_url(server), "-r",
                                     s.requirements_b.string(), "--python", "3.11"});
        }
        args.insert(args.end(), {"-p", (scratch / (mode == Mode::lock ? "pl" : "pr")).string(),
                                 "--no-smoke-test"});
        auto r = run_binary(scratch, args, env);
        if (r.exit_code != 0) return "healthy setup: " + r.err;
        std::set<std::string> seen;
        for (const auto& record : server.requests()) {
            if (!seen.insert(record.path).second) continue;
            ServedPath p;
            p.path = record.path;
            p.kind = record.path.ends_with(".whl")        ? PathKind::artifact
                     : record.path.ends_with(".metadata") ? PathKind::metadata
                                                          : PathKind::page;
            std::error_code ec;
            const auto file = s.mirror / record.path.substr(1);
            p.size = stdfs::is_regular_file(file, ec)
                         ? stdfs::file_size(file)
                         : std::max<std::uint64_t>(record.bytes_sent, 1);
            p.in_old_lock = old_artifacts.count(record.path) > 0;
            s.served[mode].push_back(p);
        }
    }
    server.clear_log();
    return {};
}

// ---- schedules -------------------------------------------------------------------------------

enum class Expect { success, failure, either };

struct PathFault {
    ServedPath target;
    Fault fault;
    Expect expect = Expect::success;
    std::string text;  // for the report
};

struct Schedule {
    std::uint64_t seed = 0;
    Mode mode = Mode::lock;
    bool old_prefix = false;
    bool server_down = false;
    int retries = 2;
    int timeout_s = http_timeout_s;
    int retry_delay_ms = 1;
    std::vector<PathFault> faults;
    Expect expect = Expect::success;

    std::string describe() const {
        std::ostringstream o;
        o << "seed " << seed << ": setup " << (mode == Mode::lock ? "-l LOCK" : "-r REQS")
          << (old_prefix ? " over an old prefix" : " into a new prefix") << ", retries " << retries
          << (server_down ? ", server down" : "");
        for (const auto& f : faults)
            o << "\n  " << f.target.path << ": " << f.text;
        return o.str();
    }
};

// Fault kinds, offsets and counts drawn from `seed`; whether the schedule must succeed or fail
// follows from the downloader's documented limits: a failed try without body progress counts
// against AITK_ENV_HTTP_RETRIES, a file body that grew is resumed (up to 20 times), a body with
// the wrong hash is fetched once more from scratch. Slow faults cost real seconds (curl judges
// speed over a few seconds), so only a few schedules get one, and only one.
Schedule make_schedule(std::uint64_t seed) {
    std::mt19937_64 random(seed);
    auto pick = [&](int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(random);
    };
    auto offset_in = [&](std::uint64_t low, std::uint64_t high) {
        return std::uniform_int_distribution<std::uint64_t>(low, std::max(low, high))(random);
    };
    auto chance = [&](double p) { return std::bernoulli_distribution(p)(random); };
    Schedule s;
    s.seed = seed;
    s.mode = chance(0.5) ? Mode::lock : Mode::requirements;
    s.old_prefix = chance(0.2);
    s.retries = pick(1, 3);
    s.retry_delay_ms = pick(0, 2);
    if (chance(0.04)) {
        s.server_down = true;
        s.expect = Expect::failure;
        return s;
    }
    std::vector<ServedPath> candidates;
    for (const auto& p : suite().served.at(s.mode)) {
        if (!(s.old_prefix && p.in_old_lock)) candidates.push_back(p);
    }
    std::shuffle(candidates.begin(), candidates.end(), random);
    const bool slow = chance(0.05);
    const int count = slow ? 1 : std::min<int>(pick(1, 4), static_cast<int>(candidates.size()));
    if (slow) {
        s.retries = 1;
        s.timeout_s = 1;
    }
    const int limit = s.retries;  // failed tries that are still retried
    for (int i = 0; i < count; ++i) {
        PathFault f;
        f.target = candidates[i];
        const bool file = f.target.kind == PathKind::artifact;
        const auto size = f.target.size;
        int roll = pick(0, 99);
        if (f.target.kind == PathKind::page && roll >= 70) roll = pick(0, 69);
        if (slow && i == 0) {
            roll = 100;
        }
        if (roll < 33) {
            static const int codes[] = {500, 502, 503, 429};
            const int code = codes[pick(0, 3)];
            const int times = pick(1, limit + 2);
            std::string retry_after;
            if (code == 429 || chance(0.3))
                retry_after = chance(0.5) ? "0" : "Wed, 21 Oct 2015 07:28:00 GMT";
            f.fault = Fault::http_status(code, times, retry_after);
            f.expect = times <= limit ? Expect::success : Expect::failure;
            f.text = "HTTP " + std::to_string(code) + " x" + std::to_string(times) +
                     (retry_after.empty() ? "" : " Retry-After: " + retry_after);
        } else if (roll < 70) {
            const bool reset = chance(0.5);
            const std::uint64_t offset = chance(0.3) ? 0 : offset_in(1, size - 1);
            const int times = offset == 0 || !file ? pick(1, limit + 2) : pick(1, 6);
            f.fault = reset ? Fault::reset_at(offset, times) : Fault::truncate_at(offset, times);
            const bool progress = file && offset > 0;
            if (times <= limit) {
                f.expect = Expect::success;
            } else if (progress && !reset) {
                f.expect = Expect::success;  // every try brings bytes: resumed
            } else if (progress) {
                // A reset may discard bytes the client had not read yet: progress is likely
                // but not certain.
                f.expect = Expect::either;
            } else {
                f.expect = Expect::failure;
            }
            f.text = std::string(reset ? "reset" : "truncate") + " at " + std::to_string(offset) +
                     " x" + std::to_string(times);
        } else if (roll <= 99) {
            // Never on pages: they carry no hash, so flipped bytes there are indistinguishable
            // from a real page.
            const int times = pick(1, 2);
            const auto position = offset_in(0, size - 1);
            f.fault = Fault::wrong_bytes(times, position);
            f.expect = times <= 1 ? Expect::success : Expect::failure;
            f.text = "wrong byte at " + std::to_string(position) + " x" + std::to_string(times);
        } else if (chance(0.6)) {
            // Below the speed limit until the timeout: abandoned, then resumed (a file) or
            // fetched again (a page or metadata).
            const auto after = offset_in(0, std::min<std::uint64_t>(size / 2, 512));
            f.fault = Fault::trickle(1, after, 16, std::chrono::milliseconds(100));
            f.expect = Expect::success;
            f.text = "trickle after " + std::to_string(after);
        } else {
            // Nothing within the timeout, on every try (the first bytes would come long after).
            f.fault = Fault::trickle(limit + 1, 0, 16, std::chrono::seconds(6 * s.timeout_s));
            f.expect = Expect::failure;
            f.text = "silent x" + std::to_string(limit + 1);
        }
        if (f.target.kind == PathKind::metadata && f.expect == Expect::failure) {
            f.expect = Expect::either;  // the resolver may read the wheel's own METADATA
        }
        s.faults.push_back(std::move(f));
    }
    // A PEP 658 file that cannot be had sends the resolver to the wheel itself (range requests
    // or a download), which uses up the wheel's own faults before the install asks for it.
    for (auto& f : s.faults) {
        if (f.target.kind != PathKind::artifact || f.expect != Expect::failure) continue;
        for (const auto& other : s.faults) {
            if (other.target.path == f.target.path + ".metadata") f.expect = Expect::either;
        }
    }
    s.expect = Expect::success;
    for (const auto& f : s.faults) {
        if (f.expect == Expect::failure) s.expect = Expect::failure;
        if (f.expect == Expect::either && s.expect == Expect::success) s.expect = Expect::either;
    }
    return s;
}

// ---- checks ----------------------------------------------------------------------------------

// Every artifact hashes to its key; nothing half-written outside <cache>/v1/tmp.
void check_cache(const stdfs::path& cache, std::vector<std::string>& problems) {
    std::error_code ec;
    if (!stdfs::exists(cache, ec)) return;
    const auto base = cache / "v1";
    for (auto it = stdfs::recursive_directory_iterator(cache, ec);
         it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const auto rel = stdfs::relative(it->path(), base, ec).generic_string();
        if (rel.starts_with("tmp") || rel.starts_with("locks")) {
            if (it->is_directory()) it.disable_recursion_pending();
            continue;
        }
        const auto name = it->path().filename().string();
        if (name.ends_with(".part") || name.ends_with(".tmp")) {
            problems.push_back("half-written file outside the staging area: " + rel);
        }
        if (it->is_regular_file() && rel.starts_with("metadata/sha256/")) {
            // metadata/sha256/ab/<62 hex>.metadata: the wheel's own METADATA, nothing else.
            const auto stem = it->path().stem().string();
            const auto sha = it->path().parent_path().filename().string() + stem;
            const auto& known = suite().metadata_by_sha256;
            const auto want = known.find(sha);
            if (want == known.end() || fs::read_file(it->path()) != want->second)
                problems.push_back("cache metadata " + rel + " is not the wheel's METADATA");
            continue;
        }
        if (!it->is_regular_file() || !rel.starts_with("artifacts/sha256/")) continue;
        // artifacts/sha256/ab/<62 hex>/<filename>
        const auto parts = stdfs::path(rel);
        std::vector<std::string> pieces;
        for (const auto& piece : parts)
            pieces.push_back(piece.string());
        if (pieces.size() != 5) {
            problems.push_back("unexpected file in the artifact store: " + rel);
            continue;
        }
        const auto want = pieces[2] + pieces[3];
        const auto got = fs::sha256_file_hex(it->path());
        if (got != want) problems.push_back("cache artifact " + rel + " hashes to " + got);
    }
}

// The reasons a download can fail with here, as the downloader words them.
bool mentions_reason(const std::string& err) {
    static const char* reasons[] = {
        "HTTP 500",  "HTTP 502",      "HTTP 503", "HTTP 429", "reset",          "sha256 mismatch",
        "sha256 of", "size mismatch", "too slow", "refused",  "transfer closed"};
    for (const char* r : reasons) {
        if (err.find(r) != std::string::npos) return true;
    }
    return false;
}

// ---- one schedule ---------------------------------------------------------------------------

struct Attempt {
    int exit_code = -1;
    std::string err;
};

class Runner {
  public:
    Runner(const Schedule& schedule, Station& station, const stdfs::path& dir, bool via_cli)
        : s_(schedule), station_(station), dir_(dir), via_cli_(via_cli) {
        stdfs::create_directories(dir_ / "home");
        cache_ = dir_ / "cache";
        prefix_ = dir_ / "env";
    }

    std::vector<std::string> run() {
        auto& server = *station_.server;
        if (s_.old_prefix) {
            auto old = setup(station_.lock_a, suite().warm_cache, true);
            if (old.exit_code != 0) return {"the old prefix could not be made: " + old.err};
        }
        server.clear_faults();
        for (const auto& f : s_.faults)
            server.set_fault(f.target.path, f.fault);
        if (s_.server_down) server.stop();
        auto faulted = setup(station_.lock_b, cache_, false);
        if (s_.server_down) server.start();
        server.clear_faults();
        check_outcome(faulted);
        check_cache(cache_, problems_);

        auto again = setup(station_.lock_b, cache_, false);
        if (again.exit_code != 0) {
            problems_.push_back("setup with the faults cleared exited " +
                                std::to_string(again.exit_code) + ": " + again.err);
        } else {
            expect_verified(station_.lock_b, suite().versions_b, "after the clean setup");
        }
        check_cache(cache_, problems_);
        return problems_;
    }

  private:
    void check_outcome(const Attempt& a) {
        if (a.err.find(index_secret) != std::string::npos)
            problems_.push_back("the index's credentials were shown: " + a.err);
        if (a.exit_code != 0 && a.exit_code != 1) {
            problems_.push_back("exit code " + std::to_string(a.exit_code) + ": " + a.err);
            return;
        }
        if (s_.expect == Expect::success && a.exit_code != 0) {
            problems_.push_back("every fault is within the limits, yet setup failed: " + a.err);
        }
        if (s_.expect == Expect::failure && a.exit_code != 1) {
            problems_.push_back("a fault beyond the limits, yet setup succeeded");
        }
        if (a.exit_code == 0) {
            expect_verified(station_.lock_b, suite().versions_b, "after the faulted setup");
            return;
        }
        const auto base = station_.server->base_url();
        const auto redacted = "http://***@" + base.substr(std::string_view("http://").size());
        if (a.err.find("error: ") == std::string::npos)
            problems_.push_back("no error line: " + a.err);
        if (a.err.find(base) == std::string::npos && a.err.find(redacted) == std::string::npos)
            problems_.push_back("the error names no URL of " + base + ": " + a.err);
        if (!mentions_reason(a.err)) problems_.push_back("the error gives no reason: " + a.err);
        std::error_code ec;
        if (!s_.old_prefix) {
            if (stdfs::exists(prefix_, ec))
                problems_.push_back("a failed setup left a prefix behind");
        } else {
            expect_verified(station_.lock_a, suite().versions_a, "old prefix after the failure");
        }
    }

    void expect_verified(const stdfs::path& lock_path,
                         const std::map<std::string, std::string>& versions,
                         const std::string& when) {
        if (via_cli_) {
            auto v = run_binary(dir_, {"verify", "-p", prefix_.string(), "-l", lock_path.string()},
                                env());
            if (v.exit_code != 0)
                problems_.push_back(when + ": verify exited " + std::to_string(v.exit_code) + ": " +
                                    v.out + v.err);
        } else {
            try {
                auto layout = app::open_prefix(prefix_, false);
                auto parsed = lock::parse_lockfile(fs::read_file(lock_path), lock_path.string());
                if (!parsed) throw parsed.error().to_error();
                auto report = app::verify_prefix(layout, *parsed);
                if (!report.clean()) problems_.push_back(when + ": verify: " + report.text());
            } catch (const std::exception& e) {
                problems_.push_back(when + ": verify threw " + e.what());
            }
        }
        try {
            if (installed_versions(prefix_) != versions)
                problems_.push_back(when + ": the prefix has other versions than the lock");
        } catch (const std::exception& e) {
            problems_.push_back(when + ": " + e.what());
        }
    }

    std::vector<std::string> env() const {
        return child_environment(
            dir_ / "home", {"AITK_ENV_HTTP_RETRIES=" + std::to_string(s_.retries),
                            "AITK_ENV_HTTP_TIMEOUT=" + std::to_string(s_.timeout_s),
                            "AITK_ENV_HTTP_RETRY_DELAY_MS=" + std::to_string(s_.retry_delay_ms)});
    }

    // `setup` of `lock_path` (or, in requirements mode and not `old`, of REQS B).
    Attempt setup(const stdfs::path& lock_path, const stdfs::path& cache, bool old) {
        const bool from_requirements = s_.mode == Mode::requirements && !old;
        auto& server = *station_.server;
        if (via_cli_) {
            std::vector<std::string> args = {"--no-progress", "--cache-dir", cache.string(),
                                             "setup"};
            if (from_requirements) {
                args.insert(args.end(), {"--index-url", index_url(server), "-r",
                                         suite().requirements_b.string(), "--python", "3.11"});
            } else {
                args.insert(args.end(),
                            {"-l", lock_path.string(), "--python", python_bin + "/python3.11"});
            }
            args.insert(args.end(), {"-p", prefix_.string(), "--no-smoke-test"});
            auto r = run_binary(dir_, args, env());
            return {r.exit_code, r.err + r.out};
        }
        test::SetupCall request;
        if (from_requirements) {
            request.input.requirements = suite().requirements_b;
            request.python = "3.11";
            request.indexes.index_url = index_url(server);
        } else {
            request.lockfile = lock_path;
            request.python = python_bin + "/python3.11";
        }
        request.prefix = prefix_;
        request.smoke_test = false;
        request.network.retries = s_.retries;
        request.network.timeout = std::chrono::seconds(s_.timeout_s);
        request.network.retry_delay = std::chrono::milliseconds(s_.retry_delay_ms);
        request.cache_root = cache;
        request.cwd = dir_;
        request.environment = {{"PATH", python_bin + ":/usr/bin:/bin"},
                               {"HOME", (dir_ / "home").string()},
                               {"PYENV_ROOT", "/nonexistent"}};
        request.machine = test::cpu_machine();
        // main's mapping: util::Error carries its exit code, anything else is a failure.
        try {
            test::run_setup(request);
            return {0, {}};
        } catch (const util::Error& e) {
            std::string err = "error: " + std::string(e.what()) + "\n";
            if (!e.hint().empty()) err += "hint: " + e.hint() + "\n";
            return {static_cast<int>(e.code()), err};
        } catch (const std::exception& e) {
            return {1, "error: " + std::string(e.what()) + "\n"};
        }
    }

    const Schedule& s_;
    Station& station_;
    stdfs::path dir_, cache_, prefix_;
    bool via_cli_;
    std::vector<std::string> problems_;
};

class FaultMatrix : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!stdfs::exists(python_bin + "/python3.11")) return;
        suite().setup_error = setup_suite();
    }
    static void TearDownTestSuite() {
        suite().stations.clear();
        suite().work.reset();
    }
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.11")) GTEST_SKIP() << "no 3.11.7";
        ASSERT_EQ(suite().setup_error, "");
    }
};

TEST_F(FaultMatrix, SeededSchedulesEndCleanlyAndRecover) {
    std::vector<std::uint64_t> seeds;
    bool all_cli = false;
    if (const char* one = std::getenv("AITK_FAULT_SEED")) {
        seeds.push_back(std::strtoull(one, nullptr, 10));
        all_cli = true;
    } else {
        for (int i = 0; i < matrix_rounds(schedule_count); ++i)
            seeds.push_back(static_cast<std::uint64_t>(i) + 1);
    }
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::map<std::uint64_t, std::string> failures;
    std::map<Expect, int> expectations;
    auto work = [&](int w) {
        for (;;) {
            const std::size_t i = next++;
            if (i >= seeds.size()) return;
            const auto schedule = make_schedule(seeds[i]);
            const bool via_cli =
                all_cli || i < static_cast<std::size_t>(matrix_rounds(cli_schedules));
            const auto dir = suite().work->path() / ("s" + std::to_string(seeds[i]));
            Runner runner(schedule, suite().stations[w], dir, via_cli);
            const auto started = std::chrono::steady_clock::now();
            auto problems = runner.run();
            if (std::getenv("AITK_FAULT_VERBOSE")) {
                const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - started);
                std::lock_guard lock(mutex);
                std::cerr << took.count() << " ms " << schedule.describe() << "\n";
            }
            std::error_code ec;
            if (problems.empty()) stdfs::remove_all(dir, ec);
            std::lock_guard lock(mutex);
            ++expectations[schedule.expect];
            if (problems.empty()) continue;
            std::string text =
                schedule.describe() + (via_cli ? "\n  (binary)" : "\n  (in-process)");
            for (const auto& p : problems)
                text += "\n  -> " + p;
            failures[seeds[i]] = text;
        }
    };
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back(work, w);
    for (auto& t : threads)
        t.join();
    for (const auto& [seed, text] : failures)
        ADD_FAILURE() << "schedule failed (rerun: AITK_FAULT_SEED=" << seed << ")\n" << text;
    // The matrix covers both outcomes.
    if (!all_cli) {
        const int share = matrix_rounds(40);
        EXPECT_GT(expectations[Expect::success], share);
        EXPECT_GT(expectations[Expect::failure], share);
    }
}

// `setup -l` (or -r) against station 0, through the binary, in a fresh folder.
Run setup_once(const std::string& name, Mode mode, const std::vector<std::string>& knobs) {
    auto& station = suite().stations[0];
    const auto dir = suite().work->path() / name;
    stdfs::create_directories(dir / "home");
    std::vector<std::string> args = {"--no-progress", "--cache-dir", (dir / "cache").string(),
                                     "setup"};
    if (mode == Mode::lock) {
        args.insert(args.end(),
                    {"-l", station.lock_b.string(), "--python", python_bin + "/python3.11"});
    } else {
        args.insert(args.end(), {"--index-url", index_url(*station.server), "-r",
                                 suite().requirements_b.string(), "--python", "3.11"});
    }
    args.insert(args.end(), {"-p", (dir / "env").string(), "--no-smoke-test"});
    return run_binary(dir, args, child_environment(dir / "home", knobs));
}

std::string first_artifact(Mode mode, PathKind kind) {
    for (const auto& p : suite().served.at(mode)) {
        if (p.kind == kind) return p.path;
    }
    return {};
}

TEST_F(FaultMatrix, BadHttpKnobsAreUsageErrorsNamingTheVariable) {
    suite().stations[0].server->clear_log();
    for (const std::string knob :
         {"AITK_ENV_HTTP_RETRIES=many", "AITK_ENV_HTTP_RETRIES=101", "AITK_ENV_HTTP_TIMEOUT=0",
          "AITK_ENV_HTTP_TIMEOUT=1.5", "AITK_ENV_HTTP_RETRY_DELAY_MS=-1"}) {
        auto r = setup_once("knob", Mode::lock, {knob});
        EXPECT_EQ(r.exit_code, 2) << knob << "\n" << r.err;
        const auto name = knob.substr(0, knob.find('='));
        EXPECT_NE(r.err.find("error: " + name + "='" + knob.substr(name.size() + 1) + "'"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_TRUE(suite().stations[0].server->requests().empty());
}

// AITK_ENV_HTTP_RETRIES is the number of tries after the first; a failed first setup takes
// away the venv it made (before the fix an empty venv stayed behind).
TEST_F(FaultMatrix, RetriesKnobBoundsTheTriesAndAFailedFirstSetupLeavesNoPrefix) {
    auto& server = *suite().stations[0].server;
    const auto artifact = first_artifact(Mode::lock, PathKind::artifact);
    ASSERT_FALSE(artifact.empty());
    for (int retries : {0, 2}) {
        server.clear_log();
        server.set_fault(artifact, Fault::http_status(503, 10));
        const auto name = "retries-" + std::to_string(retries);
        auto r = setup_once(
            name, Mode::lock,
            {"AITK_ENV_HTTP_RETRIES=" + std::to_string(retries), "AITK_ENV_HTTP_RETRY_DELAY_MS=0"});
        server.clear_faults();
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_EQ(server.requests_for(artifact).size(), static_cast<std::size_t>(retries + 1));
        EXPECT_NE(r.err.find(server.url(artifact)), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("HTTP 503 Service Unavailable"), std::string::npos) << r.err;
        EXPECT_FALSE(stdfs::exists(suite().work->path() / name / "env"));
    }
}

// A PEP 658 file damaged on the way is fetched once more, as an artifact would be (before the
// fix the first mismatch was final).
TEST_F(FaultMatrix, DamagedMetadataFileIsFetchedAgain) {
    auto& server = *suite().stations[0].server;
    const auto metadata = first_artifact(Mode::requirements, PathKind::metadata);
    ASSERT_FALSE(metadata.empty());
    server.clear_log();
    server.set_fault(metadata, Fault::wrong_bytes(1, 3));
    auto r = setup_once("metadata", Mode::requirements, {"AITK_ENV_HTTP_RETRY_DELAY_MS=0"});
    server.clear_faults();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(server.requests_for(metadata).size(), 2u);
}

// A server that is down: the message names the URL and says the connection was refused.
TEST_F(FaultMatrix, ServerDownIsNamed) {
    auto& server = *suite().stations[0].server;
    server.stop();
    auto r = setup_once("down", Mode::lock,
                        {"AITK_ENV_HTTP_RETRIES=1", "AITK_ENV_HTTP_RETRY_DELAY_MS=0"});
    server.start();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(server.base_url() + "/files/"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
