// PEP 691 JSON project pages.
#include <charconv>

#include <nlohmann/json.hpp>

#include "aitk/index/simple_page.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::index {

namespace {

using nlohmann::json;

// Nesting depth of JSON text, for refusing absurdly deep documents before building them: the
// offset of the first bracket past `max_depth`, or nothing.
std::optional<std::size_t> too_deep_at(std::string_view text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth) return i;
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

std::string type_name(const json& value) {
    return value.type_name();
}

std::string field_error(std::size_t index, std::string_view field, std::string_view expected,
                        const json& value) {
    return "files[" + std::to_string(index) + "]." + std::string(field) + " must be " +
           std::string(expected) + ", not " + type_name(value);
}

// Hashes of a "hashes" object; an error message for a malformed one.
std::string read_hashes(const json& object, Hashes& out, std::size_t index,
                        std::string_view field) {
    if (!object.is_object()) return field_error(index, field, "an object", object);
    for (const auto& [algorithm, digest] : object.items()) {
        if (!digest.is_string()) {
            return field_error(index, std::string(field) + "." + algorithm, "a string", digest);
        }
        const std::string name = util::to_lower(algorithm);
        auto normalized = normalize_hash(name, digest.get_ref<const std::string&>());
        if (!normalized) {
            return "files[" + std::to_string(index) + "]." + std::string(field) + "." + algorithm +
                   " is not a valid " + name + " hex digest";
        }
        out.emplace(name, std::move(*normalized));
    }
    return {};
}

std::string read_metadata(const json& value, CoreMetadataRef& out, std::size_t index,
                          std::string_view field) {
    if (value.is_boolean()) {
        out.available = value.get<bool>();
        return {};
    }
    if (value.is_object()) {
        out.available = true;
        return read_hashes(value, out.hashes, index, field);
    }
    return field_error(index, field, "a boolean or an object of hashes", value);
}

// One entry of files[]: the draft file, or why it is skipped.
std::string read_file(const json& entry, std::size_t index, std::string_view page_url,
                      DistributionFile& draft) {
    if (!entry.is_object()) return "files[" + std::to_string(index) + "] is not an object";
    const auto filename = entry.find("filename");
    if (filename == entry.end()) return "files[" + std::to_string(index) + "] has no filename";
    if (!filename->is_string()) return field_error(index, "filename", "a string", *filename);
    draft.filename = filename->get<std::string>();
    const auto url = entry.find("url");
    if (url == entry.end()) return "files[" + std::to_string(index) + "] has no url";
    if (!url->is_string()) return field_error(index, "url", "a string", *url);
    const std::string resolved = resolve_url(page_url, url->get_ref<const std::string&>());
    draft.url = std::string(pep::split_fragment(resolved).url);
    if (auto problem = link_scheme_problem(page_url, draft.url); !problem.empty()) return problem;

    if (const auto hashes = entry.find("hashes"); hashes != entry.end()) {
        if (auto problem = read_hashes(*hashes, draft.hashes, index, "hashes"); !problem.empty())
            return problem;
    }
    if (const auto fragment = split_url(resolved).fragment; fragment) {
        auto from_fragment = hashes_from_fragment(*fragment);
        if (!from_fragment.error.empty()) return from_fragment.error;
        draft.hashes.merge(from_fragment.hashes);  // the hashes object wins
    }
    if (const auto rp = entry.find("requires-python"); rp != entry.end() && !rp->is_null()) {
        if (!rp->is_string()) return field_error(index, "requires-python", "a string", *rp);
        draft.requires_python = std::string(util::trim(rp->get_ref<const std::string&>()));
    }
    // PEP 714 renamed dist-info-metadata to core-metadata; the new name wins.
    if (const auto meta = entry.find("core-metadata"); meta != entry.end()) {
        if (auto problem = read_metadata(*meta, draft.core_metadata, index, "core-metadata");
            !problem.empty())
            return problem;
    } else if (const auto legacy = entry.find("dist-info-metadata"); legacy != entry.end()) {
        if (auto problem = read_metadata(*legacy, draft.core_metadata, index, "dist-info-metadata");
            !problem.empty())
            return problem;
    }
    if (const auto yanked = entry.find("yanked"); yanked != entry.end()) {
        if (yanked->is_boolean()) {
            draft.yanked = yanked->get<bool>();
        } else if (yanked->is_string()) {
            draft.yanked = true;
            draft.yanked_reason = yanked->get<std::string>();
        } else {
            return field_error(index, "yanked", "a boolean or a string", *yanked);
        }
    }
    if (const auto size = entry.find("size"); size != entry.end() && !size->is_null()) {
        if (!size->is_number_unsigned()) {
            return field_error(index, "size", "a non-negative integer", *size);
        }
        draft.size = size->get<std::uint64_t>();
    }
    if (const auto uploaded = entry.find("upload-time");
        uploaded != entry.end() && !uploaded->is_null()) {
        if (!uploaded->is_string()) return field_error(index, "upload-time", "a string", *uploaded);
        draft.upload_time = uploaded->get<std::string>();
    }
    return {};
}

std::string without_exception_prefix(std::string_view what) {
    // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at ..."
    if (what.starts_with("[json.exception.")) {
        const auto close = what.find("] ");
        if (close != std::string_view::npos) what.remove_prefix(close + 2);
    }
    return std::string(what);
}

}  // namespace

