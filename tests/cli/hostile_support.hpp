#pragma once
// What the hostile-input tests share: a fingerprint of a folder tree (so "a refused input
// changed nothing" is checked on every path, type, mode, byte and link target), the
// environment that keeps the binary away from the machine's own GPU, proxies and
// configuration, and a helper that reads a refusal.
#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "run_cli.hpp"
#include "wheel_builder.hpp"

namespace aitk::test {

// Relative '/'-separated path -> "type mode content-digest-or-link-target".
using TreeState = std::map<std::string, std::string>;

// Every entry under `root` (nothing when `root` does not exist); paths in `skip` (relative)
// and everything below them are left out: a cache's lock and staging files.
inline TreeState tree_state(const std::filesystem::path& root,
                            const std::vector<std::string>& skip = {}) {
    namespace stdfs = std::filesystem;
    TreeState state;
    std::error_code ec;
    if (!stdfs::exists(stdfs::symlink_status(root, ec))) return state;
    auto it = stdfs::recursive_directory_iterator(root, stdfs::directory_options::none, ec);
    for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string rel = it->path().lexically_relative(root).generic_string();
        bool skipped = false;
        for (const auto& s : skip)
            skipped |= rel == s || rel.starts_with(s + "/");
        if (skipped) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
            continue;
        }
#ifdef _WIN32
        // No POSIX modes: the kind of each entry and a file's bytes are what must not change.
        const auto status = stdfs::symlink_status(it->path(), ec);
        if (ec) {
            state[rel] = "vanished";
            ec.clear();
            continue;
        }
        if (stdfs::is_symlink(status)) {
            state[rel] = "link " + stdfs::read_symlink(it->path(), ec).generic_string();
        } else if (stdfs::is_directory(status)) {
            state[rel] = "dir";
        } else if (stdfs::is_regular_file(status)) {
            state[rel] = "file " + fs::sha256_file_hex(it->path());
        } else {
            state[rel] = "special";
        }
#else
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) {
            state[rel] = "vanished";
            continue;
        }
        std::string mode = std::to_string(st.st_mode & 07777);
        if (S_ISLNK(st.st_mode)) {
            state[rel] = "link " + stdfs::read_symlink(it->path(), ec).string();
        } else if (S_ISDIR(st.st_mode)) {
            state[rel] = "dir " + mode;
        } else if (S_ISREG(st.st_mode)) {
            state[rel] = "file " + mode + " " + fs::sha256_file_hex(it->path());
        } else {
            state[rel] = "special " + std::to_string(st.st_mode);
        }
#endif
    }
    return state;
}

// The entries that differ, one per line: "+ path", "- path", "~ path".
inline std::string tree_diff(const TreeState& before, const TreeState& after) {
    std::string out;
    for (const auto& [path, what] : before) {
        auto it = after.find(path);
        if (it == after.end()) {
            out += "- " + path + " (" + what + ")\n";
        } else if (it->second != what) {
            out += "~ " + path + " (" + what + " -> " + it->second + ")\n";
        }
    }
    for (const auto& [path, what] : after) {
        if (!before.count(path)) out += "+ " + path + " (" + what + ")\n";
    }
    return out;
}

// A cache's own coordination files: locks and staging, which any run may leave.
inline const std::vector<std::string> cache_scratch = {"v1/tmp", "v1/locks", "v1/.lock"};
// A prefix's lock file, which names its last holder.
inline const std::vector<std::string> prefix_scratch = {".aitk-env/lock"};

inline std::vector<std::string> isolated_environment(const std::filesystem::path& work,
                                                     const std::string& python_bin) {
    return {"-u http_proxy",
            "-u https_proxy",
            "-u HTTPS_PROXY",
            "-u HTTP_PROXY",
            "-u ALL_PROXY",
            "-u all_proxy",
            "-u AITK_ENV_TORCH_BACKEND",
            "-u AITK_ENV_INDEX_URL",
            "-u AITK_ENV_REWRITE_URL",
#ifdef _WIN32
            "PATH=" + python_bin + ";C:\\windows\\system32;C:\\windows",
#else
            "PATH=" + python_bin + ":/usr/bin:/bin",
#endif
            "PYENV_ROOT=/nonexistent",
            "AITK_ENV_NO_GPU=1",
            "AITK_ENV_NVIDIA_SOURCES=nvidia-smi",
            "AITK_ENV_NVIDIA_SMI=/nonexistent",
            "XDG_CONFIG_HOME=" + shell_quote((work / "xdg").string()),
            "AITK_ENV_SYSTEM_CONFIG_DIR=" + shell_quote((work / "etc").string())};
}

// Whether `text` holds every one of `parts`; the missing ones are listed in `missing`.
inline bool mentions_all(const std::string& text, const std::vector<std::string>& parts,
                         std::string& missing) {
    missing.clear();
    for (const auto& p : parts) {
        if (text.find(p) == std::string::npos) missing += "'" + p + "' ";
    }
    return missing.empty();
}

