#include "aitk/build/git_url.hpp"

#include <optional>

#include "aitk/archive/member_path.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::build {
namespace {

using Err = util::Unexpected<std::string>;

// A revision must reach git as a revision: not an option ("-..."), not a refspec ("a:b",
// "+a"), and free of what check-ref-format refuses, so nothing in a URL can change what a git
// command does.
std::optional<std::string> revision_problem(std::string_view revision) {
    if (revision.empty()) return "the revision after '@' is empty";
    if (revision.front() == '-' || revision.front() == '+') {
        return "the revision '" + std::string(revision) + "' starts with '" + revision.front() +
               "'";
    }
    if (revision.find("..") != std::string_view::npos ||
        revision.find("@{") != std::string_view::npos || revision.back() == '/' ||
        revision.back() == '.' || revision.front() == '/') {
        return "'" + std::string(revision) + "' is not a valid branch, tag or commit name";
    }
    for (char c : revision) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f ||
            std::string_view(" ~^:?*[\\").find(c) != std::string_view::npos) {
            return "the revision '" + std::string(revision) + "' contains '" + std::string(1, c) +
                   "', which git does not allow in a branch, tag or commit name";
        }
    }
    return std::nullopt;
}

}  // namespace

util::Expected<GitUrl, std::string> GitUrl::parse(std::string_view url) {
    std::string_view text = util::trim(url);
    if (!util::istarts_with(text, "git+"))
        return Err("'" + util::redact_url(text) + "' is not a git+ URL");
    text.remove_prefix(4);
    std::size_t scheme_end = text.find("://");
    if (scheme_end == std::string_view::npos) {
        return Err("'" + util::redact_url(url) +
                   "' has no scheme after 'git+' (write git+https://...)");
    }
    std::string scheme = util::to_lower(text.substr(0, scheme_end));
    if (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git" &&
        scheme != "file") {
        return Err("git+" + scheme +
                   " URLs are not supported (use git+https, git+ssh or git+file)");
    }

    GitUrl out;
    std::string_view rest = text;
    std::string_view fragment;
    if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
        fragment = rest.substr(hash + 1);
        rest = rest.substr(0, hash);
    }
    // The revision is an '@' in the path, not one in the authority (user@host).
    std::size_t authority_start = scheme_end + 3;
    std::size_t path_start = rest.find('/', authority_start);
    if (scheme != "file" &&
        (path_start == std::string_view::npos || path_start == authority_start)) {
        return Err("'" + util::redact_url(url) + "' names no host");
    }
    if (path_start == std::string_view::npos) path_start = rest.size();
    std::size_t at = rest.find('@', path_start);
    if (at != std::string_view::npos) {
        std::string_view revision = rest.substr(at + 1);
        if (auto problem = revision_problem(revision)) return Err(*problem);
        out.revision = std::string(revision);
        rest = rest.substr(0, at);
    }
    std::string_view path = rest.substr(path_start);
    if (path.empty() || path == "/")
        return Err("'" + util::redact_url(url) + "' names no repository path");
    out.repository = std::string(rest);

    for (std::string_view part : util::split(fragment, '&')) {
        if (part.empty()) continue;
        std::size_t eq = part.find('=');
        std::string_view key = part.substr(0, eq);
        std::string_view value =
            eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
        if (key != "subdirectory") continue;  // egg=, sha256=, ... are for other readers
        auto normalised = archive::normalize_member_path(value);
        if (!normalised || normalised->empty()) {
            return Err("#subdirectory=" + std::string(value) +
                       " is not a folder inside the repository" +
                       (normalised ? std::string() : ": " + normalised.error()));
        }
        out.subdirectory = std::move(*normalised);
    }
    return out;
}

std::string GitUrl::to_string() const {
    std::string text = "git+" + repository;
    if (!revision.empty()) text += "@" + revision;
    if (!subdirectory.empty()) text += "#subdirectory=" + subdirectory;
    return text;
}

std::string canonical_repository(std::string_view repository) {
    std::string url = util::strip_credentials(repository);
    std::size_t scheme_end = url.find("://");
    if (scheme_end != std::string::npos) {
        std::size_t host_end = url.find('/', scheme_end + 3);
        if (host_end == std::string::npos) host_end = url.size();
        std::string lowered = util::to_lower(std::string_view(url).substr(0, host_end));
        url = lowered + url.substr(host_end);
    }
    while (url.size() > 1 && url.back() == '/')
        url.pop_back();
    if (url.size() > 4 && util::iequals(std::string_view(url).substr(url.size() - 4), ".git")) {
        url.resize(url.size() - 4);
    }
    while (url.size() > 1 && url.back() == '/')
        url.pop_back();
    return url;
}

bool is_full_commit_id(std::string_view revision) noexcept {
    if (revision.size() != 40 && revision.size() != 64) return false;
    for (char c : revision) {
        if (!util::is_hex_digit(c)) return false;
    }
    return true;
}

std::string git_source_id(const GitUrl& url, std::string_view commit) {
    std::string id = "git+" + canonical_repository(url.repository) + "@" + util::to_lower(commit);
    if (!url.subdirectory.empty()) id += "#subdirectory=" + url.subdirectory;
    return id;
}

}  // namespace aitk::build
