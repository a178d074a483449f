#include "aitk/app/source_builds.hpp"

#include <memory>
#include <system_error>

#include <nlohmann/json.hpp>

#include "aitk/app/build_environment.hpp"
#include "aitk/build/build.hpp"
#include "aitk/build/git_url.hpp"
#include "aitk/build/sdist.hpp"
#include "aitk/build/wheel_cache.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/install/direct_url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

// The URL without its fragment (pep::split_fragment) and its query.
std::string without_fragment(std::string_view url) {
    const std::string_view plain = pep::split_fragment(url).url;
    return std::string(plain.substr(0, plain.find('?')));
}

std::string file_name_of(std::string_view url) {
    std::string plain = without_fragment(url);
    auto slash = plain.rfind('/');
    return slash == std::string::npos ? plain : plain.substr(slash + 1);
}

pep::VcsUrl git_url_of(const lock::LockedSource& source) {
    std::string text = source.url;
    if (!source.subdirectory.empty()) text += "#subdirectory=" + source.subdirectory;
    auto parsed = build::parse_git_url(text);
    if (!parsed) {
        throw util::Error(util::ExitCode::failure,
                          "the lock's VCS source " + util::redact_url(source.url) +
                              " is not usable: " + parsed.error(),
                          "lock again");
    }
    return *parsed;
}

std::string label_of(const lock::LockedPackage& package) {
    return package.name + (package.version.empty() ? std::string() : " " + package.version);
}

const lock::LockedSource& source_of(const lock::LockedPackage& package) {
    if (!package.source) {
        throw util::Error(util::ExitCode::failure,
                          package.name + " is not a source node (the lock gives it a wheel)",
                          "internal: pass only packages without a wheel");
    }
    return *package.source;
}

// The built wheel must be the package the lock resolved: another name or version would leave
// the prefix other than the lock says.
pep::WheelFilename checked_wheel(const lock::LockedPackage& package, const stdfs::path& wheel) {
    auto parsed = pep::WheelFilename::parse(util::utf8_of(wheel.filename()));
    if (!parsed) {
        throw util::Error(util::ExitCode::failure, "building " + label_of(package) + " made " +
                                                       util::utf8_of(wheel.filename()) +
                                                       ", which is not a wheel file name");
    }
    if (parsed->name != package.name) {
        throw util::Error(util::ExitCode::failure,
                          "building " + label_of(package) + " made a wheel of " + parsed->name +
                              " (" + util::utf8_of(wheel.filename()) + ")",
                          "the lock names the project wrongly; fix the requirement and lock again");
    }
    if (!package.version.empty()) {
        auto locked = pep::Version::parse(package.version);
        if (locked && !(*locked == parsed->version)) {
            throw util::Error(
                util::ExitCode::failure,
                "building " + label_of(package) + " made version " + parsed->version.to_string() +
                    " (" + util::utf8_of(wheel.filename()) + "), not the locked " + package.version,
                "the source changed since it was locked (a local folder, a moved "
                "tag): lock again");
        }
    }
    return std::move(*parsed);
}

