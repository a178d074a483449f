#pragma once
// Credentials travel inside URLs (`https://user:token@host/simple/`) and must never reach a log,
// an error message, a lockfile or the cache. Everything shown, returned or stored goes through
// these helpers first.
#include <string>
#include <string_view>

namespace aitk::util {

// `scheme://user:pass@host/path` → `scheme://***@host/path`. The whole userinfo goes, not just
// the password: a bare `https://TOKEN@host` carries its secret in the user name. URLs without
// userinfo come back unchanged.
std::string redact_url(std::string_view url);

// `scheme://user:pass@host/path` → `scheme://host/path`: the form to store or key a cache entry
// by, so the same page fetched with different credentials is one entry.
std::string strip_credentials(std::string_view url);

// True when the URL carries userinfo (`user@` or `user:pass@`) in its authority.
bool has_credentials(std::string_view url) noexcept;

// Replaces every occurrence of the URL's user name and password (as written and
// percent-decoded) in `text` with `***`: a last guard for messages that come from libcurl.
std::string scrub_credentials(std::string_view text, std::string_view url);

}  // namespace aitk::util