// The interpreter and the lock target of the hostile worlds: pyenv's CPython 3.11.7 for Linux;
// on Windows the stand-in CPython 3.12.1 (tests/support/windows/standin_python.c), which
// answers the probe as a Windows CPython would (nothing here runs Python code).
#ifdef _WIN32
inline const std::string hostile_python = AITK_STANDIN_PYTHON;
inline const std::string hostile_python_version = "3.12.1";
inline const std::string hostile_target = "windows-x86_64-cpu";
#else
inline const std::string hostile_python = "/root/.pyenv/versions/3.11.7/bin/python3.11";
inline const std::string hostile_python_version = "3.11.7";
inline const std::string hostile_target = "linux-x86_64-cpu";
#endif
inline const std::string hostile_python_bin =
    std::filesystem::path(hostile_python).parent_path().string();

// What every hostile test starts from, made once per suite: a mirror holding "victim 1.0"
// (served at "/"), its lock (one CPU target of this OS), and a prefix set up from that
// lock, beside an empty folder "outside" that nothing may ever write to.
class VictimWorld {
  public:
    VictimWorld() {
        namespace stdfs = std::filesystem;
        for (const char* dir : {"xdg", "etc", "outside"})
            stdfs::create_directories(path(dir));
        MirrorBuilder mirror(path("mirror"));
        mirror.add_index("simple");
        WheelSpec spec;
        spec.name = "victim";
        spec.version = "1.0";
        victim = mirror.add_wheel("simple", spec).artifact;
        mirror.write();
        server.serve_directory(path("mirror"), "/");
        fs::write_file_atomic(path("requirements.txt"), "victim\n");
        auto locked = cli({"lock", "-r", path("requirements.txt").string(), "-o",
                           path("env.lock.yml").string(), "--python", hostile_python_version,
                           "--target", hostile_target});
        if (locked.exit_code != 0) {
            error = "lock: exit " + std::to_string(locked.exit_code) + ": " + locked.err;
            return;
        }
        lock_text = fs::read_file(path("env.lock.yml"));
        auto made = cli({"setup", "-l", path("env.lock.yml").string(), "-p",
                         path("prefix").string(), "--python", hostile_python, "--no-smoke-test"});
        if (made.exit_code != 0)
            error = "setup: exit " + std::to_string(made.exit_code) + ": " + made.err;
    }

    static bool available() { return std::filesystem::exists(hostile_python); }

    std::filesystem::path path(const std::string& name) const { return work.path() / name; }

    // The binary with this world's cache and environment, asking the world's index.
    CliResult cli(std::vector<std::string> args) const {
        return cli_with_index(std::move(args), server.url("/simple/"));
    }
    // The same with another index, or none ("": commands that install from a lock, which would
    // otherwise look the locked files up on the index).
    CliResult cli_with_index(std::vector<std::string> args, const std::string& index_url) const {
        std::vector<std::string> global = {"--no-progress", "--cache-dir", path("cache").string()};
        if (!index_url.empty()) {
            global.push_back("--index-url");
            global.push_back(index_url);
        }
        args.insert(args.begin(), global.begin(), global.end());
        return run_cli(args, "", isolated_environment(work.path(), hostile_python_bin));
    }

    // Everything a refused command must leave as it was.
    struct State {
        TreeState prefix;
        TreeState cache;
        TreeState around;  // the work folder: "outside", inputs, anything a command writes
    };

    State state() const {
        return {tree_state(path("prefix"), prefix_scratch),
                tree_state(path("cache"), cache_scratch),
                tree_state(work.path(), {"prefix", "cache", "mirror"})};
    }

    // "" when nothing changed, else what did, by tree. `fetched_sha256` names an artifact
    // the command downloaded with the hash the lock asked for: its (verified) copy in the
    // download cache is the one change allowed.
    // `valid_pages`: the command read a valid index page (refusing what it points to), so
    // the page's entry in the HTTP cache may appear too.
    static std::string changes(const State& before, const State& after,
                               const std::string& fetched_sha256 = {}, bool valid_pages = false) {
        TreeState cache = after.cache;
        if (valid_pages) {
            std::erase_if(cache, [&](const auto& item) {
                return item.first.starts_with("v1/http") && !before.cache.count(item.first);
            });
        }
        if (!fetched_sha256.empty()) {
            const std::string shard = "v1/artifacts/sha256/" + fetched_sha256.substr(0, 2);
            const std::string entry = shard + "/" + fetched_sha256.substr(2);
            std::erase_if(cache, [&](const auto& item) {
                return item.first == entry || item.first.starts_with(entry + "/") ||
                       (item.first == shard && !before.cache.count(shard)) ||
                       (item.first == "v1/artifacts" && !before.cache.count(item.first)) ||
                       (item.first == "v1/artifacts/sha256" && !before.cache.count(item.first));
            });
        }
        std::string out;
        if (auto d = tree_diff(before.prefix, after.prefix); !d.empty()) out += "prefix:\n" + d;
        if (auto d = tree_diff(before.cache, cache); !d.empty()) out += "cache:\n" + d;
        if (auto d = tree_diff(before.around, after.around); !d.empty()) out += "around:\n" + d;
        return out;
    }

