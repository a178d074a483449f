// VCS requirement URLs as pip reads them:
// "<vcs>+<transport>://host/path@rev#egg=name&subdirectory=dir" (pip 23.2 vcs/versioncontrol.py
// get_url_rev_and_auth, models/link.py egg_fragment).
#include <array>

#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/project/requirements_file.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "url_fragment.hpp"

namespace aitk::project {
namespace {

struct VcsSchemes {
    std::string_view vcs;
    std::array<std::string_view, 7> transports;  // empty entries pad the list
};

// The schemes pip registers for each backend (vcs/git.py, mercurial.py, subversion.py,
// bazaar.py).
constexpr std::array<VcsSchemes, 4> vcs_schemes{{
    {"git", {"http", "https", "ssh", "git", "file", "", ""}},
    {"hg", {"file", "http", "https", "ssh", "static-http", "", ""}},
    {"svn", {"ssh", "http", "https", "svn", "file", "", ""}},
    {"bzr", {"http", "https", "ssh", "sftp", "ftp", "lp", "file"}},
}};

std::string transports_of(const VcsSchemes& schemes) {
    std::string out;
    for (auto t : schemes.transports) {
        if (t.empty()) continue;
        if (!out.empty()) out += ", ";
        out += std::string(schemes.vcs) + "+" + std::string(t);
    }
    return out;
}

}  // namespace

bool VcsReference::revision_is_commit() const {
    if (revision.size() < 7 || revision.size() > 40) return false;
    for (char c : revision) {
        if (!util::is_hex_digit(c)) return false;
    }
    return true;
}

std::string VcsReference::to_string() const {
    std::string out = vcs + "+";
    std::size_t query = url.find('?');
    std::string_view base = std::string_view(url).substr(0, query);
    out += base;
    if (!revision.empty()) out += "@" + revision;
    if (query != std::string::npos) out += url.substr(query);
    if (!subdirectory.empty()) out += "#subdirectory=" + subdirectory;
    return out;
}

util::Expected<std::optional<VcsReference>, std::string> parse_vcs_url(std::string_view url) {
    std::size_t colon = url.find(':');
    std::size_t plus = url.find('+');
    if (colon == std::string_view::npos || plus == std::string_view::npos || plus > colon) {
        return std::optional<VcsReference>{};
    }
    std::string vcs = util::to_lower(url.substr(0, plus));
    const VcsSchemes* schemes = nullptr;
    for (const auto& s : vcs_schemes) {
        if (s.vcs == vcs) schemes = &s;
    }
    if (schemes == nullptr) return std::optional<VcsReference>{};

    std::string transport = util::to_lower(url.substr(plus + 1, colon - plus - 1));
    bool known = false;
    for (auto t : schemes->transports) {
        if (!t.empty() && t == transport) known = true;
    }
    if (!known) {
        return util::Unexpected("'" + vcs + "+" + transport +
                                "' is not a transport pip knows for " + vcs + " (use one of " +
                                transports_of(*schemes) + ")");
    }

    std::string_view rest = url.substr(colon + 1);
    if (rest.substr(0, 2) != "//") {
        return util::Unexpected("expected '//' after '" + vcs + "+" + transport +
                                ":' (the form is " + vcs + "+" + transport +
                                "://host/path@revision)");
    }
    rest.remove_prefix(2);
    std::string_view fragment;
    if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
        fragment = rest.substr(hash);
        rest = rest.substr(0, hash);
    }
    std::string_view query;
    if (std::size_t question = rest.find('?'); question != std::string_view::npos) {
        query = rest.substr(question);
        rest = rest.substr(0, question);
    }
    std::size_t slash = rest.find('/');
    std::string_view netloc = rest.substr(0, slash);
    std::string_view path =
        slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);

    VcsReference ref;
    ref.vcs = vcs;
    if (std::size_t at = path.rfind('@'); at != std::string_view::npos) {
        ref.revision = std::string(path.substr(at + 1));
        path = path.substr(0, at);
        if (ref.revision.empty()) {
            return util::Unexpected(std::string(
                "the revision after '@' is empty (name a branch, tag or commit after '@', or "
                "remove the '@')"));
        }
    }
    if (netloc.empty() && path.empty()) {
        return util::Unexpected(std::string("the URL names no repository after '//'"));
    }
    ref.url = transport + "://" + std::string(netloc) + std::string(path) + std::string(query);

    if (auto egg = detail::fragment_value(fragment, "egg")) {
        // An egg fragment names the project, optionally with extras ("name[extra]").
        auto parsed = pep::Requirement::parse(*egg);
        if (!parsed || !parsed->specifier().empty() || parsed->url() || parsed->marker()) {
            return util::Unexpected("'#egg=" + std::string(*egg) +
                                    "' does not name a project (write #egg=name, or "
                                    "`name @ " +
                                    std::string(url.substr(0, url.find('#'))) + "`)");
        }
        ref.egg_name = pep::canonicalize_name(parsed->name());
    }
    if (auto subdirectory = detail::fragment_value(fragment, "subdirectory")) {
        ref.subdirectory = std::string(*subdirectory);
    }
    return std::optional<VcsReference>{std::move(ref)};
}

}  // namespace aitk::project
