#include "aitk/fs/lock.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "path_failure.hpp"

namespace aitk::fs {
namespace {

void ensure_parent(const std::filesystem::path& lock_file) {
    if (!lock_file.has_parent_path()) return;
    std::error_code ec;
    std::filesystem::create_directories(lock_file.parent_path(), ec);
    if (ec) detail::fail_at("cannot create the folder of lock file", lock_file, ec.message());
}

}  // namespace

#ifdef _WIN32

namespace {

HANDLE open_lock_handle(const std::filesystem::path& lock_file) {
    HANDLE h = ::CreateFileW(lock_file.c_str(), GENERIC_READ | GENERIC_WRITE,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) {
        detail::fail_at("cannot open lock file", lock_file,
                        std::system_category().message(static_cast<int>(::GetLastError())));
    }
    return h;
}

// LockFileEx locks byte ranges, and such locks are mandatory: other handles can neither read
// nor write a locked byte. Every holder locks one byte far past the end (allowed on Windows), so
// the file's own bytes (the owner record) stay readable while the lock is held.
constexpr DWORD kLockedByteHigh = 0x7FFFFFFF;

OVERLAPPED locked_byte() {
    OVERLAPPED at{};
    at.OffsetHigh = kLockedByteHigh;
    return at;
}

bool lock_handle(HANDLE h, LockMode mode, bool wait) {
    DWORD flags = mode == LockMode::exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0;
    if (!wait) flags |= LOCKFILE_FAIL_IMMEDIATELY;
    OVERLAPPED at = locked_byte();
    return ::LockFileEx(h, flags, 0, 1, 0, &at) != 0;
}

long long filetime_ticks(const FILETIME& t) {
    return (static_cast<long long>(t.dwHighDateTime) << 32) | t.dwLowDateTime;
}

}  // namespace

FileLock FileLock::acquire(const std::filesystem::path& lock_file, LockMode mode) {
    ensure_parent(lock_file);
    HANDLE h = open_lock_handle(lock_file);
    if (!lock_handle(h, mode, true)) {
        DWORD err = ::GetLastError();
        ::CloseHandle(h);
        detail::fail_at("cannot lock", lock_file,
                        std::system_category().message(static_cast<int>(err)));
    }
    return FileLock(lock_file, h, mode);
}

std::optional<FileLock> FileLock::acquire_existing(const std::filesystem::path& lock_file,
                                                   LockMode mode) {
    // LockFileEx needs read or write access; read is enough for either mode.
    HANDLE h = ::CreateFileW(lock_file.c_str(), GENERIC_READ,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) {
        const DWORD err = ::GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND) return std::nullopt;
        detail::fail_at("cannot open lock file", lock_file,
                        std::system_category().message(static_cast<int>(err)));
    }
    if (!lock_handle(h, mode, true)) {
        DWORD err = ::GetLastError();
        ::CloseHandle(h);
        detail::fail_at("cannot lock", lock_file,
                        std::system_category().message(static_cast<int>(err)));
    }
    return FileLock(lock_file, h, mode);
}