// pip's place for an editable VCS requirement: <prefix>/src/<name>, a real clone of the
// repository at the locked commit that the user may edit. The commit's objects come from the
// cache's mirror (no second download); an existing clone is left alone when it is at the commit
// (so a re-sync keeps the user's edits), moved when clean, and refused when it has changes.
stdfs::path editable_vcs_checkout(build::GitCache& git_cache, const build::GitRunner& git,
                                  const pep::VcsUrl& url, const std::string& commit,
                                  const stdfs::path& dest, const std::string& label) {
    pep::VcsUrl pinned = url;
    pinned.revision = commit;
    git_cache.resolve(pinned);  // the commit is in the mirror from here on
    const std::string mirror = util::utf8_of(git_cache.mirror_dir(url.repository));
    const std::string what = "cannot check out " + label + " in " + util::utf8_of(dest);
    std::error_code ec;
    if (!stdfs::exists(dest, ec)) {
        stdfs::create_directories(dest.parent_path());
        git.output_of(what,
                      {"clone", "--quiet", "--no-checkout", "--", mirror, util::utf8_of(dest)}, {});
        git.output_of(what, {"checkout", "--quiet", "--detach", commit}, dest);
        git.output_of(
            what, {"remote", "set-url", "origin", util::strip_credentials(url.repository)}, dest);
        if (stdfs::exists(dest / ".gitmodules")) {
            git.output_of(what + " (submodules)",
                          {"-c", "protocol.file.allow=always", "submodule", "update", "--init",
                           "--recursive", "--quiet"},
                          dest);
        }
        return dest;
    }
    auto top = git.run({"rev-parse", "--show-toplevel"}, dest);
    if (!top.succeeded() ||
        stdfs::weakly_canonical(stdfs::path(std::string(util::trim(top.out)))) !=
            stdfs::weakly_canonical(dest)) {
        throw util::Error(util::ExitCode::failure,
                          util::utf8_of(dest) +
                              " exists and is not a git checkout, so the editable " + label +
                              " cannot be checked out there",
                          "move or remove " + util::utf8_of(dest) + ", then sync again");
    }
    const std::string head = git.output_of(what, {"rev-parse", "HEAD"}, dest);
    if (util::to_lower(head) == util::to_lower(commit)) return dest;
    // Untracked files (build output, notes) survive a checkout; changed tracked files would not.
    const std::string changes =
        git.output_of(what, {"status", "--porcelain", "--untracked-files=no"}, dest);
    if (!changes.empty()) {
        throw util::Error(
            util::ExitCode::failure,
            util::utf8_of(dest) + " has local changes and is at commit " + head +
                ", but the lock says " + label + " is at " + commit,
            "commit or discard the changes in " + util::utf8_of(dest) +
                " (or move the folder away), " +
                "then sync again; to keep working on them, lock the commit you want instead");
    }
    if (!git.run({"cat-file", "-e", commit + "^{commit}"}, dest).succeeded()) {
        git.output_of(what, {"fetch", "--quiet", "--no-tags", "--", mirror, commit}, dest);
    }
    git.output_of(what, {"checkout", "--quiet", "--detach", commit}, dest);
    if (stdfs::exists(dest / ".gitmodules")) {
        git.output_of(what + " (submodules)",
                      {"-c", "protocol.file.allow=always", "submodule", "update", "--init",
                       "--recursive", "--quiet"},
                      dest);
    }
    return dest;
}

}  // namespace

std::optional<stdfs::path> local_path_of(std::string_view url) {
    if (util::istarts_with(url, "file://")) {
        std::string path(url.substr(7));
        // file://localhost/x and file:///x; another host is not this machine.
        if (util::istarts_with(path, "localhost/")) path = path.substr(9);
        if (path.empty() || path.front() != '/') return std::nullopt;
        return stdfs::path(without_fragment(path));
    }
    if (util::istarts_with(url, "file:")) return stdfs::path(without_fragment(url.substr(5)));
    if (!url.empty() && url.front() == '/') return stdfs::path(without_fragment(url));
    return std::nullopt;
}

FetchedArchive fetch_source_archive(Session& session, const std::string& url,
                                    const std::string& filename, const std::string& sha256) {
    auto& cache = session.cache();
    std::error_code ec;
    if (!sha256.empty()) {
        if (auto found = cache.find_artifact(sha256, filename)) {
            return {*found, sha256, stdfs::file_size(*found, ec)};
        }
    }
    if (auto local = local_path_of(url)) {
        // A file on this machine is copied into the cache as it is (checked when a hash is
        // known): the build must not depend on it staying where it is.
        if (!stdfs::is_regular_file(*local, ec)) {
            throw util::Error(util::ExitCode::failure, local->string() + " does not exist",
                              "fix the path in the requirement");
        }
        std::string digest = sha256.empty() ? fs::sha256_file_hex(*local) : sha256;
        auto stored = cache.import_artifact(*local, digest, filename);
        return {stored, digest, stdfs::file_size(stored, ec)};
    }
    if (session.offline()) {
        throw util::Error(
            util::ExitCode::failure,
            "offline: " + filename + " (" + util::redact_url(url) + ") is not in the cache",
            "run once without --offline");
    }
    auto hold = cache.hold();
    net::FileRequest request;
    request.url = url;
    request.destination = cache.staging_path(filename);
    if (!sha256.empty()) request.expected_sha256 = util::to_lower(sha256);
    auto outcome = session.downloader().download(request, session.observer());
    if (!outcome) {
        stdfs::remove(request.destination, ec);
        throw util::Error(util::ExitCode::failure,
                          "cannot download " + filename + ": " + outcome.error().message);
    }
    const std::string expected = sha256.empty() ? outcome->sha256 : util::to_lower(sha256);
    auto stored = cache.insert_artifact(request.destination, expected, filename, outcome->sha256,
                                        util::redact_url(url));
    return {stored, outcome->sha256, outcome->size};
}

