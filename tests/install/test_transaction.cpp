// Prefix transactions: a change that removes alpha 1.0 and gone 1.0 and installs alpha 2.0,
// fresh 1.0 and a new receipt is killed (fork + _exit) after every step of its commit, and
// after every step of the recovery of such a kill; the next begin() must leave the prefix
// exactly as it was before or exactly as a complete run leaves it, file for file.
#include "aitk/install/transaction.hpp"

#include <gtest/gtest.h>
#ifndef _WIN32
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <atomic>
#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "journal.hpp"  // private: src/install
#include "test_files.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

// A name a journal must carry intact: a line break on POSIX; Windows names cannot hold one, so
// there the oddities are its own (an ampersand, a caret, non-ASCII).
#ifdef _WIN32
const std::string kOddName = "odd %41 name &^ \xC3\xBC.txt";
#else
const std::string kOddName = "odd %41 name\n.txt";
#endif

// Every entry under the prefix: "dir", "file:<content>" or "link:<target>"; the lock file
// begin() creates is left out (it stays, by design).
using Snapshot = std::map<std::string, std::string>;

Snapshot snapshot(const stdfs::path& prefix) {
    Snapshot out;
    for (auto it = stdfs::recursive_directory_iterator(prefix);
         it != stdfs::recursive_directory_iterator(); ++it) {
        std::string rel = aitk::util::generic_utf8_of(it->path().lexically_relative(prefix));
        if (rel == ".aitk-env/lock") continue;
        if (it->is_symlink()) {
            out[rel] = "link:" + stdfs::read_symlink(it->path()).string();
        } else if (it->is_directory()) {
            out[rel] = "dir";
        } else {
            out[rel] = "file:" + aitk::fs::read_file(it->path());
        }
    }
    return out;
}

// The differences, one line each, so a failure names the files.
std::string diff(const Snapshot& want, const Snapshot& got) {
    std::string out;
    for (const auto& [path, what] : want) {
        auto it = got.find(path);
        if (it == got.end()) {
            out += "missing  " + path + "\n";
        } else if (it->second != what) {
            out += "changed  " + path + "\n";
        }
    }
    for (const auto& [path, what] : got) {
        if (want.count(path) == 0) out += "extra    " + path + "\n";
    }
    return out;
}

WheelSpec spec(std::string name, std::string version, std::vector<aitk::test::FileSpec> files,
               std::vector<std::string> scripts = {}) {
    WheelSpec s;
    s.name = std::move(name);
    s.version = std::move(version);
    s.files = std::move(files);
    s.console_scripts = std::move(scripts);
    return s;
}

class Transaction : public ::testing::Test {
  protected:
    explicit Transaction(aitk::fs::TempDir where = aitk::fs::TempDir::create("txn-test"))
        : dir(std::move(where)) {}

    aitk::fs::TempDir dir;
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12", false);
    std::map<std::string, stdfs::path> trees;

    WheelSpec alpha1 = [] {
        auto s = spec("alpha", "1.0",
                      {{"alpha/__init__.py", "V = 1\n"},
                       {"alpha/core.py", "def f():\n    return 1\n"},
                       {"alpha/old_only.py", "OLD = 1\n"},
                       {"alpha/sub/deep.py", "D = 1\n"},
                       {"alpha/sub/old_sub/x.py", "X = 1\n"}},
                      {"alpha = alpha:main"});
        s.data["data"] = {{"share/alpha/v1.txt", "v1\n"}};
        return s;
    }();
    WheelSpec gone = spec("gone", "1.0", {{"gone.py", "G = 1\n"}, {"gone_pkg/__init__.py", ""}},
                          {"gone = gone:main"});
    WheelSpec keep = spec("keep", "1.0", {{"keep.py", "K = 1\n"}});
    WheelSpec alpha2 = spec("alpha", "2.0",
                            {{"alpha/__init__.py", "V = 2\n"},
                             {"alpha/core.py", "def f():\n    return 2\n"},
                             {"alpha/sub/deep.py", "D = 1\n"},
                             {"alpha/new_only.py", "NEW = 1\n"}},
                            {"alpha = alpha:main", "alpha-new = alpha:main"});
    WheelSpec fresh =
        spec("fresh", "1.0", {{"fresh/__init__.py", "F = 1\n"}}, {"fresh = fresh:main"});

