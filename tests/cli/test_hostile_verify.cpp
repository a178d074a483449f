// `verify` on prefixes an unlucky user has: a first setup killed after its venv was made (it is
// "incomplete", exit 4, with the command that finishes it; never "clean"), a prefix nobody may
// write to (a read-only mount, `chmod -R a-w`, an immutable tree: verified all the same, exit 0
// or 4, and nothing in it written), and `--json` on every outcome (one JSON object on stdout,
// errors included).
#ifndef _WIN32
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>
#endif

#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// The documented keys of `verify --json` (docs/cli.md), present in every outcome.
const std::vector<std::string> verify_keys = {"status", "target",  "clean",      "packages",
                                              "files",  "unowned", "interrupted"};

#ifndef _WIN32
// A tree nobody may write to while this lives, root included, then as it was. Not root:
// `chmod a-w` on every file and folder. Root ignores modes, so there the tree is made immutable
// (FS_IMMUTABLE_FL, what `chattr +i` sets): every open for writing, creation, rename and
// removal fails with EPERM, as on a read-only mount (EROFS) — the same code paths. `skip` says
// why neither is possible (a file system without the flag, no CAP_LINUX_IMMUTABLE).
class ReadOnlyTree {
  public:
    explicit ReadOnlyTree(const stdfs::path& root) {
        std::vector<stdfs::path> entries = {root};
        for (auto it = stdfs::recursive_directory_iterator(root);
             it != stdfs::recursive_directory_iterator(); ++it) {
            if (!it->is_symlink()) entries.push_back(it->path());
        }
        // Children first, so that a folder is changed after what it holds.
        for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
            if (!protect(*it)) return;
        }
    }
    ~ReadOnlyTree() {
        for (auto it = done_.rbegin(); it != done_.rend(); ++it)
            unprotect(*it);
    }
    ReadOnlyTree(const ReadOnlyTree&) = delete;
    ReadOnlyTree& operator=(const ReadOnlyTree&) = delete;

    std::string skip;

  private:
    struct Done {
        stdfs::path path;
        mode_t mode = 0;
        long flags = 0;
    };

    bool protect(const stdfs::path& path) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) return true;
        Done done{path, st.st_mode & 07777, 0};
        if (::geteuid() != 0) {
            if (::chmod(path.c_str(), done.mode & ~mode_t{0222}) != 0) {
                skip = "cannot chmod " + path.string();
                return false;
            }
            done_.push_back(done);
            return true;
        }
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        long flags = 0;
        bool ok = fd >= 0 && ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        done.flags = flags;
        flags |= FS_IMMUTABLE_FL;
        ok = ok && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        if (fd >= 0) ::close(fd);
        if (!ok) {
            skip = "running as root, and " + path.string() +
                   " cannot be made immutable here (the file system or the capabilities do not "
                   "allow FS_IMMUTABLE_FL)";
            return false;
        }
        done_.push_back(done);
        return true;
    }

    static void unprotect(const Done& done) {
        if (::geteuid() != 0) {
            ::chmod(done.path.c_str(), done.mode);
            return;
        }
        const int fd = ::open(done.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return;
        long flags = done.flags;
        ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
        ::close(fd);
    }

    std::vector<Done> done_;
};
#endif

class HostileVerify : public VictimWorldTest {
  protected:
    // A prefix of its own, set up from the world's lock (the cache is warm: no download).
    static stdfs::path fresh_prefix(const std::string& name) {
        const auto prefix = world->path(name);
        auto made =
            world->cli_with_index({"setup", "-l", world->path("env.lock.yml").string(), "-p",
                                   prefix.string(), "--python", hostile_python, "--no-smoke-test"},
                                  "");
        EXPECT_EQ(made.exit_code, 0) << made.err;
        return prefix;
    }

    static CliResult verify(const stdfs::path& prefix, std::vector<std::string> more = {}) {
        std::vector<std::string> args = {"verify", "-p", prefix.string()};
        args.insert(args.end(), more.begin(), more.end());
        return world->cli_with_index(args, "");
    }

    // `verify --json`: exactly one JSON object on stdout with every documented key.
    static nlohmann::json verify_json(const stdfs::path& prefix, int exit_code,
                                      std::vector<std::string> more = {}) {
        more.insert(more.begin(), "--json");
        auto r = verify(prefix, more);
        EXPECT_EQ(r.exit_code, exit_code) << r.out << r.err;
        auto json = nlohmann::json::parse(r.out, nullptr, false);
        EXPECT_TRUE(json.is_object()) << "stdout is not one JSON object:\n" << r.out << r.err;
        if (!json.is_object()) return nlohmann::json::object();
        for (const auto& key : verify_keys)
            EXPECT_TRUE(json.contains(key)) << key << " missing in " << json.dump();
        return json;
    }
};

