#include "aitk/app/project_folder.hpp"

#include <system_error>

#include "aitk/app/uv_lock_input.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/project/pyproject.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

namespace {

bool is_file(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

bool is_folder(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
}

// ostris/ai-toolkit's layout: its requirement files sit beside run.py and the toolkit package.
bool is_ai_toolkit_checkout(const std::filesystem::path& folder) {
    return is_file(folder / "requirements.txt") && is_file(folder / "run.py") &&
           is_folder(folder / "toolkit");
}

}  // namespace

FolderInput decide_folder_input(const std::filesystem::path& folder) {
    // A lockfile the project ships (uv.lock matching pyproject.toml, else pylock.toml) is
    // setup's, before all of these: folder_lock_file.
    if (is_ai_toolkit_checkout(folder)) return {FolderInputKind::ai_toolkit_checkout, {}};
    const auto pyproject = folder / "pyproject.toml";
    if (is_file(pyproject)) {
        // A pyproject.toml holding only tool settings (ruff, black) names no dependencies; one
        // that cannot be read is the project's, and reading it again says what is wrong.
        auto parsed = project::read_pyproject(pyproject);
        if (!parsed || parsed->has_project) return {FolderInputKind::pyproject, pyproject};
    }
    if (is_file(folder / "requirements.txt"))
        return {FolderInputKind::requirements, folder / "requirements.txt"};
    return {FolderInputKind::builtin_manifest, {}};
}

std::optional<std::filesystem::path> folder_lock_file(const std::filesystem::path& folder,
                                                      bool locked,
                                                      std::vector<std::string>& notes) {
    const auto uv = uv_lock_status(folder);
    if (uv.present && (uv.current || uv.unreadable)) return uv.path;
    if (uv.present) {
        if (locked) {
            throw util::Error(util::ExitCode::failure,
                              util::utf8_of(uv.path) +
                                  " does not match the pyproject.toml beside it (" + uv.reason +
                                  "); --locked refuses it",
                              "run `uv lock` to update the lock, or drop --locked to read the "
                              "pyproject.toml instead");
        }
        notes.push_back("uv.lock does not match pyproject.toml (" + uv.reason +
                        "): reading pyproject.toml instead; run `uv lock` to update the lock, or "
                        "pass -l uv.lock to install it as it is");
    }
    if (is_file(folder / "pylock.toml")) return folder / "pylock.toml";
    return std::nullopt;
}

bool is_pyproject_file(const std::filesystem::path& path) {
    return path.filename() == "pyproject.toml";
}

bool reads_pyproject(const InputSelection& input, const std::filesystem::path& cwd) {
    if (input.requirements) return is_pyproject_file(*input.requirements);
    if (input.manifest || input.conda_file) return false;
    const auto folder = input.project_dir ? fs::absolute_from(cwd, *input.project_dir) : cwd;
    return decide_folder_input(folder).kind == FolderInputKind::pyproject;
}

}  // namespace aitk::app
