#include "requirements_entry.hpp"

#include <array>
#include <system_error>

#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/sdist_filename.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::project::detail {
namespace {

using Entry = util::Expected<RequirementLine, LineError>;

constexpr std::array<std::string_view, 4> vcs_names{{"git", "hg", "svn", "bzr"}};

// pip's utils/filetypes.py ARCHIVE_EXTENSIONS (wheel, bz2, xz, zip, tar).
constexpr std::array<std::string_view, 12> archive_extensions{{
    ".whl",
    ".tar.bz2",
    ".tbz",
    ".tar.xz",
    ".txz",
    ".tlz",
    ".tar.lz",
    ".tar.lzma",
    ".zip",
    ".tar.gz",
    ".tgz",
    ".tar",
}};

bool iends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && util::iequals(s.substr(s.size() - suffix.size()), suffix);
}

bool is_archive_name(std::string_view name) {
    for (auto ext : archive_extensions) {
        if (iends_with(name, ext)) return true;
    }
    return false;
}

// pip's _looks_like_path(): a separator, or a leading '.'.
bool looks_like_path(std::string_view name) {
    return name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos ||
           (!name.empty() && name.front() == '.');
}

std::string scheme_of(std::string_view text) {
    std::size_t colon = text.find(':');
    return colon == std::string_view::npos ? std::string{} : util::to_lower(text.substr(0, colon));
}

bool is_vcs_scheme(std::string_view scheme) {
    std::size_t plus = scheme.find('+');
    if (plus == std::string_view::npos) return false;
    for (auto vcs : vcs_names) {
        if (scheme.substr(0, plus) == vcs) return true;
    }
    return false;
}

