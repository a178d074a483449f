#pragma once
// The parts of from_pyproject(): what it works out once about the file (indexes, the torch
// builds its sources name, workspace members) and how one requirement becomes requirement lines
// with the project's sources applied. Private to the pyproject reader.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/project/pyproject.hpp"
#include "pyproject_platforms.hpp"

namespace aitk::project::detail {

// What every part reads.
struct PyprojectContext {
    const Pyproject& project;
    std::filesystem::path dir;                      // the project's folder
    std::map<std::string, const UvIndex*> indexes;  // [[tool.uv.index]] by name
    std::string default_index_url;  // where a package no source pins comes from last
    std::vector<std::string>* notes = nullptr;

    // The sources that apply to `package` in `extra` / `group` (uv: an entry limited to an extra
    // or a group applies to the requirements of that extra or group only).
    std::vector<const UvSource*> sources_for(const std::string& package, std::string_view extra,
                                             std::string_view group) const;
    std::string where_text(const SourceLocation& where) const;  // "pyproject.toml:92"
};

// "https://pypi.org/simple/" and "https://pypi.org/simple" are one index.
bool same_index_url(std::string_view a, std::string_view b);

// A torch build the project's sources name: the torch family from `base`/`backend` for the
// requirements of `extra` or `group` (of every table when both are empty), on `platforms`.
struct BackendCandidate {
    std::string backend;
    std::string base;
    std::string extra;
    std::string group;
    PlatformSet platforms;
    SourceLocation where;
    // "extra 'cu128' of pyproject.toml:92", "pyproject.toml:57" (a source limited by marker).
    std::string described;
};

struct BackendPlan {
    std::vector<BackendCandidate> candidates;
    std::string base;  // the one torch index base of the candidates
    // Packages outside torch, torchvision and torchaudio whose source is the same PyTorch
    // index (triton, xformers, …): looked up on the target's backend index first.
    std::vector<std::string> backend_index_packages;

    // The candidates tied to an extra / a group.
    std::vector<const BackendCandidate*> of_extra(std::string_view extra) const;
    std::vector<const BackendCandidate*> of_group(std::string_view group) const;
};

// The torch builds of the project's torch/torchvision/torchaudio sources. Problems: a source
// naming an index that is not defined, torch from an index that is neither a PyTorch backend
// index nor the default one, two backends for one extra on one platform, backend indexes on two
// hosts, an extra or group that does not exist.
Loaded<BackendPlan> plan_backends(const PyprojectContext& context);

// Workspace members (tool.uv.workspace), normalised name → folder; read when a workspace source
// needs them.
Loaded<std::map<std::string, std::filesystem::path>> workspace_members(
    const PyprojectContext& context);

// `requirement`, declared in `extra` / `group` (or the dependencies), applying where `when` says,
// as requirement lines with the project's sources applied: a git, url, path or workspace source
// becomes `name @ URL` (editable for editable paths and workspace members) on the platforms its
// marker covers, and the plain requirement stays on the others; index sources leave it plain
// (the torch family goes to the target's backend index).
std::optional<InputProblem> add_with_sources(
    const PyprojectContext& context, const BackendPlan& plan,
    const std::map<std::string, std::filesystem::path>& members,
    const PyprojectRequirement& requirement, std::string_view extra, std::string_view group,
    const std::vector<Applicability>& when, std::vector<InputRequirement>& out);

// The requirement lists, from the file or, for the fields it leaves dynamic, from `built`, the
// metadata the build backend made (pyproject_dynamic.cpp). Without `built` a dynamic field is a
// problem naming it, or with selection.dynamic_may_stay_unread a note in `notes`.
struct RequirementTables {
    std::vector<PyprojectRequirement> dependencies;
    std::map<std::string, std::vector<PyprojectRequirement>> extras;
};
Loaded<RequirementTables> tables_of(const Pyproject& p, const PyprojectSelection& selection,
                                    const pep::CoreMetadata* built,
                                    std::vector<std::string>& notes);

// `when` narrowed to `platforms`.
std::vector<Applicability> restrict_to(const std::vector<Applicability>& when,
                                       const PlatformSet& platforms);

}  // namespace aitk::project::detail
