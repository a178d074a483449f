#include "part_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "utf8_path.hpp"

namespace aitk::net::detail {
namespace {

constexpr std::size_t read_buffer_bytes = 1u << 20;

int open_fd(const std::filesystem::path& path, bool append) {
#ifdef _WIN32
    const int flags =
        _O_WRONLY | _O_CREAT | _O_BINARY | _O_NOINHERIT | (append ? _O_APPEND : _O_TRUNC);
    return ::_wopen(path.c_str(), flags, _S_IREAD | _S_IWRITE);
#else
    const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
    int fd;
    do {
        fd = ::open(path.c_str(), flags, 0666);
    } while (fd < 0 && errno == EINTR);
    return fd;
#endif
}

// One write call; how many bytes it took, or -1 with errno.
long long write_some(int fd, const char* data, std::size_t size) {
#ifdef _WIN32
    return ::_write(fd, data, static_cast<unsigned>(std::min<std::size_t>(size, INT_MAX)));
#else
    return ::write(fd, data, std::min<std::size_t>(size, SSIZE_MAX));
#endif
}

int sync_fd(int fd) {
#ifdef _WIN32
    return ::_commit(fd);
#else
    return ::fsync(fd);
#endif
}

int close_fd(int fd) {
#ifdef _WIN32
    return ::_close(fd);
#else
    return ::close(fd);
#endif
}

std::FILE* open_for_reading(const std::filesystem::path& path) {
#ifdef _WIN32
    return ::_wfopen(path.c_str(), L"rb");
#else
    return std::fopen(path.c_str(), "rb");
#endif
}

std::string describe_errno(std::string_view action, const std::filesystem::path& path, int err) {
    return std::string(action) + " '" + path_to_utf8(path) + "': " + std::strerror(err);
}

}  // namespace

PartFile::~PartFile() {
    close();
}

std::optional<std::string> PartFile::open(const std::filesystem::path& path, bool append) {
    close();
    path_ = path;
    fd_ = open_fd(path, append);
    if (fd_ < 0) return describe_errno("cannot open", path, errno);
    gathered_ = std::make_unique_for_overwrite<char[]>(buffer_bytes);
    gathered_size_ = 0;
    return std::nullopt;
}

std::optional<std::string> PartFile::open_fresh(const std::filesystem::path& path) {
    return open(path, false);
}

std::optional<std::string> PartFile::open_append(const std::filesystem::path& path) {
    return open(path, true);
}

std::optional<std::string> PartFile::write_out(const char* data, std::size_t size) {
    while (size > 0) {
        const long long n = write_some(fd_, data, std::min(size, buffer_bytes));
        if (n < 0) {
            if (errno == EINTR) continue;
            return describe_errno("cannot write to", path_, errno);
        }
        if (n == 0) return describe_errno("cannot write to", path_, EIO);
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

std::optional<std::string> PartFile::flush_gathered() {
    if (gathered_size_ == 0) return std::nullopt;
    const std::size_t size = gathered_size_;
    gathered_size_ = 0;
    return write_out(gathered_.get(), size);
}

std::optional<std::string> PartFile::write(const char* data, std::size_t size) {
    if (fd_ < 0) return "internal error: writing to a closed file";
    if (gathered_size_ == 0 && size >= buffer_bytes) {
        // Whole buffers' worth straight from the caller's memory; the rest is gathered.
        const std::size_t direct = size - size % buffer_bytes;
        if (auto problem = write_out(data, direct)) return problem;
        data += direct;
        size -= direct;
    }
    while (size > 0) {
        const std::size_t take = std::min(size, buffer_bytes - gathered_size_);
        std::memcpy(gathered_.get() + gathered_size_, data, take);
        gathered_size_ += take;
        data += take;
        size -= take;
        if (gathered_size_ == buffer_bytes) {
            if (auto problem = flush_gathered()) return problem;
        }
    }
    return std::nullopt;
}

std::optional<std::string> PartFile::close(bool sync) {
    if (fd_ < 0) return std::nullopt;
    std::optional<std::string> error = flush_gathered();
    if (!error && sync && sync_fd(fd_) != 0) error = describe_errno("cannot flush", path_, errno);
    if (close_fd(fd_) != 0 && !error) error = describe_errno("cannot close", path_, errno);
    fd_ = -1;
    gathered_.reset();
    gathered_size_ = 0;
    return error;
}

std::optional<std::uint64_t> hash_existing_file(const std::filesystem::path& path,
                                                fs::Sha256& hash) {
    std::FILE* file = open_for_reading(path);
    if (file == nullptr) return std::nullopt;
    std::vector<char> buffer(read_buffer_bytes);
    std::uint64_t total = 0;
    bool ok = true;
    for (;;) {
        const auto got = std::fread(buffer.data(), 1, buffer.size(), file);
        if (got > 0) {
            hash.update(buffer.data(), got);
            total += got;
        }
        if (got < buffer.size()) {
            ok = std::ferror(file) == 0;
            break;
        }
    }
    std::fclose(file);
    if (!ok) return std::nullopt;
    return total;
}

}  // namespace aitk::net::detail
