#include "aitk/cache/http_entry.hpp"

#include <charconv>

#include "aitk/fs/hash.hpp"

namespace aitk::cache {
namespace {

constexpr std::string_view magic = "aitk-env http cache 1\n";

void add_header(std::string& out, std::string_view name, std::string_view value) {
    out += name;
    out += ": ";
    for (char c : value) {
        if (c != '\n' && c != '\r') out += c;
    }
    out += '\n';
}

bool parse_int(std::string_view text, std::int64_t& out) {
    if (text.empty()) return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string serialize_http_entry(const HttpEntry& entry) {
    std::string out;
    out.reserve(entry.body.size() + entry.url.size() + 256);
    out += magic;
    add_header(out, "url", entry.url);
    add_header(out, "etag", entry.etag);
    add_header(out, "last-modified", entry.last_modified);
    add_header(out, "content-type", entry.content_type);
    add_header(out, "stored-at", std::to_string(entry.stored_at));
    add_header(out, "body-size", std::to_string(entry.body.size()));
    // Entries are written without a flush to disk: after a power loss the size and the digest
    // tell a whole body from a short or zero-filled one.
    add_header(out, "body-sha256", fs::sha256_hex(entry.body));
    out += '\n';
    out += entry.body;
    return out;
}

std::optional<HttpEntry> parse_http_entry(std::string_view stored) {
    if (!stored.starts_with(magic)) return std::nullopt;
    stored.remove_prefix(magic.size());
    HttpEntry entry;
    std::int64_t body_size = -1;
    std::string_view body_sha256;  // absent in entries of older versions, which were flushed
    for (;;) {
        std::size_t eol = stored.find('\n');
        if (eol == std::string_view::npos) return std::nullopt;
        std::string_view line = stored.substr(0, eol);
        stored.remove_prefix(eol + 1);
        if (line.empty()) break;
        std::size_t colon = line.find(": ");
        if (colon == std::string_view::npos) return std::nullopt;
        std::string_view name = line.substr(0, colon);
        std::string_view value = line.substr(colon + 2);
        if (name == "url") {
            entry.url = value;
        } else if (name == "etag") {
            entry.etag = value;
        } else if (name == "last-modified") {
            entry.last_modified = value;
        } else if (name == "content-type") {
            entry.content_type = value;
        } else if (name == "stored-at") {
            if (!parse_int(value, entry.stored_at)) return std::nullopt;
        } else if (name == "body-size") {
            if (!parse_int(value, body_size)) return std::nullopt;
        } else if (name == "body-sha256") {
            body_sha256 = value;
        }
        // Other names: written by a newer aitk-env; ignored.
    }
    if (body_size < 0 || static_cast<std::uint64_t>(body_size) != stored.size()) {
        return std::nullopt;  // truncated or grown: not what was written
    }
    if (!body_sha256.empty() && fs::sha256_hex(stored) != body_sha256) return std::nullopt;
    entry.body = stored;
    return entry;
}

}  // namespace aitk::cache
