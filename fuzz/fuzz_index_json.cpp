// Fuzzes the PEP 691 JSON page parser: any bytes must give a page or a PageError (deep nesting
// and invalid UTF-8 included), and every file kept must belong to the page's project.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/index/simple_page.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto page = aitk::index::parse_json_page(text, "https://h.example/simple/demo/", "demo");
    if (page) {
        for (const auto& f : page->files) {
            if (f.project() != "demo" || f.url.empty()) std::abort();
            for (const auto& [algorithm, digest] : f.hashes) {
                if (algorithm.empty() || digest.empty()) std::abort();
            }
        }
    } else if (page.error().offset && *page.error().offset > size) {
        std::abort();
    }
    (void)aitk::index::parse_project_page(text, "", "https://h.example/simple/demo/", "demo");
    return 0;
}
