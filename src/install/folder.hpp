#pragma once
// A folder opened once, whose files are then named relative to it (openat, linkat, mkdirat on
// POSIX): placing 30,000 files builds no absolute path per file and the kernel walks only the
// relative part. Private to the install layer.
#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#ifndef _WIN32
#include <unistd.h>

#include <cerrno>
#endif

namespace aitk::install::detail {

class Folder {
  public:
    // Opens the folder at `path`; with `create`, makes it (and its parents) first. Throws
    // util::Error naming the path.
    static Folder open(const std::filesystem::path& path, bool create);

    Folder(Folder&& other) noexcept;
    Folder& operator=(Folder&& other) noexcept;
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    ~Folder();

    const std::filesystem::path& path() const noexcept { return path_; }

    // Creates the folders above `relative` ('/'-separated), remembering those it made or found,
    // so files of one folder cost one check.
    void make_parents(std::string_view relative);

    // The whole file (small files: RECORD, WHEEL, entry_points.txt, scripts).
    std::string read(const char* relative) const;
    // Up to `limit` first bytes of the file.
    std::string read_head(const char* relative, std::size_t limit) const;
    bool is_executable(const char* relative) const;
    bool exists(const char* relative) const;

    // Writes a new file: whatever was at `relative` is unlinked first and never written
    // through (it may be a hardlink into the cache).
    void write_new(const char* relative, std::string_view content, bool executable) const;
    // Writes beside `relative` and renames over it, so a reader sees the old or the new file.
    void write_replace(const char* relative, std::string_view content) const;
    // Unlinks a file; a missing one is fine.
    void remove_file(const char* relative) const;

#ifdef _WIN32
    std::filesystem::path at(std::string_view relative) const;
#else
    int fd() const noexcept {
        return fd_;
    }

    // Where the file `relative` is: the folder holding it, opened once for the files of one
    // folder (they come together, as make_parents assumes), and its name in that folder; the
    // kernel then finds the file by its name alone instead of walking its whole path, which was
    // most of what linking (and checking, cache/tree_stamp.hpp) 30,000 files cost it. When the
    // folder cannot be opened: this folder and `relative` as they are (the caller's call then
    // fails as it would have).
    struct At {
        int fd;
        const char* name;
    };
    At at_parent(const char* relative) const;
#endif

  private:
    explicit Folder(std::filesystem::path path) : path_(std::move(path)) {}

    std::filesystem::path path_;
#ifndef _WIN32
    int fd_ = -1;
    mutable int parent_fd_ = -1;  // the folder of the last at_parent, relative path parent_
    mutable std::string parent_;
#endif
    std::set<std::string, std::less<>> made_;
    std::string last_made_;
};

#ifndef _WIN32
// An owned file descriptor.
class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd& operator=(Fd&&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const noexcept { return fd_; }
    // Closes now (where a write error shows up on some filesystems); 0 or the errno.
    int close_now() noexcept {
        int rc = ::close(std::exchange(fd_, -1));
        return rc == 0 ? 0 : errno;
    }

  private:
    int fd_;
};
#endif

// "cannot <what> '<relative>': <OS reason>" as a util::Error.
[[noreturn]] void throw_os_error(std::string_view what, std::string_view relative, int error);

}  // namespace aitk::install::detail
