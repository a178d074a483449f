// Fuzzes the PEP 503 HTML page parser (and the HTML scan, character references and URL
// resolution under it): any bytes must give a page or a PageError, and every file kept must
// be a well-formed distribution of the page's project with an absolute URL.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/index/html.hpp"
#include "aitk/index/simple_page.hpp"
#include "aitk/index/url.hpp"

namespace {

void check_files(const aitk::index::ProjectPage& page, std::string_view project) {
    for (const auto& f : page.files) {
        if (f.filename.empty() || !aitk::index::is_valid_utf8(f.filename)) std::abort();
        if (!project.empty() && f.project() != project) std::abort();
        if (f.url.find('#') != std::string::npos) std::abort();
        if (!aitk::index::link_scheme_problem(page.url, f.url).empty()) std::abort();
        if (f.filename.find('/') != std::string::npos) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto page = aitk::index::parse_html_page(text, "https://h.example/simple/demo/", "demo")) {
        check_files(*page, "demo");
    }
    if (auto flat = aitk::index::parse_html_page(text, "file:///srv/wheels/", "")) {
        check_files(*flat, "");
    }
    (void)aitk::index::decode_html_entities(text);
    const std::string resolved = aitk::index::resolve_url("https://h.example/a/b/", text);
    (void)aitk::index::url_filename(resolved);
    return 0;
}
