// The real `aitk-env` binary killed with SIGKILL at 50 seeded random instants in each of three
// runs that write: (a) `setup` from a lock into a new prefix with a cold cache, (b) `sync` moving
// a real venv from one lock to another (warm cache: the kills land in planning, staging and
// committing), (c) `setup -r` into an existing prefix with a cold cache (index pages, core
// metadata, wheels and unpacked trees written into the cache, then the prefix changed).
//
// After each kill: the prefix, when it has an interpreter and no commit was interrupted, imports
// every package with its real CPython at exactly the old or exactly the new versions; a plain
// re-run finishes; `verify -p` exits 0; the imports then give the new versions; and the cache
// holds no partial entry (every artifact hashes to its key, every unpacked tree is whole, temporary
// names only in the cache's tmp/). The kill instants only vary what is covered: no assertion
// depends on when a kill landed. AITK_KILL_SEED replays another seed; failures print the seed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/cache/http_entry.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"
#include "http_server.hpp"
#include "matrix_share.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "wheel_builder.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";
constexpr int kills_per_run = 50;

using Versions = std::map<std::string, std::string>;  // import name → __version__

// A package of `modules` modules in four subfolders and a console script; every file names the
// version, so two versions differ in every file.
WheelSpec package(const std::string& name, const std::string& version, int modules) {
    const std::string module = module_name(name);
    WheelSpec spec;
    spec.name = name;
    spec.version = version;
    spec.files.push_back({module + "/__init__.py", "__version__ = '" + version + "'\n"});
    for (int i = 0; i < 4; ++i) {
        spec.files.push_back({module + "/sub" + std::to_string(i) + "/__init__.py", ""});
    }
    for (int i = 0; i < modules; ++i) {
        spec.files.push_back(
            {module + "/sub" + std::to_string(i % 4) + "/m" + std::to_string(i) + ".py",
             "# " + name + " " + version + "\nVALUE = " + std::to_string(i) + "\n" +
                 std::string(100 + i, '#') + "\n"});
    }
    // A module only this version has: its folder must go when the version goes.
    spec.files.push_back({module + "/only_" + version.substr(0, 1) + "/x.py", "X = 1\n"});
    spec.console_scripts = {name + "-tool = " + module + ":main"};
    return spec;
}

// Imports every module named on the command line (and one module deep in it) and prints
// {module: __version__} for those that are installed.
constexpr const char* import_script = R"(import importlib, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        continue
    importlib.import_module(name + '.sub1.m1')
    found[name] = module.__version__
print(json.dumps(found, sort_keys=True))
)";

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Files of an unpacked tree: relative path → size.
using Tree = std::map<std::string, std::uintmax_t>;

Tree list_tree(const stdfs::path& root) {
    Tree tree;
    for (auto it = stdfs::recursive_directory_iterator(root);
         it != stdfs::recursive_directory_iterator(); ++it) {
        if (it->is_directory() && !it->is_symlink()) continue;
        tree[it->path().lexically_relative(root).string()] =
            it->is_regular_file() ? it->file_size() : 0;
    }
    return tree;
}

