#pragma once
// The one-line message and the fix of each finding (private to diag): what the user reads in
// `aitk-env doctor --scan`. Kept apart from the search so the wording is in one place.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/diag/scan.hpp"

namespace aitk::diag::detail {

struct AdviceContext {
    TargetOs os = TargetOs::linux_os;
    std::filesystem::path root;
    std::optional<std::string> torch_version;
};

// What a finding needs for its words that the public Finding does not carry.
struct FindingDetails {
    std::string importer_architecture;  // of the direct importer ("x86": vc_redist.x86.exe)
    std::vector<std::string> skipped;   // missing on Linux: "<path> (32-bit)"
    std::string problem;                // unreadable: ImageProblem::describe()
    bool scanned = false;               // about a scanned library itself, not an import
    // missing vcruntime140_1.dll: a vcruntime140.dll the loader would find (a pre-2019 runtime)
    std::filesystem::path older_runtime;
};

// A path as the user knows it: relative to the root when inside it ('/' separators), else
// absolute.
std::string display_path(const std::filesystem::path& path, const std::filesystem::path& root);

std::string finding_message(const Finding& finding, const FindingDetails& details,
                            const AdviceContext& context);
std::string finding_fix(const Finding& finding, const FindingDetails& details,
                        const AdviceContext& context);

}  // namespace aitk::diag::detail
