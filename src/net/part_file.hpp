#pragma once
// The `<dest>.part` file a download streams into. Failures come back as text for the transfer's
// error message; nothing here throws.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "aitk/fs/hash.hpp"

namespace aitk::net::detail {

class PartFile {
  public:
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
    bool is_open() const noexcept { return file_ != nullptr; }

  private:
    std::optional<std::string> open(const std::filesystem::path& path, bool append);

    std::FILE* file_ = nullptr;
    std::filesystem::path path_;
};

// Feeds the existing file into `hash`; returns its size, or nullopt when it cannot be read.
std::optional<std::uint64_t> hash_existing_file(const std::filesystem::path& path,
                                                fs::Sha256& hash);

}  // namespace aitk::net::detail