class KillMatrix : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        if (const char* s = std::getenv("AITK_KILL_SEED")) seed = std::stoul(s);
        MirrorBuilder mirror(work.path() / "mirror");
        for (const auto& spec :
             {package("alpha", "1.0", 32), package("alpha", "2.0", 36), package("beta", "1.0", 20),
              package("beta", "2.0", 16), package("shared", "1.0", 8), package("only-a", "1.0", 12),
              package("only-b", "1.0", 12)}) {
            mirror.add_wheel("simple", spec);
        }
        mirror.write();
        server.serve_directory(mirror.root());
        fs::write_file_atomic(work.path() / "a.txt", "alpha==1.0\nbeta==1.0\nshared\nonly-a\n");
        // only-b by URL: a direct reference (PEP 610) in the locks and the prefixes.
        fs::write_file_atomic(work.path() / "b.txt",
                              "alpha==2.0\nbeta==2.0\nshared\nonly-b @ " +
                                  server.url(mirror.files_of("only-b").at(0)->url_path) + "\n");
        versions_a = {{"alpha", "1.0"}, {"beta", "1.0"}, {"shared", "1.0"}, {"only_a", "1.0"}};
        versions_b = {{"alpha", "2.0"}, {"beta", "2.0"}, {"shared", "1.0"}, {"only_b", "1.0"}};
        for (const char* name : {"a", "b"}) {
            auto locked =
                aitk({"--cache-dir", path("lock-cache"), "lock", "-r",
                      path(std::string(name) + ".txt"), "-o", path(std::string(name) + ".lock.yml"),
                      "--python", "3.12.1", "--target", "linux-x86_64-cpu"});
            ASSERT_EQ(locked.exit_code, 0) << locked.err;
        }
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // The binary's environment: no GPU, CPython 3.12.1 on PATH and nothing else to find, no
    // proxy, the mirror as the index.
    util::Environment environment() const {
        return {{"PATH", python_bin + ":/usr/bin:/bin"},
                {"HOME", work.path().string()},
                {"PYENV_ROOT", "/nonexistent"},
                {"AITK_ENV_NO_GPU", "1"},
                {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
                {"AITK_ENV_NVIDIA_SMI", "/nonexistent"}};
    }

    std::vector<std::string> argv(const std::vector<std::string>& args) const {
        std::vector<std::string> out = {AITK_ENV_EXE, "--no-progress", "--index-url",
                                        server.url("/simple/")};
        out.insert(out.end(), args.begin(), args.end());
        return out;
    }

    Outcome process(std::vector<std::string> full_argv) const {
        util::ProcessRequest request;
        request.argv = std::move(full_argv);
        request.environment = environment();
        request.working_directory = work.path();
        request.timeout = std::chrono::minutes(2);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err + "\n(" + result->describe() + ")"};
    }

    Outcome aitk(const std::vector<std::string>& args) const { return process(argv(args)); }

    // The binary in the background, output discarded, in the work folder.
    pid_t spawn(const std::vector<std::string>& args) const {
        std::vector<std::string> env;
        for (const auto& [name, value] : environment())
            env.push_back(name + "=" + value);
        const pid_t pid = spawn_background(argv(args), env, {}, work.path().string());
        EXPECT_GT(pid, 0) << std::strerror(errno);
        return pid;
    }

    // Runs `args` to completion once, for how long that takes.
    std::chrono::steady_clock::duration timed(const std::vector<std::string>& args,
                                              const std::string& what) {
        auto start = std::chrono::steady_clock::now();
        auto r = aitk(args);
        auto took = std::chrono::steady_clock::now() - start;
        EXPECT_EQ(r.exit_code, 0) << what << "\n" << r.err;
        return took;
    }

    // What the prefix's own interpreter imports: module → __version__.
    Versions imports(const stdfs::path& prefix) const {
        std::vector<std::string> args = {(prefix / "bin" / "python").string(), "-c", import_script};
        for (const char* m : {"alpha", "beta", "shared", "only_a", "only_b"})
            args.push_back(m);
        auto r = process(args);
        EXPECT_EQ(r.exit_code, 0) << "importing from " << prefix << ":\n" << r.err;
        Versions got;
        if (r.exit_code != 0) return got;
        const auto parsed = nlohmann::json::parse(r.out);
        for (const auto& [name, version] : parsed.items())
            got[name] = version.is_string() ? version.get<std::string>() : version.dump();
        return got;
    }

    // Right after a kill: a prefix with an interpreter and no interrupted commit (no journal)
    // is exactly in one of the states. A commit cut short is finished by the next run, which
    // is checked afterwards.
    void expect_old_or_new(const stdfs::path& prefix, const std::vector<const Versions*>& states) {
        if (stdfs::exists(prefix / ".aitk-env" / "txn" / "journal")) {
            ++interrupted_commits;
            return;
        }
        std::error_code ec;
        if (!stdfs::exists(prefix / "pyvenv.cfg", ec) ||
            !stdfs::exists(prefix / "bin" / "python", ec)) {
            return;  // the venv itself was being made
        }
        auto got = imports(prefix);
        bool matches = false;
        for (const auto* state : states)
            matches |= got == *state;
        EXPECT_TRUE(matches) << "the prefix imports " << nlohmann::json(got).dump();
    }

    // After the re-run: clean, and the new state imports.
    void expect_finished(const stdfs::path& prefix, const Versions& want) {
        auto verify = aitk({"verify", "-p", prefix.string()});
        EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
        EXPECT_EQ(imports(prefix), want);
        EXPECT_FALSE(stdfs::exists(prefix / ".aitk-env" / "txn"));
    }

    // Every entry of the cache is whole; temporary names only under tmp/, unless a run was just
    // killed (the next run sweeps those it left beside files it was replacing).
    void expect_cache_whole(const stdfs::path& root, bool just_killed = false) {
        if (!stdfs::exists(root)) return;
        const stdfs::path base = root / "v1";
        for (auto it = stdfs::recursive_directory_iterator(root);
             it != stdfs::recursive_directory_iterator(); ++it) {
            const stdfs::path rel = it->path().lexically_relative(base);
            const std::string name = it->path().filename().string();
            auto part = rel.begin();
            const std::string kind = part == rel.end() ? "" : part->string();
            if (kind == "tmp" || kind == "locks") {
                it.disable_recursion_pending();
                continue;
            }
            if (fs::is_temp_name(name)) {
                EXPECT_TRUE(just_killed) << "temporary file outside tmp/: " << rel;
                continue;
            }
            const auto depth = std::distance(rel.begin(), rel.end());
            if (kind == "artifacts" && depth == 4) {
                const std::string digest =
                    std::next(rel.begin(), 2)->string() + std::next(rel.begin(), 3)->string();
                ASSERT_TRUE(it->is_directory()) << rel;
                std::size_t files = 0;
                for (const auto& f : stdfs::directory_iterator(it->path())) {
                    ++files;
                    EXPECT_EQ(fs::sha256_file_hex(f.path()), digest) << "damaged " << f.path();
                }
                EXPECT_GT(files, 0u) << "empty artifact entry " << rel;
                it.disable_recursion_pending();
            } else if (kind == "unpacked" && depth == 4) {
                const std::string digest =
                    std::next(rel.begin(), 2)->string() + std::next(rel.begin(), 3)->string();
                auto want = reference_trees.find(digest);
                ASSERT_NE(want, reference_trees.end()) << "unknown unpacked tree " << rel;
                EXPECT_EQ(list_tree(it->path()), want->second) << "partial tree " << rel;
                it.disable_recursion_pending();
            } else if (kind == "metadata" && it->is_regular_file()) {
                EXPECT_TRUE(fs::read_file(it->path()).starts_with("Metadata-Version:"))
                    << "damaged metadata " << rel;
            } else if (kind == "http" && it->is_regular_file()) {
                EXPECT_TRUE(cache::parse_http_entry(fs::read_file(it->path())))
                    << "damaged response " << rel;
            } else if (it->is_regular_file() && name.ends_with(".json")) {
                EXPECT_FALSE(
                    nlohmann::json::parse(fs::read_file(it->path()), nullptr, false).is_discarded())
                    << "damaged " << rel;
            }
        }
    }

    // The unpacked trees of an uninterrupted run, to compare every later tree with.
    void remember_trees(const stdfs::path& cache_root) {
        const stdfs::path unpacked = cache_root / "v1" / "unpacked" / "sha256";
        for (const auto& shard : stdfs::directory_iterator(unpacked)) {
            for (const auto& entry : stdfs::directory_iterator(shard.path())) {
                reference_trees[shard.path().filename().string() +
                                entry.path().filename().string()] = list_tree(entry.path());
            }
        }
    }

    // Spawns `args`, kills it after `delay`, reaps it.
    void kill_after(const std::vector<std::string>& args, std::chrono::microseconds delay) {
        pid_t pid = spawn(args);
        ASSERT_GT(pid, 0);
        std::this_thread::sleep_for(delay);
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) ++killed;
    }

    void report(const std::string& what, std::chrono::steady_clock::duration duration) {
        std::cout << "[          ] " << what << ": " << killed << " of " << kills_per_run
                  << " runs killed (the others had finished), " << interrupted_commits
                  << " in a commit; an uninterrupted run took "
                  << std::chrono::duration_cast<std::chrono::milliseconds>(duration).count()
                  << " ms; seed " << seed << "\n";
        killed = interrupted_commits = 0;
    }

    fs::TempDir work = fs::TempDir::create("aitk-kill-matrix");
    HttpServer server;
    unsigned long seed = 20261130;
    Versions versions_a, versions_b;
    std::map<std::string, Tree> reference_trees;
    int killed = 0;
    int interrupted_commits = 0;
};

