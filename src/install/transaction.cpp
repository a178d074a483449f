// PrefixTransaction: stage, journal, move, clean up; and the recovery that finishes or undoes
// whatever an interrupted run left behind. Every step of a commit is idempotent, so recovery
// replays the journal from the top and skips what is already done. A staged folder whose place
// in the prefix is free (a new package's folder, all of torch/ in a new prefix) moves with one
// rename: making, renaming and removing its thousands of entries one by one was most of a
// fresh install's time.
#include "aitk/install/transaction.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "durable.hpp"
#include "journal.hpp"
#include "ownership.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;
using detail::Journal;
using detail::JournalMove;
using detail::JournalPhase;
using detail::MoveKind;
using detail::TxnPaths;

void step(const TransactionStepHook& hook, std::string_view name) {
    if (hook) hook(name);
}

bool present(const stdfs::path& path) {
    std::error_code ec;
    return stdfs::exists(stdfs::symlink_status(path, ec));
}

bool is_real_directory(const stdfs::path& path) {
    std::error_code ec;
    return stdfs::is_directory(stdfs::symlink_status(path, ec));
}

[[noreturn]] void fail_move(const stdfs::path& from, const stdfs::path& to,
                            const std::error_code& ec) {
    throw util::Error(util::ExitCode::failure,
                      "cannot move " + util::utf8_of(stdfs::path(from).make_preferred()) + " to " +
                          util::utf8_of(stdfs::path(to).make_preferred()) + ": " + ec.message(),
                      "fix the cause and run aitk-env again: it finishes the change");
}

void rename_or_throw(const stdfs::path& from, const stdfs::path& to) {
    std::error_code ec;
    stdfs::rename(from, to, ec);
    if (ec) fail_move(from, to, ec);
}

// Creates each destination folder once.
class FolderMaker {
  public:
    void ensure(const stdfs::path& folder) {
        if (made_.count(folder) != 0) return;
        std::error_code ec;
        stdfs::create_directories(folder, ec);
        if (ec) {
            throw util::Error(
                util::ExitCode::failure,
                "cannot create folder " + util::utf8_of(folder) + ": " + ec.message());
        }
        made_.insert(folder);
    }

  private:
    std::set<stdfs::path> made_;
};

// Renames `from` to `to`, making the folder of `to` when it is missing: trying the rename
// first spares a look at the folder for every file. False when `from` is gone (a replay after
// the move was done). The folders are looked at rather than the error: Windows reports a
// missing destination folder as ERROR_PATH_NOT_FOUND, which the C++ runtime maps to ENOENT or
// to EIO depending on its version.
bool move_into(const stdfs::path& from, const stdfs::path& to, FolderMaker& folders) {
    std::error_code ec;
    stdfs::rename(from, to, ec);
    if (!ec) return true;
    if (!present(from)) return false;
    std::error_code folder_ec;
    if (stdfs::is_directory(to.parent_path(), folder_ec)) fail_move(from, to, ec);
    folders.ensure(to.parent_path());
    rename_or_throw(from, to);
    return true;
}

// One move of the journal, done only if it is not done yet: a trash move is done once its
// trash entry exists (or the file is gone), a place or folder move once its staged entry is
// gone. A rename is atomic, so a crash leaves a folder move either not started (the staged
// folder is there) or done (it is gone and its whole tree is in the prefix).
void apply(const TxnPaths& paths, const JournalMove& m, FolderMaker& folders) {
    const stdfs::path in_prefix = paths.in_prefix(m.path);
    if (m.kind == MoveKind::trash) {
        const stdfs::path in_trash = paths.in_trash(m.path);
        if (present(in_trash)) return;
        move_into(in_prefix, in_trash, folders);
        return;
    }
    const stdfs::path staged = paths.in_staging(m.path);
    if (m.kind == MoveKind::place) {
        std::error_code ec;
        const auto old = stdfs::symlink_status(in_prefix, ec);
        if (stdfs::exists(old)) {
            if (!present(staged)) return;
            bool folder = stdfs::is_directory(old);
            const stdfs::path in_trash = paths.in_trash(m.path);
            if (!present(in_trash)) {
                folders.ensure(in_trash.parent_path());
                // A second name for the old file, then one rename over it: the path never
                // goes missing, and a replay finds the old file kept whichever step it
                // stopped after.
                if (folder) {
                    rename_or_throw(in_prefix, in_trash);
                    folder = false;
                } else if (stdfs::create_hard_link(in_prefix, in_trash, ec); ec) {
                    rename_or_throw(in_prefix, in_trash);
                }
            }
            if (folder) {
                // A folder whose files all left (commit checks that before the journal): a
                // file of it in trash/ made the check above skip it.
                stdfs::remove(in_prefix, ec);
            }
        }
    }
    // A folder move's place was free when the journal was written, and the prefix lock kept
    // it so; should something have taken it anyway, the rename refuses a folder with files.
    move_into(staged, in_prefix, folders);
}

