#pragma once
// "No space left on device" says nothing about which disk filled up. A command that writes into
// both the cache and a prefix (setup, sync) turns it into an error that names the one that did
// — the cache at PATH, the prefix at PATH, or the disk holding both — with the room left there
// and what to do.
#include <exception>
#include <filesystem>

#include "aitk/util/error.hpp"

namespace aitk::app {

// What explain_disk_full throws; it passes through an outer explain_disk_full unchanged.
class DiskFullError : public util::Error {
  public:
    using util::Error::Error;
};

// When `error` is the system's "no space left" (or a disk quota): throws DiskFullError naming
// the cache at `cache` or the prefix at `prefix` (the one the error names, else the one whose
// disk has less room, or both when they share a disk). Returns otherwise.
void explain_disk_full(const std::exception& error, const std::filesystem::path& cache,
                       const std::filesystem::path& prefix);

}  // namespace aitk::app
