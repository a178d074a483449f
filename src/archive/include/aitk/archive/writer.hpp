#pragma once
// Deterministic archive creation: the same entries give the same bytes (fixed times, owners and
// permissions, sorted entries, no gzip timestamp), for test wheels, bundles and mirrors.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/archive/reader.hpp"

namespace aitk::archive {

enum class Format { zip, tar, tar_gz, tar_zst, tar_xz };

std::string_view to_string(Format format) noexcept;

// 1980-01-02T00:00:00Z: the zip format cannot express anything before 1980 in any time zone.
inline constexpr std::int64_t default_archive_mtime = 315619200;

struct WriteEntry {
    std::string path;  // stored exactly as given (tests use this to build hostile archives)
    EntryType type = EntryType::file;
    std::string content;           // file data, unless `source` is set
    std::filesystem::path source;  // stream the file data from here (large files)
    std::uint32_t mode = 0;        // 0: 0644 for files, 0755 for folders, 0777 for symlinks
    std::string link_target;       // symlink target or hardlink source
    bool store = false;            // zip: keep this member uncompressed
    std::uint64_t rdev = 0;        // devices (test corpora only)

    static WriteEntry file(std::string path, std::string content, std::uint32_t mode = 0);
    static WriteEntry directory(std::string path);
    static WriteEntry symlink(std::string path, std::string target);
    static WriteEntry hardlink(std::string path, std::string target);
};

struct WriteOptions {
    bool sort = true;  // by path (byte order); off to keep the caller's order (RECORD last)
    std::int64_t mtime = default_archive_mtime;
    int compression_level = -1;  // -1: the filter's default
};

// Writes to a temporary file beside `out`, then renames it over `out`. Throws ArchiveError.
void write_archive(const std::filesystem::path& out, Format format, std::vector<WriteEntry> entries,
                   const WriteOptions& options = {});
std::string write_archive_to_memory(Format format, std::vector<WriteEntry> entries,
                                    const WriteOptions& options = {});

// Archives a folder's tree (files streamed, symlinks kept as links, folders included) under
// `prefix` ("" or "name-1.0/"), in sorted order.
void write_directory_archive(const std::filesystem::path& out, Format format,
                             const std::filesystem::path& directory, std::string_view prefix = {},
                             const WriteOptions& options = {});

}  // namespace aitk::archive
