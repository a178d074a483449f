#pragma once
// The prefix's skeleton: the files that make a folder a prefix, which aitk-env and the venv it
// makes write and which no distribution may install over, own or remove. pyvenv.cfg (one line
// turns on the system site-packages), the interpreter (bin/python, python3, python3.X;
// Scripts\python*.exe, pythonw*.exe), the activation scripts and aitk-env's shims (bin/aitk-run,
// activate, activate.fish; Scripts\aitk-run.cmd, Activate.ps1, and the DLL search path pair in
// site-packages), the venv's lib64 link and .gitignore, and everything under .aitk-env/.
//
// One rule, consulted by install_wheel (a wheel that would write one is refused before anything
// is written), by removals (a RECORD that lists one never deletes it) and by verify_records (a
// RECORD that lists one is drift, never clean).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/install/layout.hpp"

namespace aitk::install {

class PrefixSkeleton {
  public:
    explicit PrefixSkeleton(const PrefixLayout& layout);

    // What `relative` (to the prefix, '/'-separated) is when it belongs to the skeleton, for
    // "would replace the prefix's <what>": "pyvenv.cfg", "interpreter bin/python3", "state
    // file .aitk-env/receipt.json", ...; nullopt otherwise. Names are compared as a
    // case-insensitive filesystem (Windows, macOS) would resolve them: ASCII case, trailing dots
    // and spaces and a ":stream" suffix of each component are ignored.
    std::optional<std::string> describe(std::string_view relative) const;

    // The same for a path inside the prefix (absolute, or relative to the working folder);
    // nullopt for a path outside it.
    std::optional<std::string> describe_path(const std::filesystem::path& path) const;

    // "; aitk-env owns it" and the hint every refusal gives.
    static std::string refusal(const std::string& what);
    static std::string hint();

  private:
    std::filesystem::path prefix_;  // absolute, lexically normal
    std::string scripts_;           // "bin" / "scripts" (folded); empty when outside the prefix
    std::string site_packages_;     // "lib/python3.12/site-packages" (folded)
    std::string state_;             // ".aitk-env" (folded)
    std::size_t max_depth_ = 1;     // the most components a skeleton file outside state_ has
};

}  // namespace aitk::install
