#pragma once
// The file steps `self install`, `self update` and `self uninstall` share: where the executable
// lives in a folder, and replacing or removing it while it may be running.
#include <filesystem>
#include <string>

namespace aitk::app::detail {

// "aitk-env.exe" on Windows, "aitk-env" elsewhere.
std::string executable_file_name(bool windows);

// rwxr-xr-x: what an executable a user installs for themselves needs (no-op on Windows).
// Throws util::Error (exit 1) naming the file.
void mark_executable(const std::filesystem::path& path);

// Puts `staged` (a complete file on `destination`'s filesystem) at `destination`. A running
// executable cannot be replaced on Windows, only renamed: it is moved aside first (a temp name
// in the same folder), the new one moved in, and the old one removed when that is allowed
// (otherwise remove_moved_aside removes it on a later run). If the new file cannot be moved in,
// the old one is put back. Throws util::Error (exit 1); `destination` is then as it was.
void replace_executable(const std::filesystem::path& staged,
                        const std::filesystem::path& destination);

// Removes `path` (an executable, perhaps the running one). Returns false when Windows keeps it
// because it runs: it is then renamed aside and left for remove_moved_aside or a reboot.
bool remove_executable(const std::filesystem::path& path);

// Removes what earlier runs left in `dir`: executables moved aside while they ran, and staged
// copies and download folders of an interrupted install or update (fs::unique_temp_path names
// with the stems "aitk-env-old" and "aitk-env-new"). Errors are ignored (a running copy stays until
// it ends).
void remove_moved_aside(const std::filesystem::path& dir);

// Whether the two files hold the same bytes (false when either cannot be read).
bool same_bytes(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace aitk::app::detail
