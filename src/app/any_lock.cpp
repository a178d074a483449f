// One entry point for every kind of lock file: the kind from the file name, then its reader.
#include "aitk/app/any_lock.hpp"

#include <system_error>

#include "aitk/app/machine.hpp"
#include "aitk/app/uv_lock_input.hpp"

#include "aitk/fs/file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/pylock.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "pylock_input.hpp"

namespace aitk::app {

LockFileKind lock_file_kind(const std::filesystem::path& path) {
    if (lock::is_pylock_file_name(util::utf8_of(path.filename()))) return LockFileKind::pylock;
    if (path.extension() == ".lock") return LockFileKind::uv_lock;
    return LockFileKind::aitk;
}

std::string lock_file_kind_label(LockFileKind kind) {
    switch (kind) {
        case LockFileKind::pylock:
            return "PEP 751 lock file";
        case LockFileKind::uv_lock:
            return "uv lock";
        case LockFileKind::aitk:
            break;
    }
    return "lockfile";
}

LockReadOptions lock_read_options(const InputSelection& selection, const std::string& host_os,
                                  const std::string& host_arch) {
    LockReadOptions options;
    options.extras = selection.extras;
    options.all_extras = selection.all_extras;
    options.groups = selection.groups;
    options.no_default_groups = selection.no_default_groups;
    options.locked = selection.locked;
    options.host_os = host_os;
    options.host_arch = host_arch;
    return options;
}

namespace {

std::string kind_named(LockFileKind kind) {
    switch (kind) {
        case LockFileKind::pylock:
            return "a PEP 751 lock file";
        case LockFileKind::uv_lock:
            return "a uv.lock";
        case LockFileKind::aitk:
            break;
    }
    return "aitk-env's lockfile";
}

ReadLock read_pylock(const std::filesystem::path& path, const LockReadOptions& options) {
    if (options.locked) {
        throw util::InputError("--locked compares a uv.lock with the pyproject.toml beside it; " +
                                   util::utf8_of(path) + " is a pylock.toml",
                               "drop --locked");
    }
    const std::string bytes = read_lockfile_text(path);
    auto parsed = lock::parse_pylock(bytes, util::utf8_of(path));
    if (!parsed) throw parsed.error().to_error();
    if (options.all_extras) {
        // A pylock.toml's extras are often its torch builds (cpu, cu128), which exclude each
        // other: all of them at once is no install the file describes.
        throw util::InputError(
            util::utf8_of(path) +
                ": --all-extras would install every build its extras choose at once",
            "name the extras to install with --extra (its extras: " +
                util::join(parsed->extras, ", ") + "); the torch build is chosen by this machine");
    }
    return pylock_detail::lock_from_pylock(*parsed, path, bytes, options);
}

// uv's reader (app/uv_lock_input.hpp) with the same options; what selects each target's backend
// ("extra 'gpu'") becomes its backend_origin.
ReadLock read_uv(const std::filesystem::path& path, const LockReadOptions& options) {
    Machine machine;
    machine.os = options.host_os;
    machine.arch = options.host_arch;
    UvLockRequest request;
    request.path = path;
    request.options.extras = options.extras;
    request.options.all_extras = options.all_extras;
    request.options.groups = options.groups;
    request.options.no_default_groups = options.no_default_groups;
    request.options.locked = options.locked;
    request.targets = options.targets;
    request.machine = &machine;
    request.python = options.python;
    auto input = read_uv_lock(request);
    ReadLock out;
    out.lock = std::move(input.lockfile);
    out.notes = std::move(input.notes);
    const std::string file = util::utf8_of(path.filename());
    for (auto& [id, by] : input.chosen_by)
        out.backend_origin[id] = by + " of " + file;
    return out;
}

// A converted lock records its targets' glibc (macOS) floors as a lock made here does.
ReadLock with_floors(ReadLock read) {
    for (auto& target : read.lock.targets)
        target.os_floor = lock::floor_of(target);
    return read;
}

}  // namespace

ReadLock read_any_lock(const std::filesystem::path& path, const LockReadOptions& options) {
    switch (lock_file_kind(path)) {
        case LockFileKind::pylock:
            return with_floors(read_pylock(path, options));
        case LockFileKind::uv_lock:
            return with_floors(read_uv(path, options));
        case LockFileKind::aitk:
            break;
    }
    if (options.any_selection()) {
        throw util::InputError(util::utf8_of(path) +
                                   " is aitk-env's lockfile, which records one install per "
                                   "target: --extra, --all-extras, --group, --no-default-groups "
                                   "and --locked choose among the installs of a pylock.toml or "
                                   "a uv.lock",
                               "drop them, or lock again with the extras and groups you want");
    }
    ReadLock out;
    out.lock = read_lockfile(path);
    return out;
}

void refuse_foreign_lockfile(const std::filesystem::path& path) {
    const auto kind = lock_file_kind(path);
    if (kind == LockFileKind::aitk) return;
    const auto converted = path.parent_path() / (util::utf8_of(path.stem()) + ".lock.yml");
    throw util::InputError(util::utf8_of(path) + " is " + kind_named(kind) +
                               ", not an aitk-env lockfile; this command reads aitk-env's "
                               "lockfile",
                           "convert it first: aitk-env lock --from " + util::utf8_of(path) +
                               " -o " + util::utf8_of(converted) +
                               ", then pass that (setup -l and sync -l read it as it is)");
}

void check_lock_output_name(const std::filesystem::path& output) {
    const auto kind = lock_file_kind(output);
    if (kind == LockFileKind::aitk) return;
    throw util::InputError(
        "-o " + util::utf8_of(output) + ": " +
            (kind == LockFileKind::pylock ? "PEP 751 reserves that name for pylock.toml files"
                                          : "that name is read back as a uv.lock") +
            ", and aitk-env's lockfile is YAML",
        "name it NAME.lock.yml; for a pylock.toml of a lock, use aitk-env export --format pylock");
}

LockOutcome lock_from_file(Session& session, const LockFromRequest& request) {
    const auto from = fs::absolute_from(session.cwd(), request.from);
    auto read = read_any_lock(from, request.options);
    LockOutcome outcome;
    outcome.lockfile = std::move(read.lock);
    outcome.notes = std::move(read.notes);
    for (const auto& [id, origin] : read.backend_origin)
        outcome.notes.push_back(id + ": " + origin);
    InputSelection input;
    input.project_dir = request.project_dir;
    outcome.destination = request.output
                              ? fs::absolute_from(session.cwd(), *request.output)
                              : default_lock_output(input, session.cwd(), outcome.lockfile.name);
    outcome.path = outcome.destination;
    check_lock_output_name(outcome.destination);
    const std::string text = lock::write_lockfile(outcome.lockfile);
    std::error_code ec;
    const bool same = std::filesystem::is_regular_file(outcome.path, ec) &&
                      read_lockfile_text(outcome.path) == text;
    if (request.check) {
        outcome.up_to_date = same;
        if (!same) {
            outcome.stale_reason = util::utf8_of(outcome.path) + " does not hold what " +
                                   util::utf8_of(request.from) + " converts to";
        }
        return outcome;
    }
    if (!same) {
        std::filesystem::create_directories(outcome.path.parent_path());
        fs::write_file_atomic(outcome.path, text);
        outcome.written = true;
    }
    outcome.up_to_date = true;
    return outcome;
}

}  // namespace aitk::app