std::optional<FileLock> FileLock::try_acquire(const std::filesystem::path& lock_file, LockMode mode,
                                              std::chrono::milliseconds timeout) {
    ensure_parent(lock_file);
    HANDLE h = open_lock_handle(lock_file);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
        if (lock_handle(h, mode, false)) return FileLock(lock_file, h, mode);
        DWORD err = ::GetLastError();
        if (err != ERROR_LOCK_VIOLATION && err != ERROR_IO_PENDING) {
            ::CloseHandle(h);
            detail::fail_at("cannot lock", lock_file,
                            std::system_category().message(static_cast<int>(err)));
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    ::CloseHandle(h);
    return std::nullopt;
}

void FileLock::release() noexcept {
    if (handle_ == invalid_handle) return;
    std::optional<FILETIME> restore;
    if (mtime_before_owner_) {
        LARGE_INTEGER zero{};
        if (::SetFilePointerEx(handle_, zero, nullptr, FILE_BEGIN)) ::SetEndOfFile(handle_);
        const auto ticks = static_cast<unsigned long long>(mtime_before_owner_->first);
        restore =
            FILETIME{static_cast<DWORD>(ticks & 0xFFFFFFFFu), static_cast<DWORD>(ticks >> 32)};
        mtime_before_owner_.reset();
    }
    OVERLAPPED at = locked_byte();
    ::UnlockFileEx(handle_, 0, 1, 0, &at);
    ::CloseHandle(handle_);
    handle_ = invalid_handle;
    // After the close: closing a handle that wrote may stamp the file's time again.
    if (restore) {
        HANDLE h = ::CreateFileW(path_.c_str(), FILE_WRITE_ATTRIBUTES,
                                 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                 OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
        if (h != INVALID_HANDLE_VALUE) {
            ::SetFileTime(h, nullptr, nullptr, &*restore);
            ::CloseHandle(h);
        }
    }
}

#else

namespace {

int open_lock_fd(const std::filesystem::path& lock_file) {
    for (;;) {
        int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
        if (errno != EINTR)
            detail::fail_at("cannot open lock file", lock_file, std::strerror(errno));
    }
}

// Waits for the lock on `fd`; on failure closes it and throws.
int flock_or_fail(int fd, const std::filesystem::path& lock_file, LockMode mode) {
    const int op = mode == LockMode::exclusive ? LOCK_EX : LOCK_SH;
    while (::flock(fd, op) != 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        detail::fail_at("cannot lock", lock_file, std::strerror(err));
    }
    return fd;
}

}  // namespace

FileLock FileLock::acquire(const std::filesystem::path& lock_file, LockMode mode) {
    ensure_parent(lock_file);
    return FileLock(lock_file, flock_or_fail(open_lock_fd(lock_file), lock_file, mode), mode);
}

std::optional<FileLock> FileLock::acquire_existing(const std::filesystem::path& lock_file,
                                                   LockMode mode) {
    int fd = -1;
    do {
        // flock(2) takes either mode through a read-only descriptor.
        fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (errno == ENOENT) return std::nullopt;
        detail::fail_at("cannot open lock file", lock_file, std::strerror(errno));
    }
    return FileLock(lock_file, flock_or_fail(fd, lock_file, mode), mode);
}

std::optional<FileLock> FileLock::try_acquire(const std::filesystem::path& lock_file, LockMode mode,
                                              std::chrono::milliseconds timeout) {
    ensure_parent(lock_file);
    int fd = open_lock_fd(lock_file);
    int op = (mode == LockMode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
        if (::flock(fd, op) == 0) return FileLock(lock_file, fd, mode);
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int err = errno;
            ::close(fd);
            detail::fail_at("cannot lock", lock_file, std::strerror(err));
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    ::close(fd);
    return std::nullopt;
}

void FileLock::release() noexcept {
    if (handle_ == invalid_handle) return;
    if (mtime_before_owner_) {
        [[maybe_unused]] int truncated = ::ftruncate(handle_, 0);
        timespec times[2] = {
            {0, UTIME_OMIT},
            {static_cast<time_t>(mtime_before_owner_->first), mtime_before_owner_->second}};
        [[maybe_unused]] int restored = ::futimens(handle_, times);
        mtime_before_owner_.reset();
    }
    // Closing alone would keep the lock while a forked child still holds a copy of the
    // descriptor; unlocking first drops it now.
    ::flock(handle_, LOCK_UN);
    ::close(handle_);
    handle_ = invalid_handle;
}

#endif

void FileLock::record_owner() noexcept {
    if (handle_ == invalid_handle) return;
#ifdef _WIN32
    const std::string text = std::to_string(static_cast<long>(::GetCurrentProcessId())) + "\n";
    FILETIME written_at{};
    if (!::GetFileTime(handle_, nullptr, nullptr, &written_at)) return;
    // (seconds, nanoseconds) on POSIX; here the FILETIME's 100-ns ticks, nanoseconds unused.
    if (!mtime_before_owner_) mtime_before_owner_.emplace(filetime_ticks(written_at), 0);
    LARGE_INTEGER zero{};
    if (!::SetFilePointerEx(handle_, zero, nullptr, FILE_BEGIN) || !::SetEndOfFile(handle_)) return;
    DWORD wrote = 0;
    ::WriteFile(handle_, text.data(), static_cast<DWORD>(text.size()), &wrote, nullptr);
#else
    const std::string text = std::to_string(static_cast<long>(::getpid())) + "\n";
    struct stat st {};
    if (::fstat(handle_, &st) != 0) return;
    if (!mtime_before_owner_) mtime_before_owner_.emplace(st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    if (::ftruncate(handle_, 0) != 0) return;
    [[maybe_unused]] auto written = ::pwrite(handle_, text.data(), text.size(), 0);
#endif
}

std::optional<long> FileLock::recorded_owner(const std::filesystem::path& lock_file) {
    char buffer[32] = {};
#ifdef _WIN32
    HANDLE h = ::CreateFileW(lock_file.c_str(), GENERIC_READ,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return std::nullopt;
    DWORD got = 0;
    const bool read = ::ReadFile(h, buffer, sizeof buffer - 1, &got, nullptr) != 0;
    ::CloseHandle(h);
    const long n = read ? static_cast<long>(got) : -1;
#else
    int fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    const long n = static_cast<long>(::pread(fd, buffer, sizeof buffer - 1, 0));
    ::close(fd);
#endif
    if (n <= 0) return std::nullopt;
    long pid = 0;
    for (long i = 0; i < n && buffer[i] != '\n'; ++i) {
        if (buffer[i] < '0' || buffer[i] > '9' || pid > 1'000'000'000) return std::nullopt;
        pid = pid * 10 + (buffer[i] - '0');
    }
    if (pid <= 0) return std::nullopt;
    return pid;
}

namespace {

// Removes everything under `folder` but `kept` and the folders that lead to it; both absolute.
void remove_all_but(const std::filesystem::path& folder, const std::filesystem::path& kept) {
    std::error_code ec;
    std::vector<std::filesystem::path> entries;
    for (auto it = std::filesystem::directory_iterator(folder, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        entries.push_back(it->path());
    }
    for (const auto& entry : entries) {
        if (entry == kept) continue;
        const auto rel = kept.lexically_relative(entry);
        std::error_code ignored;
        if (!rel.empty() && *rel.begin() != "..") {
            remove_all_but(entry, kept);  // `kept` lies inside
        } else {
            std::filesystem::remove_all(entry, ignored);
        }
    }
}

}  // namespace

void remove_locked_folder(const std::filesystem::path& folder, FileLock& lock) noexcept {
    try {
        std::error_code ec, file_ec;
        auto root = std::filesystem::absolute(folder, ec).lexically_normal();
        if (!root.has_filename()) root = root.parent_path();  // "prefix/": the folder itself
        const auto file = std::filesystem::absolute(lock.path(), file_ec).lexically_normal();
        const auto inside = file.lexically_relative(root);
        if (ec || file_ec || inside.empty() || *inside.begin() == "..") {
            lock.release();
            std::filesystem::remove_all(root, ec);
            return;
        }
        remove_all_but(root, file);
        std::filesystem::remove(file, ec);  // Windows: gone when the lock's handle closes
        lock.release();
        // Up to `root` and never above it, whatever the paths look like.
        for (auto dir = file.parent_path();
             !dir.lexically_relative(root).empty() && *dir.lexically_relative(root).begin() != "..";
             dir = dir.parent_path()) {
            std::error_code not_removed;
            if (!std::filesystem::remove(dir, not_removed) || dir == root) break;
        }
    } catch (...) {
        // (bad_alloc from a path) what could not be removed stays
        lock.release();
    }
}

FileLock::FileLock(FileLock&& other) noexcept
    : path_(std::move(other.path_)),
      handle_(other.handle_),
      mode_(other.mode_),
      mtime_before_owner_(std::exchange(other.mtime_before_owner_, std::nullopt)) {
    other.handle_ = invalid_handle;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        handle_ = other.handle_;
        mode_ = other.mode_;
        mtime_before_owner_ = std::exchange(other.mtime_before_owner_, std::nullopt);
        other.handle_ = invalid_handle;
    }
    return *this;
}

FileLock::~FileLock() {
    release();
}

}  // namespace aitk::fs
