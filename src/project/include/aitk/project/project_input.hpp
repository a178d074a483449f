#pragma once
// One model for every kind of input `lock` and `setup` accept — a manifest, a requirements file,
// a conda environment.yml, a project's pyproject.toml (pyproject.hpp) — so that the resolver and
// the lockfile never care which it was.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aitk/project/conda_environment.hpp"
#include "aitk/project/manifest.hpp"
#include "aitk/project/requirements_file.hpp"
#include "aitk/project/target.hpp"

namespace aitk::project {

struct InputRequirement {
    RequirementLine line;  // the requirement and where it came from
    Applicability when;    // manifest per-OS/backend entries; "everywhere" for the other inputs
};

struct ProjectInput {
    std::string name;           // lockfile name: manifest name, or the input file's stem
    SourceLocation name_where;  // where the name was read (the value, or the file)
    std::string python_requires;
    std::string python_preferred;  // "3.12"; empty: the newest the requirement allows
    // name → specifier, for every target. From a manifest: its torch section (those packages
    // are not repeated in `requirements`). From a requirements file or a conda import: copied
    // from unconditional plain torch/torchvision/torchaudio lines, which stay in `requirements`.
    std::map<std::string, std::string> torch_packages;
    std::vector<BackendOption> backends;  // preference order
    // The one backend the input itself names, where it is not a pin's label (those are read
    // from torch_packages): a conda snapshot's CUDA packages. `named_backend_by` says where.
    std::optional<std::string> named_backend;
    std::string named_backend_by;
    // `backends` is every torch build the input can use (a pyproject.toml's backend sources): on
    // an OS/arch where it lists any, no other build is chosen. Otherwise the list is a
    // preference, and the machine may get another build of the same torch.
    bool only_listed_backends = false;
    // The backend the user's selection of the input names (--extra cu128 of a project whose cu128
    // extra takes torch from the cu128 index): decided as --backend would be, and by
    // `selected_backend_by` in messages.
    std::optional<std::string> selected_backend;
    std::string selected_backend_by;
    // Packages beyond torch, torchvision and torchaudio that the input takes from the PyTorch
    // backend index (triton, xformers): looked up on the target's backend index first.
    std::vector<std::string> backend_index_packages;
    // Where the input may be locked at all (uv's `environments`), by OS/arch; empty: anywhere.
    // `platforms_by` names where it is said ("pyproject.toml:40:16 (tool.uv.environments)").
    std::vector<Applicability> platforms;
    std::string platforms_by;
    std::vector<InputRequirement> requirements;
    std::vector<InputRequirement> constraints;
    // Requirements that replace every requirement on their package, the inputs' own and any
    // dependency's (uv's override-dependencies); they add no package by themselves.
    std::vector<InputRequirement> overrides;
    RequirementsOptions options;  // indexes, --pre, binary rules, from the inputs
    // How the input's own tool takes a package listed on several of its indexes, in uv's words
    // (docs/cli.md "Index strategy"): pip's "unsafe-best-match" (every index's versions, the
    // best wins) for requirements files, environment.yml and manifests, whose indexes are in
    // pip's order; a pyproject.toml's [tool.uv] index-strategy, else uv's "first-index", with
    // its indexes in uv's order. --index-strategy overrides it.
    std::string index_strategy = "unsafe-best-match";
    // A version several indexes list: pip takes the files of every one of them (prime-rl's
    // nixl-cu12 0.10.1: PyPI's aarch64 wheel, an extra index's x86_64 one); uv takes the first
    // index's entry only. False for a pyproject.toml.
    bool version_files_from_every_index = true;
    // uv's order (a pyproject.toml): options.index_url and extra_index_urls end with the default
    // index, which a command line's --index-url replaces; its --extra-index-url come first.
    // pip's (false): options.index_url is the primary, the command line's extra indexes last.
    bool default_index_last = false;
    std::optional<std::string> torch_index_url;
    std::vector<EnvironmentVariable> environment;
    std::vector<std::string> default_targets;
    // The newest glibc the Linux targets' machines have (a manifest's `glibc:`, a
    // pyproject.toml's [tool.aitk-env] glibc); unset: every manylinux level. `glibc_cap_by`
    // says where, for messages ("ai.yaml:3:8 (glibc)").
    std::optional<pep::OsVersion> glibc_cap;
    std::string glibc_cap_by;
    std::vector<std::string> notes;  // import notes (skipped conda packages, …)
    // What the input is, for the first line of `setup`'s and `lock`'s output:
    // "pyproject.toml (PEP 621 + tool.uv)".
    std::string described_as;
    // What decides the lock, by label, in order: the manifest's text ("manifest"), and each
    // requirements input in a fixed rendering of its lines (after ${VAR} expansion), constraints
    // and options ("project:requirements.txt", "requirements", "environment"; the conda one
    // with its variables). Comments and layout of requirement files do not count; labels never
    // hold a machine's paths.
    std::vector<std::pair<std::string, std::string>> hashed_inputs;
    // The ${VAR} references the inputs expanded, with their values: what shows a line of the
    // inputs (a note, an error of a later stage) shows the reference instead.
    std::vector<util::Concealed> concealed;

    // The requirements that apply to `target` (by `when`; markers are left to the resolver,
    // which evaluates them with marker_environment()).
    std::vector<const InputRequirement*> requirements_for(const Target& target) const;
    // The same for the constraints, and for the overrides.
    std::vector<const InputRequirement*> constraints_for(const Target& target) const;
    std::vector<const InputRequirement*> overrides_for(const Target& target) const;
    // Whether `platforms` allows os/arch.
    bool allows_platform(std::string_view os, std::string_view arch) const;
    // The environment variables for `target`, name → value (later entries win).
    std::map<std::string, std::string> environment_for(const Target& target) const;
    // The backends allowed for os/arch, in preference order.
    std::vector<const BackendOption*> backends_for(std::string_view os,
                                                   std::string_view arch) const;
};

// From a manifest. With `project_dir`, the manifest's project_requirement_files are read from
// there (relative `-r` resolved) instead of its inline list.
Loaded<ProjectInput> from_manifest(const Manifest& manifest,
                                   const std::optional<std::filesystem::path>& project_dir,
                                   const RequirementsReadOptions& options = {});
// From a requirements file already read; the torch family pins are whatever it lists.
ProjectInput from_requirements(const RequirementsFile& file, std::string name);
// Named after the environment's `name:` (else the file's stem); python=X.Y.Z becomes
// python_requires "==X.Y.*" and python_preferred "X.Y"; the backend the import found is the
// only backend.
ProjectInput from_conda(const CondaImport& import, const CondaEnvironment& env);

}  // namespace aitk::project
