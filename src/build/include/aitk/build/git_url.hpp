#pragma once
// Git requirement URLs as pip writes them:
//   git+https://host/org/repo.git[@revision][#subdirectory=path[&egg=name]]
// (also git+http, git+ssh, git+git and git+file, the last for local repositories and tests).
#include <string>
#include <string_view>

#include "aitk/util/expected.hpp"

namespace aitk::build {

struct GitUrl {
    std::string repository;    // what git fetches: "https://host/org/repo.git" (credentials kept)
    std::string revision;      // branch, tag, commit or "refs/..."; empty: the default branch
    std::string subdirectory;  // the project's folder inside the repository, normalised; or ""

    // Errors say what is wrong: not a git+ URL, unsupported scheme, empty host or path, a
    // revision git would take as an option or a refspec, a subdirectory that leaves the
    // repository.
    static util::Expected<GitUrl, std::string> parse(std::string_view url);

    // "git+<repository>[@revision][#subdirectory=...]".
    std::string to_string() const;
};

// The repository URL as a cache key: credentials removed, scheme and host lower-cased, and a
// trailing "/" or ".git" dropped, so spellings of one repository share one mirror.
std::string canonical_repository(std::string_view repository);

// 40 (SHA-1) or 64 (SHA-256) hex digits: a revision git needs no ref lookup for.
bool is_full_commit_id(std::string_view revision) noexcept;

// The source id of a built wheel (wheel_cache.hpp):
// "git+<canonical repository>@<commit>[#subdirectory=...]".
std::string git_source_id(const GitUrl& url, std::string_view commit);

}  // namespace aitk::build