    fs::TempDir work = fs::TempDir::create("aitk-hostile");
    HttpServer server;
    std::string lock_text;  // the lock of victim 1.0
    BuiltArtifact victim;
    std::string error;  // why the world could not be made
};

// The world's binary and environment with the cache `cache` instead of the world's (a cold
// one, so that what the command reads is seen), no index, and a time limit: a run past `limit`
// is killed with its process tree (as the OOM killer would) and has exit code -9.
inline CliResult cli_with_cache(const VictimWorld& world, const std::filesystem::path& cache,
                                std::vector<std::string> args,
                                std::chrono::seconds limit = std::chrono::seconds(600)) {
    util::ProcessRequest request;
    request.argv = {AITK_ENV_EXE, "--no-progress", "--cache-dir", cache.string()};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    for (const auto& entry : isolated_environment(world.work.path(), hostile_python_bin)) {
        if (entry.rfind("-u ", 0) == 0) {
            request.environment_changes[entry.substr(3)] = std::nullopt;
        } else if (const auto eq = entry.find('='); eq != std::string::npos) {
            request.environment_changes[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
    }
    request.timeout = limit;
    CliResult r;
    auto result = util::run_process(request);
    if (!result) {
        r.err = "cannot start aitk-env: " + result.error().message;
        return r;
    }
    r.exit_code = result->end == util::ProcessEnd::timed_out ? -9
                  : result->end == util::ProcessEnd::exited  ? result->exit_code
                                                             : -1;
    r.out = std::move(result->out);
    r.err = std::move(result->err);
    return r;
}

// --- Hostile releases of the victim (test_hostile_skeleton.cpp, test_hostile_expansion.cpp) ---

// A wheel named like a release of the victim ("victim-<version>-py3-none-any.whl" in the
// world's mirror, under files/hostile/<tag>/): the members build_wheel writes for `spec` (its
// name and version are set here), changed by `edit`, written as they are.
inline BuiltArtifact victim_release(
    const VictimWorld& world, const std::string& tag, WheelSpec spec,
    const std::function<void(std::vector<archive::WriteEntry>&)>& edit,
    const std::string& version = "2.0") {
    spec.name = "victim";
    spec.version = version;
    auto entries = wheel_entries(spec);
    edit(entries);
    return write_wheel("victim-" + version + "-py3-none-any.whl", std::move(entries),
                       world.path("mirror/files/hostile/" + tag));
}

// The world's lock with `wheel` in victim 1.0's place (version, hash, size, URL), as a new file
// beside it. Empty when the lock no longer has the shape this expects.
inline std::filesystem::path victim_lock_for(const VictimWorld& world, const BuiltArtifact& wheel,
                                             const std::string& version) {
    auto replace_every = [](std::string& text, const std::string& from, const std::string& to) {
        bool found = false;
        for (auto at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size())) {
            text.replace(at, from.size(), to);
            found = true;
        }
        return found;
    };
    std::string text = world.lock_text;
    const auto& v = world.victim;
    const std::string rel = wheel.path.lexically_relative(world.path("mirror")).generic_string();
    const bool ok = replace_every(text, v.sha256, wheel.sha256) &&
                    replace_every(text, "/files/simple/victim/" + v.filename, "/" + rel) &&
                    replace_every(text, v.filename, wheel.filename) &&
                    replace_every(text, "victim==1.0", "victim==" + version) &&
                    replace_every(text, "version: \"1.0\"", "version: \"" + version + "\"") &&
                    replace_every(text, "size: " + std::to_string(v.size),
                                  "size: " + std::to_string(wheel.size));
    if (!ok) return {};
    static int counter = 0;
    auto out = world.path("release-" + std::to_string(counter++) + ".lock.yml");
    fs::write_file_atomic(out, text);
    return out;
}

// The fixture of a suite whose tests share one VictimWorld, made once per suite (a served mirror
// and a prefix take seconds to build). Its tests are skipped where the world's Python is missing.
// A suite that adds to SetUp calls this one first and stops when it skipped or failed.
class VictimWorldTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (VictimWorld::available()) world = new VictimWorld;
    }
    static void TearDownTestSuite() {
        delete world;
        world = nullptr;
    }
    void SetUp() override {
        if (world == nullptr) GTEST_SKIP() << "no " << hostile_python;
        ASSERT_TRUE(world->error.empty()) << world->error;
    }

    // `content` written to the world's "in/<name>" (folders made); its path as text. Names
    // avoid NUL, CON and the other reserved device names of Windows.
    static std::string write(const std::string& name, const std::string& content) {
        const auto path = world->path("in/" + name).make_preferred();
        std::filesystem::create_directories(path.parent_path());
        fs::write_file_atomic(path, content);
        return path.string();
    }

    static inline VictimWorld* world = nullptr;
};

}  // namespace aitk::test