    void install_into(const PrefixLayout& target, const WheelSpec& s) {
        auto built = aitk::test::build_wheel(s, dir.path() / "wheels");
        auto& tree = trees[built.filename];
        if (tree.empty()) {
            tree = dir.path() / "cache" / built.filename;
            unpack_wheel(built.path, tree);
        }
        WheelInstallRequest r;
        r.unpacked = tree;
        r.name = aitk::pep::canonicalize_name(s.name);
        r.version = s.version;
        install_wheel(target, r);
    }

    // The old state: alpha 1.0, gone 1.0 and keep 1.0 with some bytecode, and a receipt.
    void reset() {
        stdfs::remove_all(prefix);
        install_into(layout, alpha1);
        install_into(layout, gone);
        install_into(layout, keep);
        aitk::test::write_file(layout.purelib / "alpha/__pycache__/core.cpython-312.pyc",
                               "pyc core");
        aitk::test::write_file(layout.purelib / "alpha/__pycache__/old_only.cpython-312.pyc",
                               "pyc old");
        aitk::test::write_file(layout.purelib / "__pycache__/gone.cpython-312.pyc", "pyc gone");
        aitk::test::write_file(layout.purelib / "__pycache__/keep.cpython-312.pyc", "pyc keep");
        aitk::test::write_file(layout.state / "receipt.json", "old receipt\n");
    }

