#pragma once
// Git requirement URLs as the git cache takes them:
//   git+https://host/org/repo.git[@revision][#subdirectory=path[&egg=name]]
// (also git+http, git+ssh, git+git and git+file, the last for local repositories and tests).
// The URL is a pep::VcsUrl (pep/direct_reference.hpp, which also has the full-commit rule,
// pep::is_full_commit_id); this adds what a git command needs of it on top of pip's reading.
#include <string>
#include <string_view>

#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::build {

// A git+ URL, split as pip splits it (pep::split_vcs_url), with `subdirectory` normalised.
// Errors say what is wrong: not a git+ URL, unsupported scheme, empty host or path, a revision
// git would take as an option or a refspec, a subdirectory that leaves the repository.
util::Expected<pep::VcsUrl, std::string> parse_git_url(std::string_view url);

// The repository URL as a cache key: credentials removed, scheme and host lower-cased, and a
// trailing "/" or ".git" dropped, so spellings of one repository share one mirror.
std::string canonical_repository(std::string_view repository);

// The source id of a built wheel (wheel_cache.hpp):
// "git+<canonical repository>@<commit>[#subdirectory=...]".
std::string git_source_id(const pep::VcsUrl& url, std::string_view commit);

}  // namespace aitk::build
