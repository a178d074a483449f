#pragma once
// A read-only view of a whole file mapped into memory, so readers of large binaries (a 1.5 GB
// libtorch_cuda.so) touch only the pages they parse. Empty files map to an empty span.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "aitk/util/expected.hpp"

namespace aitk::fs {

class MappedFile {
  public:
    MappedFile() = default;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    ~MappedFile();

    std::span<const std::uint8_t> bytes() const noexcept { return {data_, size_}; }
    std::size_t size() const noexcept { return size_; }

  private:
    friend util::Expected<MappedFile, std::string> map_file(const std::filesystem::path& path);
    void release() noexcept;
    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
#ifdef _WIN32
    void* mapping_ = nullptr;
#endif
};

// Maps a regular file read-only; the error names the path and the OS reason.
util::Expected<MappedFile, std::string> map_file(const std::filesystem::path& path);

}  // namespace aitk::fs
