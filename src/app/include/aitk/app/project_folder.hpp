#pragma once
// What `lock`, `setup` and `doctor` read in a project's folder when no input file is named:
// `--project DIR`, or the current folder. The one place that decides, in this order (the
// reasons are in docs/cli.md "What a folder's input is"):
//   1. an AI Toolkit checkout (run.py and toolkit/ beside requirements.txt): the built-in
//      manifest with the checkout's own requirement files; its pyproject.toml lists only the
//      cloud launchers' packages, and its torch build comes from the manifest;
//   2. pyproject.toml with a [project] table (PEP 621 + tool.uv);
//   3. requirements.txt;
//   4. the built-in manifest with its own requirement list.
// A lockfile the project ships (a uv.lock that matches its pyproject.toml, else pylock.toml) is
// decided here too, in front of these.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/settings.hpp"

namespace aitk::app {

enum class FolderInputKind {
    ai_toolkit_checkout,  // the built-in manifest, reading the folder's requirement files
    pyproject,            // `file` is the folder's pyproject.toml
    requirements,         // `file` is the folder's requirements.txt
    builtin_manifest,     // nothing of the project's own: the built-in manifest
};

struct FolderInput {
    FolderInputKind kind = FolderInputKind::builtin_manifest;
    std::filesystem::path file;  // the file found (absolute); empty for the built-in manifest
};

// A pyproject.toml that cannot be read or parsed is the folder's input all the same (reading it
// says what is wrong): a broken project file is never passed over for another input.
FolderInput decide_folder_input(const std::filesystem::path& folder);

// The lock file a project's folder ships, which `setup` installs before it reads any other input
// of the folder (it is what a teammate installed): a uv.lock that matches the pyproject.toml
// beside it (or that cannot be read: reading it again says why), else a pylock.toml. A uv.lock
// that no longer matches is passed over for the pyproject.toml with a note in `notes`, or, with
// `locked` (uv sync --locked), is exit 1.
std::optional<std::filesystem::path> folder_lock_file(const std::filesystem::path& folder,
                                                      bool locked, std::vector<std::string>& notes);

// A file named pyproject.toml, as `-r` takes it (by its name, as `uv pip install -r` does).
bool is_pyproject_file(const std::filesystem::path& path);

// Whether `input` reads a project's own pyproject.toml: named by -r, or the one its folder
// (`input.project_dir`, else `cwd`) is decided by.
bool reads_pyproject(const InputSelection& input, const std::filesystem::path& cwd);

}  // namespace aitk::app
