#pragma once
// The aitk-env manifest (manifests/README.md documents the schema): what an environment must
// hold, independent of any machine. The default one, manifests/ai-toolkit.yaml, is compiled in.
// Parsing is strict: an unknown key, a wrong type or a bad requirement string is a problem with
// file:line:column and a hint (the known keys, the expected type, the PEP 508 error).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/tags.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/project/requirements_file.hpp"

namespace aitk::project {

// Where a manifest entry applies. Empty lists mean "everywhere".
struct Applicability {
    std::vector<std::string> os;    // "linux", "windows", "macos"
    std::vector<std::string> arch;  // "x86_64", "aarch64", "arm64"
    std::vector<std::string>
        backends;  // exact ("cu130") or a kind: "cuda", "rocm", "cpu", "mps", "xpu"
    // An empty argument is not checked against its list (backends_for asks about os/arch only).
    // aarch64 and arm64 name the same architecture here.
    bool applies(std::string_view os, std::string_view arch, std::string_view backend) const;
    bool everywhere() const { return os.empty() && arch.empty() && backends.empty(); }
};

struct BackendOption {
    std::string name;     // "cu130"
    Applicability where;  // os/arch only
    bool experimental = false;
    // Compute capabilities the backend must not be chosen for, as a PEP 440 specifier over
    // "major.minor" ("cu126 refused on Blackwell": ">=10.0"). Empty: no rule beyond the tables.
    std::string refuse_compute_capability;
    std::string note;
    // Whether this backend may be chosen on os/arch: its `where` allows it and torch builds it
    // there (combination_problem in target.hpp).
    bool offered_on(std::string_view os, std::string_view arch) const;
};

struct TorchSpec {
    // Pins of the torch family, normalised name → PEP 440 specifier ("torch" → "==2.13.0"); a
    // bare version in the manifest becomes "==version".
    std::map<std::string, std::string> packages;
    std::vector<BackendOption> backends;  // preference order
};

struct ManifestRequirement {
    SourceLocation where;
    std::string text;  // a PEP 508 line (or a requirements-file line such as a VCS URL)
    Applicability when;
};

struct EnvironmentVariable {
    std::string name;
    std::string value;
    Applicability when;
    SourceLocation where;
};

struct ManifestIndexes {
    std::optional<std::string> index_url;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;
    std::optional<std::string> torch_index_url;
};

struct Manifest {
    std::string file;  // for messages
    std::string name;
    std::string description;
    std::string python_requires;   // PEP 440 specifier, e.g. ">=3.10,<3.14"
    std::string python_preferred;  // "3.12"
    TorchSpec torch;
    // The requirement list carried inline (an AI Toolkit commit's requirements).
    std::vector<ManifestRequirement> requirements;
    // `extra_requirements` (per OS/arch/backend), added with the inline list or the project's.
    std::vector<ManifestRequirement> extra_requirements;
    // Requirement files relative to the project directory (`--project DIR`); used instead of
    // the inline list when a project directory is given.
    std::vector<std::string> project_requirement_files;
    std::string upstream;  // informational: "ostris/ai-toolkit@<commit>"
    std::vector<EnvironmentVariable> environment;
    // The first of hardware_profiles (0 without one).
    double profile_ram_gib = 0;
    double profile_vram_gib = 0;
    std::vector<platform::HardwareProfile> hardware_profiles;
    ManifestIndexes indexes;
    std::vector<std::string> default_targets;  // target ids
    // `glibc: "2.28"`: the newest glibc the Linux targets' machines have (the lock takes only
    // wheels that run there); unset: every manylinux level. `glibc_where`: where it is written.
    std::optional<pep::OsVersion> glibc;
    SourceLocation glibc_where;
    std::string text;  // the YAML as read: the bytes the lock's input hash covers
};

Loaded<Manifest> parse_manifest(std::string_view yaml, std::string_view file);
Loaded<Manifest> read_manifest(const std::filesystem::path& path);
// The compiled-in manifests/ai-toolkit.yaml.
std::string_view builtin_manifest_text();
std::string_view builtin_manifest_name();  // "ai-toolkit.yaml"

}  // namespace aitk::project