std::string_view step_name(MoveKind kind) {
    // A folder move places staged files too, only many at once.
    return kind == MoveKind::trash ? "trash" : "place";
}

// The end of every transaction: the trash and staging go, then the journal, then the folder.
void clean_up(const TxnPaths& paths, const TransactionStepHook& hook) {
    // A trash that cannot be deleted is only wasted space: the next run tries again.
    fs::remove_all_quietly(paths.trash);
    fs::remove_all_quietly(paths.staging);
    step(hook, "cleaned");
    detail::remove_journal(paths);
    fs::remove_all_quietly(paths.root);
    step(hook, "done");
}

// From a durable "committing" journal to the end: moves, empty folders pruned, everything
// flushed, "committed", clean-up.
void roll_forward(const TxnPaths& paths, const PrefixLayout& layout, const Journal& journal,
                  const TransactionStepHook& hook) {
    if (journal.phase == JournalPhase::committing) {
        FolderMaker folders;
        std::set<stdfs::path> emptied;
        for (const auto& m : journal.moves) {
            apply(paths, m, folders);
            if (m.kind == MoveKind::trash) emptied.insert(paths.in_prefix(m.path).parent_path());
            step(hook, step_name(m.kind));
        }
        detail::prune_empty_folders(layout, paths, emptied);
        detail::flush_filesystem(paths.prefix);
        step(hook, "flushed");
        detail::write_journal(paths, Journal{JournalPhase::committed, {}});
        step(hook, "committed");
    }
    clean_up(paths, hook);
}

RecoveryOutcome recover(const PrefixLayout& layout, const TransactionStepHook& hook) {
    const TxnPaths paths(layout);
    if (!present(paths.root)) return RecoveryOutcome::nothing;
    auto journal = detail::read_journal(paths);
    if (journal) {
        roll_forward(paths, layout, *journal, hook);
        return RecoveryOutcome::rolled_forward;
    }
    // No journal: the prefix was never touched; what was staged is thrown away.
    const bool staged = present(paths.staging) || present(paths.trash);
    if (!fs::remove_all_quietly(paths.root)) {
        throw util::Error(
            util::ExitCode::failure,
            "cannot remove " + util::utf8_of(paths.root) + ", left by an interrupted aitk-env run",
            "remove it by hand (nothing in the prefix depends on it)");
    }
    return staged ? RecoveryOutcome::rolled_back : RecoveryOutcome::nothing;
}

// What commit moves from staging: whole folders new to the prefix, and the files (and
// symlinks) of folders already there. Sorted journal paths.
struct StagedEntries {
    std::vector<std::string> folders;
    std::vector<std::string> files;
};

[[noreturn]] void fail_listing(const stdfs::path& folder, const std::error_code& ec) {
    throw util::Error(util::ExitCode::failure, "cannot list the staged files in " +
                                                   util::utf8_of(folder) + ": " + ec.message());
}

// Whether a file (or symlink) is somewhere under the staged folder `folder`: a staged tree of
// empty folders is left out, as it always was.
bool holds_file(const stdfs::path& folder) {
    std::error_code ec;
    for (stdfs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) return true;
        if (holds_file(it->path())) return true;
    }
    if (ec) fail_listing(folder, ec);
    return false;
}

