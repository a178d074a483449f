#pragma once
// The lockfile: a valid environment.yml (conda env create -f and micromamba accept it) whose
// `dependencies` pin python and list, under `pip:`, the default target's exact files in a form
// real pip accepts in hash-checking mode; plus one extra top-level key, `x-aitk-env`, holding
// every target's full resolution (conda warns about and ignores unknown keys; micromamba
// ignores them). The text is deterministic: sorted, no timestamps, no credentials, so that
// re-locking unchanged inputs is byte-identical.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/input_problem.hpp"

namespace aitk::lock {

inline constexpr int lock_format_version = 1;
inline constexpr std::string_view extension_key = "x-aitk-env";

// What a locked index is; the lockfile spells the kinds as to_string() gives them.
enum class IndexKind {
    simple,         // "simple": a PEP 503/691 index
    find_links,     // "find-links": a flat page or a folder of files
    torch_backend,  // "torch-backend": "<torch-index-url>/<backend>/"
};

// Where a source node comes from.
enum class SourceKind {
    vcs,        // "vcs": a repository (git+https://...)
    sdist,      // "sdist": a source archive listed by an index
    url,        // "url": a source archive named by its URL
    directory,  // "directory": a local folder
};

// The lockfile's word for a kind, and back (nothing for a word that names no kind).
std::string_view to_string(IndexKind kind) noexcept;
std::string_view to_string(SourceKind kind) noexcept;
std::optional<IndexKind> parse_index_kind(std::string_view text) noexcept;
std::optional<SourceKind> parse_source_kind(std::string_view text) noexcept;

struct LockedIndex {
    std::string name;  // "primary", "extra-index 1", "torch cu130", "find-links"
    std::string url;   // without credentials
    IndexKind kind = IndexKind::simple;
    friend bool operator==(const LockedIndex&, const LockedIndex&) = default;
};

// A file's size is what the index said (PEP 691 JSON gives it, HTML pages never do) or what a
// download measured; nullopt when neither is known. An unknown size is left out of the lockfile,
// never written as 0 (no wheel or archive is empty, so a `size: 0` older locks wrote reads back
// as unknown).
struct LockedFile {
    std::string filename;
    std::string url;     // without credentials
    std::string sha256;  // lower-case hex
    std::optional<std::uint64_t> size;
    friend bool operator==(const LockedFile&, const LockedFile&) = default;
};

// A package that has no wheel: built from source by a later stage.
struct LockedSource {
    SourceKind kind = SourceKind::url;
    std::string url;     // repository or archive URL, without credentials
    std::string commit;  // vcs: the full commit (or the revision as written, in an opaque lock)
    std::string sha256;  // sdist/url archives
    std::optional<std::uint64_t> size;  // as LockedFile::size
    std::string subdirectory;
    // vcs: the branch or tag the requirement names, kept so that a re-lock knows whether the
    // locked commit still answers the same request; "" when it names a commit or nothing.
    // (The initialiser keeps six-value brace initialisations free of missing-field warnings.)
    std::string revision{};
    bool editable = false;  // directory: "-e", installed as a PEP 660 editable wheel
    friend bool operator==(const LockedSource&, const LockedSource&) = default;
};

struct LockedPackage {
    std::string name;     // normalised
    std::string version;  // "2.13.0+cu130"; "" for a source node whose version is unknown
    bool requested = false;
    std::string index;                      // LockedIndex::name; "" for direct references
    std::vector<std::string> extras;        // activated, sorted
    std::vector<std::string> dependencies;  // names, sorted
    std::optional<LockedFile> wheel;
    std::optional<LockedSource> source;
    friend bool operator==(const LockedPackage&, const LockedPackage&) = default;
};

// What a target's wheels need of the OS beyond its name (glibc on Linux, macOS on macOS): the
// highest version any chosen wheel's platform tag names, and the packages whose wheel names
// exactly it (lock_floor.hpp computes it from the wheels).
struct LockedFloor {
    std::string version;                // "2.31"
    std::vector<std::string> packages;  // names, sorted
    friend bool operator==(const LockedFloor&, const LockedFloor&) = default;
};

struct LockedTarget {
    std::string id;       // "linux-x86_64-cu130"
    std::string os;       // "linux"
    std::string arch;     // "x86_64"
    std::string backend;  // "cu130"
    std::string python;   // "3.12.3" (full version the markers were evaluated with)
    // Written under `glibc:` (Linux) or `macos:` (macOS); locks older than these fields have
    // neither. `os_cap`: the newest version the lock was allowed to take wheels for ("2.28"
    // from --glibc, a manifest's `glibc:`, [tool.aitk-env] glibc; "" when uncapped).
    std::string os_cap;
    std::optional<LockedFloor> os_floor;
    std::map<std::string, std::string> marker_environment;  // PEP 508 variable → value
    std::map<std::string, std::string> variables;           // environment for this target
    std::vector<LockedPackage> packages;                    // sorted by name
    const LockedPackage* find(std::string_view name) const;
    friend bool operator==(const LockedTarget&, const LockedTarget&) = default;
};

struct Lockfile {
    std::string name;  // environment name
    std::vector<std::string> channels = {"conda-forge"};
    int format = lock_format_version;
    std::string generator;   // "aitk-env 0.1.0"
    std::string input_hash;  // "sha256:<hex>" over the inputs that decide the lock
    std::string python_requires;
    std::vector<LockedIndex> indexes;
    std::string default_target;         // id; its packages form the `pip:` list
    std::vector<LockedTarget> targets;  // sorted by id
    const LockedTarget* find_target(std::string_view id) const;
    // The index of that name; none for an empty name (a package from no index).
    const LockedIndex* find_index(std::string_view name) const;
    friend bool operator==(const Lockfile&, const Lockfile&) = default;
};

// The environment.yml text. Every string that YAML could misread is quoted; keys keep a fixed
// order; lists are sorted. URLs lose their credentials (an ssh URL keeps its user name), and
// `PATH` (conda reserves it) is never written as a variable, at the top level or in a target.
std::string write_lockfile(const Lockfile& lock);

// The `pip:` lines for `target`: `--require-hashes`, then `--index-url`/`--extra-index-url`
// for the indexes it uses, in the lock's order (`--no-index` when it uses none), then per
// package `name==version --hash=sha256:<hex>` (or `name @ url#sha256=<hex>` for direct
// references and find-links files), sorted by name. Pip then takes, among all files of that
// version on all those indexes, only the one whose hash is locked. Source nodes without a hash
// are left out (pip would refuse them in hash mode) and their names returned in `left_out`.
// No lines at all when no package can be listed.
struct PipSection {
    std::vector<std::string> lines;
    std::vector<std::string> left_out;
};
PipSection pip_section(const Lockfile& lock, const LockedTarget& target);

// Where the lock of the manifest named `manifest_name` ("ai-toolkit") goes by default:
// "lockfiles/ai-toolkit.lock.yml". Never `*-lock.yml`: micromamba reads such files as
// conda-lock files.
std::string default_lockfile_path(std::string_view manifest_name);

// Reads a lockfile written by write_lockfile (or edited by hand): problems name
// file:line:column. A file without the `x-aitk-env` key is not our lockfile (the hint says to
// use `setup -f` for a plain environment.yml); a newer format is refused as such. Strict: unknown
// or repeated keys, YAML aliases, dangling index or dependency names, duplicates, a `PATH`
// variable, and an environment.yml part (`dependencies`, `variables`) that differs from what
// `x-aitk-env` says (a hand edit conda would install but aitk-env would not) are problems.
// Form is free: comments, quoting, flow style, key and list order (lists come back sorted).
// URLs are kept as read, credentials included; write_lockfile drops them.
util::Loaded<Lockfile> parse_lockfile(std::string_view yaml, std::string_view file);

}  // namespace aitk::lock
