#pragma once
// A cached HTTP response (index pages): the body plus what revalidation needs, stored as one
// file so that replacing it is one atomic rename. The codec is pure (no I/O).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::cache {

struct HttpEntry {
    std::string url;  // credentials are removed before storing (see util::strip_credentials)
    std::string etag;
    std::string last_modified;
    std::string content_type;
    std::int64_t stored_at = 0;  // seconds since the epoch when the response was (re)validated
    std::string body;

    friend bool operator==(const HttpEntry&, const HttpEntry&) = default;
};

// Header lines ("name: value", values without CR/LF: those are dropped), a blank line, the body.
std::string serialize_http_entry(const HttpEntry& entry);
// Nothing for anything not written by serialize_http_entry (damaged, truncated, foreign).
std::optional<HttpEntry> parse_http_entry(std::string_view stored);

}  // namespace aitk::cache
