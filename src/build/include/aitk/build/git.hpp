#pragma once
// Git sources through the git program: one bare mirror per repository and one checkout per
// commit, both under the cache and both made so that concurrent aitk-env processes agree:
//
//   <cache>/v1/git/db/<key>/               bare mirror of the repository (key: canonical URL)
//   <cache>/v1/git/checkouts/<key>/<commit>/  work tree of one commit (with .git), immutable
//   <cache>/v1/git/locks/<key>.lock        held while a mirror is fetched or a checkout made
//
// Git runs without the user's repository variables (GIT_DIR, GIT_WORK_TREE, ...), never prompts
// (GIT_TERMINAL_PROMPT=0, ssh in batch mode), and each call has a time limit.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/build/git_url.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::build {

struct GitOptions {
    std::string git = "git";  // the program: a path, or a name looked up on PATH
    // The environment git starts from (see git_environment()); nullopt: this process's.
    std::optional<util::Environment> environment;
    std::chrono::milliseconds timeout = std::chrono::minutes(10);  // per git command
};

struct GitCheckout {
    std::string commit;
    std::filesystem::path tree;     // the checkout (shared: build from a copy)
    std::filesystem::path project;  // tree / subdirectory
};

// Runs git as GitCache does (the environment of git_environment(), the time limit, local
// submodules allowed only for a file:// repository) and turns a failure into util::Error with
// git's last lines, credentials of `repository` scrubbed. Holds `options` by reference.
class GitRunner {
  public:
    GitRunner(const GitOptions& options, std::string repository)
        : options_(options), repository_(std::move(repository)) {}

    // Throws util::Error only when git cannot be started.
    util::ProcessResult run(std::vector<std::string> args,
                            const std::filesystem::path& cwd = {}) const;
    [[noreturn]] void fail(const std::string& what, const util::ProcessResult& result,
                           std::string hint = {}) const;
    void check(const std::string& what, const util::ProcessResult& result,
               std::string hint = {}) const;
    // run(), then check(); git's standard output, trimmed.
    std::string output_of(const std::string& what, std::vector<std::string> args,
                          const std::filesystem::path& cwd = {}) const;

  private:
    const GitOptions& options_;
    std::string repository_;
};

class GitCache {
  public:
    GitCache(cache::Cache cache, GitOptions options = {});

    // The full commit id `url.revision` names. A full commit id already in the mirror is
    // answered without contacting the repository; anything else fetches first (a branch
    // moves). Throws util::Error (git's message, credentials scrubbed) when the repository
    // cannot be fetched or has no such revision.
    std::string resolve(const pep::VcsUrl& url);

    // The checkout of `commit` (a full id, e.g. from resolve()); the mirror is fetched only
    // when the commit is not in it yet, and nothing is run when the checkout exists. Submodules
    // are checked out too. Throws util::Error when `url.subdirectory` is not a folder there.
    GitCheckout checkout(const pep::VcsUrl& url, std::string_view commit);

    std::filesystem::path root() const;  // <cache>/v1/git
    std::filesystem::path mirror_dir(std::string_view repository) const;
    std::filesystem::path checkout_dir(std::string_view repository, std::string_view commit) const;
    const cache::Cache& cache() const noexcept { return cache_; }

  private:
    struct Mirror;
    void fetch(const Mirror& mirror, const std::vector<std::string>& refspecs);
    Mirror open_mirror(std::string_view repository);
    std::optional<std::string> rev_parse(const Mirror& mirror, const std::string& expression);

    cache::Cache cache_;
    GitOptions options_;
};

// `base` without the variables that point git at another repository or configuration
// (every GIT_* except the transport settings GIT_SSH, GIT_SSH_COMMAND, GIT_SSH_VARIANT,
// GIT_PROXY_COMMAND, GIT_SSL_CAINFO, GIT_SSL_CAPATH, GIT_ASKPASS and GIT_HTTP_USER_AGENT), with
// GIT_TERMINAL_PROMPT=0, GCM_INTERACTIVE=never and, unless the user chose an ssh command,
// GIT_SSH_COMMAND="ssh -o BatchMode=yes".
util::Environment git_environment(const util::Environment& base);

}  // namespace aitk::build
