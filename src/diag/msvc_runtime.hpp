#pragma once
// How old a Visual C++ runtime may be (private to diag). Source and assumption: PyTorch's
// Windows wheels from 2.4 on are built with Visual Studio 2022 17.10 or later (MSVC toolset
// 14.40), and binaries built with the 14.40 STL need a 14.40 or later msvcp140.dll /
// vcruntime140.dll: with an older copy (often one shipped beside python.exe, in an Anaconda
// folder or on PATH, found before System32's) c10.dll's initialisation fails with WinError
// 1114, fixed by installing the current redistributable (pytorch/pytorch issues on "c10.dll
// WinError 1114" since 2.4). The redistributable is backward compatible, so asking for 14.40
// when the torch version is not known is safe advice too.
#include <optional>
#include <string>
#include <string_view>

#include "aitk/diag/pe.hpp"

namespace aitk::diag::detail {

// msvcp140.dll, vcruntime140.dll, vcruntime140_1.dll: the DLLs whose FileVersion is checked.
bool is_checked_msvc_runtime(std::string_view dll) noexcept;

// The minimum FileVersion for a folder with this torch (nullopt: not a torch folder, or one
// that names it): 14.40 for torch 2.4 and later or an unknown torch; none for older torch,
// whose builds are not known to need more than any 2015-2022 runtime.
std::optional<PeVersion> minimum_msvc_runtime(const std::optional<std::string>& torch_version);

// "14.40" for {14, 40, 0, 0}: major.minor, the redistributable's own numbering.
std::string short_version(const PeVersion& version);

}  // namespace aitk::diag::detail
