#pragma once
// PEP 751 lock files (pylock.toml, the packaging specification "pylock.toml Specification") as
// an input: the strict reader, the install selection the specification's "Installation" section
// describes (requires-python, environments, each package's marker with the chosen extras and
// dependency groups, one entry per name), and the conversion of the selected entries into one
// target of aitk-env's lockfile (each package's best wheel by the target's tags, else its sdist,
// or its vcs/directory/archive source for the build layer). Pure: no files, no environment; the
// app layer decides the targets, the Python version and where relative paths lead.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::lock {

// "pylock.toml" or "pylock.NAME.toml" (the specification's r"^pylock\.([^.]+\.)?toml$").
bool is_pylock_file_name(std::string_view filename) noexcept;

// A wheel, sdist or archive file. `url` or `path` (or both: `path` wins, as the specification's
// installation steps say) as written; a relative path is relative to the lock file's folder.
struct PylockFile {
    std::string name;  // as written, else the last segment of the path or URL
    std::string url;
    std::string path;
    std::optional<std::uint64_t> size;
    std::string sha256;        // lower-case hex; every file has one (see parse_pylock)
    std::string subdirectory;  // archive only
    util::SourceLocation where;
};

struct PylockVcs {
    std::string type;  // "git", "hg", "svn", "bzr"
    std::string url;
    std::string path;
    std::string requested_revision;
    std::string commit_id;
    std::string subdirectory;
    util::SourceLocation where;
};

struct PylockDirectory {
    std::string path;
    bool editable = false;
    std::string subdirectory;
    util::SourceLocation where;
};

struct PylockPackage {
    std::string name;     // normalised (PEP 503)
    std::string version;  // "" when not written (a source tree's)
    std::optional<pep::Marker> marker;
    std::optional<pep::SpecifierSet> requires_python;
    std::string requires_python_text;
    std::vector<std::string>
        dependencies;               // the names of [[packages.dependencies]] (informational)
    bool has_dependencies = false;  // the key is present (even as an empty array)
    std::string index;              // as written
    // At most one of vcs, directory and archive, and then neither sdist nor wheels.
    std::optional<PylockVcs> vcs;
    std::optional<PylockDirectory> directory;
    std::optional<PylockFile> archive;
    std::optional<PylockFile> sdist;
    std::vector<PylockFile> wheels;
    util::SourceLocation where;         // the package's table
    util::SourceLocation marker_where;  // its marker, for evaluation errors
};

struct Pylock {
    std::string file;          // as the caller named it, for messages
    std::string lock_version;  // "1.0"
    std::vector<pep::Marker> environments;
    util::SourceLocation environments_where;
    std::optional<pep::SpecifierSet> requires_python;
    std::string requires_python_text;
    std::vector<std::string> extras;             // normalised, as written order
    std::vector<std::string> dependency_groups;  // normalised
    std::vector<std::string> default_groups;     // normalised
    std::string created_by;
    std::vector<PylockPackage> packages;
    // A newer minor version (1.1) may add keys: each unknown key is a warning there, as the
    // specification asks; in 1.0 it is an error.
    std::vector<util::InputProblem> warnings;
};

// The reader's highest lock-version major; a file of another major is refused.
inline constexpr int pylock_major_version = 1;

// Strict, with file:line:column in every problem: TOML syntax, types, required keys, unknown
// keys (1.0), a lock-version of another major, a package with no source or with sources that
// exclude each other, a file without a sha256 hash (the specification requires hashes; aitk-env
// checks files by sha256), names, markers and specifiers that do not parse, a vcs without
// commit-id. `attestation-identities` and the `[tool]` tables are read past (the specification:
// their data must not affect installation).
util::Loaded<Pylock> parse_pylock(std::string_view toml_text, std::string_view file);

// Why an install from the file cannot be made. `fits_elsewhere`: the file is valid and what was
// asked is one it offers, but this target, Python or selection cannot install it (its
// requires-python, its environments, no file for the target's tags), which another choice may;
// else the problem is in the file or in what was asked (an extra it does not have).
struct PylockProblem {
    util::InputProblem problem;
    bool fits_elsewhere = false;
};
template <class T>
using PylockResult = util::Expected<T, PylockProblem>;

// What one install from the lock file selects (the specification's installation step 1). The
// caller decides the groups: PEP 751 installs `default-groups` unless the user says otherwise.
struct PylockSelection {
    pep::MarkerEnvironment environment;  // the target's, python_full_version included
    std::vector<std::string> extras;
    std::vector<std::string> groups;
};

// Installation steps 3 to 5: requires-python and environments hold, then each package whose
// marker holds (its requires-python must then hold too), at most one entry per name. An extra or
// group the file does not declare is a problem, as is anything the specification says must raise
// an error. The packages come in the file's order.
PylockResult<std::vector<const PylockPackage*>> select_pylock_packages(
    const Pylock& pylock, const PylockSelection& selection);

// The target the selected packages are converted for.
struct PylockTarget {
    std::string id;  // "linux-x86_64-cu128" (the backend may be decided after the conversion)
    std::string os;
    std::string arch;
    std::string backend;
    std::string python;  // full version, "3.12.3"
    pep::MarkerEnvironment environment;
    pep::TagPriority tags;  // the wheels this target installs, best first
};

// How the caller (app) makes a lock entry out of what the file names.
struct PylockPlaces {
    // A `path` (relative to the lock file, or absolute) → the URL the lock records
    // ("file:///home/u/proj/vendor/x.whl").
    std::function<std::string(std::string_view path)> local_url;
    // The torch backend an index URL serves ("…/whl/cu128" → "cu128"), if any: such an index is
    // locked as "torch <backend>", as `lock` names its backend indexes.
    std::function<std::optional<std::string>(std::string_view url)> index_backend;
};

// One target of the lockfile from the selected packages: per package its best wheel by
// `target.tags` (the first listed among equals), else its sdist, else a problem naming the
// package, the target and the wheels it has; vcs, directory and archive packages as source nodes
// (an archive that is a wheel as a wheel). `requested` marks the roots of the packages'
// `dependencies` (every package when no entry records dependencies). New indexes are appended
// to `indexes` ("primary", then "extra-index N", or "torch <backend>").
PylockResult<LockedTarget> pylock_target(const std::vector<const PylockPackage*>& selected,
                                         const PylockTarget& target, const PylockPlaces& places,
                                         std::vector<LockedIndex>& indexes);

}  // namespace aitk::lock
