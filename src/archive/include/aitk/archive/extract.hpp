#pragma once
// Secure extraction: every member is checked before anything is written (member_path.hpp), no
// write ever follows a link, special files are refused, sizes and counts are capped, and the
// tree is built in a temporary folder beside the destination that is renamed into place only
// when everything succeeded, so a failure leaves nothing behind.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aitk/archive/reader.hpp"
#include "aitk/fs/hash.hpp"

namespace aitk::archive {

enum class LinkPolicy {
    allow_inside,  // symlinks and hardlinks whose targets stay inside the destination
    reject,        // any link is an error (wheels: pip cannot install them either)
};

// A member whose data passes `max_bytes` is stopped before a byte past it is written. With
// `skip_data` its data is not read at all: it is made empty (ExtractedEntry::data_skipped), for a
// member the caller refuses by name afterwards (a wheel member RECORD does not list), so it
// need not fill the disk first.
struct MemberLimit {
    std::uint64_t max_bytes = 0;
    bool skip_data = false;
};

struct ExtractOptions {
    // Zip-bomb defence: counted on the bytes actually produced, not on what headers claim.
    std::uint64_t max_total_bytes = 16ull << 30;
    // Why max_total_bytes is what it is, for the errors that name it (default: "zip bomb?").
    std::string max_total_rule;
    // Per-member limits (a wheel's RECORD sizes), asked once per file member with its
    // normalised path; nullopt: no limit but the total.
    std::function<std::optional<MemberLimit>(const std::string& path)> member_limit;
    std::string member_limit_name = "its limit";  // for "expands past N bytes, <name>"
    std::uint64_t max_entries = 500'000;
    LinkPolicy links = LinkPolicy::allow_inside;
    // Hash each file while writing it (an installer compares them with RECORD without a
    // second read).
    bool compute_sha256 = false;
    // Keep the members' modification times (Python compares them with its .pyc files).
    bool keep_mtime = true;
    // With keep_mtime: members dated later than this (seconds since the epoch) get this time. A
    // zip's times are local times without a zone, so a wheel built hours ahead of this machine's
    // clock would otherwise hold files "from the future", which later look edited after their
    // install (install::plan_install compares file times with RECORD's).
    std::optional<std::int64_t> latest_mtime;
    // More than 1: a zip's members are spread over this many threads, each with its own reader
    // (a large wheel unpacks on every core instead of one). Only with LinkPolicy::reject.
    std::size_t threads = 1;
};

struct ExtractedEntry {
    std::string path;  // normalised, relative to the destination, '/'-separated
    EntryType type = EntryType::file;
    std::uint64_t size = 0;               // files: bytes written
    std::optional<fs::Digest256> sha256;  // files, with compute_sha256
    std::string link_target;              // symlinks: as stored; hardlinks: normalised source
    bool data_skipped = false;            // MemberLimit::skip_data: made empty, data unread
};

struct ExtractResult {
    std::vector<ExtractedEntry> entries;  // archive order; implied parent folders not included
    std::uint64_t total_bytes = 0;
};

// Extracts into `destination`, which must not exist yet (its parent may not either). Throws
// ArchiveError naming the archive and the member; on any error nothing is left at
// `destination` and no temporary remains.
ExtractResult extract(const std::filesystem::path& archive,
                      const std::filesystem::path& destination, const ExtractOptions& options = {});
ExtractResult extract(Reader& reader, const std::filesystem::path& destination,
                      const ExtractOptions& options = {});

}  // namespace aitk::archive
