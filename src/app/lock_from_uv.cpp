// `aitk-env lock --from uv.lock`: a uv project's lock as an aitk-env lockfile, so that bundle,
// mirror, export, verify and snapshot work on it (app/lock.hpp).
#include <system_error>

#include "aitk/app/lock.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

LockOutcome lock_from_uv_lock(Session& session, const LockRequest& request) {
    UvLockRequest uv;
    uv.path = fs::absolute_from(session.cwd(), *request.from);
    uv.options = request.uv;
    uv.targets = request.targets;
    if (request.machine) uv.machine = &*request.machine;
    uv.python = request.python;
    auto input = read_uv_lock(uv);

    LockOutcome outcome;
    outcome.notes = std::move(input.notes);
    for (const auto& [id, by] : input.chosen_by)
        outcome.notes.push_back(id + ": " + by + " of " + util::utf8_of(uv.path.filename()));
    outcome.destination =
        request.output ? fs::absolute_from(session.cwd(), *request.output)
                       : default_lock_output(request.input, session.cwd(), input.lockfile.name);
    outcome.path = outcome.destination;
    std::error_code ec;
    const bool exists = std::filesystem::exists(outcome.path, ec);
    if (request.check) {
        if (!exists) {
            outcome.stale_reason = util::utf8_of(outcome.path) + " does not exist";
        } else if (read_lockfile(outcome.path).input_hash != input.lockfile.input_hash) {
            outcome.stale_reason = util::utf8_of(outcome.path) +
                                   " was converted from another uv.lock (or other extras, "
                                   "groups, Python or targets)";
        } else {
            outcome.up_to_date = true;
        }
        outcome.lockfile = std::move(input.lockfile);
        return outcome;
    }
    const auto text = lock::write_lockfile(input.lockfile);
    if (!exists || fs::read_file(outcome.path) != text) {
        std::filesystem::create_directories(outcome.path.parent_path(), ec);
        fs::write_file_atomic(outcome.path, text);
        outcome.written = true;
    }
    outcome.up_to_date = true;
    outcome.lockfile = std::move(input.lockfile);
    return outcome;
}

}  // namespace aitk::app
