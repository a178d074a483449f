#pragma once
// The Content-Range response header (RFC 9110 §14.4): how a resumed body and a 416 answer are
// checked, and what a range reader of zip tails needs to know about the full size.
#include <cstdint>
#include <optional>
#include <string_view>

namespace aitk::net {

struct ContentRange {
    // `bytes first-last/complete`; `bytes */complete` (a 416 answer) has no first/last.
    std::optional<std::uint64_t> first;
    std::optional<std::uint64_t> last;
    std::optional<std::uint64_t> complete_length;  // nullopt for "/*"
};

std::optional<ContentRange> parse_content_range(std::string_view value) noexcept;

// A strong entity tag ("..." without W/) is the only kind If-Range accepts.
bool is_strong_etag(std::string_view etag) noexcept;

}  // namespace aitk::net
