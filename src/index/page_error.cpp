#include "aitk/index/page_error.hpp"

#include <algorithm>

#include "aitk/net/redact.hpp"

namespace aitk::index {

std::string PageError::describe() const {
    std::string out = url;
    if (!out.empty()) out += ": ";
    if (offset) {
        out += "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
    }
    out += message;
    return out;
}

PageError make_page_error(std::string message, std::string_view url, std::string_view page,
                          std::optional<std::size_t> offset) {
    PageError error;
    error.message = std::move(message);
    error.url = net::redact_url(url);
    if (offset) {
        const std::size_t at = std::min(*offset, page.size());
        error.offset = at;
        const std::string_view before = page.substr(0, at);
        error.line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
        const auto newline = before.rfind('\n');
        error.column = newline == std::string_view::npos ? at + 1 : at - newline;
    }
    return error;
}

}  // namespace aitk::index