#ifndef _WIN32
// SIGKILL to every aitk-env process whose command line holds `text` (from /proc).
void kill_processes_naming(const std::string& text) {
    for (const auto& entry : stdfs::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        // (Read as a stream: /proc files say they are empty.)
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        const std::string cmdline((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
        const std::string exe = cmdline.substr(0, cmdline.find('\0'));
        if (exe == AITK_ENV_EXE && cmdline.find(text) != std::string::npos) {
            ::kill(static_cast<pid_t>(std::stol(name)), SIGKILL);
        }
    }
}

// A first setup killed while it waited for its wheel: the venv is there, nothing is installed,
// no receipt. That prefix is not "clean" (its RECORDs, none, all match): it is incomplete, and
// the message says what finishes it.
TEST_F(HostileVerify, AFirstSetupKilledAfterItsVenvIsIncompleteNotClean) {
    const auto prefix = world->path("killed");
    const std::string wheel_path = "/files/simple/victim/" + world->victim.filename;
    auto hold = Fault::hold_until("/never-asked", 1);
    hold.hold_timeout = std::chrono::seconds(60);
    world->server.set_fault(wheel_path, hold);
    // SIGKILL as soon as the wheel is asked for (the venv is made by then).
    const auto asked_before = world->server.requests_for(wheel_path).size();
    std::atomic<bool> finished{false};
    std::thread killer([&] {
        while (!finished.load()) {
            if (world->server.requests_for(wheel_path).size() > asked_before) {
                kill_processes_naming(prefix.string());
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    // A new cache, so that the wheel must be downloaded (and the download waits).
    auto killed = cli_with_cache(*world, world->path("cold-cache"),
                                 {"setup", "-l", world->path("env.lock.yml").string(), "-p",
                                  prefix.string(), "--python", hostile_python, "--no-smoke-test"},
                                 std::chrono::seconds(120));
    finished = true;
    killer.join();
    world->server.clear_faults();
    ASSERT_GT(world->server.requests_for(wheel_path).size(), asked_before)
        << "setup never reached the wheel";
    ASSERT_EQ(killed.exit_code, -1) << "setup was not killed: " << killed.err;
    ASSERT_TRUE(stdfs::exists(prefix / "pyvenv.cfg"));
    ASSERT_FALSE(stdfs::exists(prefix / ".aitk-env" / "receipt.json"));

    auto r = verify(prefix);
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    EXPECT_EQ(r.out.find("clean"), std::string::npos) << r.out;
    std::string missing;
    EXPECT_TRUE(
        mentions_all(r.out, {"incomplete", "aitk-env sync -l", "-p " + prefix.string()}, missing))
        << "missing " << missing << " in:\n"
        << r.out;

    auto json = verify_json(prefix, 4);
    EXPECT_EQ(json.value("status", ""), "incomplete");
    EXPECT_EQ(json.value("clean", true), false);
    EXPECT_NE(json.value("fix", "").find("aitk-env sync -l"), std::string::npos) << json.dump();

    // The sync it suggests (with the lock it was set up from) finishes the prefix.
    auto sync = world->cli_with_index(
        {"sync", "-l", world->path("env.lock.yml").string(), "-p", prefix.string()}, "");
    EXPECT_EQ(sync.exit_code, 0) << sync.err;
    EXPECT_EQ(verify(prefix).exit_code, 0);
}

// A venv no setup or sync of aitk-env ever finished in (made by `python -m venv`).
TEST_F(HostileVerify, AVenvNoSetupFinishedInIsIncomplete) {
    const auto prefix = world->path("bare-venv");
    util::ProcessRequest venv;
    venv.argv = {hostile_python, "-m", "venv", "--without-pip", prefix.string()};
    auto made = util::run_process(venv);
    ASSERT_TRUE(made && made->succeeded());

    auto json = verify_json(prefix, 4);
    EXPECT_EQ(json.value("status", ""), "incomplete");
    auto with_lock = verify_json(prefix, 4, {"-l", world->path("env.lock.yml").string()});
    EXPECT_EQ(with_lock.value("status", ""), "incomplete");
    EXPECT_NE(with_lock.value("fix", "").find(world->path("env.lock.yml").string()),
              std::string::npos)
        << with_lock.dump();
}

// Verifying reads; it needs no write access to the prefix (a shared install mounted
// read-only, a prefix owned by another user). Clean is 0, drift is 4, as anywhere else, and
// not one byte, mode or time stamp of the prefix changes.
TEST_F(HostileVerify, AReadOnlyPrefixIsVerifiedWithoutWritingAnything) {
    const auto prefix = fresh_prefix("read-only");
    const auto site = prefix / "lib" / "python3.11" / "site-packages";
    {
        const auto before = tree_state(prefix);
        ReadOnlyTree frozen(prefix);
        if (!frozen.skip.empty()) GTEST_SKIP() << frozen.skip;
        auto r = verify(prefix);
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("clean"), std::string::npos) << r.out;
        auto json = verify_json(prefix, 0);
        EXPECT_EQ(json.value("status", ""), "clean");
        EXPECT_EQ(tree_diff(before, tree_state(prefix)), "");
    }
    fs::write_file_atomic(site / "victim" / "__init__.py", "edited = True\n");
    {
        const auto before = tree_state(prefix);
        ReadOnlyTree frozen(prefix);
        if (!frozen.skip.empty()) GTEST_SKIP() << frozen.skip;
        auto json = verify_json(prefix, 4);
        EXPECT_EQ(json.value("status", ""), "drift");
        ASSERT_EQ(json["files"].size(), 1u) << json.dump();
        EXPECT_EQ(json["files"][0].value("problem", ""), "modified");
        EXPECT_EQ(tree_diff(before, tree_state(prefix)), "");
    }
}

// A change to a read-only prefix that was interrupted: verify reports it (4) and leaves the
// journal for the next sync, which needs write access, to finish; it rolls nothing forward.
TEST_F(HostileVerify, AnInterruptedChangeOnAReadOnlyPrefixIsReportedNotRecovered) {
    const auto prefix = fresh_prefix("read-only-interrupted");
    const auto txn = prefix / ".aitk-env" / "txn";
    stdfs::create_directories(txn / "staging");
    fs::write_file_atomic(txn / "journal", "");
    const auto before = tree_state(prefix);
    ReadOnlyTree frozen(prefix);
    if (!frozen.skip.empty()) GTEST_SKIP() << frozen.skip;

    auto r = verify(prefix);
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    EXPECT_NE(r.out.find("interrupted"), std::string::npos) << r.out;
    auto json = verify_json(prefix, 4);
    EXPECT_EQ(json.value("status", ""), "incomplete");
    EXPECT_EQ(json.value("interrupted", false), true);
    EXPECT_EQ(tree_diff(before, tree_state(prefix)), "");
}
#endif

// Every outcome of `verify --json`, the errors included, is one JSON object on stdout with the
// documented keys; an error adds what went wrong and the exit code, as stderr says.
TEST_F(HostileVerify, JsonIsPrintedForEveryOutcome) {
    const auto prefix = fresh_prefix("json-outcomes");
#ifdef _WIN32
    const auto site = prefix / "Lib" / "site-packages";
#else
    const auto site = prefix / "lib" / "python3.11" / "site-packages";
#endif
    EXPECT_EQ(verify_json(prefix, 0).value("status", ""), "clean");

    const auto bad_lock = world->path("json-bad.lock.yml");
    fs::write_file_atomic(bad_lock, "x-aitk-env: [\n");
    auto error = verify_json(prefix, 2, {"-l", bad_lock.string()});
    EXPECT_EQ(error.value("status", ""), "error");
    EXPECT_EQ(error.value("exit_code", 0), 2);
    EXPECT_NE(error.value("error", "").find(bad_lock.string()), std::string::npos) << error.dump();

    auto unknown_target = verify_json(prefix, 2, {"--target", "linux-x86_64-cu999"});
    EXPECT_EQ(unknown_target.value("status", ""), "error");
    EXPECT_NE(unknown_target.value("error", "").find("linux-x86_64-cu999"), std::string::npos);

    // A usage error the command line parser finds (a malformed --target, an unknown flag).
    auto usage = verify_json(prefix, 2, {"--target", "../x"});
    EXPECT_EQ(usage.value("status", ""), "error");
    EXPECT_NE(usage.value("error", "").find("--target"), std::string::npos) << usage.dump();
    EXPECT_EQ(verify_json(prefix, 2, {"--no-such-flag"}).value("status", ""), "error");

    const auto not_a_prefix = world->path("outside");
    auto none = verify_json(not_a_prefix, 2);
    EXPECT_EQ(none.value("status", ""), "error");
    EXPECT_NE(none.value("error", "").find("is not a prefix"), std::string::npos) << none.dump();
    EXPECT_NE(none.value("hint", "").find("aitk-env setup"), std::string::npos) << none.dump();

    stdfs::remove(site / "victim" / "__init__.py");
    auto drift = verify_json(prefix, 4);
    EXPECT_EQ(drift.value("status", ""), "drift");
    ASSERT_EQ(drift["files"].size(), 1u) << drift.dump();
    EXPECT_EQ(drift["files"][0].value("problem", ""), "missing");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