PageResult parse_json_page(std::string_view text, std::string_view page_url,
                           std::string_view project, const PageLimits& limits) {
    auto fail = [&](std::string message, std::optional<std::size_t> offset = std::nullopt) {
        return util::Unexpected(make_page_error(std::move(message), page_url, text, offset));
    };
    if (text.size() > limits.max_bytes) {
        return fail("the page is " + std::to_string(text.size()) + " bytes, above the limit of " +
                    std::to_string(limits.max_bytes) + " bytes");
    }
    if (const auto deep = too_deep_at(text, limits.max_json_depth)) {
        return fail(
            "the JSON nests deeper than " + std::to_string(limits.max_json_depth) + " levels",
            *deep);
    }
    json document;
    try {
        document = json::parse(text);
    } catch (const json::parse_error& e) {
        const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
        return fail("not valid JSON: " + without_exception_prefix(e.what()), at);
    } catch (const json::exception& e) {
        return fail("not valid JSON: " + without_exception_prefix(e.what()));
    }
    if (!document.is_object()) {
        return fail("a PEP 691 page must be a JSON object, not " + type_name(document));
    }
    const auto meta = document.find("meta");
    if (meta == document.end() || !meta->is_object()) {
        return fail("the page has no \"meta\" object (is this a PEP 691 project page?)");
    }
    const auto api = meta->find("api-version");
    if (api == meta->end() || !api->is_string()) {
        return fail("the page has no meta.api-version string (PEP 691)");
    }
    const std::string& api_version = api->get_ref<const std::string&>();
    unsigned major = 0;
    const auto [end, ec] =
        std::from_chars(api_version.data(), api_version.data() + api_version.size(), major);
    if (ec != std::errc() || end == api_version.data() ||
        (end != api_version.data() + api_version.size() && *end != '.')) {
        return fail("meta.api-version '" + api_version + "' is not a version like \"1.1\"");
    }
    if (major != 1) {
        return fail("the page uses version '" + api_version +
                    "' of the simple API; only major version 1 is supported (PEP 691)");
    }
    const auto files = document.find("files");
    if (files == document.end() || !files->is_array()) {
        return fail("the page has no \"files\" array (is this a project page?)");
    }
    if (files->size() > limits.max_files) {
        return fail("the page lists " + std::to_string(files->size()) +
                    " files, above the limit of " + std::to_string(limits.max_files));
    }

    ProjectPage page;
    page.url = std::string(page_url);
    page.format = PageFormat::json;
    page.api_version = api_version;
    page.files.reserve(files->size());
    std::size_t index = 0;
    for (const auto& entry : *files) {
        DistributionFile draft;
        if (auto problem = read_file(entry, index++, page_url, draft); !problem.empty()) {
            page.skipped.push_back({draft.filename, draft.url, std::move(problem), true});
            continue;
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

PageResult parse_project_page(std::string_view body, std::string_view content_type,
                              std::string_view page_url, std::string_view project,
                              const PageLimits& limits) {
    const std::string media =
        util::to_lower(util::trim(content_type.substr(0, content_type.find(';'))));
    bool is_json = false;
    if (media.empty()) {
        const std::string_view trimmed = util::trim(body.substr(0, 1024));
        is_json = !trimmed.empty() && trimmed.front() == '{';
    } else if (media.starts_with("application/vnd.pypi.simple.")) {
        const std::string_view rest = std::string_view(media).substr(28);
        if (!rest.starts_with("v1+") && !rest.starts_with("latest+")) {
            return util::Unexpected(make_page_error(
                "the server answered with '" + media +
                    "', a version of the simple API this aitk-env does not read (it reads v1)",
                page_url, body));
        }
        is_json = rest.ends_with("+json");
    } else {
        is_json = media == "application/json" || media.ends_with("+json");
    }
    return is_json ? parse_json_page(body, page_url, project, limits)
                   : parse_html_page(body, page_url, project, limits);
}

}  // namespace aitk::index
