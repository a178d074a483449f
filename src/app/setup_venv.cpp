#include "setup_venv.hpp"

#include <set>
#include <system_error>

#include "aitk/app/sync.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const stdfs::path& path,
                       const std::error_code& ec) {
    throw util::Error(util::ExitCode::failure,
                      "cannot " + what + " " + util::utf8_of(path) + ": " + ec.message(),
                      "fix the cause and run aitk-env setup again");
}

// Whether the prefix already is the venv create_venv would make (same folders, links and
// pyvenv.cfg): setup then leaves it untouched, so a setup that fails later (a source build)
// changes nothing in an existing prefix.
bool venv_current(const python::VenvRequest& request) {
    std::error_code ec;
    for (const auto& step : python::venv_plan(request)) {
        const auto path = request.prefix / step.path;
        switch (step.kind) {
            case python::VenvStep::Kind::directory:
                if (!stdfs::is_directory(path, ec)) return false;
                break;
            case python::VenvStep::Kind::symlink:
                if (!stdfs::is_symlink(path, ec)) return false;
                if (step.keep_existing) break;
                if (stdfs::read_symlink(path, ec) != step.target || ec) return false;
                break;
            case python::VenvStep::Kind::file:
                if (!stdfs::is_regular_file(path, ec)) return false;
                if (!step.keep_existing && fs::read_file(path) != step.content) return false;
                break;
            case python::VenvStep::Kind::copy:
                return false;  // a copied launcher: cheaper to copy again than to compare
        }
    }
    return true;
}

// Whether a prefix without pyvenv.cfg holds anything but what making its venv puts there
// (the plan's folders and links, their temporary names, aitk-env's state folder): a half-made
// venv of an interrupted setup may be finished, anything else is not ours to touch.
bool holds_foreign_files(const python::VenvRequest& request, const stdfs::path& state) {
    std::set<stdfs::path> ours;
    for (const auto& step : python::venv_plan(request)) {
        for (stdfs::path p = step.path; !p.empty(); p = p.parent_path())
            ours.insert(p);
    }
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(request.prefix, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->path() == state) {
            it.disable_recursion_pending();
            continue;
        }
        const stdfs::path rel = it->path().lexically_relative(request.prefix);
        if (ours.count(rel) != 0) continue;
        if (fs::is_temp_name(util::utf8_of(it->path().filename()))) continue;
        return true;
    }
    return static_cast<bool>(ec);
}

// Builds the venv in `staging` and moves it into the prefix, pyvenv.cfg last: until that
// rename the prefix is no venv, and the next setup builds it again.
void make_new_venv(const python::VenvRequest& request, const stdfs::path& staging) {
    python::VenvRequest staged = request;
    staged.prefix = staging;
    python::create_venv(staged);
    // pyvenv.cfg names the prefix (the `command` line): the real one, not the staging folder.
    fs::write_file_atomic(staging / "pyvenv.cfg", python::pyvenv_cfg_text(request));
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator(staging)) {
        if (entry.path().filename() == "pyvenv.cfg") continue;
        const stdfs::path destination = request.prefix / entry.path().filename();
        // What is there is a half-made venv's folders and links (holds_foreign_files).
        stdfs::remove_all(destination, ec);
        if (ec) fail("remove", destination, ec);
        stdfs::rename(entry.path(), destination, ec);
        if (ec) fail("move the new venv's folder to", destination, ec);
    }
    stdfs::rename(staging / "pyvenv.cfg", request.prefix / "pyvenv.cfg", ec);
    if (ec) fail("move the new venv's pyvenv.cfg to", request.prefix, ec);
}

}  // namespace

fs::FileLock lock_and_make_venv(const python::VenvRequest& venv,
                                const install::PrefixLayout& layout,
                                const std::function<void(const std::string&)>& notice) {
    const stdfs::path config = venv.prefix / "pyvenv.cfg";
    const stdfs::path state = layout.state;
    auto refuse_foreign = [&] {
        std::error_code ec;
        if (stdfs::exists(config, ec) || !stdfs::exists(venv.prefix, ec)) return;
        if (!stdfs::is_directory(venv.prefix, ec) || holds_foreign_files(venv, state)) {
            python::create_venv(venv);  // refuses the prefix, saying why
        }
    };
    // Before the lock: taking it would put aitk-env's state folder into someone's folder.
    refuse_foreign();
    auto lock = lock_prefix_for_change(layout, notice);
    const stdfs::path staging = state / "venv.tmp";
    fs::remove_all_quietly(staging);  // what a killed setup left
    if (venv_current(venv)) return lock;
    std::error_code ec;
    if (stdfs::exists(config, ec)) {
        python::create_venv(venv);  // refreshes in place: every step replaces atomically
        return lock;
    }
    refuse_foreign();
    make_new_venv(venv, staging);
    fs::remove_all_quietly(staging);
    return lock;
}

}  // namespace aitk::app
