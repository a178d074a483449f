#include "aitk/build/git_url.hpp"

#include <optional>

#include "aitk/archive/member_path.hpp"
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

util::Expected<pep::VcsUrl, std::string> parse_git_url(std::string_view url) {
    std::string_view text = util::trim(url);
    if (!util::istarts_with(text, "git+"))
        return Err("'" + util::redact_url(text) + "' is not a git+ URL");
    std::size_t scheme_end = text.find("://");
    if (scheme_end == std::string_view::npos) {
        return Err("'" + util::redact_url(url) +
                   "' has no scheme after 'git+' (write git+https://...)");
    }
    std::string scheme = util::to_lower(text.substr(4, scheme_end - 4));
    if (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git" &&
        scheme != "file") {
        return Err("git+" + scheme +
                   " URLs are not supported (use git+https, git+ssh or git+file)");
    }
    auto parts = pep::split_vcs_url(text);
    if (!parts) return Err("'" + util::redact_url(url) + "' is not a git+ URL");
    if (scheme != "file" && (parts->netloc.empty() || parts->path.empty())) {
        return Err("'" + util::redact_url(url) + "' names no host");
    }
    pep::VcsUrl out;
    out.vcs = "git";
    if (parts->revision) {
        if (auto problem = revision_problem(*parts->revision)) return Err(*problem);
        out.revision = std::string(*parts->revision);
    }
    if (parts->path.empty() || parts->path == "/")
        return Err("'" + util::redact_url(url) + "' names no repository path");
    out.repository = scheme + "://" + std::string(parts->netloc) + std::string(parts->path) +
                     std::string(parts->query);
    if (auto value = parts->fragment.subdirectory()) {  // egg=, sha256=, ... are for other readers
        auto normalised = archive::normalize_member_path(*value);
        if (!normalised || normalised->empty()) {
            return Err("#subdirectory=" + std::string(*value) +
                       " is not a folder inside the repository" +
                       (normalised ? std::string() : ": " + normalised.error()));
        }
        out.subdirectory = std::move(*normalised);
    }
    return out;
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

std::string git_source_id(const pep::VcsUrl& url, std::string_view commit) {
    std::string id = "git+" + canonical_repository(url.repository) + "@" + util::to_lower(commit);
    if (!url.subdirectory.empty()) id += "#subdirectory=" + url.subdirectory;
    return id;
}

}  // namespace aitk::build
