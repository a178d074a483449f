#include "aitk/fs/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/util/byte_size.hpp"

namespace aitk::fs {
namespace {

using Result = util::Expected<std::string, std::string>;

Result not_regular(std::string_view type, const InputFileKind& kind) {
    return util::Unexpected("not a regular file (" + std::string(type) + "); give " +
                            std::string(kind.what));
}

Result too_large(std::uint64_t size, const InputFileKind& kind) {
    return util::Unexpected(util::human_bytes(size) + " is over the " +
                            util::human_bytes(kind.max_bytes) + " limit for " +
                            std::string(kind.what));
}

#ifndef _WIN32

std::string_view type_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

Result read_posix(const std::filesystem::path& path, const InputFileKind& kind) {
    // stat first: opening a device can have effects of its own (a tape rewinds), and opening a
    // FIFO blocks until a writer comes.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return util::Unexpected(std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return not_regular(type_of(st.st_mode), kind);
    if (static_cast<std::uint64_t>(st.st_size) > kind.max_bytes)
        return too_large(static_cast<std::uint64_t>(st.st_size), kind);
    // O_NONBLOCK: should the name have become a FIFO since the stat, open returns at once and
    // fstat below says so.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return util::Unexpected(std::string(std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0) return util::Unexpected(std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return not_regular(type_of(st.st_mode), kind);
    std::string out;
    out.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            return util::Unexpected(std::string(std::strerror(errno)));
        }
        if (n == 0) break;
        out.append(buffer, static_cast<std::size_t>(n));
        if (out.size() > kind.max_bytes) return too_large(out.size(), kind);  // it grew
    }
    return out;
}

#else

Result read_windows(const std::filesystem::path& path, const InputFileKind& kind) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) return util::Unexpected(ec.message());
    switch (status.type()) {
        case std::filesystem::file_type::regular:
            break;
        case std::filesystem::file_type::not_found:
            return util::Unexpected(std::string("No such file or directory"));
        case std::filesystem::file_type::directory:
            return not_regular("a directory", kind);
        case std::filesystem::file_type::character:
            return not_regular("a character device", kind);
        case std::filesystem::file_type::block:
            return not_regular("a block device", kind);
        case std::filesystem::file_type::fifo:
            return not_regular("a pipe", kind);
        case std::filesystem::file_type::socket:
            return not_regular("a socket", kind);
        default:
            return not_regular("not a file", kind);
    }
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return util::Unexpected(ec.message());
    if (size > kind.max_bytes) return too_large(size, kind);
    std::ifstream in(path, std::ios::binary);
    if (!in) return util::Unexpected(std::string(std::strerror(errno)));
    std::string out;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        out.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (out.size() > kind.max_bytes) return too_large(out.size(), kind);
    }
    if (in.bad()) return util::Unexpected(std::string("reading failed"));
    return out;
}

#endif

}  // namespace

util::Expected<std::string, std::string> read_input_file(const std::filesystem::path& path,
                                                         const InputFileKind& kind) {
#ifndef _WIN32
    return read_posix(path, kind);
#else
    return read_windows(path, kind);
#endif
}

bool readable_by_everyone(const std::filesystem::path& path) {
#ifndef _WIN32
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return true;
    return (st.st_mode & S_IROTH) != 0;
#else
    (void)path;
    return true;
#endif
}

}  // namespace aitk::fs
