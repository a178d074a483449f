#pragma once
// The glibc a lock's Linux targets may need: uncapped (every manylinux level, as `uv lock` and
// pip on a current machine), or capped by --glibc over the input's own setting (a manifest's
// `glibc:`, [tool.aitk-env] glibc). The cap decides the wheels the resolver sees, counts in the
// input hash, and is recorded in each Linux target beside the floor its wheels set. Internal to
// the app layer; tests go through run_lock.
#include <optional>
#include <string>

#include "aitk/app/lock.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/target.hpp"

namespace aitk::app::lock_detail {

struct GlibcCap {
    std::optional<pep::OsVersion> version;  // nullopt: uncapped
    std::string by;                         // "--glibc 2.28", "ai.yaml:3:8 (glibc)"
    std::string text() const;               // "2.28", "" when uncapped
};

// --glibc's value checked; throws util::InputError (exit 2) saying what is wrong and the fix.
pep::OsVersion checked_glibc_option(const std::string& text);

// --glibc over the input's own cap.
GlibcCap glibc_cap_for(const LockRequest& request, const project::ProjectInput& input);

// What `target` assumes under `cap` (Linux targets only take it).
project::TargetAssumptions assumptions_for(const project::Target& target, const GlibcCap& cap);

// The cap (Linux targets) and the floor the locked wheels set, into `locked`.
void record_floor(lock::LockedTarget& locked, const GlibcCap& cap);

}  // namespace aitk::app::lock_detail
