#include "aitk/fs/mapped_file.hpp"
#include "aitk/util/utf8.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace aitk::fs {

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {
#ifdef _WIN32
    mapping_ = std::exchange(other.mapping_, nullptr);
#endif
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
#ifdef _WIN32
        mapping_ = std::exchange(other.mapping_, nullptr);
#endif
    }
    return *this;
}

MappedFile::~MappedFile() {
    release();
}

void MappedFile::release() noexcept {
#ifdef _WIN32
    if (data_) UnmapViewOfFile(data_);
    if (mapping_) CloseHandle(mapping_);
    mapping_ = nullptr;
#else
    if (data_ && size_) munmap(const_cast<std::uint8_t*>(data_), size_);
#endif
    data_ = nullptr;
    size_ = 0;
}

#ifdef _WIN32

util::Expected<MappedFile, std::string> map_file(const std::filesystem::path& path) {
    auto fail = [&](const char* what) {
        return util::Unexpected(util::utf8_of(path) + ": " + what + " failed (Windows error " +
                                std::to_string(GetLastError()) + ")");
    };
    HANDLE file = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE,
                              nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) return fail("open");
    LARGE_INTEGER size{};
    if (!GetFileSizeEx(file, &size)) {
        CloseHandle(file);
        return fail("reading the size");
    }
    MappedFile mapped;
    if (size.QuadPart == 0) {
        CloseHandle(file);
        return mapped;
    }
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    CloseHandle(file);
    if (!mapping) return fail("mapping");
    void* view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (!view) {
        CloseHandle(mapping);
        return fail("mapping a view");
    }
    mapped.mapping_ = mapping;
    mapped.data_ = static_cast<const std::uint8_t*>(view);
    mapped.size_ = static_cast<std::size_t>(size.QuadPart);
    return mapped;
}

#else

util::Expected<MappedFile, std::string> map_file(const std::filesystem::path& path) {
    auto fail = [&](const char* what, int err) {
        return util::Unexpected(util::utf8_of(path) + ": " + what + ": " + std::strerror(err));
    };
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail("cannot open", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        return fail("cannot stat", err);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return util::Unexpected(util::utf8_of(path) + ": not a regular file");
    }
    MappedFile mapped;
    if (st.st_size == 0) {
        ::close(fd);
        return mapped;
    }
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);
    if (p == MAP_FAILED) return fail("cannot map", err);
    mapped.data_ = static_cast<const std::uint8_t*>(p);
    mapped.size_ = static_cast<std::size_t>(st.st_size);
    return mapped;
}

#endif

}  // namespace aitk::fs