// `relative` ("" for the staging root) maps onto a prefix folder when `onto_folder`; below a
// prefix path that is not a folder every staged file is listed, for check_places to judge.
void list_staged(const TxnPaths& paths, const stdfs::path& folder, const std::string& relative,
                 bool onto_folder, StagedEntries& out) {
    std::error_code ec;
    for (stdfs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = detail::to_journal_path(it->path().filename());
        const std::string rel = relative.empty() ? name : relative + "/" + name;
        std::error_code type_ec;
        if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) {
            out.files.push_back(rel);
            continue;
        }
        bool child_onto_folder = false;
        if (onto_folder) {
            const stdfs::path destination = paths.in_prefix(rel);
            std::error_code status_ec;
            const auto status = stdfs::symlink_status(destination, status_ec);
            if (!stdfs::exists(status)) {
                if (holds_file(it->path())) out.folders.push_back(rel);
                continue;
            }
            // A symlink to a folder is a folder: files go through it, as before.
            child_onto_folder = stdfs::is_directory(status) ||
                                (stdfs::is_symlink(status) &&
                                 stdfs::is_directory(stdfs::status(destination, status_ec)));
        }
        list_staged(paths, it->path(), rel, child_onto_folder, out);
    }
    if (ec) fail_listing(folder, ec);
}

StagedEntries staged_entries(const TxnPaths& paths) {
    StagedEntries out;
    if (!present(paths.staging)) return out;
    list_staged(paths, paths.staging, "", true, out);
    std::sort(out.folders.begin(), out.folders.end());
    std::sort(out.files.begin(), out.files.end());
    return out;
}

// Whether a file that stays (one not in `leaving`) is somewhere under `folder`.
bool keeps_files(const TxnPaths& paths, const stdfs::path& folder,
                 const std::set<std::string>& leaving) {
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(folder, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) continue;
        if (leaving.count(detail::to_journal_path(it->path().lexically_relative(paths.prefix))) ==
            0) {
            return true;
        }
    }
    return static_cast<bool>(ec);  // a folder that cannot be read is not ours to replace
}

void refuse_transaction_paths(const TxnPaths& paths, const stdfs::path& destination) {
    if (detail::is_within(destination, paths.root) ||
        destination == paths.root.parent_path() / "lock") {
        // Only a hostile wheel's .data/data/ folder can name these.
        throw util::Error(util::ExitCode::failure, "refusing to install " +
                                                       util::utf8_of(destination) +
                                                       ": aitk-env keeps its transaction there");
    }
}

// Refuses, before anything moves, a staged file whose place is a folder that keeps files, or
// whose folder would have to be made where a file stays. A staged folder moved whole has a
// free place inside a folder (list_staged chose it so); only the transaction's own paths are
// refused there.
void check_places(const TxnPaths& paths, const StagedEntries& entries,
                  const std::set<std::string>& leaving) {
    for (const auto& rel : entries.folders)
        refuse_transaction_paths(paths, paths.in_prefix(rel));
    std::set<stdfs::path> checked;  // a folder and every folder above it
    for (const auto& rel : entries.files) {
        const stdfs::path destination = paths.in_prefix(rel);
        refuse_transaction_paths(paths, destination);
        std::error_code ec;
        if (is_real_directory(destination) && keeps_files(paths, destination, leaving)) {
            throw util::Error(util::ExitCode::failure,
                              "cannot install " + util::utf8_of(destination) +
                                  ": a folder with files is in its place",
                              "move the folder away and run aitk-env again");
        }
        for (stdfs::path folder = destination.parent_path();
             folder != paths.prefix && detail::is_within(folder, paths.prefix);
             folder = folder.parent_path()) {
            if (!checked.insert(folder).second) break;
            auto status = stdfs::status(folder, ec);  // a symlink to a folder is a folder
            if (!stdfs::exists(status)) continue;
            const std::string folder_rel =
                detail::to_journal_path(folder.lexically_relative(paths.prefix));
            if (!stdfs::is_directory(status) && leaving.count(folder_rel) == 0) {
                throw util::Error(util::ExitCode::failure,
                                  "cannot install " + util::utf8_of(destination) + ": " +
                                      util::utf8_of(folder) + " is a file, not a folder",
                                  "move the file away and run aitk-env again");
            }
            break;
        }
    }
}

