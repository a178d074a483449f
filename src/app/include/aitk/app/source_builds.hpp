#pragma once
// Wheels for a lock target's source nodes (packages locked as a VCS commit, an sdist, an archive
// URL or a local folder): each source is made present (git checkout of the locked commit, the
// archive downloaded into the cache and checked against its locked sha256), built through
// PEP 517 in an isolated environment (build_environment.hpp) for the prefix's interpreter, and
// kept in the built-wheel cache, so building the same source again runs no backend. The caller
// then unpacks and installs each wheel like one from an index, with its direct_url.json.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/session.hpp"
#include "aitk/build/environment.hpp"
#include "aitk/build/git.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct SourceBuildRequest {
    // The packages to build: source nodes of one target (LockedPackage::source set, no wheel).
    // They must outlive the call.
    std::vector<const lock::LockedPackage*> sources;
    // The interpreter of the prefix: the wheels are built for it (and the cache keyed by it).
    python::Interpreter interpreter;
    // Where build requirements come from (routing_from_lock() of the target, index_routing.hpp).
    index::IndexRouting routing;
    // What backends start from (see build::backend_environment()); nullopt: this process's.
    std::optional<util::Environment> environment;
    std::chrono::milliseconds timeout = std::chrono::hours(2);  // per PEP 517 hook
    build::GitOptions git;
    // Where wheels that are never cached go (local folders, editables); needed only when the
    // sources include such a package. The caller keeps it until the wheels are installed.
    std::filesystem::path output_dir;
    // The prefix being synced: an editable git requirement ("-e git+...") is cloned into
    // <prefix>/src/<name> as pip does, and installed editable from there. Needed only then.
    std::filesystem::path prefix;
    // Installs build requirements; null: an IndexBuildEnvironmentProvider over `routing` for
    // `interpreter`, made on the first build that needs one.
    build::BuildEnvironmentProvider* provider = nullptr;
};

struct BuiltSource {
    std::string name;             // normalised, as locked
    std::string version;          // the wheel's
    std::filesystem::path wheel;  // in the built-wheel cache, or in output_dir
    // sha256 of the wheel file: the key for cache::Cache::ensure_unpacked.
    std::string wheel_sha256;
    // PEP 610 direct_url.json for a package installed from a URL, VCS or folder; nullopt for
    // an sdist that came from an index (pip writes none for those).
    std::optional<std::string> direct_url;
    bool from_cache = false;  // the built-wheel cache had it: no backend ran
    bool editable = false;    // a PEP 660 editable wheel of a local folder or git checkout
};

// One BuiltSource per request.sources entry, in order. Throws build::BuildError (a backend
// failed: its output's tail and the command that reruns it), util::Error (download, hash
// mismatch, git, a wheel whose name or version is not the locked one) and
// resolve::Unsatisfiable (build requirements). Nothing is installed here.
std::vector<BuiltSource> build_source_packages(Session& session, const SourceBuildRequest& request);

// What identifies the source a package is built from, for receipts and plans: the built-wheel
// source id ("git+<repository>@<commit>[#subdirectory=...]" or "sha256:<hex>"), "dir:<path>"
// for a local folder; "" for a package that is not a source node.
std::string source_identity(const lock::LockedPackage& package);

// The PEP 610 direct_url.json text of a source node (see BuiltSource::direct_url). An editable
// git requirement is the folder editable_vcs_dir() in `prefix`, as pip records it.
std::optional<std::string> direct_url_json(const lock::LockedPackage& package,
                                           const std::filesystem::path& prefix = {});

// Where an editable git requirement is checked out in `prefix`: pip's <prefix>/src/<name>.
std::filesystem::path editable_vcs_dir(const lock::LockedPackage& package,
                                       const std::filesystem::path& prefix);

// A source archive in the cache: the stored file when `sha256` is known and stored, else
// downloaded (and checked against `sha256` when given, hashed otherwise). `url` may be a file:
// URL or a local path. Throws util::Error.
struct FetchedArchive {
    std::filesystem::path path;
    std::string sha256;
    std::uint64_t size = 0;
};
FetchedArchive fetch_source_archive(Session& session, const std::string& url,
                                    const std::string& filename, const std::string& sha256);

// The local path a "file:" URL (or a plain absolute path) names; nullopt for other URLs.
std::optional<std::filesystem::path> local_path_of(std::string_view url);

}  // namespace aitk::app
