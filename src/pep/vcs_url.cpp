// VCS requirement URLs as pip reads them:
// "<vcs>+<transport>://host/path@rev#egg=name&subdirectory=dir" (pip 23.2 vcs/versioncontrol.py
// get_url_rev_and_auth, models/link.py egg_fragment).
#include <array>

#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::pep {
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

const VcsSchemes* schemes_of(std::string_view vcs) noexcept {
    for (const auto& s : vcs_schemes) {
        if (s.vcs == vcs) return &s;
    }
    return nullptr;
}

bool knows_transport(const VcsSchemes& schemes, std::string_view transport) noexcept {
    for (auto t : schemes.transports) {
        if (!t.empty() && t == transport) return true;
    }
    return false;
}

// The project an "#egg=name[extra]" fragment names, normalised.
util::Expected<std::string, std::string> egg_project(std::string_view egg, std::string_view url) {
    auto parsed = Requirement::parse(egg);
    if (!parsed || !parsed->specifier().empty() || parsed->url() || parsed->marker()) {
        return util::Unexpected("'#egg=" + std::string(egg) +
                                "' does not name a project (write #egg=name, or `name @ " +
                                std::string(split_fragment(url).url) + "`)");
    }
    return canonicalize_name(parsed->name());
}

}  // namespace

bool VcsUrl::revision_is_commit() const noexcept {
    return revision.size() >= 7 && revision.size() <= 64 && util::is_hex(revision);
}

std::string VcsUrl::to_string() const {
    std::string out = vcs + "+";
    std::size_t query = repository.find('?');
    std::string_view base = std::string_view(repository).substr(0, query);
    out += base;
    if (!revision.empty()) out += "@" + revision;
    if (query != std::string::npos) out += repository.substr(query);
    if (!subdirectory.empty()) out += "#subdirectory=" + subdirectory;
    return out;
}

std::optional<VcsUrlParts> split_vcs_url(std::string_view url) noexcept {
    const std::size_t colon = url.find(':');
    const std::size_t plus = url.find('+');
    if (colon == std::string_view::npos || plus == std::string_view::npos || plus > colon) {
        return std::nullopt;
    }
    VcsUrlParts parts;
    parts.vcs = url.substr(0, plus);
    parts.transport = url.substr(plus + 1, colon - plus - 1);
    std::string_view rest = url.substr(colon + 1);
    if (rest.substr(0, 2) != "//") return std::nullopt;
    rest.remove_prefix(2);
    parts.fragment = split_fragment(rest);
    rest = parts.fragment.url;
    if (std::size_t question = rest.find('?'); question != std::string_view::npos) {
        parts.query = rest.substr(question);
        rest = rest.substr(0, question);
    }
    const std::size_t slash = rest.find('/');
    parts.netloc = rest.substr(0, slash);
    parts.path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
    if (std::size_t at = parts.path.rfind('@'); at != std::string_view::npos) {
        parts.revision = parts.path.substr(at + 1);
        parts.path = parts.path.substr(0, at);
    }
    return parts;
}

util::Expected<std::optional<VcsUrl>, std::string> parse_vcs_url(std::string_view url) {
    std::size_t colon = url.find(':');
    std::size_t plus = url.find('+');
    if (colon == std::string_view::npos || plus == std::string_view::npos || plus > colon) {
        return std::optional<VcsUrl>{};
    }
    const std::string vcs = util::to_lower(url.substr(0, plus));
    const VcsSchemes* schemes = schemes_of(vcs);
    if (schemes == nullptr) return std::optional<VcsUrl>{};
    const std::string transport = util::to_lower(url.substr(plus + 1, colon - plus - 1));
    if (!knows_transport(*schemes, transport)) {
        return util::Unexpected("'" + vcs + "+" + transport +
                                "' is not a transport pip knows for " + vcs + " (use one of " +
                                transports_of(*schemes) + ")");
    }
    auto parts = split_vcs_url(url);
    if (!parts) {
        return util::Unexpected("expected '//' after '" + vcs + "+" + transport +
                                ":' (the form is " + vcs + "+" + transport +
                                "://host/path@revision)");
    }
    VcsUrl ref;
    ref.vcs = vcs;
    if (parts->revision) {
        ref.revision = std::string(*parts->revision);
        if (ref.revision.empty()) {
            return util::Unexpected(std::string(
                "the revision after '@' is empty (name a branch, tag or commit after '@', or "
                "remove the '@')"));
        }
    }
    if (parts->netloc.empty() && parts->path.empty()) {
        return util::Unexpected(std::string("the URL names no repository after '//'"));
    }
    ref.repository = transport + "://" + std::string(parts->netloc) + std::string(parts->path) +
                     std::string(parts->query);
    if (auto egg = parts->fragment.egg()) {
        auto project = egg_project(*egg, url);
        if (!project) return util::Unexpected(std::move(project.error()));
        ref.egg_name = std::move(*project);
    }
    if (auto subdirectory = parts->fragment.subdirectory()) {
        ref.subdirectory = std::string(*subdirectory);
    }
    return std::optional<VcsUrl>{std::move(ref)};
}

}  // namespace aitk::pep
