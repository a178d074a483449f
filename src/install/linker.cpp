#include "linker.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include "aitk/fs/file.hpp"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>  // FICLONE
#endif
#endif

namespace aitk::install::detail {

void Linker::place(const Folder& from, const char* from_relative, const Folder& to,
                   const char* to_relative) {
    if (!decided_) {
        // The first file decides for the rest: failures then cost one syscall per wheel.
        const bool any = requested_ == LinkMode::automatic;
        if ((any || requested_ == LinkMode::reflink) &&
            reflink(from, from_relative, to, to_relative) == Outcome::placed) {
            settled_ = LinkMode::reflink;
        } else if ((any || requested_ == LinkMode::hardlink) &&
                   hardlink(from, from_relative, to, to_relative) == Outcome::placed) {
            settled_ = LinkMode::hardlink;
        } else {
            copy(from, from_relative, to, to_relative);
            settled_ = LinkMode::copy;
        }
        decided_ = true;
        return;
    }
    Outcome outcome = Outcome::unsupported;
    if (settled_ == LinkMode::reflink) outcome = reflink(from, from_relative, to, to_relative);
    if (settled_ == LinkMode::hardlink) outcome = hardlink(from, from_relative, to, to_relative);
    if (outcome != Outcome::placed) copy(from, from_relative, to, to_relative);
}

#ifndef _WIN32

namespace {

// errno values that say "this filesystem (pair) cannot link or clone", not "something is wrong".
bool cannot_link_here(int error) noexcept {
    switch (error) {
        case EXDEV:       // another filesystem
        case EPERM:       // no hardlinks here, or protected_hardlinks
        case EMLINK:      // the source has too many links
        case EOPNOTSUPP:  // no reflink support (== ENOTSUP on Linux)
        case ENOSYS:
        case ENOTTY:  // the ioctl is unknown to this filesystem
        case EINVAL:  // FICLONE on a filesystem or file that cannot share extents
        case EBADF:   // FICLONE: "the filesystem does not support reflink"
            return true;
        default:
            return false;
    }
}

Fd open_source(const Folder& from, const char* relative, struct stat& st) {
    const auto at = from.at_parent(relative);
    Fd source(::openat(at.fd, at.name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (source.get() < 0) throw_os_error("read", relative, errno);
    if (::fstat(source.get(), &st) != 0) throw_os_error("read", relative, errno);
    if (!S_ISREG(st.st_mode)) throw_os_error("read", relative, EINVAL);
    return source;
}

// A new file at `relative` (whatever was there is unlinked, never opened).
Fd create_destination(const Folder& to, const char* relative, mode_t mode) {
    constexpr int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    const auto at = to.at_parent(relative);
    int fd = ::openat(at.fd, at.name, flags, mode);
    if (fd < 0 && errno == EEXIST) {
        to.remove_file(relative);
        fd = ::openat(at.fd, at.name, flags, mode);
    }
    if (fd < 0) throw_os_error("create", relative, errno);
    return Fd(fd);
}

void copy_by_reading(int source, int destination, const char* relative) {
    char buffer[fs::page_cache_write_bytes];
    for (;;) {
        ssize_t n = ::read(source, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_os_error("copy", relative, errno);
        }
        if (n == 0) return;
        const char* p = buffer;
        std::size_t left = static_cast<std::size_t>(n);
        while (left > 0) {
            ssize_t w = ::write(destination, p, left);
            if (w < 0) {
                if (errno == EINTR) continue;
                throw_os_error("copy", relative, errno);
            }
            p += w;
            left -= static_cast<std::size_t>(w);
        }
    }
}

}  // namespace

Linker::Outcome Linker::reflink(const Folder& from, const char* from_relative, const Folder& to,
                                const char* to_relative) {
#ifdef FICLONE
    struct stat st;
    Fd source = open_source(from, from_relative, st);
    Fd destination = create_destination(to, to_relative, st.st_mode & 0777);
    if (::ioctl(destination.get(), FICLONE, source.get()) != 0) {
        int error = errno;
        destination.close_now();
        to.remove_file(to_relative);
        if (cannot_link_here(error)) return Outcome::unsupported;
        throw_os_error("clone", to_relative, error);
    }
    if (int error = destination.close_now(); error != 0) {
        throw_os_error("clone", to_relative, error);
    }
    return Outcome::placed;
#else
    (void)from, (void)from_relative, (void)to, (void)to_relative;
    return Outcome::unsupported;
#endif
}

Linker::Outcome Linker::hardlink(const Folder& from, const char* from_relative, const Folder& to,
                                 const char* to_relative) {
    const auto source = from.at_parent(from_relative);
    const auto destination = to.at_parent(to_relative);
    if (::linkat(source.fd, source.name, destination.fd, destination.name, 0) == 0) {
        return Outcome::placed;
    }
    int error = errno;
    if (error == EEXIST) {
        to.remove_file(to_relative);
        if (::linkat(source.fd, source.name, destination.fd, destination.name, 0) == 0) {
            return Outcome::placed;
        }
        error = errno;
    }
    if (cannot_link_here(error)) return Outcome::unsupported;
    throw_os_error("link", to_relative, error);
}

void Linker::copy(const Folder& from, const char* from_relative, const Folder& to,
                  const char* to_relative) {
    struct stat st;
    Fd source = open_source(from, from_relative, st);
    Fd destination = create_destination(to, to_relative, st.st_mode & 0777);
#ifdef __linux__
    bool first = true;
    for (;;) {
        ssize_t n = ::copy_file_range(source.get(), nullptr, destination.get(), nullptr,
                                      std::size_t{1} << 30, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (first && cannot_link_here(errno)) {
                copy_by_reading(source.get(), destination.get(), to_relative);
                break;
            }
            throw_os_error("copy", to_relative, errno);
        }
        if (n == 0) break;
        first = false;
    }
#else
    copy_by_reading(source.get(), destination.get(), to_relative);
#endif
    if (int error = destination.close_now(); error != 0) {
        throw_os_error("copy", to_relative, error);
    }
}

#else  // _WIN32: no reflink; hardlinks and copies on joined paths.

Linker::Outcome Linker::reflink(const Folder&, const char*, const Folder&, const char*) {
    return Outcome::unsupported;
}

Linker::Outcome Linker::hardlink(const Folder& from, const char* from_relative, const Folder& to,
                                 const char* to_relative) {
    to.remove_file(to_relative);
    std::error_code ec;
    std::filesystem::create_hard_link(from.at(from_relative), to.at(to_relative), ec);
    return ec ? Outcome::unsupported : Outcome::placed;
}

void Linker::copy(const Folder& from, const char* from_relative, const Folder& to,
                  const char* to_relative) {
    to.remove_file(to_relative);
    std::error_code ec;
    std::filesystem::copy_file(from.at(from_relative), to.at(to_relative), ec);
    if (ec) throw_os_error("copy", to_relative, ec.value());
}

#endif

}  // namespace aitk::install::detail
