#pragma once
// Parsers of index pages into ProjectPage values: PEP 503 HTML, PEP 691 JSON and find-links
// pages. Pure (no I/O), linear in the page, safe on any input: a page-level problem is a
// PageError, a bad link only skips that file (ProjectPage::skipped says why).
#include <string_view>

#include "aitk/index/distribution.hpp"
#include "aitk/index/page_error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::index {

using PageResult = util::Expected<ProjectPage, PageError>;

// `page_url` is where the page came from (after redirects): relative hrefs and <base href>
// resolve against it. `project` is the PEP 503-normalised project the page is for; files of
// other projects are skipped. An empty `project` keeps every project's files (find-links pages
// list many projects on one page).
//
// HTML: every <a href> (any case, any quoting), `#<hash>=` fragments, data-requires-python,
// data-yanked (with an optional reason), data-core-metadata or legacy data-dist-info-metadata
// ("true" or "<hash>=<hex>"), <meta name="pypi:repository-version"> (major version 1 only).
PageResult parse_html_page(std::string_view html, std::string_view page_url,
                           std::string_view project, const PageLimits& limits = {});

// PEP 691 JSON: meta.api-version 1.x, files[] with filename, url, hashes, requires-python,
// core-metadata (or dist-info-metadata), yanked, size and upload-time.
PageResult parse_json_page(std::string_view json, std::string_view page_url,
                           std::string_view project, const PageLimits& limits = {});

// The parser a response calls for: JSON for "application/vnd.pypi.simple.v1+json" (and other
// "+json"/"application/json" types), HTML otherwise; without a content type (file: URLs) a body
// starting with '{' is JSON. Another major version ("...v2+json") is an error.
PageResult parse_project_page(std::string_view body, std::string_view content_type,
                              std::string_view page_url, std::string_view project,
                              const PageLimits& limits = {});

// Media types of the simple API and the Accept header that asks for JSON first, HTML next.
inline constexpr std::string_view simple_json_v1 = "application/vnd.pypi.simple.v1+json";
inline constexpr std::string_view simple_html_v1 = "application/vnd.pypi.simple.v1+html";
inline constexpr std::string_view simple_accept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01";

}  // namespace aitk::index
