// PEP 503 HTML project pages and find-links pages.
#include <charconv>

#include "aitk/index/html.hpp"
#include "aitk/index/simple_page.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::index {

namespace {

// PEP 714: "true" (a file without a hash) or "<hash>=<hex>"; anything else is "no metadata".
CoreMetadataRef parse_metadata_attribute(std::string_view value) {
    CoreMetadataRef ref;
    value = util::trim(value);
    if (util::iequals(value, "true")) {
        ref.available = true;
        return ref;
    }
    const auto eq = value.find('=');
    if (eq == std::string_view::npos) return ref;
    const std::string algorithm = util::to_lower(value.substr(0, eq));
    if (auto digest = normalize_hash(algorithm, value.substr(eq + 1))) {
        ref.available = true;
        ref.hashes.emplace(algorithm, std::move(*digest));
    }
    return ref;
}

// The major number of a PEP 629 version ("1.1" -> 1); nothing when it is not "<digits>[.…]".
std::optional<unsigned> major_version(std::string_view version) {
    version = util::trim(version);
    unsigned major = 0;
    const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
    if (ec != std::errc() || end == version.data()) return std::nullopt;
    if (end != version.data() + version.size() && *end != '.') return std::nullopt;
    return major;
}

}  // namespace

PageResult parse_html_page(std::string_view html, std::string_view page_url,
                           std::string_view project, const PageLimits& limits) {
    if (html.size() > limits.max_bytes) {
        return util::Unexpected(make_page_error("the page is " + std::to_string(html.size()) +
                                                    " bytes, above the limit of " +
                                                    std::to_string(limits.max_bytes) + " bytes",
                                                page_url, {}));
    }
    ProjectPage page;
    page.url = std::string(page_url);
    page.format = PageFormat::html;

    const auto tags = scan_start_tags(html, {"a", "base", "meta"});
    std::string base(page_url);
    bool base_seen = false;
    for (const auto& tag : tags) {
        if (tag.name == "base" && !base_seen) {
            if (const auto* href = tag.attribute("href")) {
                base = resolve_url(page_url, href->value);
                base_seen = true;
            }
        } else if (tag.name == "meta") {
            const auto* name = tag.attribute("name");
            const auto* content = tag.attribute("content");
            if (!name || !content ||
                !util::iequals(util::trim(name->value), "pypi:repository-version")) {
                continue;
            }
            const auto major = major_version(content->value);
            if (major && *major != 1) {
                return util::Unexpected(make_page_error(
                    "the page declares repository version '" + content->value +
                        "'; only major version 1 of the simple API is supported (PEP 629)",
                    page_url, html, tag.offset));
            }
            if (major) page.api_version = std::string(util::trim(content->value));
        }
    }

    std::size_t anchors = 0;
    for (const auto& tag : tags) {
        if (tag.name != "a") continue;
        const auto* href = tag.attribute("href");
        if (!href) continue;
        if (++anchors > limits.max_files) {
            return util::Unexpected(make_page_error(
                "the page has more than " + std::to_string(limits.max_files) + " links", page_url,
                html, tag.offset));
        }
        const std::string resolved = resolve_url(base, href->value);
        const UrlParts parts = split_url(resolved);
        DistributionFile draft;
        draft.url = std::string(pep::split_fragment(resolved).url);
        draft.filename = url_filename(draft.url);
        if (!is_valid_utf8(draft.url)) {
            page.skipped.push_back(
                {draft.filename, draft.url, "the link is not valid UTF-8", true});
            continue;
        }
        if (auto problem = link_scheme_problem(page_url, draft.url); !problem.empty()) {
            page.skipped.push_back({draft.filename, draft.url, std::move(problem), true});
            continue;
        }
        if (parts.fragment) {
            auto fragment = hashes_from_fragment(*parts.fragment);
            if (!fragment.error.empty()) {
                page.skipped.push_back({draft.filename, draft.url, fragment.error, true});
                continue;
            }
            draft.hashes = std::move(fragment.hashes);
        }
        if (const auto* rp = tag.attribute("data-requires-python")) {
            draft.requires_python = std::string(util::trim(rp->value));
        }
        if (const auto* yanked = tag.attribute("data-yanked")) {
            draft.yanked = true;
            draft.yanked_reason = yanked->value;
        }
        if (const auto* meta = tag.attribute("data-core-metadata")) {
            draft.core_metadata = parse_metadata_attribute(meta->value);
        } else if (const auto* legacy = tag.attribute("data-dist-info-metadata")) {
            draft.core_metadata = parse_metadata_attribute(legacy->value);
        }
        auto classified = classify_file(std::move(draft), project);
        if (auto* file = std::get_if<DistributionFile>(&classified)) {
            page.files.push_back(std::move(*file));
        } else {
            page.skipped.push_back(std::move(std::get<SkippedFile>(classified)));
        }
    }
    return page;
}

}  // namespace aitk::index
