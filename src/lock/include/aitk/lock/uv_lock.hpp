#pragma once
// uv's lockfile, uv.lock (TOML), read into a model as uv reads it: the format version and
// revision, requires-python, the resolution forks, `conflicts`, the `[manifest]` of the
// workspace, and every package keyed by (name, version, source) with its files (sdist and wheels:
// URL or path, hash, size), its dependency edges (plain, per extra, per dependency group; each
// with its marker, the extras it enables and, where the name is ambiguous, the version and source
// that say which package it means) and the project metadata uv compares with pyproject.toml.
//
// Strict: an unknown key, a value of the wrong type, an edge naming no package of the lock, two
// packages with the same (name, version, source), or a newer major version of the format is a
// problem at file:line:column. Markers are parsed once here (uv writes them in a canonical form,
// so the thousands of edges of a big lock share a few hundred texts).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::lock {

// The format this reader knows: uv.lock `version = 1`; revisions up to 3 are what uv writes
// today (a later revision of version 1 is read as long as it holds only keys known here).
inline constexpr std::int64_t uv_lock_major_version = 1;
inline constexpr std::int64_t uv_lock_known_revision = 3;

// Where a package comes from, as `source = { <kind> = "<location>" }` says.
struct UvSource {
    enum class Kind : std::uint8_t {
        registry,   // an index: URL (or a local folder, relative to the lock)
        git,        // "https://host/repo.git?rev=v1&subdirectory=x#<full commit>"
        url,        // a direct archive URL (wheel or sdist)
        path,       // a local archive, relative to the lock's folder
        directory,  // a local source tree, installed as a normal wheel
        editable,   // a local source tree, installed editable (workspace members)
        virtual_,   // a local project that is not installed itself (its dependencies are)
    };
    Kind kind = Kind::registry;
    std::string location;          // as written
    std::string subdirectory;      // `url` sources; a git source keeps it in its URL's query
    bool local() const noexcept {  // path, directory, editable, virtual
        return kind == Kind::path || kind == Kind::directory || kind == Kind::editable ||
               kind == Kind::virtual_;
    }
    friend bool operator==(const UvSource&, const UvSource&) = default;
};

// "registry", "git", "url", "path", "directory", "editable", "virtual".
std::string_view to_string(UvSource::Kind kind) noexcept;

// A git source's URL taken apart (the query keys uv writes: rev, tag, branch, subdirectory, lfs).
struct UvGitUrl {
    std::string repository;  // without query and fragment: "https://github.com/x/y.git"
    std::string reference;   // the rev, tag or branch asked for; "" for none
    std::string subdirectory;
    std::string commit;  // the fragment: the full commit uv locked
};
util::Expected<UvGitUrl, std::string> parse_uv_git_url(std::string_view text);

// A wheel or an sdist as the lock names it.
struct UvFile {
    std::string url;       // "" when the file is named by `path`
    std::string path;      // relative to the lock's folder (path sources, path registries)
    std::string filename;  // the last segment of the URL or path, percent-decoded
    std::string hash;      // "sha256:<hex>" as written; "" when the lock gives none
    std::optional<std::uint64_t> size;
    util::SourceLocation where;
};

// One of the items of a `conflicts` set: an extra or a group of a package (or the package
// itself when neither is given).
struct UvConflictItem {
    std::string package;  // normalised
    std::string extra;    // normalised; "" unless an extra
    std::string group;    // normalised; "" unless a group
    friend bool operator==(const UvConflictItem&, const UvConflictItem&) = default;
};

// uv's encoding of a conflict item as the `extra` value its markers compare with:
// "extra-8-nanochat-cpu", "group-13-open-instruct-cuda12", "project-8-nanochat" (the number is
// the byte length of the package name, so that the parts can be told apart).
std::string uv_conflict_extra(const UvConflictItem& item);

// A requirement as uv records what the project asked for: `[package.metadata] requires-dist`,
// `requires-dev`, and the `[manifest]` lists.
struct UvRequirement {
    std::string name;  // normalised
    std::vector<std::string> extras;
    std::vector<std::string> groups;
    std::string specifier;  // as written (">=2.0,<3"); "" for any
    std::string marker;     // as written; "" for always
    // At most one of these is given (uv's requirement sources); all empty: a registry.
    std::string index, git, url, path, directory, editable, virtual_, subdirectory;
    std::optional<UvConflictItem> conflict;
    util::SourceLocation where;
};

// A dependency edge.
struct UvDependency {
    std::string name;     // normalised
    std::string version;  // only where the lock holds several packages of the name
    std::optional<UvSource> source;
    std::vector<std::string> extras;            // the dependency's extras this edge enables
    std::shared_ptr<const pep::Marker> marker;  // null: always
    std::string marker_text;                    // as written
    std::size_t package = 0;                    // the package it means (into UvLock::packages)
    util::SourceLocation where;
};

struct UvPackageMetadata {
    bool present = false;  // the lock has `[package.metadata]` for this package
    std::vector<UvRequirement> requires_dist;
    std::map<std::string, std::vector<UvRequirement>> requires_dev;  // by group
    std::vector<std::string> provides_extras;
    bool provides_extras_given = false;
};

struct UvPackage {
    std::string name;     // normalised
    std::string version;  // "" for a source tree whose version is dynamic
    UvSource source;
    std::vector<std::string> resolution_markers;  // the forks this package belongs to, as written
    std::optional<UvFile> sdist;
    std::vector<UvFile> wheels;
    std::vector<UvDependency> dependencies;
    std::map<std::string, std::vector<UvDependency>> optional_dependencies;  // by extra
    std::map<std::string, std::vector<UvDependency>> dependency_groups;      // dev-dependencies
    UvPackageMetadata metadata;
    util::SourceLocation where;

    std::string label() const;  // "torch 2.6.0+cu126" (the name alone without a version)
};

struct UvDependencyMetadata {  // `[[manifest.dependency-metadata]]`: metadata given by hand
    std::string name;
    std::string version;
    std::vector<std::string> requires_dist;
    std::string requires_python;
    std::vector<std::string> provides_extras;
};

struct UvManifest {
    std::vector<std::string> members;  // workspace members, normalised
    std::vector<UvRequirement> requirements;
    std::map<std::string, std::vector<UvRequirement>> dependency_groups;
    std::vector<UvRequirement> constraints;
    std::vector<UvRequirement> overrides;
    std::vector<UvRequirement> build_constraints;
    std::vector<std::string> excludes;
    std::vector<UvDependencyMetadata> dependency_metadata;
};

struct UvLock {
    std::string file;  // as the messages name it
    std::int64_t version = uv_lock_major_version;
    std::int64_t revision = 0;
    std::string requires_python;
    std::vector<std::string> resolution_markers;
    std::vector<std::shared_ptr<const pep::Marker>> supported_markers;  // `supported-markers`
    std::vector<std::string> supported_marker_texts;
    std::vector<std::string> required_markers;
    std::vector<std::vector<UvConflictItem>> conflicts;
    UvManifest manifest;
    std::vector<UvPackage> packages;  // in the file's order (uv sorts them by name)

    // The packages of a (normalised) name, in the file's order.
    std::vector<std::size_t> find(std::string_view name) const;
    // The workspace roots `uv sync` starts from: the project at the lock's own folder (source
    // editable, virtual or directory "."), else every member of `[manifest] members`.
    std::vector<std::size_t> roots() const;
};

// Reads uv.lock text; `file` names it in problems.
util::Loaded<UvLock> parse_uv_lock(std::string_view text, std::string_view file);

}  // namespace aitk::lock
