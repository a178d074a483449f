#include "aitk/net/content_range.hpp"

#include "aitk/util/strings.hpp"

namespace aitk::net {
namespace {

std::optional<std::uint64_t> parse_number(std::string_view text) noexcept {
    if (text.empty() || text.size() > 19) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text) {
        if (!util::is_ascii_digit(c)) return std::nullopt;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return value;
}

}  // namespace

std::optional<ContentRange> parse_content_range(std::string_view value) noexcept {
    value = util::trim(value);
    constexpr std::string_view unit = "bytes ";
    if (!util::istarts_with(value, unit)) return std::nullopt;
    value = util::trim(value.substr(unit.size()));
    const auto slash = value.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const auto range = value.substr(0, slash);
    const auto complete = value.substr(slash + 1);

    ContentRange out;
    if (complete != "*") {
        out.complete_length = parse_number(complete);
        if (!out.complete_length) return std::nullopt;
    }
    if (range == "*") {
        if (!out.complete_length) return std::nullopt;  // "*/*" says nothing
        return out;
    }
    const auto dash = range.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    out.first = parse_number(range.substr(0, dash));
    out.last = parse_number(range.substr(dash + 1));
    if (!out.first || !out.last || *out.last < *out.first) return std::nullopt;
    if (out.complete_length && *out.last >= *out.complete_length) return std::nullopt;
    return out;
}

bool is_strong_etag(std::string_view etag) noexcept {
    return etag.size() >= 2 && etag.front() == '"' && etag.back() == '"';
}

}  // namespace aitk::net
