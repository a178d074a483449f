#pragma once
// Direct references as requirement lines write them (PEP 440 and PEP 508 `name @ URL`, pip's bare
// and `-e` URLs), in one place: the URL fragment (`#sha256=…`, `#subdirectory=…`, `#egg=…`),
// version-control URLs (`git+https://host/org/repo.git@rev#egg=name&subdirectory=dir`) and the
// rule for a full commit id. Pure: no I/O. The PEP 610 record of an installed direct reference
// (direct_url.json) is install's (install/direct_url.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::pep {

// A URL split at its first '#'. Views into the text given to split_fragment().
struct UrlFragment {
    std::string_view url;       // before '#'
    std::string_view fragment;  // after '#'; "" when there is none

    // The value of `key=`, as pip's regex "[#&]key=([^&]*)" finds it in the fragment; nothing
    // when the key is absent.
    std::optional<std::string_view> value(std::string_view key) const noexcept;
    std::optional<std::string_view> sha256() const noexcept { return value("sha256"); }
    std::optional<std::string_view> subdirectory() const noexcept { return value("subdirectory"); }
    std::optional<std::string_view> egg() const noexcept { return value("egg"); }
    // The fragment's '&'-separated items in order ("egg=x", "sha256=ab…"), empty ones left out.
    std::vector<std::string_view> items() const;
};

UrlFragment split_fragment(std::string_view url) noexcept;

// 40 (SHA-1) or 64 (SHA-256) hex digits, of either case: a full commit id, as git takes one
// without a ref lookup. The one rule for every full-commit check.
bool is_full_commit_id(std::string_view revision) noexcept;

// A version-control URL: "git+https://github.com/org/repo.git@rev#egg=name&subdirectory=x".
struct VcsUrl {
    std::string vcs;  // "git", "hg", "svn", "bzr"
    // What the VCS fetches: "<transport>://host/path[?query]", credentials kept
    // ("https://github.com/org/repo.git"); without the "git+" prefix, "@rev" and the fragment.
    std::string repository;
    std::string revision;      // after '@': a branch, tag, commit or ref; "" when absent
    std::string egg_name;      // from "#egg=", PEP 503-normalised; "" when absent
    std::string subdirectory;  // from "#subdirectory=", as written; "" when absent
    // A commit id, abbreviated (7 hex digits at least) or full, rather than a branch or tag.
    bool revision_is_commit() const noexcept;
    // The URL back in pip's form ("git+https://…@rev#subdirectory=…", no egg).
    std::string to_string() const;
    friend bool operator==(const VcsUrl&, const VcsUrl&) = default;
};

// "<vcs>+<transport>://netloc/path[?query][@revision][#fragment]" cut into its parts, nothing
// judged: the parts are views into the text, `vcs` and `transport` as written. Nothing for text
// of another form. pip's split (vcs/versioncontrol.py get_url_rev_and_auth): the path starts at
// the first '/' after "//", the query is cut off before the revision, which follows the path's
// last '@' (an '@' in the authority is a user name's).
struct VcsUrlParts {
    std::string_view vcs;
    std::string_view transport;
    std::string_view netloc;
    std::string_view path;   // from its '/', without "@revision"; "" when there is none
    std::string_view query;  // with its '?'; "" when there is none
    std::optional<std::string_view> revision;
    UrlFragment fragment;
};
std::optional<VcsUrlParts> split_vcs_url(std::string_view url) noexcept;

// pip's reading of a VCS URL: "git+https://…" and friends (git, hg, svn and bzr with the
// transports pip registers for each); nothing for other URLs. Errors for a VCS URL that is
// malformed: an unknown transport, no "//", an empty revision, no repository, an `#egg=` that
// names no project.
util::Expected<std::optional<VcsUrl>, std::string> parse_vcs_url(std::string_view url);

}  // namespace aitk::pep