// The last path segment of a URL, percent-decoded (pip's Link.filename).
std::string url_filename(std::string_view url) {
    std::size_t end = url.find_first_of("?#");
    std::string_view path = url.substr(0, end);
    if (std::size_t scheme = path.find("://"); scheme != std::string_view::npos) {
        path.remove_prefix(scheme + 3);
        std::size_t slash = path.find('/');
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash);
    } else if (std::size_t colon = path.find(':'); colon != std::string_view::npos) {
        path.remove_prefix(colon + 1);
    }
    while (!path.empty() && path.back() == '/')
        path.remove_suffix(1);
    std::size_t slash = path.rfind('/');
    return util::percent_decode(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// "name[a,b]" from pip's _strip_extras(): the text and its trailing "[...]" (or empty).
std::pair<std::string_view, std::string_view> strip_extras(std::string_view text) {
    if (text.size() < 4 || text.back() != ']') return {text, {}};
    std::size_t open = text.rfind('[', text.size() - 2);
    if (open == std::string_view::npos || open == 0 || open + 2 > text.size() - 1)
        return {text, {}};
    if (text.substr(open + 1, text.size() - open - 2).find(']') != std::string_view::npos) {
        return {text, {}};
    }
    return {text.substr(0, open), text.substr(open)};
}

util::Expected<std::vector<std::string>, LineError> parse_extras(std::string_view bracketed,
                                                                 std::size_t offset) {
    if (bracketed.empty()) return std::vector<std::string>{};
    std::string probe = "x" + util::to_lower(bracketed);
    auto parsed = pep::Requirement::parse(probe);
    if (!parsed || !parsed->specifier().empty() || parsed->marker() || parsed->url()) {
        std::size_t at = parsed ? 0 : parsed.error().position;
        return util::Unexpected(
            LineError{offset + (at == util::ParseError::no_position || at == 0 ? 0 : at - 1),
                      "'" + std::string(bracketed) + "' is not a list of extras",
                      "write extras as [name1,name2]"});
    }
    return parsed->extras();
}

// The project name a file name gives away: a wheel's, an sdist's, or nothing.
util::Expected<std::string, LineError> name_from_filename(std::string_view filename,
                                                          std::size_t offset) {
    if (iends_with(filename, ".whl")) {
        auto wheel = pep::WheelFilename::parse(filename);
        if (!wheel) {
            return util::Unexpected(LineError{
                offset,
                "'" + std::string(filename) +
                    "' is not a valid wheel filename: " + wheel.error().message,
                "wheel names have the form name-version(-build)?-python-abi-platform.whl"});
        }
        return wheel->name;
    }
    if (auto sdist = pep::SdistFilename::parse(filename)) return sdist->name;
    return std::string{};
}

// "name[extras] @ url ; marker" parsed into the line's requirement, or the unnamed fields.
util::Expected<bool, LineError> complete(RequirementLine& line, const std::string& name,
                                         const std::vector<std::string>& extras,
                                         std::optional<pep::Marker> marker) {
    if (name.empty()) {
        line.unnamed_extras = extras;
        line.unnamed_marker = std::move(marker);
        return true;
    }
    std::string text = name;
    if (!extras.empty()) text += "[" + util::join(extras, ",") + "]";
    text += " @ " + line.url;
    if (marker) text += " ; " + marker->to_string();
    auto parsed = pep::Requirement::parse(text);
    if (!parsed) {
        return util::Unexpected(
            LineError{0, "'" + line.url + "' cannot be used as a URL: " + parsed.error().message,
                      "percent-encode spaces and other special characters"});
    }
    line.requirement = std::move(*parsed);
    return true;
}

util::Expected<std::optional<pep::Marker>, LineError> parse_marker(std::string_view text,
                                                                   std::size_t offset) {
    std::string_view trimmed = util::trim(text);
    if (trimmed.empty()) return std::optional<pep::Marker>{};
    offset += static_cast<std::size_t>(trimmed.data() - text.data());
    auto marker = pep::Marker::parse(trimmed);
    if (!marker) {
        std::size_t at = marker.error().position;
        return util::Unexpected(LineError{
            offset + (at == util::ParseError::no_position ? 0 : at),
            "invalid environment marker '" + std::string(trimmed) + "': " + marker.error().message,
            "markers look like python_version >= \"3.10\" and sys_platform == \"linux\""});
    }
    return std::optional<pep::Marker>{std::move(*marker)};
}

// A URL (VCS or not) with its marker already split off.
Entry url_entry(std::string_view url, std::size_t url_offset, std::optional<pep::Marker> marker) {
    RequirementLine line;
    line.url = std::string(url);
    auto vcs = pep::parse_vcs_url(url);
    if (!vcs) return util::Unexpected(LineError{url_offset, vcs.error(), ""});
    if (*vcs) line.vcs = std::move(**vcs);
    std::string name;
    std::vector<std::string> extras;
    std::string filename = line.vcs ? std::string{} : url_filename(url);
    if (iends_with(filename, ".whl")) {
        // pip names a wheel after its file name, whatever the fragment says.
        auto from_file = name_from_filename(filename, url_offset);
        if (!from_file) return util::Unexpected(std::move(from_file.error()));
        name = std::move(*from_file);
    } else if (auto egg = pep::split_fragment(url).egg()) {
        // "#egg=name[extra]" names the project and may add extras.
        auto parsed = pep::Requirement::parse(*egg);
        if (!parsed || !parsed->specifier().empty() || parsed->url() || parsed->marker()) {
            return util::Unexpected(
                LineError{url_offset + static_cast<std::size_t>(egg->data() - url.data()),
                          "'#egg=" + std::string(*egg) + "' does not name a project",
                          "write #egg=name, or name the project with `name @ URL`"});
        }
        name = pep::canonicalize_name(parsed->name());
        extras = parsed->extras();
    } else if (!line.vcs) {
        auto from_file = name_from_filename(filename, url_offset);
        if (!from_file) return util::Unexpected(std::move(from_file.error()));
        name = std::move(*from_file);
    }
    auto done = complete(line, name, extras, std::move(marker));
    if (!done) {
        done.error().offset = url_offset;
        return util::Unexpected(std::move(done.error()));
    }
    return line;
}

// A local path or archive ("./pkg[extra]", "../dist/x-1.0-py3-none-any.whl").
Entry path_entry(std::string_view text, std::size_t offset, const std::filesystem::path& base_dir,
                 std::optional<pep::Marker> marker) {
    auto [path, bracketed] = strip_extras(text);
    auto extras = parse_extras(bracketed, offset + path.size());
    if (!extras) return util::Unexpected(std::move(extras.error()));
    RequirementLine line;
    std::filesystem::path full = join_relative(base_dir, std::filesystem::path(std::string(path)));
    line.url = path_to_file_url(full);
    std::string filename = util::utf8_of(full.filename());
    auto name = is_archive_name(filename) ? name_from_filename(filename, offset)
                                          : util::Expected<std::string, LineError>(std::string{});
    if (!name) return util::Unexpected(std::move(name.error()));
    auto done = complete(line, *name, *extras, std::move(marker));
    if (!done) {
        done.error().offset = offset;
        return util::Unexpected(std::move(done.error()));
    }
    return line;
}

std::string requirement_hint(std::string_view text) {
    bool has_operator = false;
    for (std::string_view op : {"~=", "==", "!=", "<=", ">=", "<", ">", "==="}) {
        if (text.find(op) != std::string_view::npos) has_operator = true;
    }
    if (text.find('=') != std::string_view::npos && !has_operator) {
        return "= is not a valid operator. Did you mean == ?";
    }
    return "write a PEP 508 requirement such as name>=1.0, name[extra]==2.1; "
           "python_version >= \"3.10\", or name @ https://…";
}

}  // namespace

