// One entry point for every kind of lock file: the kind from the file name, then its reader.
#include "aitk/app/any_lock.hpp"

#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/lock/pylock.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "pylock_input.hpp"

namespace aitk::app {

LockFileKind lock_file_kind(const std::filesystem::path& path) {
    return lock::is_pylock_file_name(util::utf8_of(path.filename())) ? LockFileKind::pylock
                                                                     : LockFileKind::aitk;
}

ReadLock read_any_lock(const std::filesystem::path& path, const LockReadOptions& options) {
    ReadLock out;
    if (lock_file_kind(path) == LockFileKind::aitk) {
        if (!options.extras.empty() || !options.groups.empty() || options.no_default_groups) {
            throw util::InputError(util::utf8_of(path) +
                                       " is aitk-env's lockfile, which records one install: "
                                       "--extra, --group and --no-default-groups choose among "
                                       "the installs of a pylock.toml",
                                   "drop them, or lock again with the extras and groups you want");
        }
        out.lock = read_lockfile(path);
        return out;
    }
    const std::string bytes = read_lockfile_text(path);
    auto parsed = lock::parse_pylock(bytes, util::utf8_of(path));
    if (!parsed) throw parsed.error().to_error();
    return pylock_detail::lock_from_pylock(*parsed, path, bytes, options);
}

void refuse_pylock_lockfile(const std::filesystem::path& path) {
    if (lock_file_kind(path) != LockFileKind::pylock) return;
    const std::string filename = util::utf8_of(path.filename());
    const auto converted =
        path.parent_path() / (filename.substr(0, filename.size() - 5) + ".lock.yml");
    throw util::InputError(
        util::utf8_of(path) + " is a PEP 751 lock file; this command reads aitk-env's lockfile",
        "convert it first: aitk-env lock --from " + util::utf8_of(path) + " -o " +
            util::utf8_of(converted) +
            ", then pass that (setup -l and sync -l read a pylock.toml as it is)");
}

void check_lock_output_name(const std::filesystem::path& output) {
    if (lock_file_kind(output) != LockFileKind::pylock) return;
    throw util::InputError(
        "-o " + util::utf8_of(output) +
            ": PEP 751 reserves that name for pylock.toml files, and aitk-env's lockfile is YAML",
        "name it NAME.lock.yml; for a pylock.toml of a lock, use aitk-env export --format pylock");
}

LockOutcome lock_from_file(Session& session, const LockFromRequest& request) {
    const auto from = fs::absolute_from(session.cwd(), request.from);
    auto read = read_any_lock(from, request.options);
    LockOutcome outcome;
    outcome.lockfile = std::move(read.lock);
    outcome.notes = std::move(read.notes);
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
