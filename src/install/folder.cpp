#include "folder.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#ifdef _WIN32
#include <fstream>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install::detail {

namespace stdfs = std::filesystem;

void throw_os_error(std::string_view what, std::string_view relative, int error) {
    throw util::Error(util::ExitCode::failure, "cannot " + std::string(what) + " '" +
                                                   std::string(relative) +
                                                   "': " + std::strerror(error));
}

#ifndef _WIN32

namespace {

constexpr int read_flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW;
constexpr int create_flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

void write_all(int fd, std::string_view data, const char* relative) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_os_error("write", relative, errno);
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace

Folder Folder::open(const std::filesystem::path& path, bool create) {
    if (create) {
        std::error_code ec;
        stdfs::create_directories(path, ec);
        if (ec) {
            throw util::Error(util::ExitCode::failure,
                              "cannot create folder " + util::utf8_of(path) + ": " + ec.message());
        }
    }
    Folder folder(path);
    folder.fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder.fd_ < 0) {
        throw util::Error(util::ExitCode::failure, "cannot open folder " + util::utf8_of(path) +
                                                       ": " + std::strerror(errno));
    }
    return folder;
}

Folder::Folder(Folder&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      parent_fd_(std::exchange(other.parent_fd_, -1)),
      parent_(std::move(other.parent_)),
      made_(std::move(other.made_)),
      last_made_(std::move(other.last_made_)) {}

Folder& Folder::operator=(Folder&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        if (parent_fd_ >= 0) ::close(parent_fd_);
        path_ = std::move(other.path_);
        fd_ = std::exchange(other.fd_, -1);
        parent_fd_ = std::exchange(other.parent_fd_, -1);
        parent_ = std::move(other.parent_);
        made_ = std::move(other.made_);
        last_made_ = std::move(other.last_made_);
    }
    return *this;
}

Folder::~Folder() {
    if (parent_fd_ >= 0) ::close(parent_fd_);
    if (fd_ >= 0) ::close(fd_);
}

