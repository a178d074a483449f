#pragma once
// A project's own pyproject.toml as an input of lock, setup and doctor, read as uv reads it
// (docs/cli.md "pyproject.toml" lists every key and what becomes of it):
//   - PEP 621 [project]: name, requires-python, dependencies, optional-dependencies (extras),
//     dynamic (the fields the build backend fills in);
//   - PEP 735 [dependency-groups], with {include-group = "…"};
//   - uv's [tool.uv]: sources (index, git, url, path, workspace; limited by extra, group or
//     marker), index, conflicts, override-, constraint- and dev-dependencies, environments,
//     default-groups, package, workspace, and the settings that map onto pip's options.
// parse_pyproject() turns the TOML into the model below: every key uv documents is accepted,
// anything else in uv's tables is a problem at file:line:column naming the key, and so is
// malformed TOML. from_pyproject() turns the model into the ProjectInput every input becomes:
// the torch-family sources whose index is a PyTorch backend index become the input's backends
// (chosen by hardware downstream), extras and groups become requirement lines with where they
// apply, and a uv key aitk-env does not act on but that would change what gets installed is a
// problem naming it (keys that change nothing installed become notes).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/project/project_input.hpp"

namespace aitk::project {

// One PEP 508 string of the file, where it was written.
struct PyprojectRequirement {
    SourceLocation where;
    pep::Requirement requirement;
};

// A [dependency-groups] entry: a requirement, or {include-group = "name"}.
struct DependencyGroupItem {
    SourceLocation where;
    std::optional<pep::Requirement> requirement;
    std::string include_group;  // normalised; set when `requirement` is not
};

enum class UvSourceKind { index, git, url, path, workspace };

// One entry of [tool.uv.sources] (a package may have a list of them).
struct UvSource {
    SourceLocation where;
    UvSourceKind kind = UvSourceKind::index;
    std::string location;          // the index name, repository, URL or path, as written
    std::string rev, tag, branch;  // git: at most one
    std::string subdirectory;      // git, url
    std::optional<bool> editable;  // path, workspace
    std::optional<bool> package;   // path
    std::optional<pep::Marker> marker;
    std::string extra;  // normalised: only for the requirements of this extra
    std::string group;  // normalised: only for the requirements of this group
};

struct UvIndex {
    SourceLocation where;
    std::string name;
    std::string url;
    bool explicit_only = false;  // explicit = true: only for packages whose source names it
    bool is_default = false;     // default = true: replaces PyPI, searched last
    bool flat = false;           // format = "flat": a find-links page or folder
};

struct UvConflictItem {
    SourceLocation where;
    std::string package;  // normalised; empty: the project itself
    std::string extra;    // normalised; one of extra and group is set
    std::string group;
};

// A key of uv's tables that aitk-env reads but does not act on, and why.
struct UvKeyUse {
    std::string key;  // "tool.uv.exclude-newer"
    SourceLocation where;
    std::string why;
};

struct UvSettings {
    SourceLocation where;                                  // [tool.uv]
    std::map<std::string, std::vector<UvSource>> sources;  // normalised package name → entries
    std::vector<UvIndex> indexes;                          // in the file's order
    std::vector<std::vector<UvConflictItem>> conflicts;
    std::vector<PyprojectRequirement> override_dependencies;
    std::vector<PyprojectRequirement> constraint_dependencies;
    std::vector<PyprojectRequirement> dev_dependencies;  // joined to the "dev" group
    std::vector<std::pair<SourceLocation, pep::Marker>> environments;
    std::optional<std::vector<std::string>> default_groups;  // normalised; unset: ["dev"]
    bool default_groups_all = false;                         // default-groups = "all"
    SourceLocation default_groups_where;
    std::optional<bool> package;
    bool no_sources = false;
    std::vector<std::string> no_sources_packages;  // normalised
    // pip-style settings: index-url, extra-index-url, find-links, no-index, prerelease = "allow",
    // no-binary(-package), no-build(-package).
    std::optional<std::string> index_url;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;
    bool no_index = false;
    // index-strategy as written ("first-index", "unsafe-first-match", "unsafe-best-match");
    // empty: unset (uv's default, first-index).
    std::string index_strategy;
    bool prerelease_allow = false;
    std::vector<std::string> no_binary;          // normalised names or ":all:"
    std::vector<std::string> only_binary;        // normalised names or ":all:"
    std::vector<std::string> workspace_members;  // glob patterns relative to the file
    std::vector<std::string> workspace_exclude;
    SourceLocation workspace_where;
    // Keys that would change what gets installed and that aitk-env does not act on: the first
    // makes from_pyproject() refuse the file.
    std::vector<UvKeyUse> refused;
    // Keys that change nothing aitk-env installs (uv's cache, network, interface settings).
    std::vector<UvKeyUse> ignored;
};

struct Pyproject {
    std::filesystem::path file;  // absolute
    std::string label;           // how messages name it (the file as the user named it)
    bool has_project = false;    // a [project] table
    std::string name;            // normalised; empty without [project]
    SourceLocation name_where;
    std::string requires_python;
    std::vector<PyprojectRequirement> dependencies;
    std::map<std::string, std::vector<PyprojectRequirement>> optional_dependencies;  // normalised
    std::map<std::string, SourceLocation> extra_where;
    std::vector<std::string> dynamic;  // as written
    SourceLocation dynamic_where;
    bool has_groups = false;                                         // a [dependency-groups] table
    std::map<std::string, std::vector<DependencyGroupItem>> groups;  // normalised
    std::map<std::string, SourceLocation> group_where;
    bool has_build_system = false;  // a [build-system] table
    UvSettings uv;
    // [tool.aitk-env] glibc = "2.28": the newest glibc the Linux targets' machines have (the
    // lock takes only wheels that run there); unset: every manylinux level.
    std::optional<pep::OsVersion> glibc;
    SourceLocation glibc_where;

