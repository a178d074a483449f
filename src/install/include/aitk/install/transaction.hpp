#pragma once
// Changing a prefix so that a crash (SIGINT, SIGKILL, power loss) at any instant leaves it
// recoverable to exactly the old or exactly the new state.
//
// Everything lives in <state>/txn/ (same filesystem as the prefix, so renames are atomic):
//   journal   phase + every move the commit makes, written atomically and fsynced
//   staging/  new files, laid out like the prefix (install_wheel writes into staging())
//   trash/    replaced and removed files, deleted only once the commit is complete
//
// Phases: no journal → an interrupted run is rolled back (staging deleted, the prefix was never
// touched); "committing" → rolled forward (every step is idempotent: a staged file still in
// staging/ is moved into place, a file to remove still in place goes to trash/); "committed" →
// only the trash and staging are deleted.
//
// A commit: flush the filesystem (staged data durable) → journal "committing" listing every
// move → files that leave go to trash/ → a staged folder whose place in the prefix is free moves
// whole with one rename (a fresh package's folder) → each other staged file takes its place (the
// file it replaces gets a second name in trash/ first, so the path is never missing) → folders left
// empty are removed → flush → journal "committed" → trash/ and staging/ deleted → journal deleted.
//
// One exclusive lock (<state>/lock) is held for the transaction's life, so two aitk-env
// processes never change one prefix at once.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/fs/lock.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"

namespace aitk::install {

enum class RecoveryOutcome { nothing, rolled_back, rolled_forward };

// Test seam: called after each step of a commit or of the recovery of one ("staged",
// "journal", one "trash" or "place" per move, "flushed", "committed", "cleaned", "done"), so a
// test can kill the process at every point. Never set in production.
using TransactionStepHook = std::function<void(std::string_view step)>;

// Finishes or undoes what an interrupted transaction left in `layout`; the caller holds the
// prefix lock (PrefixTransaction::begin does both). Throws util::Error naming the journal when
// it is unreadable (the message says how to recover by hand).
RecoveryOutcome recover_prefix(const PrefixLayout& layout);

// <state>/lock: exclusive for a change, shared for readers (verify), so a reader never sees a
// commit half done.
std::filesystem::path prefix_lock_file(const PrefixLayout& layout);

// Takes <state>/lock exclusively (blocking; `on_wait` is called once, with the id of the process
// that holds it when it recorded one, if another process holds it) and records this process as
// its holder. For a caller that changes the prefix around a transaction (setup makes the venv
// first and writes the shims after): it passes the lock to PrefixTransaction::begin.
fs::FileLock lock_prefix(const PrefixLayout& layout,
                         const std::function<void(std::optional<long> holder)>& on_wait = {});

// A change was interrupted (<state>/txn exists) and waits for the next change to recover it.
bool has_interrupted_transaction(const PrefixLayout& layout);

class PrefixTransaction {
  public:
    // Takes the prefix lock (blocking; `on_wait` is called once if another process holds it),
    // recovers an interrupted transaction, and starts an empty staging area. With `held` (the
    // caller's lock_prefix, kept for longer than the transaction) no lock is taken.
    static PrefixTransaction begin(const PrefixLayout& layout,
                                   const std::function<void()>& on_wait = {},
                                   TransactionStepHook hook = {},
                                   const fs::FileLock* held = nullptr);

    PrefixTransaction(PrefixTransaction&&) noexcept;
    PrefixTransaction& operator=(PrefixTransaction&&) noexcept;
    ~PrefixTransaction();  // without commit(): staging discarded, the prefix untouched

    // What the last recovery (inside begin) did.
    RecoveryOutcome recovered() const;

    // The real layout with every folder rebased under staging/; `python` is still the real
    // interpreter, so shebangs and script wrappers name the final path. RECORD paths are
    // relative, so they are right once the files are moved into place.
    const PrefixLayout& staging() const;

    // Every file of `dist` (its RECORD, the .dist-info folder, the __pycache__ entries of its
    // .py files) leaves the prefix at commit, unless a staged file takes its place.
    void remove(const InstalledDistribution& dist);

    // A whole file (receipt, lock copy) written to `destination` (absolute, inside the prefix)
    // at commit.
    void stage_file(const std::filesystem::path& destination, std::string_view content);

    // Journal → moves → "committed" → trash and staging deleted. Throws util::Error on an I/O
    // failure; the journal then lets the next run finish the commit.
    void commit();

    // Starts what commit's flush has to wait for: everything written to the prefix's
    // filesystem so far reaches the disk now, from any thread, while staging goes on (commit
    // then waits only for what came after). Best effort: an error is left for commit's flush.
    void flush_ahead() const noexcept;

  private:
    struct State;
    explicit PrefixTransaction(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace aitk::install