// The rounds of one run: delay i is spread over 0..1.1 times an uninterrupted run.
template <class Round>
void kill_rounds(unsigned long seed, std::chrono::steady_clock::duration duration,
                 const Round& round) {
    std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
    std::uniform_real_distribution<double> spread(0.0, 1.1);
    for (int i = 0; i < matrix_rounds(kills_per_run); ++i) {
        const auto delay = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::duration<double>(duration) * spread(rng));
        SCOPED_TRACE("seed " + std::to_string(seed) + " (AITK_KILL_SEED), round " +
                     std::to_string(i) + ", killed after " + std::to_string(delay.count()) + " us");
        round(i, delay);
        if (::testing::Test::HasFailure()) break;
    }
}

TEST_F(KillMatrix, SetupIntoANewPrefixWithAColdCache) {
    const stdfs::path prefix = work.path() / "new";
    const stdfs::path cache = work.path() / "cache-a";
    const std::vector<std::string> args = {"--cache-dir",      cache.string(), "setup",        "-l",
                                           path("a.lock.yml"), "-p",           prefix.string()};
    auto duration = timed(args, "uninterrupted setup");
    expect_finished(prefix, versions_a);
    remember_trees(cache);
    ASSERT_EQ(reference_trees.size(), 4u);
    const Versions nothing;
    kill_rounds(seed, duration, [&](int, std::chrono::microseconds delay) {
        stdfs::remove_all(prefix);
        stdfs::remove_all(cache);
        kill_after(args, delay);
        expect_old_or_new(prefix, {&nothing, &versions_a});
        expect_cache_whole(cache, true);
        auto again = aitk(args);
        ASSERT_EQ(again.exit_code, 0) << again.err;
        expect_finished(prefix, versions_a);
        expect_cache_whole(cache);
    });
    report("setup, cold cache, new prefix", duration);
}

