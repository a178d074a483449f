#pragma once
// `aitk-env lock`: inputs (a manifest, a requirements file or a conda environment.yml) → one
// resolution per target → the lockfile. Everything that touches the world arrives in the
// session (cache, downloader, environment, working directory) and the request (host target), so
// tests drive it fully.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/machine.hpp"
#include "aitk/app/session.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/build/git.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

// Source nodes: VCS and archive URLs, local folders, versions offered only as sdists.
struct SourceSettings {
    // Look into them, so that their versions and dependencies are locked: a git revision is
    // resolved to its commit (an earlier lock's commit is kept unless upgrading), the metadata
    // comes from PKG-INFO or from the build backend run by a Python of the lock's X.Y on this
    // machine (for every target: a note says so). Off: they stay opaque (version and
    // dependencies unknown, the revision as written); nothing is fetched with git or built.
    bool inspect = false;
    // The interpreter backends run with; nullopt: the newest Python X.Y discovery finds with
    // the request's environment (PATH, HOME, PYENV_ROOT) and cache.
    std::optional<python::Interpreter> interpreter;
    // What backends and git start from; nullopt: this process's environment.
    std::optional<util::Environment> build_environment;
    std::chrono::milliseconds timeout = std::chrono::hours(2);  // per PEP 517 hook
    build::GitOptions git;
};

struct LockRequest {
    InputSelection input;
    std::optional<std::filesystem::path> output;  // default lockfiles/<name>.lock.yml
    // `setup --dry-run`: the lock is made as it would be (an existing lock at the output keeps
    // its pins), but written under its file name into this folder, not at the output.
    std::optional<std::filesystem::path> scratch_dir;
    std::vector<std::string> targets;   // ids; empty: the inputs' defaults, else host
    std::optional<std::string> python;  // "3.12" or "3.12.1"
    // --glibc X.Y: the newest glibc the Linux targets' machines have (over the inputs' own
    // cap); the resolver takes only versions whose wheels run there. Checked by run_lock.
    std::optional<std::string> glibc;
    // --macos X.Y: the oldest macOS the macOS targets' machines have (default
    // project::default_macos); the resolver takes only versions whose wheels run there.
    std::optional<std::string> macos;
    bool upgrade = false;
    std::vector<std::string> upgrade_packages;
    bool check = false;  // only compare the existing lock's input hash
    IndexSettings indexes;
    // This machine, for a lock made for it (no --target and no targets in the inputs): its
    // target's backend comes from the torch the inputs ask for (app/torch_choice.hpp), and the
    // next build that runs here is tried when the indexes cannot satisfy one. Never consulted
    // for targets named elsewhere: a lock's bytes depend on its inputs and the indexes only.
    std::optional<Machine> machine;
    // Lock for the machine alone even when the inputs name targets (setup does).
    bool this_machine = false;
    SourceSettings sources;
    // Told what the input is ("pyproject.toml (PEP 621 + tool.uv)") as soon as it is read, before
    // resolving and downloading: setup prints it as the first line of its output.
    std::function<void(const std::string&)> on_input;
};

struct LockOutcome {
    std::filesystem::path path;         // the file written (in scratch_dir when that is set)
    std::filesystem::path destination;  // where the lock belongs: the output
    bool written = false;               // the file changed on disk
    bool up_to_date = false;            // --check: the lock matches the inputs
    std::string stale_reason;
    lock::Lockfile lockfile;
    std::vector<std::string> notes;
    // What the input was ("pyproject.toml (PEP 621 + tool.uv)"), for the first line of output.
    std::string input;
    // The backend the user chose through the input (--extra cu128): setup installs the lock's
    // target as it would one named by --backend.
    std::optional<std::string> selected_backend;
    std::string selected_backend_by;
    // A lock for this machine: why its target, and the builds passed over on the way.
    std::string target_reason;
    std::vector<std::string> passed_over;
    nlohmann::json to_json() const;
};

// Throws util::InputError (bad inputs), resolve::Unsatisfiable (exit 3) and util::Error.
LockOutcome run_lock(Session& session, const LockRequest& request);

// A lockfile's text, read as fs::read_input_file reads inputs (a regular file of at most
// fs::lockfile.max_bytes); a missing or refused file is util::InputError (exit 2) naming it as
// `label` (default: the path).
std::string read_lockfile_text(const std::filesystem::path& path, const std::string& label = {});

// A lockfile read and parsed; a missing file or a parse problem is util::InputError (exit 2)
// naming the file (and line:column).
lock::Lockfile read_lockfile(const std::filesystem::path& path, const std::string& label = {});

// A project's metadata as its build backend makes it (PEP 517 prepare_metadata_for_build_wheel
// in the project's folder): the fields a pyproject.toml leaves dynamic.
using ProjectMetadataReader =
    std::function<pep::CoreMetadata(const std::filesystem::path& project_dir)>;

// The input model for `request` (shared with setup and doctor): reads and validates the files.
// With no input file named, the folder (`input.project_dir`, else `cwd`) decides what is read
// (project_folder.hpp). A pyproject.toml whose dependencies are dynamic needs `read_metadata`
// (lock's and setup's run the build backend; without it, --no-build, that is a problem naming
// the field).
project::ProjectInput load_project_input(const InputSelection& input,
                                         const std::filesystem::path& cwd,
                                         const util::Environment& environment,
                                         const ProjectMetadataReader& read_metadata = {});

// Where run_lock writes the lock when given no output: lock::default_lockfile_path under the
// project folder, else under the working directory.
std::filesystem::path default_lock_output(const InputSelection& input,
                                          const std::filesystem::path& cwd,
                                          const std::string& input_name);

// "sha256:<hex>" over everything that decides a lock: the input files' bytes, the Python
// version, the targets and the index settings, `index_strategy` when the lock is made under
// another strategy than the input's own ("" otherwise), `glibc_cap` ("2.28", the Linux targets'
// cap) and `macos_cap` ("13.0", the macOS targets') when set: what was not chosen adds nothing,
// so that locks made before these choices existed keep their hash. Independent of the network
// and the clock.
std::string lock_input_hash(const project::ProjectInput& input, const std::string& python,
                            const std::vector<std::string>& targets,
                            const std::vector<lock::LockedIndex>& indexes,
                            std::string_view index_strategy = {}, const std::string& glibc_cap = {},
                            const std::string& macos_cap = {});

}  // namespace aitk::app
