#include "durable.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install::detail {

#ifndef _WIN32

namespace {

[[noreturn]] void fail(const char* what, const std::filesystem::path& path, int error) {
    throw util::Error(
        util::ExitCode::failure,
        std::string("cannot ") + what + " " + util::utf8_of(path) + ": " + std::strerror(error));
}

int open_for_flush(const std::filesystem::path& path) {
    for (;;) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno != EINTR) fail("open", path, errno);
    }
}

}  // namespace

void flush_to_disk(const std::filesystem::path& path) {
    int fd = open_for_flush(path);
    int rc = ::fsync(fd);
    int error = errno;
    ::close(fd);
    // Some filesystems cannot flush a folder (EINVAL): their renames are as durable as they get.
    if (rc != 0 && error != EINVAL) fail("flush", path, error);
}

void flush_filesystem(const std::filesystem::path& path) {
#ifdef __linux__
    int fd = open_for_flush(path);
    int rc = ::syncfs(fd);
    int error = errno;
    ::close(fd);
    if (rc != 0) fail("flush the filesystem of", path, error);
#else
    (void)path;
    ::sync();
#endif
}

#else  // Windows: MoveFileEx with MOVEFILE_WRITE_THROUGH is the unit of durability there.

void flush_to_disk(const std::filesystem::path&) {}
void flush_filesystem(const std::filesystem::path&) {}

#endif

}  // namespace aitk::install::detail