bool is_pip_url(std::string_view text) {
    std::string scheme = scheme_of(text);
    if (scheme.empty()) return false;
    if (scheme == "http" || scheme == "https" || scheme == "file" || scheme == "ftp") return true;
    auto vcs = pep::parse_vcs_url(text);
    return is_vcs_scheme(scheme) && (!vcs || vcs->has_value());
}

bool has_url_scheme(std::string_view text) {
    std::size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon < 2) return false;
    if (!util::is_ascii_alpha(text[0])) return false;
    for (std::size_t i = 1; i < colon; ++i) {
        char c = text[i];
        if (!util::is_ascii_alnum(c) && c != '+' && c != '-' && c != '.') return false;
    }
    return true;
}

std::filesystem::path join_relative(const std::filesystem::path& base_dir,
                                    const std::filesystem::path& path) {
    if (path.is_absolute() || base_dir.empty()) return path.lexically_normal();
    return (base_dir / path).lexically_normal();
}

std::string path_to_file_url(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) absolute = path;
    std::string generic = util::generic_utf8_of(absolute.lexically_normal());
    while (generic.size() > 1 && generic.back() == '/')
        generic.pop_back();
    std::string url = "file://";
    if (generic.empty() || generic.front() != '/') url += '/';  // "C:/x" -> "file:///C:/x"
    for (char c : generic) {
        auto byte = static_cast<unsigned char>(c);
        if (util::is_ascii_alnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~' ||
            (c == ':' && url.size() == 9)) {
            url += c;
        } else {
            util::append_percent_escaped(url, byte);
        }
    }
    return url;
}

std::optional<std::filesystem::path> file_url_to_path(std::string_view url) {
    if (!util::istarts_with(url, "file:")) return std::nullopt;
    std::string_view rest = url.substr(5);
    rest = rest.substr(0, rest.find_first_of("?#"));
    if (rest.substr(0, 2) == "//") {
        rest.remove_prefix(2);
        std::size_t slash = rest.find('/');
        std::string_view host = rest.substr(0, slash);
        if (!host.empty() && host != "localhost") return std::nullopt;
        rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
    }
    std::string decoded = util::percent_decode(rest);
    // "/C:/x" is a Windows drive path.
    if (decoded.size() >= 3 && decoded[0] == '/' && util::is_ascii_alpha(decoded[1]) &&
        decoded[2] == ':') {
        decoded.erase(0, 1);
    }
    return std::filesystem::path(decoded);
}

