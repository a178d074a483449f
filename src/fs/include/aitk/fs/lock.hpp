#pragma once
// Advisory file locks shared between processes (and between threads: each FileLock opens its own
// descriptor, so two FileLocks on one file exclude each other even inside one process).
// POSIX: flock(2), released by the kernel when the process dies. Windows: LockFileEx.
//
// A lock file is never deleted while anyone may wait on it: a waiter blocked on the old inode and
// a newcomer locking a freshly created file would both believe they hold the lock.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>

namespace aitk::fs {

enum class LockMode {
    shared,     // many holders at once (readers, inserters of a content-addressed store)
    exclusive,  // one holder, no shared holders (pruning, cleaning)
};

class FileLock {
  public:
    // Creates `lock_file` (and its folder) when missing, then blocks until the lock is held.
    // Throws util::Error naming the file when it cannot be opened or locked.
    static FileLock acquire(const std::filesystem::path& lock_file, LockMode mode);

    // For a reader that may not write (a read-only mount, another user's folder): blocks until
    // the lock on an existing `lock_file` is held, through a descriptor opened for reading only;
    // creates nothing. Nothing when the file does not exist (no writer has ever locked it).
    // Throws util::Error naming the file when it exists but cannot be opened or locked.
    static std::optional<FileLock> acquire_existing(const std::filesystem::path& lock_file,
                                                    LockMode mode);

    // Returns nothing when another holder keeps the lock for longer than `timeout`
    // (zero: a single non-blocking attempt).
    static std::optional<FileLock> try_acquire(const std::filesystem::path& lock_file,
                                               LockMode mode,
                                               std::chrono::milliseconds timeout = {});

    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

    // Writes this process's id into the lock file, so that a process waiting for an exclusive
    // lock can say whom it waits for (recorded_owner). Best effort: a failure is ignored.
    // release() empties the file again and puts its modification time back, so an idle lock
    // file is the same after every run (a prefix a failed run left alone is unchanged).
    void record_owner() noexcept;
    // The process id the last exclusive holder recorded; nothing when none was recorded or the
    // file cannot be read. The holder may have ended since (the id then names no process).
    static std::optional<long> recorded_owner(const std::filesystem::path& lock_file);

    // Unlocks early; the destructor then does nothing.
    void release() noexcept;
    bool held() const noexcept { return handle_ != invalid_handle; }
    LockMode mode() const noexcept { return mode_; }
    const std::filesystem::path& path() const noexcept { return path_; }

  private:
#ifdef _WIN32
    using Handle = void*;
    static inline Handle const invalid_handle =
        reinterpret_cast<Handle>(static_cast<std::intptr_t>(-1));
#else
    using Handle = int;
    static constexpr Handle invalid_handle = -1;
#endif
    FileLock(std::filesystem::path path, Handle handle, LockMode mode) noexcept
        : path_(std::move(path)), handle_(handle), mode_(mode) {}

    std::filesystem::path path_;
    Handle handle_ = invalid_handle;
    LockMode mode_ = LockMode::exclusive;
    // The file's modification time before record_owner wrote into it (seconds, nanoseconds).
    std::optional<std::pair<long long, long>> mtime_before_owner_;
};

// Takes back a folder this process made and holds locked: removes `folder` with everything in
// it, `lock`'s file included, and releases `lock` (held on a file inside `folder`). Each entry
// is deleted once. std::filesystem::remove_all lists a folder again while it is not empty, and
// Windows keeps listing a file deleted while it is open (the held lock file) until its last
// handle closes: remove_all deleted it again and again, each time costing Wine a file
// descriptor, until it had none left. Here the lock file is deleted once, the lock released (on
// Windows the file then goes), and then the folders that led to it. Errors are ignored; what
// could not be removed stays.
void remove_locked_folder(const std::filesystem::path& folder, FileLock& lock) noexcept;

}  // namespace aitk::fs