std::string source_identity(const lock::LockedPackage& package) {
    if (!package.source) return {};
    const auto& source = *package.source;
    if (source.kind == lock::SourceKind::vcs)
        return build::git_source_id(git_url_of(source), source.commit);
    if (source.kind == lock::SourceKind::directory) {
        auto path = local_path_of(source.url);
        return "dir:" + (path ? path->generic_string() : source.url);
    }
    if (!source.sha256.empty()) return build::sdist_source_id(util::to_lower(source.sha256));
    return "url:" + util::strip_credentials(source.url);
}

stdfs::path editable_vcs_dir(const lock::LockedPackage& package, const stdfs::path& prefix) {
    return prefix / "src" / package.name;
}

std::optional<std::string> direct_url_json(const lock::LockedPackage& package,
                                           const stdfs::path& prefix) {
    if (!package.source) return std::nullopt;
    const auto& source = *package.source;
    install::DirectUrl direct;
    direct.subdirectory = source.subdirectory;
    if (source.kind == lock::SourceKind::vcs && source.editable) {
        // pip records the clone it made in <prefix>/src, not the repository: the installed
        // package is that folder, edits and all.
        direct.url = "file://" + util::generic_utf8_of(editable_vcs_dir(package, prefix));
        direct.info = install::DirectUrl::Directory{true};
    } else if (source.kind == lock::SourceKind::vcs) {
        direct.url = util::strip_credentials(git_url_of(source).repository);
        // The revision the user asked for: a branch or tag, or the commit itself.
        direct.info = install::DirectUrl::Vcs{
            "git", source.commit, source.revision.empty() ? source.commit : source.revision};
    } else if (source.kind == lock::SourceKind::directory) {
        auto path = local_path_of(source.url);
        direct.url = path ? "file://" + path->generic_string() : source.url;
        direct.info = install::DirectUrl::Directory{source.editable};
    } else if (source.kind == lock::SourceKind::sdist && !package.index.empty()) {
        return std::nullopt;  // from an index: a name and version, not a URL
    } else {
        direct.url = util::strip_credentials(without_fragment(source.url));
        direct.info = install::DirectUrl::Archive{source.sha256};
    }
    return install::write_direct_url(direct);
}

namespace {

// The builds of one build_source_packages call: the cache, the git cache and the environment
// provider are made on the first package that needs them and shared by the rest.
class SourceBuilder {
  public:
    SourceBuilder(Session& session, const SourceBuildRequest& request)
        : session_(session), request_(request), wheel_cache_(session.cache()) {
        options_.environment = request.environment;
        options_.timeout = request.timeout;
        options_.work_dir = session.cache().temp_dir();
        stdfs::create_directories(options_.work_dir);
        options_.output_dir = request.output_dir;
        options_.cache = &wheel_cache_;
    }

    BuiltSource build(const lock::LockedPackage& package) {
        const auto& source = source_of(package);
        BuiltSource built;
        built.name = package.name;
        built.direct_url = direct_url_json(package, request_.prefix);
        const bool editable_vcs = source.kind == lock::SourceKind::vcs && source.editable;
        const bool needs_output = source.kind == lock::SourceKind::directory || editable_vcs;
        if (needs_output && request_.output_dir.empty()) {
            throw util::Error(
                util::ExitCode::failure,
                "building " + label_of(package) + " (a local folder): no folder for its wheel",
                "internal: set SourceBuildRequest::output_dir");
        }
        build::BuiltWheel wheel;
        if (source.kind == lock::SourceKind::vcs) {
            wheel = from_git(package, source, built);
        } else if (source.kind == lock::SourceKind::directory) {
            wheel = from_folder(package, source, built);
        } else {
            wheel = from_archive(source);
        }
        auto name = checked_wheel(package, wheel.path);
        built.version = name.version.to_string();
        built.wheel = wheel.path;
        built.from_cache = wheel.from_cache;
        built.wheel_sha256 = fs::sha256_file_hex(wheel.path);
        return built;
    }

