#include "aitk/index/url.hpp"

#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::index {

namespace {

bool is_scheme_char(char c) noexcept {
    return util::is_ascii_alnum(c) || c == '+' || c == '-' || c == '.';
}

// HTML's URL whitespace: leading/trailing C0 space is stripped, tabs and newlines inside dropped.
std::string clean_reference(std::string_view reference) {
    auto is_edge_space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    };
    while (!reference.empty() && is_edge_space(reference.front()))
        reference.remove_prefix(1);
    while (!reference.empty() && is_edge_space(reference.back()))
        reference.remove_suffix(1);
    std::string out;
    out.reserve(reference.size());
    for (char c : reference) {
        if (c != '\t' && c != '\n' && c != '\r') out += c;
    }
    return out;
}

void pop_last_segment(std::string& out) {
    const auto slash = out.rfind('/');
    out.resize(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4, over views so that hostile paths stay linear.
std::string remove_dot_segments(std::string_view in) {
    static constexpr std::string_view root = "/";
    std::string out;
    out.reserve(in.size());
    while (!in.empty()) {
        if (in.starts_with("../")) {
            in.remove_prefix(3);
        } else if (in.starts_with("./")) {
            in.remove_prefix(2);
        } else if (in.starts_with("/./")) {
            in.remove_prefix(2);
        } else if (in == "/.") {
            in = root;
        } else if (in.starts_with("/../")) {
            in.remove_prefix(3);
            pop_last_segment(out);
        } else if (in == "/..") {
            in = root;
            pop_last_segment(out);
        } else if (in == "." || in == "..") {
            in = {};
        } else {
            const auto next = in.find('/', 1);
            const auto length = next == std::string_view::npos ? in.size() : next;
            out.append(in.substr(0, length));
            in.remove_prefix(length);
        }
    }
    return out;
}

std::string compose(std::string_view scheme, std::optional<std::string_view> authority,
                    std::string_view path, std::optional<std::string_view> query,
                    std::optional<std::string_view> fragment) {
    std::string out;
    out.reserve(scheme.size() + path.size() + 16 + (authority ? authority->size() : 0) +
                (query ? query->size() : 0) + (fragment ? fragment->size() : 0));
    if (!scheme.empty()) {
        out.append(scheme);
        out += ':';
    }
    if (authority) {
        out += "//";
        out.append(*authority);
    }
    out.append(path);
    if (query) {
        out += '?';
        out.append(*query);
    }
    if (fragment) {
        out += '#';
        out.append(*fragment);
    }
    return out;
}

}  // namespace

bool has_url_scheme(std::string_view text) noexcept {
    if (text.empty() || !util::is_ascii_alpha(text[0])) return false;
    std::size_t i = 1;
    while (i < text.size() && is_scheme_char(text[i]))
        ++i;
    return i < text.size() && text[i] == ':' && i >= 2;
}

UrlParts split_url(std::string_view url) noexcept {
    UrlParts parts;
    if (!url.empty() && util::is_ascii_alpha(url[0])) {
        std::size_t i = 1;
        while (i < url.size() && is_scheme_char(url[i]))
            ++i;
        if (i < url.size() && url[i] == ':') {
            parts.scheme = url.substr(0, i);
            url.remove_prefix(i + 1);
        }
    }
    // "#" with nothing after it is a fragment too (RFC 3986): present, empty.
    if (const auto split = pep::split_fragment(url); split.url.size() != url.size()) {
        parts.fragment = split.fragment;
        url = split.url;
    }
    if (const auto question = url.find('?'); question != std::string_view::npos) {
        parts.query = url.substr(question + 1);
        url = url.substr(0, question);
    }
    if (url.starts_with("//")) {
        url.remove_prefix(2);
        const auto slash = url.find('/');
        parts.authority = url.substr(0, slash);
        url = slash == std::string_view::npos ? std::string_view() : url.substr(slash);
    }
    parts.path = url;
    return parts;
}

std::string resolve_url(std::string_view base_url, std::string_view reference) {
    const std::string cleaned = clean_reference(reference);
    const UrlParts ref = split_url(cleaned);
    const UrlParts base = split_url(base_url);
    if (base.scheme.empty()) return cleaned;
    if (!ref.scheme.empty()) {
        return compose(ref.scheme, ref.authority, remove_dot_segments(ref.path), ref.query,
                       ref.fragment);
    }
    if (ref.authority) {
        return compose(base.scheme, ref.authority, remove_dot_segments(ref.path), ref.query,
                       ref.fragment);
    }
    if (ref.path.empty()) {
        return compose(base.scheme, base.authority, base.path, ref.query ? ref.query : base.query,
                       ref.fragment);
    }
    if (ref.path.front() == '/') {
        return compose(base.scheme, base.authority, remove_dot_segments(ref.path), ref.query,
                       ref.fragment);
    }
    std::string merged;
    if (base.authority && base.path.empty()) {
        merged = "/";
    } else {
        const auto slash = base.path.rfind('/');
        if (slash != std::string_view::npos) merged.assign(base.path.substr(0, slash + 1));
    }
    merged.append(ref.path);
    return compose(base.scheme, base.authority, remove_dot_segments(merged), ref.query,
                   ref.fragment);
}

std::string percent_encode_path(std::string_view path) {
    std::string out;
    out.reserve(path.size());
    for (char c : path) {
        if (util::is_ascii_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out += c;
        } else {
            util::append_percent_escaped(out, static_cast<unsigned char>(c));
        }
    }
    return out;
}

bool is_valid_utf8(std::string_view text) noexcept {
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        std::uint32_t code = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
            code = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            code = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            code = c & 0x07;
        } else {
            return false;
        }
        if (n - i < length) return false;
        for (std::size_t k = 1; k < length; ++k) {
            const auto cont = static_cast<unsigned char>(text[i + k]);
            if ((cont & 0xC0) != 0x80) return false;
            code = (code << 6) | (cont & 0x3F);
        }
        // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
        if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) ||
            (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
            return false;
        }
        i += length;
    }
    return true;
}