TEST_F(KillMatrix, SyncBetweenTwoLocks) {
    const stdfs::path prefix = work.path() / "synced";
    const stdfs::path cache = work.path() / "cache-b";
    auto setup = aitk(
        {"--cache-dir", cache.string(), "setup", "-l", path("a.lock.yml"), "-p", prefix.string()});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    auto sync = [&](const char* lock) {
        return std::vector<std::string>{"--cache-dir", cache.string(), "sync",         "-l",
                                        path(lock),    "-p",           prefix.string()};
    };
    // Both locks' wheels in the cache, so the kills land in planning, staging and committing.
    timed(sync("b.lock.yml"), "first sync to b");
    expect_finished(prefix, versions_b);
    auto duration = timed(sync("a.lock.yml"), "timed sync to a");
    expect_finished(prefix, versions_a);
    remember_trees(cache);
    ASSERT_EQ(reference_trees.size(), 7u);
    kill_rounds(seed + 1, duration, [&](int round, std::chrono::microseconds delay) {
        const bool to_b = round % 2 == 0;
        const auto& from = to_b ? versions_a : versions_b;
        const auto& to = to_b ? versions_b : versions_a;
        const auto args = sync(to_b ? "b.lock.yml" : "a.lock.yml");
        kill_after(args, delay);
        expect_old_or_new(prefix, {&from, &to});
        auto again = aitk(args);
        ASSERT_EQ(again.exit_code, 0) << again.err;
        expect_finished(prefix, to);
        expect_cache_whole(cache);
    });
    report("sync between two locks", duration);
}