  private:
    build::BuildEnvironmentProvider& provider() {
        if (request_.provider) return *request_.provider;
        if (!own_provider_) {
            BuildEnvironmentSettings settings;
            settings.routing = request_.routing;
            settings.interpreter = request_.interpreter;
            own_provider_ =
                std::make_unique<IndexBuildEnvironmentProvider>(session_, std::move(settings));
        }
        return *own_provider_;
    }

    build::GitOptions git_options() const {
        build::GitOptions options = request_.git;
        if (!options.environment) options.environment = request_.environment;
        return options;
    }

    build::GitCache& git() {
        if (!git_) git_ = std::make_unique<build::GitCache>(session_.cache(), git_options());
        return *git_;
    }

    build::BuiltWheel from_git(const lock::LockedPackage& package, const lock::LockedSource& source,
                               BuiltSource& built) {
        auto url = git_url_of(source);
        std::string commit = source.commit;
        if (!pep::is_full_commit_id(commit)) {
            // A lock made without looking into sources holds the revision as written.
            url.revision = commit;
            commit = git().resolve(url);
        }
        if (!source.editable) {
            return build::build_wheel(build::BuildSource::git(git(), url, commit), provider(),
                                      request_.interpreter, options_);
        }
        if (request_.prefix.empty()) {
            throw util::Error(util::ExitCode::failure,
                              "building " + label_of(package) +
                                  " (an editable git requirement): no prefix for its checkout",
                              "internal: set SourceBuildRequest::prefix");
        }
        const auto options = git_options();  // the runner keeps a reference to it
        const build::GitRunner runner{options, url.repository};
        auto tree =
            editable_vcs_checkout(git(), runner, url, commit,
                                  editable_vcs_dir(package, request_.prefix), label_of(package));
        if (!url.subdirectory.empty()) tree /= url.subdirectory;
        built.editable = true;
        return build::build_editable(tree, provider(), request_.interpreter, options_);
    }

    build::BuiltWheel from_folder(const lock::LockedPackage& package,
                                  const lock::LockedSource& source, BuiltSource& built) {
        auto path = local_path_of(source.url);
        if (!path) {
            throw util::Error(
                util::ExitCode::failure,
                package.name + ": " + util::redact_url(source.url) + " is not a local folder");
        }
        if (!source.subdirectory.empty()) *path /= source.subdirectory;
        if (!source.editable) {
            return build::build_wheel(build::BuildSource::directory(*path), provider(),
                                      request_.interpreter, options_);
        }
        built.editable = true;
        return build::build_editable(*path, provider(), request_.interpreter, options_);
    }

    build::BuiltWheel from_archive(const lock::LockedSource& source) {
        auto archive =
            fetch_source_archive(session_, source.url, file_name_of(source.url), source.sha256);
        if (archive.path.extension() == ".whl") return {archive.path, true};  // nothing to build
        return build::build_wheel(build::BuildSource::sdist(archive.path, archive.sha256),
                                  provider(), request_.interpreter, options_);
    }

    Session& session_;
    const SourceBuildRequest& request_;
    const build::BuiltWheelCache wheel_cache_;
    build::BuildOptions options_;
    std::unique_ptr<build::GitCache> git_;
    std::unique_ptr<IndexBuildEnvironmentProvider> own_provider_;
};

}  // namespace

std::vector<BuiltSource> build_source_packages(Session& session,
                                               const SourceBuildRequest& request) {
    SourceBuilder builder(session, request);
    std::vector<BuiltSource> out;
    for (const auto* package : request.sources)
        out.push_back(builder.build(*package));
    return out;
}

}  // namespace aitk::app