    // The change under test, in one transaction.
    void change(const TransactionStepHook& hook = {}) {
        auto txn = PrefixTransaction::begin(layout, {}, hook);
        for (const auto& d : installed_distributions(layout)) {
            if (d.name == "alpha" || d.name == "gone") txn.remove(d);
        }
        install_into(txn.staging(), alpha2);
        install_into(txn.staging(), fresh);
        txn.stage_file(layout.state / "receipt.json", "new receipt\n");
        txn.stage_file(prefix / "share" / aitk::util::path_from_utf8(kOddName), "odd\n");
        txn.commit();
    }

#ifndef _WIN32  // fork: see the kill tests below
    // Runs `body` in a child process that ends with _exit(9) at its `kill_at`-th step (never,
    // when there are fewer steps), and returns how the child ended: 9 killed, 0 finished.
    template <class Body>
    int in_child(int kill_at, const Body& body) {
        pid_t pid = ::fork();
        if (pid == 0) {
            int seen = 0;
            TransactionStepHook hook = [&](std::string_view) {
                if (seen++ == kill_at) ::_exit(9);
            };
            try {
                body(hook);
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

#endif

    std::map<std::string, std::string> versions() {
        std::map<std::string, std::string> out;
        for (const auto& d : installed_distributions(layout))
            out[d.name] = d.version;
        return out;
    }

    // Exactly `want`, and what verify looks at agrees: no drift, no stray file, no txn folder.
    void expect_state(const Snapshot& want, const std::map<std::string, std::string>& want_versions,
                      const std::string& context) {
        SCOPED_TRACE(context);
        EXPECT_EQ(diff(want, snapshot(prefix)), "");
        EXPECT_EQ(versions(), want_versions);
        auto dists = installed_distributions(layout);
        EXPECT_TRUE(verify_records(layout, dists).empty());
        EXPECT_EQ(unowned_files(layout, dists), std::vector<std::string>{});
        EXPECT_FALSE(stdfs::exists(layout.state / "txn"));
    }

    void SetUp() override {
        reset();
        old_state = snapshot(prefix);
        change([&](std::string_view name) { steps.emplace_back(name); });
        new_state = snapshot(prefix);
        reset();
        ASSERT_EQ(diff(old_state, snapshot(prefix)), "");
    }

    const std::map<std::string, std::string> old_versions = {
        {"alpha", "1.0"}, {"gone", "1.0"}, {"keep", "1.0"}};
    const std::map<std::string, std::string> new_versions = {
        {"alpha", "2.0"}, {"fresh", "1.0"}, {"keep", "1.0"}};
    Snapshot old_state, new_state;
    std::vector<std::string> steps;

    std::size_t index_of(std::string_view name) const {
        return static_cast<std::size_t>(std::find(steps.begin(), steps.end(), name) -
                                        steps.begin());
    }
};

// The kill loops fork the test process at each step and end the child with _exit: Windows has
// no fork, so they run on POSIX only (the commit itself runs on Windows in the other tests).
#ifndef _WIN32
// The kill loops fork a few hundred runs: a process dies the same way on any filesystem, and
// a memory one keeps them fast on a busy disk.
class TransactionKills : public Transaction {
  protected:
    TransactionKills() : Transaction(memory_temp()) {}

    static aitk::fs::TempDir memory_temp() {
        std::error_code ec;
        if (stdfs::is_directory("/dev/shm", ec)) {
            return aitk::fs::TempDir::create_in("/dev/shm", "txn-test");
        }
        return aitk::fs::TempDir::create("txn-test");
    }
};
#endif

TEST_F(Transaction, ACompleteRunGivesTheNewStateAndLeavesNothingBehind) {
    change();
    expect_state(new_state, new_versions, "complete run");
    // What left and what stayed, named: the replaced and removed modules' bytecode went with
    // them, keep's stayed; folders only the old versions used are gone, shared ones stay.
    EXPECT_EQ(new_state.count("lib/python3.12/site-packages/alpha/__pycache__"), 0u);
    EXPECT_EQ(new_state.count("lib/python3.12/site-packages/__pycache__/gone.cpython-312.pyc"), 0u);
    EXPECT_EQ(new_state.at("lib/python3.12/site-packages/__pycache__/keep.cpython-312.pyc"),
              "file:pyc keep");
    EXPECT_EQ(new_state.count("lib/python3.12/site-packages/alpha/sub/old_sub"), 0u);
    EXPECT_EQ(new_state.count("lib/python3.12/site-packages/gone_pkg"), 0u);
    EXPECT_EQ(new_state.count("share/alpha"), 0u);
    EXPECT_EQ(new_state.count("bin/gone"), 0u);
    EXPECT_EQ(new_state.count("bin/alpha-new"), 1u);
    EXPECT_EQ(new_state.at(".aitk-env/receipt.json"), "file:new receipt\n");
    EXPECT_EQ(new_state.at("share/" + kOddName), "file:odd\n");

    std::vector<std::string> kinds;
    for (const auto& s : steps) {
        if (kinds.empty() || kinds.back() != s) kinds.push_back(s);
    }
    EXPECT_EQ(kinds, (std::vector<std::string>{"staged", "journal", "trash", "place", "flushed",
                                               "committed", "cleaned", "done"}));
}

#ifndef _WIN32  // fork
TEST_F(TransactionKills, AKillAfterAnyStepOfACommitRecoversToTheOldOrTheNewState) {
    const std::size_t journal = index_of("journal");
    ASSERT_LT(journal, steps.size());
    RecordProperty("commit_steps", static_cast<int>(steps.size()));
    // One more than there are steps: the last child finishes.
    for (std::size_t k = 0; k <= steps.size(); ++k) {
        reset();
        const std::string context =
            k < steps.size() ? "killed after step " + std::to_string(k) + " (" + steps[k] + ")"
                             : "not killed";
        ASSERT_EQ(in_child(static_cast<int>(k), [&](const auto& hook) { change(hook); }),
                  k < steps.size() ? 9 : 0)
            << context;
        RecoveryOutcome want = k < journal            ? RecoveryOutcome::rolled_back
                               : k + 1 < steps.size() ? RecoveryOutcome::rolled_forward
                                                      : RecoveryOutcome::nothing;
        {
            auto txn = PrefixTransaction::begin(layout);
            EXPECT_EQ(txn.recovered(), want) << context;
        }
        if (k < journal) {
            expect_state(old_state, old_versions, context);
        } else {
            expect_state(new_state, new_versions, context);
        }
    }
}
#endif

// A package new to the prefix: its folder and its .dist-info each go in with one rename, not
// file by file, and a kill after any step of that commit or of its recovery still recovers.
#ifndef _WIN32  // fork
TEST_F(TransactionKills, AFreshPackageFolderIsCommittedByOneFolderMove) {
    const auto add_fresh = [&](const TransactionStepHook& hook) {
        auto txn = PrefixTransaction::begin(layout, {}, hook);
        install_into(txn.staging(), fresh);
        txn.commit();
    };
    std::vector<std::string> add_steps;
    std::vector<std::string> journal_moves;
    add_fresh([&](std::string_view name) {
        add_steps.emplace_back(name);
        if (name != "journal") return;
        std::string error;
        auto journal = aitk::install::detail::parse_journal(
            aitk::fs::read_file(layout.state / "txn" / "journal"), error);
        ASSERT_TRUE(journal) << error;
        for (const auto& m : journal->moves) {
            journal_moves.push_back(
                (m.kind == aitk::install::detail::MoveKind::folder ? "move " : "file ") + m.path);
        }
    });
    EXPECT_EQ(journal_moves, (std::vector<std::string>{
                                 "move lib/python3.12/site-packages/fresh",
                                 "move lib/python3.12/site-packages/fresh-1.0.dist-info",
                                 "file bin/fresh",
                             }));
    EXPECT_EQ(add_steps, (std::vector<std::string>{"staged", "journal", "place", "place", "place",
                                                   "flushed", "committed", "cleaned", "done"}));
    const Snapshot added = snapshot(prefix);
    EXPECT_EQ(added.at("lib/python3.12/site-packages/fresh/__init__.py"), "file:F = 1\n");
    auto added_versions = old_versions;
    added_versions["fresh"] = "1.0";
    expect_state(added, added_versions, "complete run");

    const std::size_t journal = 1;
    for (std::size_t k = 0; k <= add_steps.size(); ++k) {
        reset();
        const std::string context = "killed after step " + std::to_string(k);
        ASSERT_EQ(in_child(static_cast<int>(k), add_fresh), k < add_steps.size() ? 9 : 0)
            << context;
        RecoveryOutcome want = k < journal                ? RecoveryOutcome::rolled_back
                               : k + 1 < add_steps.size() ? RecoveryOutcome::rolled_forward
                                                          : RecoveryOutcome::nothing;
        EXPECT_EQ(PrefixTransaction::begin(layout).recovered(), want) << context;
        if (k < journal) {
            expect_state(old_state, old_versions, context);
        } else {
            expect_state(added, added_versions, context);
        }
    }
    // Killed before the first folder move, its recovery killed after each of its steps.
    for (std::size_t j = 0; j < add_steps.size() - 2; ++j) {
        const std::string context = "recovery killed after step " + std::to_string(j);
        reset();
        ASSERT_EQ(in_child(static_cast<int>(journal), add_fresh), 9);
        ASSERT_EQ(in_child(static_cast<int>(j),
                           [&](const auto& hook) { PrefixTransaction::begin(layout, {}, hook); }),
                  9)
            << context;
        EXPECT_NE(recover_prefix(layout), RecoveryOutcome::rolled_back) << context;
        expect_state(added, added_versions, context);
    }
}
#endif

#ifndef _WIN32  // fork
TEST_F(Transaction, AKillWhileStagingRollsBack) {
    ASSERT_EQ(in_child(-1,
                       [&](const auto&) {
                           auto txn = PrefixTransaction::begin(layout);
                           for (const auto& d : installed_distributions(layout))
                               txn.remove(d);
                           install_into(txn.staging(), alpha2);
                           ::_exit(9);
                       }),
              9);
    EXPECT_TRUE(stdfs::exists(layout.state / "txn" / "staging"));
    EXPECT_EQ(recover_prefix(layout), RecoveryOutcome::rolled_back);
    expect_state(old_state, old_versions, "killed while staging");
}
#endif

#ifndef _WIN32  // fork
TEST_F(TransactionKills, AKillAfterAnyStepOfARecoveryStillEndsInTheNewState) {
    const std::size_t journal = index_of("journal");
    const std::size_t committed = index_of("committed");
    for (std::size_t k : {journal, journal + (committed - journal) / 2, committed}) {
        // How many steps the recovery of this kill takes.
        reset();
        ASSERT_EQ(in_child(static_cast<int>(k), [&](const auto& hook) { change(hook); }), 9);
        std::size_t recovery_steps = 0;
        {
            auto txn =
                PrefixTransaction::begin(layout, {}, [&](std::string_view) { ++recovery_steps; });
            EXPECT_EQ(txn.recovered(), RecoveryOutcome::rolled_forward);
        }
        ASSERT_GT(recovery_steps, 0u);
        for (std::size_t j = 0; j < recovery_steps; ++j) {
            const std::string context = "commit killed after step " + std::to_string(k) +
                                        ", its recovery after step " + std::to_string(j);
            reset();
            ASSERT_EQ(in_child(static_cast<int>(k), [&](const auto& hook) { change(hook); }), 9);
            ASSERT_EQ(
                in_child(static_cast<int>(j),
                         [&](const auto& hook) { PrefixTransaction::begin(layout, {}, hook); }),
                9)
                << context;
            EXPECT_NE(recover_prefix(layout), RecoveryOutcome::rolled_back) << context;
            expect_state(new_state, new_versions, context);
        }
    }
}
#endif

TEST_F(Transaction, WithoutCommitThePrefixIsUntouched) {
    {
        auto txn = PrefixTransaction::begin(layout);
        EXPECT_EQ(txn.recovered(), RecoveryOutcome::nothing);
        for (const auto& d : installed_distributions(layout))
            txn.remove(d);
        install_into(txn.staging(), alpha2);
        txn.stage_file(layout.state / "receipt.json", "new receipt\n");
        EXPECT_TRUE(stdfs::exists(layout.state / "txn" / "staging"));
    }
    expect_state(old_state, old_versions, "no commit");
}

TEST_F(Transaction, AnEmptyCommitCreatesNoFolders) {
    auto txn = PrefixTransaction::begin(layout);
    txn.commit();
    EXPECT_FALSE(stdfs::exists(layout.state / "txn"));
    expect_state(old_state, old_versions, "empty commit");
}

TEST_F(Transaction, StagingLaysOutThePrefixUnderTheTransactionFolder) {
    auto txn = PrefixTransaction::begin(layout);
    const auto& staging = txn.staging();
    const stdfs::path root = layout.state / "txn" / "staging";
    EXPECT_EQ(staging.prefix, root);
    EXPECT_EQ(staging.purelib, root / "lib/python3.12/site-packages");
    EXPECT_EQ(staging.scripts, root / "bin");
    EXPECT_EQ(staging.state, root / ".aitk-env");
    EXPECT_EQ(staging.python, layout.python);  // shebangs name the final interpreter
    EXPECT_FALSE(stdfs::exists(root));         // made only when something is staged
}

TEST_F(Transaction, StagingAFileOutsideThePrefixIsRefused) {
    auto txn = PrefixTransaction::begin(layout);
    EXPECT_THROW(txn.stage_file(dir.path() / "elsewhere.txt", "x"), aitk::util::Error);
    EXPECT_THROW(txn.stage_file(prefix / ".." / "elsewhere.txt", "x"), aitk::util::Error);
    EXPECT_THROW(txn.stage_file(layout.state / "txn" / "journal", "x"), aitk::util::Error);
}

TEST_F(Transaction, ASecondBeginInAnotherThreadWaitsForTheFirst) {
    auto first = std::make_unique<PrefixTransaction>(PrefixTransaction::begin(layout));
    std::promise<void> waiting;
    std::atomic<bool> began{false};
    int waits = 0;
    std::thread second([&] {
        auto txn = PrefixTransaction::begin(layout, [&] {
            ++waits;
            waiting.set_value();
        });
        began = true;
    });
    waiting.get_future().wait();
    EXPECT_FALSE(began);  // the first still holds the lock
    first.reset();
    second.join();
    EXPECT_TRUE(began);
    EXPECT_EQ(waits, 1);
}

#ifndef _WIN32  // fork
TEST_F(Transaction, ASecondBeginInAnotherProcessWaitsForTheFirst) {
    auto first = std::make_unique<PrefixTransaction>(PrefixTransaction::begin(layout));
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipe_fds[0]);
        auto txn = PrefixTransaction::begin(layout, [&] { (void)!::write(pipe_fds[1], "w", 1); });
        (void)!::write(pipe_fds[1], "b", 1);
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    char c = 0;
    ASSERT_EQ(::read(pipe_fds[0], &c, 1), 1);
    EXPECT_EQ(c, 'w');
    // The child waits in begin(): nothing more arrives until the first transaction ends.
    ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    EXPECT_EQ(::read(pipe_fds[0], &c, 1), -1);
    ::fcntl(pipe_fds[0], F_SETFL, 0);
    first.reset();
    ASSERT_EQ(::read(pipe_fds[0], &c, 1), 1);
    EXPECT_EQ(c, 'b');
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
#endif

TEST_F(Transaction, ADamagedJournalIsAClearErrorAndChangesNothing) {
    aitk::test::write_file(layout.state / "txn" / "journal",
                           "aitk-env transaction 1\nphase committing\ntrash ../x\n");
    try {
        PrefixTransaction::begin(layout);
        FAIL() << "expected util::Error";
    } catch (const aitk::util::Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find((layout.state / "txn" / "journal").string()), std::string::npos)
            << message;
        EXPECT_NE(message.find("line 3: '../x' is not a path inside the prefix"), std::string::npos)
            << message;
        EXPECT_NE(e.hint().find("delete " + (layout.state / "txn").string()), std::string::npos)
            << e.hint();
    }
    auto now = snapshot(prefix);
    EXPECT_EQ(now.at(".aitk-env/txn/journal").substr(0, 27), "file:aitk-env transaction 1");
    now.erase(".aitk-env/txn/journal");
    now.erase(".aitk-env/txn");
    EXPECT_EQ(diff(old_state, now), "");
    // The failed begin released the lock.
    EXPECT_TRUE(
        aitk::fs::FileLock::try_acquire(layout.state / "lock", aitk::fs::LockMode::exclusive));
}

TEST(TransactionJournal, RoundTripsAnyFileNameAndRefusesDamage) {
    using namespace aitk::install::detail;
    Journal journal;
    journal.moves = {{MoveKind::trash, "lib/a b/%41\n\x01.py"},
                     {MoveKind::place, "bin/tool"},
                     {MoveKind::place, "lib/\xff\xfe.bin"}};
    const std::string text = format_journal(journal);
    EXPECT_EQ(text,
              "aitk-env transaction 1\nphase committing\ntrash lib/a b/%2541%0A%01.py\n"
              "place bin/tool\nplace lib/\xff\xfe.bin\nend 3\n");
    std::string error;
    auto back = parse_journal(text, error);
    ASSERT_TRUE(back) << error;
    ASSERT_EQ(back->moves.size(), 3u);
    EXPECT_EQ(back->moves[0].path, journal.moves[0].path);
    EXPECT_EQ(back->moves[2].path, journal.moves[2].path);
    EXPECT_EQ(back->phase, JournalPhase::committing);

    auto refused = [](std::string_view damaged) {
        std::string why;
        EXPECT_FALSE(parse_journal(damaged, why)) << damaged;
        return why;
    };
    Journal folders;
    folders.phase = JournalPhase::committed;
    folders.moves = {{MoveKind::folder, "lib/pkg"}, {MoveKind::place, "bin/pkg"}};
    EXPECT_EQ(format_journal(folders),
              "aitk-env transaction 1\nphase committed\nmove lib/pkg\nplace bin/pkg\nend 2\n");
    auto folders_back = parse_journal(format_journal(folders), error);
    ASSERT_TRUE(folders_back) << error;
    ASSERT_EQ(folders_back->moves.size(), 2u);
    EXPECT_EQ(folders_back->moves[0].kind, MoveKind::folder);
    EXPECT_EQ(folders_back->moves[0].path, "lib/pkg");
    EXPECT_EQ(folders_back->moves[1].kind, MoveKind::place);

    EXPECT_EQ(refused(""), "line 0: the journal is empty");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase committing\nplace a\n"),
              "line 3: the journal is cut short (no end line)");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase committing\nplace a\nend 2\n"),
              "line 4: the end line does not match the 1 moves read");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase committing\nplace /etc/passwd\nend 1\n"),
              "line 3: '/etc/passwd' is not a path inside the prefix");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase committing\nplace a/%zz\nend 1\n"),
              "line 3: 'a/%zz' is not a path inside the prefix");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase done\nend 0\n"),
              "line 2: unknown phase 'done'");
    EXPECT_EQ(refused("aitk-env transaction 1\nphase committed\nend 0"),
              "line 3: the last line is cut short (no newline)");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
