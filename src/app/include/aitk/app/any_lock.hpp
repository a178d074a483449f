#pragma once
// The lock files `setup -l`, `sync -l`, `doctor -l` and `lock --from` take, read through one
// entry point that dispatches on the file's kind: aitk-env's own lockfile as it is; a PEP 751
// pylock.toml or a uv project's uv.lock converted into aitk-env's lockfile for this machine (or
// the targets named), so that every later stage (target choice, sync, verify, export) works on
// one model. A new kind of lock file is one more reader here, not a branch through app.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/lock.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app {

enum class LockFileKind {
    aitk,     // aitk-env's lockfile (an environment.yml with `x-aitk-env`)
    pylock,   // PEP 751: pylock.toml, pylock.NAME.toml
    uv_lock,  // uv's uv.lock, or any other "*.lock" (aitk-env's own end in ".lock.yml")
};

// By the file name, as PEP 751 and uv name their files; anything else is aitk-env's lockfile.
LockFileKind lock_file_kind(const std::filesystem::path& path);
// What `input:` lines call each kind: "lockfile", "PEP 751 lock file", "uv lock".
std::string lock_file_kind_label(LockFileKind kind);

// What a lock file that records several possible installs (pylock.toml, uv.lock) is converted
// for. aitk-env's own lockfile records one selection, so it takes none of these but the targets.
struct LockReadOptions {
    // --target ids: the targets to convert for; empty: this machine's OS and arch, with every
    // backend the file offers (its extras that choose a torch build, judged later by
    // choose_lock_target).
    std::vector<std::string> targets;
    std::optional<std::string> python;  // X.Y or X.Y.Z; else the one the file suits best
    std::vector<std::string> extras;    // --extra
    bool all_extras = false;            // --all-extras (a uv.lock)
    std::vector<std::string> groups;    // --group
    bool no_default_groups = false;     // --no-default-groups
    bool locked = false;  // --locked: a uv.lock that no longer matches pyproject.toml is exit 1
    std::string host_os;  // this machine ("linux", "x86_64")
    std::string host_arch;
    // Any of the choices above that only a lock file recording several installs takes.
    bool any_selection() const {
        return !extras.empty() || all_extras || !groups.empty() || no_default_groups || locked;
    }
};

// The options of `selection` (--extra, --all-extras, --group, --no-default-groups, --locked)
// for reading a lock file on a machine of `host_os`-`host_arch` ("" when no target names it).
LockReadOptions lock_read_options(const InputSelection& selection, const std::string& host_os,
                                  const std::string& host_arch);

struct ReadLock {
    lock::Lockfile lock;
    std::vector<std::string> notes;  // the file's warnings and what the conversion decided
    // Per target id: where its backend comes from ("extra 'cu128' of pylock.toml", "extra
    // 'gpu' of uv.lock"), for the note setup prints about the target it chooses ("backend
    // cu128: extra 'cu128' of pylock.toml").
    std::map<std::string, std::string> backend_origin;
};

// Reads `path` (bounded, as every input) and returns the lockfile. Problems are
// util::InputError (exit 2) naming file:line:column; a pylock.toml that holds nothing this
// machine or the targets can install is resolve::Unsatisfiable (exit 3) where a choice of
// target or Python would fix it; a stale uv.lock with `locked` is util::Error (exit 1).
ReadLock read_any_lock(const std::filesystem::path& path, const LockReadOptions& options);

// For the commands that take only aitk-env's lockfile (export, bundle, mirror, verify,
// snapshot): a pylock.toml or a uv.lock is refused (util::InputError) with the command that
// converts it, where YAML would fail at 1:1.
void refuse_foreign_lockfile(const std::filesystem::path& path);

// Refuses (util::InputError) a lockfile output named as PEP 751 or uv name their files:
// aitk-env's YAML there would be read back as a pylock.toml or a uv.lock.
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
