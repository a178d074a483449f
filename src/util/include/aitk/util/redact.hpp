#pragma once
// Credentials travel inside URLs (`https://user:token@host/simple/`) and must never reach a log,
// an error message, a lockfile or the cache. Everything shown, returned or stored goes through
// these helpers first. The same holds for the values of `${VAR}` references in requirement
// lines (pip's syntax for tokens kept in the environment): text shown to a person names the
// variable, never its value.
#include <string>
#include <string_view>
#include <vector>

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

// A value that must not be shown, and what stands for it: a ${NAME} expansion's value and
// "${NAME}".
struct Concealed {
    std::string value;
    std::string shown;
    friend bool operator==(const Concealed&, const Concealed&) = default;
};

// `text` with every occurrence of a value replaced by what stands for it, in one pass from the
// left, the longest value first where several match. As in scrub_credentials, values shorter
// than 3 bytes stay: they hold no secret, and replacing them would mangle unrelated words.
std::string conceal(std::string_view text, const std::vector<Concealed>& values);

// Adds `value` to `into` unless it is there already.
void add_concealed(std::vector<Concealed>& into, const Concealed& value);

}  // namespace aitk::util
