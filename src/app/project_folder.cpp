#include "aitk/app/project_folder.hpp"

#include <system_error>

#include "aitk/fs/path.hpp"
#include "aitk/project/pyproject.hpp"

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
    // A lockfile the project ships (uv.lock matching pyproject.toml, else pylock.toml) goes
    // here, before everything else.
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
