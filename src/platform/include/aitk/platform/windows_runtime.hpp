#pragma once
// The MSVC runtime DLLs torch's Windows wheels import (fbgemm.dll and friends): without them,
// `import torch` fails with "[WinError 126] ... Error loading fbgemm.dll or one of its
// dependencies". Evaluated on any OS against a System32 folder, so tests run it as data.
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

inline constexpr std::array<std::string_view, 4> kMsvcRuntimeDlls = {
    "msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll", "vcomp140.dll"};
inline constexpr std::string_view kVcRedistUrl = "https://aka.ms/vs/17/release/vc_redist.x64.exe";

// %SystemRoot%\System32 (C:\Windows\System32 when SystemRoot is unset).
std::filesystem::path system32_folder(const util::Environment& env);

// The runtime DLLs missing from `system32` (names compared case-insensitively, as Windows does).
std::vector<std::string> missing_msvc_runtime_dlls(const std::filesystem::path& system32);

// Whether this Windows lets programs that ask for it (aitk-env.exe does, in its manifest) use
// paths past MAX_PATH: HKLM\SYSTEM\CurrentControlSet\Control\FileSystem\LongPathsEnabled = 1.
// Unset counts as off. nullopt elsewhere than on Windows.
std::optional<bool> windows_long_paths_enabled();

// MAX_PATH: the longest path a Windows program may use while long paths are off, its
// terminating NUL included.
inline constexpr std::size_t kWindowsMaxPath = 260;

}  // namespace aitk::platform
