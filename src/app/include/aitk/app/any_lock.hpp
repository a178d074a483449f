#pragma once
// The lock files `setup -l`, `sync -l` and `lock --from` take, read through one entry point that
// dispatches on the file's kind: aitk-env's own lockfile as it is, a PEP 751 pylock.toml
// converted into aitk-env's lockfile for this machine (or the targets named), so that every
// later stage (target choice, sync, verify, export) works on one model.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/lock.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app {

enum class LockFileKind {
    aitk,    // aitk-env's lockfile (an environment.yml with `x-aitk-env`)
    pylock,  // PEP 751: pylock.toml, pylock.NAME.toml
};

// By the file name, as PEP 751 names its files; anything else is aitk-env's lockfile.
LockFileKind lock_file_kind(const std::filesystem::path& path);

// What a lock file that records several possible installs (pylock.toml) is converted for.
// aitk-env's own lockfile records one selection, so it takes none of these but the targets.
struct LockReadOptions {
    // --target ids: the targets to convert for; empty: this machine's OS and arch, with every
    // backend the file offers (its extras that choose a torch build, judged later by
    // choose_lock_target).
    std::vector<std::string> targets;
    std::optional<std::string> python;  // X.Y or X.Y.Z; else the one the file suits best
    std::vector<std::string> extras;    // --extra
    std::vector<std::string> groups;    // --group
    bool no_default_groups = false;     // --no-default-groups
    std::string host_os;                // this machine ("linux", "x86_64")
    std::string host_arch;
};

struct ReadLock {
    lock::Lockfile lock;
    std::vector<std::string> notes;  // the file's warnings and what the conversion decided
    // Per target id: where its backend comes from ("extra 'cu128' of pylock.toml"), for the
    // note setup prints about the target it chooses.
    std::map<std::string, std::string> backend_origin;
};

// Reads `path` (bounded, as every input) and returns the lockfile. Problems are
// util::InputError (exit 2) naming file:line:column; a pylock.toml that holds nothing this
// machine or the targets can install is resolve::Unsatisfiable (exit 3) where a choice of
// target or Python would fix it.
ReadLock read_any_lock(const std::filesystem::path& path, const LockReadOptions& options);

// For the commands that take only aitk-env's lockfile (export, bundle, mirror, verify): a
// pylock.toml is refused (util::InputError) with the command that converts it, where YAML would
// fail at 1:1.
void refuse_pylock_lockfile(const std::filesystem::path& path);

// Refuses (util::InputError) a lockfile output named as PEP 751 names its files: aitk-env's
// YAML there would be read back as a pylock.toml.
void check_lock_output_name(const std::filesystem::path& output);

// `lock --from FILE`: the file read by read_any_lock and written as aitk-env's lockfile
// (default lockfiles/<name>.lock.yml), so that bundle, mirror, export, verify and snapshot work
// on it. With `check`, nothing is written: up_to_date says whether the output already holds it.
struct LockFromRequest {
    std::filesystem::path from;
    std::optional<std::filesystem::path> output;
    std::optional<std::filesystem::path> project_dir;
    bool check = false;
    LockReadOptions options;
};
LockOutcome lock_from_file(Session& session, const LockFromRequest& request);

}  // namespace aitk::app