std::string url_filename(std::string_view url) {
    const UrlParts parts = split_url(url);
    const auto slash = parts.path.rfind('/');
    return util::percent_decode(slash == std::string_view::npos ? parts.path
                                                                : parts.path.substr(slash + 1));
}

std::string url_origin(std::string_view url) {
    const UrlParts parts = split_url(url);
    if (!parts.authority) return {};
    std::string_view host = *parts.authority;
    if (const auto at = host.rfind('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
    return util::to_lower(parts.scheme) + "://" + util::to_lower(host);
}

std::optional<std::filesystem::path> file_url_to_path(std::string_view url) {
    const UrlParts parts = split_url(url);
    if (!util::iequals(parts.scheme, "file")) return std::nullopt;
    if (parts.authority && !parts.authority->empty() &&
        !util::iequals(*parts.authority, "localhost")) {
        return std::nullopt;
    }
    std::string path = util::percent_decode(parts.path);
    if (path.empty()) return std::nullopt;
    // "file:///C:/wheels" names the Windows path "C:/wheels".
    if (path.size() >= 3 && path[0] == '/' && util::is_ascii_alpha(path[1]) && path[2] == ':') {
        path.erase(0, 1);
    }
    // Native separators, so that messages name the file as the user's shell does.
    return util::path_from_utf8(path).make_preferred();
}

std::string file_url_from_generic_path(std::string_view generic) {
    std::string url = "file://";
    if (generic.empty() || generic.front() != '/') url += '/';
    if (generic.size() >= 2 && util::is_ascii_alpha(generic[0]) && generic[1] == ':') {
        url += generic.substr(0, 2);
        generic.remove_prefix(2);
    }
    url += percent_encode_path(generic);
    return url;
}

std::string path_to_file_url(const std::filesystem::path& path) {
    return file_url_from_generic_path(util::generic_utf8_of(std::filesystem::absolute(path)));
}

}  // namespace aitk::index
