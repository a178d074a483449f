#include "part_file.hpp"

#include <cerrno>
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

constexpr std::size_t stdio_buffer_bytes = 1u << 20;

std::FILE* open_file(const std::filesystem::path& path, bool append) {
#ifdef _WIN32
    return ::_wfopen(path.c_str(), append ? L"ab" : L"wb");
#else
    return std::fopen(path.c_str(), append ? "ab" : "wb");
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
    file_ = open_file(path, append);
    if (file_ == nullptr) return describe_errno("cannot open", path, errno);
    std::setvbuf(file_, nullptr, _IOFBF, stdio_buffer_bytes);
    return std::nullopt;
}

std::optional<std::string> PartFile::open_fresh(const std::filesystem::path& path) {
    return open(path, false);
}

std::optional<std::string> PartFile::open_append(const std::filesystem::path& path) {
    return open(path, true);
}

std::optional<std::string> PartFile::write(const char* data, std::size_t size) {
    if (file_ == nullptr) return "internal error: writing to a closed file";
    if (std::fwrite(data, 1, size, file_) != size) {
        return describe_errno("cannot write to", path_, errno);
    }
    return std::nullopt;
}

std::optional<std::string> PartFile::close(bool sync) {
    if (file_ == nullptr) return std::nullopt;
    std::optional<std::string> error;
    if (std::fflush(file_) != 0) error = describe_errno("cannot write to", path_, errno);
#ifdef _WIN32
    if (!error && sync && ::_commit(::_fileno(file_)) != 0) {
        error = describe_errno("cannot flush", path_, errno);
    }
#else
    if (!error && sync && ::fsync(::fileno(file_)) != 0) {
        error = describe_errno("cannot flush", path_, errno);
    }
#endif
    if (std::fclose(file_) != 0 && !error) error = describe_errno("cannot close", path_, errno);
    file_ = nullptr;
    return error;
}

std::optional<std::uint64_t> hash_existing_file(const std::filesystem::path& path,
                                                fs::Sha256& hash) {
    std::FILE* file = open_for_reading(path);
    if (file == nullptr) return std::nullopt;
    std::vector<char> buffer(stdio_buffer_bytes);
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
