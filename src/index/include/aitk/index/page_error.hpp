#pragma once
// What is wrong with an index page as a whole (too large, not JSON, an API version we do not
// speak), with the place in the page where it was found. Problems with single files do not
// fail a page: those files are skipped with a reason (see SkippedFile).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::index {

struct PageError {
    std::string message;
    std::string url;                    // the page (credentials removed)
    std::optional<std::size_t> offset;  // 0-based byte offset into the page
    std::size_t line = 0;               // 1-based, when offset is set
    std::size_t column = 0;             // 1-based byte column, when offset is set

    // "<url>: line 3, column 17: <message>" (without the place when there is none).
    std::string describe() const;
};

// A PageError whose line and column are computed from `offset` into `page`.
PageError make_page_error(std::string message, std::string_view url, std::string_view page,
                          std::optional<std::size_t> offset = std::nullopt);

// Bounds that keep a hostile or broken server from exhausting memory. The defaults are far above
// any real page (PyPI's largest project pages are a few MB with ~10k files).
struct PageLimits {
    std::size_t max_bytes = 64u << 20;
    std::size_t max_files = 200'000;
    std::size_t max_json_depth = 64;
};

}  // namespace aitk::index