Entry parse_requirement_entry(std::string_view text, const std::filesystem::path& base_dir) {
    // pip splits a URL's marker at "; " (a bare ';' may belong to the URL), any other line's at
    // the first ';'.
    if (is_pip_url(text)) {
        std::size_t split = text.find("; ");
        std::optional<pep::Marker> marker;
        if (split != std::string_view::npos) {
            auto parsed = parse_marker(text.substr(split + 2), split + 2);
            if (!parsed) return util::Unexpected(std::move(parsed.error()));
            marker = std::move(*parsed);
        }
        std::string_view url = util::trim(text.substr(0, split));
        return url_entry(url, 0, std::move(marker));
    }

    std::size_t split = text.find(';');
    std::string_view name = util::trim(text.substr(0, split));
    std::string_view bare = strip_extras(name).first;
    bool path_like = looks_like_path(name) || is_archive_name(bare);
    if (path_like) {
        // "name @ https://…/x.whl" looks like a path but is a PEP 508 URL requirement.
        std::size_t at = name.find('@');
        if (at != std::string_view::npos && !looks_like_path(name.substr(0, at))) {
            path_like = false;
        }
    }
    if (path_like) {
        std::optional<pep::Marker> marker;
        if (split != std::string_view::npos) {
            auto parsed = parse_marker(text.substr(split + 1), split + 1);
            if (!parsed) return util::Unexpected(std::move(parsed.error()));
            marker = std::move(*parsed);
        }
        return path_entry(name, 0, base_dir, std::move(marker));
    }

    auto parsed = pep::Requirement::parse(text);
    if (!parsed) {
        std::size_t at = parsed.error().position;
        return util::Unexpected(
            LineError{at == util::ParseError::no_position ? 0 : at,
                      "invalid requirement '" + std::string(text) + "': " + parsed.error().message,
                      requirement_hint(text)});
    }
    RequirementLine line;
    if (parsed->url()) {
        line.url = *parsed->url();
        std::size_t url_offset = text.find(line.url);
        auto vcs = pep::parse_vcs_url(line.url);
        if (!vcs) {
            return util::Unexpected(
                LineError{url_offset == std::string_view::npos ? 0 : url_offset, vcs.error(), ""});
        }
        if (*vcs) line.vcs = std::move(**vcs);
    }
    line.requirement = std::move(*parsed);
    return line;
}

Entry parse_editable_entry(std::string_view text, const std::filesystem::path& base_dir) {
    auto [without_extras, bracketed] = strip_extras(text);
    std::string url(text);
    if (util::istarts_with(without_extras, "file:")) {
        auto extras = parse_extras(bracketed, without_extras.size());
        if (!extras) return util::Unexpected(std::move(extras.error()));
        auto entry = url_entry(without_extras, 0, std::nullopt);
        if (!entry) return entry;
        entry->editable = true;
        if (extras->empty()) return entry;
        if (!entry->requirement) {
            entry->unnamed_extras = std::move(*extras);
            return entry;
        }
        // Extras after a named file: URL ("file:///src/pkg#egg=pkg[a]" or "…#egg=pkg[b]")
        // join those of the egg fragment.
        std::vector<std::string> all = entry->requirement->extras();
        all.insert(all.end(), extras->begin(), extras->end());
        std::string name = entry->requirement->name();
        auto done = complete(*entry, name, all, std::nullopt);
        if (!done) return util::Unexpected(std::move(done.error()));
        return entry;
    }
    // "git:…" is short for "git+git:…" (pip's parse_editable).
    for (auto vcs : vcs_names) {
        if (util::istarts_with(url, std::string(vcs) + ":")) {
            url = std::string(vcs) + "+" + url;
            break;
        }
    }
    std::string scheme = scheme_of(url);
    if (is_vcs_scheme(scheme)) {
        auto entry = url_entry(url, 0, std::nullopt);
        if (!entry) return entry;
        entry->editable = true;
        return entry;
    }
    if (has_url_scheme(url)) {
        return util::Unexpected(LineError{
            0, "'" + std::string(text) + "' is not a valid editable requirement",
            "-e takes a path to a local project or a VCS URL (git+https://…, hg+https://…, "
            "svn+https://…, bzr+https://…)"});
    }
    auto extras = parse_extras(bracketed, without_extras.size());
    if (!extras) return util::Unexpected(std::move(extras.error()));
    RequirementLine line;
    line.url = path_to_file_url(
        join_relative(base_dir, std::filesystem::path(std::string(without_extras))));
    line.editable = true;
    line.unnamed_extras = std::move(*extras);
    return line;
}

}  // namespace aitk::project::detail
