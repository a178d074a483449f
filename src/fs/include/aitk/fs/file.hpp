#pragma once
// Whole-file reads and crash-safe writes. Paths are UTF-8 std::filesystem paths.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace aitk::fs {

// The most one write of file content hands the kernel. On Linux the size of a write decides the
// size of the page-cache folios the kernel allocates for it, and on VMs that hand free memory back
// to their host (free page reporting) the large ones come from memory the host must fault in
// again: 1.9 GB into new files took 1.2-2.0 s with `dd bs=256K`, 2.5-2.8 s with `bs=1M` and
// 0.6-1.3 s with `bs=32K` (bench/results/net-2026-12-03.md); elsewhere 32 KiB costs only more
// system calls, a few hundredths of a second per GB. Windows has no such folios and a dearer
// call, so it keeps the 256 KiB the downloader used before.
#ifdef _WIN32
inline constexpr std::size_t page_cache_write_bytes = 256u << 10;
#else
inline constexpr std::size_t page_cache_write_bytes = 32u << 10;
#endif

// Reads a whole file; throws util::Error (exit 1) naming the path and the OS reason.
std::string read_file(const std::filesystem::path& path);

// How write_file_atomic writes.
struct AtomicWrite {
    // Where the temporary file is made (on `path`'s filesystem, so that one rename publishes
    // it); empty: beside `path`.
    std::filesystem::path temp_dir;
    // Whether the file is flushed to disk before the rename. Without the flush a power loss
    // may leave `path` empty or short, so it is off only for content that proves itself whole
    // when read back (a cache entry that records its own size): for a small file the flush is
    // most of the cost of writing it.
    bool flush = true;
};

// Writes `content` to a temporary file (named by unique_temp_path, which cleaners recognise),
// flushes it to disk, then renames it over `path`, so a reader (or a crash) sees either the old
// file or the new one, never half of it.
void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       const AtomicWrite& how = {});

}  // namespace aitk::fs
