#pragma once
// The probe answers of interpreters already asked, in one JSON file (by default
// <cache root>/v1/interpreters.json), keyed by the executable's real path and valid while its
// mtime and size are unchanged. Only answers of the real interpreter binary are kept: a launcher
// script (a wrapper that execs some Python) may start another Python tomorrow, so it is asked
// every time (version managers' shims are not run at all: see discovery.hpp).
//
//   {"version": 1, "interpreters": {"/usr/bin/python3.12":
//       {"mtime_ns": 1700000000000000000, "size": 6890080, "answer": {...probe JSON...}}}}
//
// A missing or damaged file reads as empty; saving is best effort (a cache, never an error).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "aitk/python/discovery.hpp"

namespace aitk::python {

// What identifies one interpreter binary on disk.
struct FileStamp {
    std::filesystem::path real_path;  // symlinks resolved
    std::int64_t mtime_ns = 0;
    std::uint64_t size = 0;
    friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

// Nothing when `path` does not resolve to a regular file.
std::optional<FileStamp> stamp_of(const std::filesystem::path& path);

// <cache root>/v1/interpreters.json.
std::filesystem::path default_interpreter_cache_file(const std::filesystem::path& cache_root);

class InterpreterCache {
  public:
    // Reads `file` (empty path: an in-memory cache that never saves).
    explicit InterpreterCache(std::filesystem::path file);

    // The answer stored for this stamp (path is left empty: the caller knows its candidate).
    std::optional<Interpreter> find(const FileStamp& stamp) const;
    // `answer` is the probe's JSON line.
    void put(const FileStamp& stamp, const std::string& answer);
    // Writes the file (atomically) when something was put; entries of files that are gone are
    // dropped, and entries another process saved meanwhile are kept.
    void save();

    std::size_t size() const noexcept { return entries_.size(); }

  private:
    struct Entry {
        std::int64_t mtime_ns = 0;
        std::uint64_t size = 0;
        std::string answer;  // the probe's JSON line
    };
    static std::map<std::string, Entry> read(const std::filesystem::path& file);

    std::filesystem::path file_;
    std::map<std::string, Entry> entries_;
    std::map<std::string, Entry> added_;
};

}  // namespace aitk::python