Folder::At Folder::at_parent(const char* relative) const {
    const char* slash = std::strrchr(relative, '/');
    if (slash == nullptr) return {fd_, relative};
    const std::string_view parent(relative, static_cast<std::size_t>(slash - relative));
    if (parent_fd_ < 0 || parent != parent_) {
        if (parent_fd_ >= 0) ::close(parent_fd_);
        parent_.assign(parent);
        parent_fd_ = ::openat(fd_, parent_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (parent_fd_ < 0) return {fd_, relative};
    return {parent_fd_, slash + 1};
}

void Folder::make_parents(std::string_view relative) {
    std::size_t slash = relative.rfind('/');
    if (slash == std::string_view::npos) return;
    std::string_view parent = relative.substr(0, slash);
    if (parent == last_made_) return;  // files of one folder come together
    if (made_.find(parent) == made_.end()) {
        std::string prefix;
        prefix.reserve(parent.size());
        std::size_t start = 0;
        while (start <= parent.size()) {
            std::size_t next = parent.find('/', start);
            if (next == std::string_view::npos) next = parent.size();
            prefix.assign(parent.substr(0, next));
            if (made_.find(prefix) == made_.end()) {
                if (::mkdirat(fd_, prefix.c_str(), 0755) != 0 && errno != EEXIST) {
                    throw_os_error("create folder", prefix, errno);
                }
                made_.insert(prefix);
            }
            start = next + 1;
        }
    }
    last_made_.assign(parent);
}

std::string Folder::read(const char* relative) const {
    Fd file(::openat(fd_, relative, read_flags));
    if (file.get() < 0) throw_os_error("read", relative, errno);
    std::string out;
    char buffer[16384];
    for (;;) {
        ssize_t n = ::read(file.get(), buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_os_error("read", relative, errno);
        }
        if (n == 0) break;
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

std::string Folder::read_head(const char* relative, std::size_t limit) const {
    Fd file(::openat(fd_, relative, read_flags));
    if (file.get() < 0) throw_os_error("read", relative, errno);
    std::string out(limit, '\0');
    std::size_t got = 0;
    while (got < limit) {
        ssize_t n = ::read(file.get(), out.data() + got, limit - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_os_error("read", relative, errno);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return out;
}

bool Folder::is_executable(const char* relative) const {
    struct stat st;
    if (::fstatat(fd_, relative, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        throw_os_error("inspect", relative, errno);
    }
    return (st.st_mode & 0111) != 0;
}

bool Folder::exists(const char* relative) const {
    struct stat st;
    return ::fstatat(fd_, relative, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

void Folder::remove_file(const char* relative) const {
    if (::unlinkat(fd_, relative, 0) != 0 && errno != ENOENT) {
        throw_os_error("replace", relative, errno);
    }
}

void Folder::write_new(const char* relative, std::string_view content, bool executable) const {
    remove_file(relative);
    Fd file(::openat(fd_, relative, create_flags, executable ? 0755 : 0644));
    if (file.get() < 0) throw_os_error("create", relative, errno);
    write_all(file.get(), content, relative);
    if (int error = file.close_now(); error != 0) throw_os_error("write", relative, error);
}

void Folder::write_replace(const char* relative, std::string_view content) const {
    std::string temp = std::string(relative) + ".aitk-env-tmp";
    write_new(temp.c_str(), content, false);
    if (::renameat(fd_, temp.c_str(), fd_, relative) != 0) {
        int error = errno;
        ::unlinkat(fd_, temp.c_str(), 0);
        throw_os_error("write", relative, error);
    }
}

#else  // _WIN32: the same operations on joined paths.

Folder Folder::open(const std::filesystem::path& path, bool create) {
    std::error_code ec;
    if (create) stdfs::create_directories(path, ec);
    if (ec || !stdfs::is_directory(path, ec)) {
        throw util::Error(util::ExitCode::failure, "cannot open folder " + util::utf8_of(path));
    }
    return Folder(path);
}

Folder::Folder(Folder&& other) noexcept = default;
Folder& Folder::operator=(Folder&& other) noexcept = default;
Folder::~Folder() = default;

stdfs::path Folder::at(std::string_view relative) const {
    return path_ / stdfs::path(std::u8string(relative.begin(), relative.end()));
}

void Folder::make_parents(std::string_view relative) {
    std::size_t slash = relative.rfind('/');
    if (slash == std::string_view::npos) return;
    std::string_view parent = relative.substr(0, slash);
    if (parent == last_made_ || made_.find(parent) != made_.end()) return;
    std::error_code ec;
    stdfs::create_directories(at(parent), ec);
    if (ec) throw_os_error("create folder", parent, ec.value());
    made_.emplace(parent);
    last_made_.assign(parent);
}

std::string Folder::read(const char* relative) const {
    return fs::read_file(at(relative));
}

std::string Folder::read_head(const char* relative, std::size_t limit) const {
    std::string all = read(relative);
    if (all.size() > limit) all.resize(limit);
    return all;
}

bool Folder::is_executable(const char*) const {
    return true;
}

bool Folder::exists(const char* relative) const {
    std::error_code ec;
    return stdfs::exists(stdfs::symlink_status(at(relative), ec));
}

void Folder::remove_file(const char* relative) const {
    std::error_code ec;
    stdfs::remove(at(relative), ec);
    if (ec) throw_os_error("replace", relative, ec.value());
}

void Folder::write_new(const char* relative, std::string_view content, bool) const {
    remove_file(relative);
    std::ofstream out(at(relative), std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out.flush()) throw_os_error("write", relative, EIO);
}

void Folder::write_replace(const char* relative, std::string_view content) const {
    fs::write_file_atomic(at(relative), content);
}

#endif

}  // namespace aitk::install::detail
