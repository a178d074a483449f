#include "aitk/build/git.hpp"

#include "aitk/fs/hash.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "output_tail.hpp"

namespace aitk::build {

namespace stdfs = std::filesystem;

struct GitCache::Mirror {
    std::string repository;  // as given (credentials included): what git fetches
    stdfs::path dir;
};

namespace {

// Transport settings the user may need (proxies, CA bundles, ssh keys); everything else named
// GIT_* could redirect git to another repository, index or configuration.
bool kept_git_variable(std::string_view name) {
    for (std::string_view kept :
         {"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_PROXY_COMMAND", "GIT_SSL_CAINFO",
          "GIT_SSL_CAPATH", "GIT_ASKPASS", "GIT_HTTP_USER_AGENT"}) {
        if (name == kept) return true;
    }
    return false;
}

std::string repository_key(std::string_view repository) {
    return fs::sha256_hex(canonical_repository(repository)).substr(0, 24);
}

const std::vector<std::string>& all_refs() {
    static const std::vector<std::string> refspecs = {
        "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+HEAD:refs/aitk/HEAD"};
    return refspecs;
}

bool is_hex_prefix(std::string_view text) {
    return text.size() >= 4 && text.size() <= 64 && util::is_hex(text);
}

bool is_dir(const stdfs::path& path) {
    std::error_code ec;
    return stdfs::is_directory(path, ec);
}

}  // namespace

util::Environment git_environment(const util::Environment& base) {
    util::Environment env;
    for (const auto& [name, value] : base) {
        if (util::istarts_with(name, "GIT_") && !kept_git_variable(name)) continue;
        env.emplace(name, value);
    }
    env["GIT_TERMINAL_PROMPT"] = "0";
    env["GCM_INTERACTIVE"] = "never";
    if (!env.contains("GIT_SSH_COMMAND") && !env.contains("GIT_SSH")) {
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes";
    }
    return env;
}

GitCache::GitCache(cache::Cache cache, GitOptions options)
    : cache_(std::move(cache)), options_(std::move(options)) {}

stdfs::path GitCache::root() const {
    return cache_.base() / "git";
}

stdfs::path GitCache::mirror_dir(std::string_view repository) const {
    return root() / "db" / repository_key(repository);
}

stdfs::path GitCache::checkout_dir(std::string_view repository, std::string_view commit) const {
    return root() / "checkouts" / repository_key(repository) / util::to_lower(commit);
}

util::ProcessResult GitRunner::run(std::vector<std::string> args, const stdfs::path& cwd) const {
    util::ProcessRequest request;
    request.argv = {options_.git};
    // A file:// repository's own submodules may be local too; other repositories must not
    // reach into this machine's files through theirs.
    if (util::istarts_with(repository_, "file://")) {
        request.argv.insert(request.argv.end(), {"-c", "protocol.file.allow=always"});
    }
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.environment =
        git_environment(options_.environment ? *options_.environment : util::current_environment());
    request.working_directory = cwd;
    request.timeout = options_.timeout;
    auto ran = util::run_process(request);
    if (!ran) {
        throw util::Error(util::ExitCode::failure,
                          "cannot run git (" + options_.git + "): " + ran.error().message,
                          "install git, or make sure it is on PATH");
    }
    return std::move(*ran);
}

void GitRunner::fail(const std::string& what, const util::ProcessResult& result,
                     std::string hint) const {
    std::string output = last_lines(result.err.empty() ? result.out : result.err, 15);
    throw util::Error(util::ExitCode::failure,
                      util::scrub_credentials(what + ": git " + result.describe() +
                                                  (output.empty() ? "" : ":\n" + output),
                                              repository_),
                      std::move(hint));
}

void GitRunner::check(const std::string& what, const util::ProcessResult& result,
                      std::string hint) const {
    if (!result.succeeded()) fail(what, result, std::move(hint));
}

std::string GitRunner::output_of(const std::string& what, std::vector<std::string> args,
                                 const stdfs::path& cwd) const {
    auto result = run(std::move(args), cwd);
    check(what, result);
    return std::string(util::trim(result.out));
}

GitCache::Mirror GitCache::open_mirror(std::string_view repository) {
    Mirror mirror{std::string(repository), mirror_dir(repository)};
    if (stdfs::exists(mirror.dir / "HEAD")) return mirror;
    GitRunner git{options_, mirror.repository};
    auto staging = fs::TempDir::create_in(cache_.temp_dir(), "git-db");
    const stdfs::path bare = staging.path() / "db";
    git.check("cannot create a git mirror in " + util::utf8_of(bare),
              git.run({"init", "--bare", "--quiet", util::utf8_of(bare)}));
    stdfs::create_directories(mirror.dir.parent_path());
    fs::publish(bare, mirror.dir);
    return mirror;
}

void GitCache::fetch(const Mirror& mirror, const std::vector<std::string>& refspecs) {
    GitRunner git{options_, mirror.repository};
    std::vector<std::string> args = {"fetch",   "--quiet", "--force",        "--no-tags",
                                     "--prune", "--",      mirror.repository};
    args.insert(args.end(), refspecs.begin(), refspecs.end());
    git.check("cannot fetch " + util::redact_url(mirror.repository), git.run(args, mirror.dir),
              "check the URL and that you can reach it (git ls-remote URL); aitk-env never asks "
              "for credentials: use a credential helper or an ssh agent");
}

std::optional<std::string> GitCache::rev_parse(const Mirror& mirror,
                                               const std::string& expression) {
    GitRunner git{options_, mirror.repository};
    auto result =
        git.run({"rev-parse", "--verify", "--quiet", expression + "^{commit}"}, mirror.dir);
    if (!result.succeeded()) return std::nullopt;
    std::string commit(util::trim(result.out));
    if (!pep::is_full_commit_id(commit)) return std::nullopt;
    return commit;
}

std::string GitCache::resolve(const pep::VcsUrl& url) {
    const std::string& revision = url.revision;
    auto in_use = cache_.hold();
    auto lock = fs::FileLock::acquire(root() / "locks" / (repository_key(url.repository) + ".lock"),
                                      fs::LockMode::exclusive);
    Mirror mirror = open_mirror(url.repository);
    const std::string shown = util::redact_url(url.repository);

    if (pep::is_full_commit_id(revision)) {
        const std::string commit = util::to_lower(revision);
        if (auto known = rev_parse(mirror, commit)) return *known;
        fetch(mirror, all_refs());
        if (auto known = rev_parse(mirror, commit)) return *known;
        // Not on any branch or tag: servers that allow it hand out a commit by its id.
        GitRunner git{options_, mirror.repository};
        git.run({"fetch", "--quiet", "--no-tags", "--", mirror.repository, commit}, mirror.dir);
        if (auto known = rev_parse(mirror, commit)) return *known;
        throw util::Error(util::ExitCode::failure, "commit " + commit + " is not in " + shown,
                          "check the commit id; it may have been removed by a force-push");
    }

    fetch(mirror, all_refs());
    if (revision.empty()) {
        if (auto commit = rev_parse(mirror, "refs/aitk/HEAD")) return *commit;
        throw util::Error(util::ExitCode::failure, shown + " has no default branch",
                          "name a branch, tag or commit after '@'");
    }
    for (const std::string& ref : {"refs/heads/" + revision, "refs/tags/" + revision}) {
        if (auto commit = rev_parse(mirror, ref)) return *commit;
    }
    if (revision.starts_with("refs/")) {
        GitRunner git{options_, mirror.repository};
        git.run({"fetch", "--quiet", "--force", "--no-tags", "--", mirror.repository,
                 "+" + revision + ":" + revision},
                mirror.dir);
        if (auto commit = rev_parse(mirror, revision)) return *commit;
    }
    if (is_hex_prefix(revision)) {
        if (auto commit = rev_parse(mirror, util::to_lower(revision))) return *commit;
    }
    throw util::Error(
        util::ExitCode::failure, shown + " has no branch, tag or commit named '" + revision + "'",
        "check the name after '@' (git ls-remote " + shown + " lists branches and tags)");
}

GitCheckout GitCache::checkout(const pep::VcsUrl& url, std::string_view commit_id) {
    if (!pep::is_full_commit_id(commit_id)) {
        throw util::Error(util::ExitCode::failure,
                          "'" + std::string(commit_id) + "' is not a full commit id",
                          "resolve the revision to a commit first");
    }
    const std::string commit = util::to_lower(commit_id);
    const stdfs::path dir = checkout_dir(url.repository, commit);
    auto result = [&]() {
        GitCheckout out{commit, dir, url.subdirectory.empty() ? dir : dir / url.subdirectory};
        if (!is_dir(out.project)) {
            throw util::Error(util::ExitCode::failure,
                              git_source_id(url, commit) + ": the repository has no folder '" +
                                  url.subdirectory + "' at that commit",
                              "check the #subdirectory= part of the URL");
        }
        return out;
    };
    if (is_dir(dir)) return result();

    auto in_use = cache_.hold();
    auto lock = fs::FileLock::acquire(root() / "locks" / (repository_key(url.repository) + ".lock"),
                                      fs::LockMode::exclusive);
    if (is_dir(dir)) return result();
    Mirror mirror = open_mirror(url.repository);
    if (!rev_parse(mirror, commit)) {
        pep::VcsUrl pinned = url;
        pinned.revision = commit;
        lock.release();  // resolve() takes it again
        resolve(pinned);
        lock = fs::FileLock::acquire(root() / "locks" / (repository_key(url.repository) + ".lock"),
                                     fs::LockMode::exclusive);
        if (is_dir(dir)) return result();
    }

    GitRunner git{options_, mirror.repository};
    auto staging = fs::TempDir::create_in(cache_.temp_dir(), "git-checkout");
    const stdfs::path tree = staging.path() / "tree";
    const std::string what = "cannot check out " + git_source_id(url, commit);
    git.check(what, git.run({"clone", "--quiet", "--no-checkout", "--", util::utf8_of(mirror.dir),
                             util::utf8_of(tree)}));
    git.check(what, git.run({"checkout", "--quiet", "--detach", commit}, tree));
    // The checkout names its real origin (setuptools-scm and relative submodule URLs read it),
    // never with credentials: the cache is no place for them.
    git.check(
        what,
        git.run({"remote", "set-url", "origin", util::strip_credentials(url.repository)}, tree));
    if (stdfs::exists(tree / ".gitmodules")) {
        git.check(what + " (submodules)",
                  git.run({"submodule", "update", "--init", "--recursive", "--quiet"}, tree));
    }
    stdfs::create_directories(dir.parent_path());
    fs::publish(tree, dir);  // already_exists cannot happen under the lock; theirs would do
    return result();
}

}  // namespace aitk::build
