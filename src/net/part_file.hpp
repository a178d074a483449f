#pragma once
// The `<dest>.part` file a download streams into. Failures come back as text for the transfer's
// error message; nothing here throws.
//
// Written through a plain file descriptor and a buffer of `buffer_bytes` that is allocated while
// the file is open only (a finished download holds no memory). Pieces are gathered until the
// buffer is full, so the kernel gets whole, aligned writes whatever sizes libcurl hands over; a
// piece of a buffer or more, when nothing is gathered, goes out without the copy, still one
// buffer's worth per write(2): fs::page_cache_write_bytes says why that is small. A buffer that
// stays in the core's cache between the copy in and the write out is what makes it cheap.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"

namespace aitk::net::detail {

class PartFile {
  public:
    static constexpr std::size_t buffer_bytes = fs::page_cache_write_bytes;

    PartFile() = default;
    ~PartFile();
    PartFile(const PartFile&) = delete;
    PartFile& operator=(const PartFile&) = delete;

    // Empties (or creates) the file and opens it for writing.
    std::optional<std::string> open_fresh(const std::filesystem::path& path);
    // Opens for appending after the bytes already there.
    std::optional<std::string> open_append(const std::filesystem::path& path);
    std::optional<std::string> write(const char* data, std::size_t size);
    // Flushes (and with `sync`, forces to disk) and closes; harmless when not open.
    std::optional<std::string> close(bool sync = false);
    bool is_open() const noexcept { return fd_ >= 0; }

  private:
    std::optional<std::string> open(const std::filesystem::path& path, bool append);
    std::optional<std::string> write_out(const char* data, std::size_t size);
    std::optional<std::string> flush_gathered();

    int fd_ = -1;
    std::filesystem::path path_;
    std::unique_ptr<char[]> gathered_;  // allocated on the first small piece
    std::size_t gathered_size_ = 0;
};

// Feeds the existing file into `hash`; returns its size, or nullopt when it cannot be read.
std::optional<std::uint64_t> hash_existing_file(const std::filesystem::path& path,
                                                fs::Sha256& hash);

}  // namespace aitk::net::detail