// The layout folder `path`, moved from under the prefix to under the staging folder.
stdfs::path rebase(const stdfs::path& path, const TxnPaths& paths) {
    stdfs::path rel = detail::absolute_normal(path).lexically_relative(paths.prefix);
    if (rel.empty() || *rel.begin() == "..") {
        throw util::Error(util::ExitCode::failure,
                          "cannot stage changes to " + util::utf8_of(path) +
                              ": it is outside the prefix " + util::utf8_of(paths.prefix));
    }
    return rel == "." ? paths.staging : paths.staging / rel;
}

}  // namespace

RecoveryOutcome recover_prefix(const PrefixLayout& layout) {
    return recover(layout, {});
}

struct PrefixTransaction::State {
    PrefixLayout layout;
    PrefixLayout staging;
    TxnPaths paths;
    std::optional<fs::FileLock> lock;  // none when the caller holds it
    TransactionStepHook hook;
    RecoveryOutcome recovered = RecoveryOutcome::nothing;
    std::vector<detail::OwnedFiles> removed;
    bool journal_written = false;  // from here on, only recovery may touch the txn folder
    bool finished = false;

    State(const PrefixLayout& l, std::optional<fs::FileLock> held, TransactionStepHook h)
        : layout(l), staging(l), paths(l), lock(std::move(held)), hook(std::move(h)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;

    ~State() {
        if (finished || journal_written) return;
        fs::remove_all_quietly(paths.staging);
        std::error_code ec;
        stdfs::remove(paths.root, ec);  // only when empty
    }
};

PrefixTransaction::PrefixTransaction(std::unique_ptr<State> state) : state_(std::move(state)) {}
PrefixTransaction::PrefixTransaction(PrefixTransaction&&) noexcept = default;
PrefixTransaction& PrefixTransaction::operator=(PrefixTransaction&&) noexcept = default;
PrefixTransaction::~PrefixTransaction() = default;

std::filesystem::path prefix_lock_file(const PrefixLayout& layout) {
    return detail::absolute_normal(layout.state) / "lock";
}

bool has_interrupted_transaction(const PrefixLayout& layout) {
    std::error_code ec;
    return stdfs::exists(TxnPaths(layout).root, ec);
}

fs::FileLock lock_prefix(const PrefixLayout& layout,
                         const std::function<void(std::optional<long> holder)>& on_wait) {
    const stdfs::path lock_file = prefix_lock_file(layout);
    auto lock = fs::FileLock::try_acquire(lock_file, fs::LockMode::exclusive);
    if (!lock) {
        if (on_wait) on_wait(fs::FileLock::recorded_owner(lock_file));
        lock = fs::FileLock::acquire(lock_file, fs::LockMode::exclusive);
    }
    lock->record_owner();
    return std::move(*lock);
}

PrefixTransaction PrefixTransaction::begin(const PrefixLayout& layout,
                                           const std::function<void()>& on_wait,
                                           TransactionStepHook hook, const fs::FileLock* held) {
    std::optional<fs::FileLock> lock;
    if (held == nullptr) {
        lock = lock_prefix(layout, [&](std::optional<long>) {
            if (on_wait) on_wait();
        });
    } else if (!held->held() || held->mode() != fs::LockMode::exclusive ||
               held->path() != prefix_lock_file(layout)) {
        throw std::logic_error("PrefixTransaction::begin: the lock passed is not the prefix's");
    }
    RecoveryOutcome outcome = recover(layout, hook);
    auto state = std::make_unique<State>(layout, std::move(lock), std::move(hook));
    state->recovered = outcome;
    const TxnPaths& paths = state->paths;
    PrefixLayout& staging = state->staging;
    staging.prefix = paths.staging;
    staging.purelib = rebase(layout.purelib, paths);
    staging.platlib = rebase(layout.platlib, paths);
    staging.scripts = rebase(layout.scripts, paths);
    staging.headers = rebase(layout.headers, paths);
    staging.data = rebase(layout.data, paths);
    staging.state = rebase(layout.state, paths);
    return PrefixTransaction(std::move(state));
}

RecoveryOutcome PrefixTransaction::recovered() const {
    return state_->recovered;
}

const PrefixLayout& PrefixTransaction::staging() const {
    return state_->staging;
}

void PrefixTransaction::remove(const InstalledDistribution& dist) {
    if (state_->journal_written || state_->finished) {
        throw std::logic_error("PrefixTransaction::remove after commit");
    }
    state_->removed.push_back(detail::owned_files(state_->paths, state_->layout, dist));
}

void PrefixTransaction::stage_file(const std::filesystem::path& destination,
                                   std::string_view content) {
    const TxnPaths& paths = state_->paths;
    if (state_->journal_written || state_->finished) {
        throw std::logic_error("PrefixTransaction::stage_file after commit");
    }
    const stdfs::path target = detail::absolute_normal(destination);
    if (target == paths.prefix || !detail::is_within(target, paths.prefix) ||
        detail::is_within(target, paths.root)) {
        throw util::Error(util::ExitCode::failure, "cannot stage " + util::utf8_of(destination) +
                                                       ": it is not a file inside the prefix " +
                                                       util::utf8_of(paths.prefix));
    }
    const stdfs::path staged = paths.staging / target.lexically_relative(paths.prefix);
    std::error_code ec;
    stdfs::create_directories(staged.parent_path(), ec);
    if (ec) {
        throw util::Error(
            util::ExitCode::failure,
            "cannot create folder " + util::utf8_of(staged.parent_path()) + ": " + ec.message());
    }
    fs::write_file_atomic(staged, content);
}

void PrefixTransaction::flush_ahead() const noexcept {
    try {
        detail::flush_filesystem(state_->paths.prefix);
    } catch (...) {
        // commit() flushes again and reports it
    }
}

void PrefixTransaction::commit() {
    State& s = *state_;
    if (s.journal_written || s.finished) {
        throw std::logic_error("PrefixTransaction::commit called twice");
    }
    const TxnPaths& paths = s.paths;
    const StagedEntries staged = staged_entries(paths);
    const std::vector<std::string> owned = detail::existing_owned_files(paths, s.removed);
    // No file that exists is under a folder moved whole (its place is free), so only the
    // files placed one by one can replace an owned file.
    const std::set<std::string> staged_set(staged.files.begin(), staged.files.end());
    std::set<std::string> leaving;
    Journal journal;
    journal.phase = JournalPhase::committing;
    // Files leave first, so a staged file may take a place a leaving folder or file held.
    for (const auto& rel : owned) {
        if (staged_set.count(rel) != 0) continue;  // replaced, not removed
        journal.moves.push_back({MoveKind::trash, rel});
        leaving.insert(rel);
    }
    for (const auto& rel : staged.folders)
        journal.moves.push_back({MoveKind::folder, rel});
    for (const auto& rel : staged.files)
        journal.moves.push_back({MoveKind::place, rel});
    if (journal.moves.empty()) {
        s.finished = true;
        fs::remove_all_quietly(paths.staging);
        std::error_code ec;
        stdfs::remove(paths.root, ec);
        return;
    }
    check_places(paths, staged, leaving);

    // What install_wheel copied into staging reaches the disk before the journal promises it.
    detail::flush_filesystem(paths.prefix);
    step(s.hook, "staged");
    s.journal_written = true;
    detail::write_journal(paths, journal);
    step(s.hook, "journal");
    roll_forward(paths, s.layout, journal, s.hook);
    s.finished = true;
}

}  // namespace aitk::install
