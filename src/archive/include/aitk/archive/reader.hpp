#pragma once
// Reading zip (wheels), tar, tar.gz, tar.bz2, tar.xz and tar.zst archives (libarchive stays out
// of this header): walk the entries, list them, or read one member into memory.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aitk::archive {

enum class EntryType {
    file,
    directory,
    symlink,
    hardlink,  // `link_target` names an earlier member
    character_device,
    block_device,
    fifo,
    socket,
    unknown,
};

std::string_view to_string(EntryType type) noexcept;

struct Entry {
    std::string path;  // as stored (UTF-8), not yet checked: see member_path.hpp
    EntryType type = EntryType::file;
    std::optional<std::uint64_t> size;  // the declared size, when the header has one
    std::uint32_t mode = 0;             // permission bits (07777)
    std::string link_target;            // symlink target or hardlink source
    std::optional<std::int64_t> mtime;  // seconds since the epoch
};

// Walks an archive once, front to back.
class Reader {
  public:
    // Throws ArchiveError(unreadable) naming the file when it cannot be opened or recognised.
    static Reader open(const std::filesystem::path& file);
    // `bytes` must outlive the reader; `label` names the archive in errors (a URL, a filename).
    static Reader open_memory(std::string_view bytes, std::string label);

    Reader(Reader&&) noexcept;
    Reader& operator=(Reader&&) noexcept;
    ~Reader();

    // The next entry, or nullptr at the end. The pointer stays valid until the next call.
    // Data of the previous entry that was not read is skipped.
    const Entry* next();

    // The current entry's data, one block at a time: false at its end. `offset` is where the
    // block goes in the file (blocks may skip over holes of sparse entries).
    bool next_block(std::string_view& block, std::uint64_t& offset);

    // The whole current entry; ArchiveError(too_large) once it passes `max_bytes`.
    std::string read_all(std::uint64_t max_bytes);

    const std::string& label() const noexcept;

  private:
    struct Impl;
    explicit Reader(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> impl_;
};

// Every entry, in archive order (duplicates included).
std::vector<Entry> list_entries(const std::filesystem::path& archive);

inline constexpr std::uint64_t default_member_limit = 64ull << 20;

// The content of the first member whose normalised name equals the normalised `member`, or
// nothing when there is none. ArchiveError(too_large) past `max_bytes`.
std::optional<std::string> read_member(const std::filesystem::path& archive,
                                       std::string_view member,
                                       std::uint64_t max_bytes = default_member_limit);
std::optional<std::string> read_member(std::string_view archive_bytes, std::string label,
                                       std::string_view member,
                                       std::uint64_t max_bytes = default_member_limit);

struct Member {
    std::string path;
    std::string content;
};

// A wheel's `<name>-<version>.dist-info/METADATA` (top level). ArchiveError(missing_member)
// when there is none, (duplicate) when there are several .dist-info folders with one.
Member read_wheel_metadata(const std::filesystem::path& wheel);
Member read_wheel_metadata(std::string_view wheel_bytes, std::string label);

}  // namespace aitk::archive
