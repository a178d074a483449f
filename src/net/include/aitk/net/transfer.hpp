#pragma once
// What a caller asks the downloader for, and what it gets back. Every URL in a result or an
// error is redacted (see redact.hpp); the caller's request keeps the original.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::net {

// Header name/value pairs in arrival order. Names of response headers are lower-cased.
using Headers = std::vector<std::pair<std::string, std::string>>;

// Value of the first header named `name` (ASCII case-insensitive), if any.
std::optional<std::string_view> find_header(const Headers& headers, std::string_view name);

// A body streamed to `destination` (through `<destination>.part`, renamed into place only
// once complete and verified; an existing destination is replaced). The downloader assumes it
// alone writes that .part: two processes fetching the same destination must be serialised by
// the caller (the cache holds a lock per artifact).
// Retries and resumes are the downloader's; a caller only sees the final outcome.
struct FileRequest {
    std::string url;
    std::filesystem::path destination;
    // Lower-case hex; when set, a body with another hash is rejected and nothing is kept.
    std::optional<std::string> expected_sha256;
    std::optional<std::uint64_t> expected_size;
    Headers headers;
};

struct FileResult {
    std::string url;  // redacted
    std::filesystem::path destination;
    std::string sha256;  // of the file now at `destination`
    std::uint64_t size = 0;
    int attempts = 0;       // requests sent, the successful one included
    bool resumed = false;   // some part of the body came from a Range request
    long http_version = 0;  // 11, 2, ... of the last response (0 when not HTTP)
};

// A small body kept in memory: index pages, PEP 658 metadata, zip tails read with a Range
// header. Conditional headers make revalidation of a cached page cheap.
struct FetchRequest {
    std::string url;
    Headers headers;  // e.g. {"Accept", "application/vnd.pypi.simple.v1+json"}, {"Range", ...}
    std::optional<std::string> if_none_match;      // an ETag from an earlier response
    std::optional<std::string> if_modified_since;  // a Last-Modified from an earlier response
};

struct FetchResult {
    std::string url;            // redacted request URL
    std::string effective_url;  // redacted, after redirects
    long status = 0;            // 200, 206, 304, ... (0 for file: URLs)
    bool not_modified = false;  // 304 to a conditional request: `body` is empty
    std::string body;           // decoded (gzip/br/zstd are negotiated)
    Headers headers;            // of the final response
    std::optional<std::string> etag;
    std::optional<std::string> last_modified;
    std::optional<std::string> content_type;
    int attempts = 0;
};

struct TransferError {
    enum class Kind {
        connection,     // DNS, refused, reset, timeouts: retried until attempts run out
        http_status,    // a final non-success status (404, or 5xx after the retries)
        tls,            // certificate not trusted, hostname mismatch, handshake failure
        hash_mismatch,  // body arrived but its sha256 (or size) differs from the expected one
        local_io,       // the .part could not be written or renamed
        too_large,      // a fetch body above DownloaderOptions::max_memory_body
        bad_request,    // unusable URL or request
        cancelled,
    };
    Kind kind = Kind::connection;
    std::string url;       // redacted
    std::string message;   // complete sentence for the user; names the URL, never credentials
    long http_status = 0;  // the last status received, 0 when none
    int attempts = 0;
    std::optional<std::string> expected_sha256;
    std::optional<std::string> actual_sha256;
};

std::string_view to_string(TransferError::Kind kind) noexcept;

using FileOutcome = util::Expected<FileResult, TransferError>;
using FetchOutcome = util::Expected<FetchResult, TransferError>;

}  // namespace aitk::net
