#pragma once
// URL handling for index pages (RFC 3986 reference resolution, percent-decoding), pure and
// allocation-light: hrefs on real indexes are relative ("../../files/x.whl"), root-relative
// ("/whl/cu126/torch-2.9.0%2Bcu126-....whl") or absolute, and a page may set <base href>.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::index {

// The parts of a URL reference, as views into the text (no decoding).
struct UrlParts {
    std::string_view scheme;                    // without ':'; empty for a relative reference
    std::optional<std::string_view> authority;  // after "//", up to the path
    std::string_view path;
    std::optional<std::string_view> query;     // without '?'
    std::optional<std::string_view> fragment;  // without '#'
};

UrlParts split_url(std::string_view url) noexcept;

// `reference` resolved against the absolute URL `base` (RFC 3986 §5.2, dot segments removed).
// Leading and trailing ASCII whitespace of the reference is ignored and tabs and line breaks
// inside it are dropped, as browsers do. A base without a scheme leaves the reference as it is.
std::string resolve_url(std::string_view base, std::string_view reference);

// Escapes everything but RFC 3986 unreserved characters and '/' (for file: URLs of paths).
std::string percent_encode_path(std::string_view path);

bool is_valid_utf8(std::string_view text) noexcept;

// The last path segment, percent-decoded ("https://h/a/torch-2.9.0%2Bcpu-...whl#sha256=..." ->
// "torch-2.9.0+cpu-...whl").
std::string url_filename(std::string_view url);

// "scheme://authority" in lower case ("" for URLs without an authority), for per-host state.
std::string url_origin(std::string_view url);

// file: URLs and local paths. `file_url_to_path` accepts "file:///abs/path" and
// "file://localhost/abs/path" (percent-decoded); nothing for other URLs.
std::optional<std::filesystem::path> file_url_to_path(std::string_view url);
std::string path_to_file_url(const std::filesystem::path& path);
// The file: URL of an absolute path in generic form ("/srv/a b.whl", "C:/wheels/x.whl"): a
// Windows drive stays "C:" (RFC 8089), everything else outside the unreserved set is encoded.
std::string file_url_from_generic_path(std::string_view generic_utf8);

// True for "scheme:..." where scheme is RFC 3986 (letter, then letters, digits, '+', '-', '.'),
// excluding one-letter schemes so that Windows drive paths ("C:\\wheels") are not URLs.
bool has_url_scheme(std::string_view text) noexcept;

}  // namespace aitk::index
