#pragma once
// Temporaries that live beside their final place (same filesystem, so publishing them is one
// rename) and remove themselves unless kept, plus the rename that never replaces.
#include <filesystem>
#include <string_view>

namespace aitk::fs {

// A name that no other process or thread will pick: "<parent>/.<stem>.<random>.tmp".
// Only the name is made; nothing is created.
std::filesystem::path unique_temp_path(const std::filesystem::path& parent, std::string_view stem);

// True for names made by unique_temp_path (how cleaners recognise leftovers of a crash).
bool is_temp_name(std::string_view filename) noexcept;

// A fresh directory, removed with everything in it when the object dies unless keep() was called.
class TempDir {
  public:
    // Creates "<parent>/.<stem>.<random>.tmp" (and `parent` when missing). Throws util::Error.
    static TempDir create_in(const std::filesystem::path& parent, std::string_view stem);
    // The same inside the system's temp folder ($TMPDIR, /tmp, %TEMP%).
    static TempDir create(std::string_view stem = "aitk-env");

    TempDir(TempDir&& other) noexcept;
    TempDir& operator=(TempDir&& other) noexcept;
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir();

    const std::filesystem::path& path() const noexcept { return path_; }
    // Stops the automatic removal (after the directory was renamed into place, for example).
    std::filesystem::path keep() noexcept;
    // Removes it now; errors are ignored (a leftover is cleaned by `cache prune`).
    void remove() noexcept;

  private:
    explicit TempDir(std::filesystem::path path) noexcept : path_(std::move(path)) {}
    std::filesystem::path path_;
};

enum class PublishResult {
    published,       // `staged` now lives at `destination`
    already_exists,  // `destination` was there first; `staged` is untouched
};

// Renames a file or directory to `destination` unless something already exists there, as one
// atomic step where the filesystem allows (renameat2 RENAME_NOREPLACE on Linux, MoveFileExW on
// Windows). Both paths must be on one filesystem. Throws util::Error on other failures.
PublishResult publish(const std::filesystem::path& staged,
                      const std::filesystem::path& destination);

// Removes a file or tree, ignoring errors; returns whether nothing is left at `path`.
bool remove_all_quietly(const std::filesystem::path& path) noexcept;

}  // namespace aitk::fs