TEST_F(KillMatrix, SetupFromRequirementsIntoAnExistingPrefixWithAColdCache) {
    const stdfs::path prefix = work.path() / "existing";
    const stdfs::path cache = work.path() / "cache-c";
    auto setup = [&](const char* requirements) {
        return std::vector<std::string>{"--cache-dir",      cache.string(), "setup",        "-r",
                                        path(requirements), "-p",           prefix.string()};
    };
    timed(setup("a.txt"), "first setup");
    expect_finished(prefix, versions_a);
    remember_trees(cache);
    stdfs::remove_all(cache);
    auto duration = timed(setup("b.txt"), "timed setup to b");
    expect_finished(prefix, versions_b);
    remember_trees(cache);  // b's own wheels: shared stayed installed
    ASSERT_EQ(reference_trees.size(), 7u);
    kill_rounds(seed + 2, duration, [&](int round, std::chrono::microseconds delay) {
        const bool to_a = round % 2 == 0;
        const auto& from = to_a ? versions_b : versions_a;
        const auto& to = to_a ? versions_a : versions_b;
        const char* requirements = to_a ? "a.txt" : "b.txt";
        stdfs::remove_all(cache);
        kill_after(setup(requirements), delay);
        expect_old_or_new(prefix, {&from, &to});
        expect_cache_whole(cache, true);
        auto again = aitk(setup(requirements));
        ASSERT_EQ(again.exit_code, 0) << again.err;
        expect_finished(prefix, to);
        expect_cache_whole(cache);
        // The lock setup wrote is whole too.
        const auto lockfile = work.path() / "lockfiles" / (to_a ? "a.lock.yml" : "b.lock.yml");
        EXPECT_TRUE(lock::parse_lockfile(fs::read_file(lockfile), lockfile.string()));
    });
    report("setup -r, cold cache, existing prefix", duration);
}

// What a setup killed while making the venv leaves (its folders and links, a temporary link,
// the prefix lock, a half-built venv in the state folder, no pyvenv.cfg) is finished by the
// next setup, which also sweeps the temporary files a kill left in the cache beside the probe
// and interpreter caches; a folder with someone's files in it is refused and left as it was.
TEST_F(KillMatrix, ASetupFinishesTheVenvAKilledSetupWasMaking) {
    const stdfs::path prefix = work.path() / "half";
    for (const char* folder :
         {"include/python3.12", "lib/python3.12/site-packages", "bin", ".aitk-env/venv.tmp/bin"}) {
        stdfs::create_directories(prefix / folder);
    }
    stdfs::create_directory_symlink("lib", prefix / "lib64");
    stdfs::create_symlink("python3.12", fs::unique_temp_path(prefix / "bin", "python"));
    fs::write_file_atomic(prefix / ".aitk-env" / "lock", "");
    // What a run killed while replacing the probe cache and the interpreter cache left.
    const stdfs::path cache = work.path() / "cache-half";
    const auto probe_leftover = fs::unique_temp_path(cache / "probe", "hardware.json");
    const auto interpreters_leftover = fs::unique_temp_path(cache / "v1", "interpreters.json");
    stdfs::create_directories(cache / "probe");
    stdfs::create_directories(cache / "v1");
    fs::write_file_atomic(probe_leftover, "{\"half");
    fs::write_file_atomic(interpreters_leftover, "");
    const std::vector<std::string> args = {"--cache-dir",      cache.string(), "setup",        "-l",
                                           path("a.lock.yml"), "-p",           prefix.string()};
    auto setup = aitk(args);
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    expect_finished(prefix, versions_a);
    EXPECT_FALSE(stdfs::exists(prefix / ".aitk-env" / "venv.tmp"));
    EXPECT_FALSE(stdfs::exists(probe_leftover));
    EXPECT_FALSE(stdfs::exists(interpreters_leftover));
    remember_trees(cache);
    expect_cache_whole(cache);

    const stdfs::path foreign = work.path() / "foreign";
    stdfs::create_directories(foreign / "lib");
    fs::write_file_atomic(foreign / "lib" / "notes.txt", "mine\n");
    auto refused = aitk({"--cache-dir", path("cache-half"), "setup", "-l", path("a.lock.yml"), "-p",
                         foreign.string()});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("is not a venv (it has no pyvenv.cfg)"), std::string::npos)
        << refused.err;
    EXPECT_FALSE(stdfs::exists(foreign / ".aitk-env"));
    EXPECT_EQ(fs::read_file(foreign / "lib" / "notes.txt"), "mine\n");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