    // Whether [project] leaves `field` ("dependencies", "optional-dependencies") to the build
    // backend (PEP 621 `dynamic`).
    bool is_dynamic(std::string_view field) const;
    // Whether uv would build and install the project itself (editable): [tool.uv] package, else
    // whether it declares a [build-system].
    bool installs_itself() const;
};

// The TOML text of `file` (the label names it in problems). Malformed TOML, wrong types, an
// invalid requirement or marker and an unknown key in uv's tables are problems at
// file:line:column.
Loaded<Pyproject> parse_pyproject(std::string_view text, const std::filesystem::path& file,
                                  std::string label = {});
// Reads `file` (a regular file under fs::pyproject_file's cap) and parses it.
Loaded<Pyproject> read_pyproject(const std::filesystem::path& file, std::string label = {});

// What the user asks of the project beyond the file, as `uv sync` asks it.
struct PyprojectSelection {
    std::vector<std::string> extras;  // --extra (as given)
    bool all_extras = false;          // --all-extras
    std::vector<std::string> groups;  // --group (as given)
    bool no_default_groups = false;   // --no-default-groups
    bool install_project = true;      // false: --no-install-project
    // The dynamic fields may stay unread (doctor, which needs only the torch sources): a note
    // says so. Otherwise a dynamic field without `built` metadata is a problem.
    bool dynamic_may_stay_unread = false;
};

// The input `project` stands for under `selection`. `built`: the project's metadata from its
// build backend (prepare_metadata_for_build_wheel), for the fields [project] leaves dynamic.
// Problems (exit 2) name file:line:column: an unsupported key that changes what gets installed,
// a source naming an index the file does not define, an extra or group that does not exist,
// conflicting extras asked for together, two backends for one extra, a workspace member that
// cannot be found.
Loaded<ProjectInput> from_pyproject(const Pyproject& project, const PyprojectSelection& selection,
                                    const pep::CoreMetadata* built = nullptr);

}  // namespace aitk::project
