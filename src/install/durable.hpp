#pragma once
// What makes a step of a prefix transaction survive power loss, not only a killed process: a
// rename is durable once its folder is flushed, and file data once the file (or its whole
// filesystem) is. Private to the install layer.
#include <filesystem>

namespace aitk::install::detail {

// Flushes a file's data, or a folder's entries, to disk. Throws util::Error naming the path.
void flush_to_disk(const std::filesystem::path& path);

// Flushes everything written to the filesystem holding `path` (syncfs on Linux): one call
// instead of one fsync per staged file, since thousands of files become durable together.
// Throws util::Error naming the path.
void flush_filesystem(const std::filesystem::path& path);

}  // namespace aitk::install::detail
