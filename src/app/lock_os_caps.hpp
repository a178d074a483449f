#pragma once
// How new an OS a lock's targets may need: glibc for Linux targets (uncapped by default: every
// manylinux level, as `uv lock` and pip on a current machine), macOS for macOS targets (up to
// project::default_macos by default). --glibc / --macos cap them over the input's own setting
// (a manifest's `glibc:`, [tool.aitk-env] glibc). A cap decides the wheels the resolver sees,
// counts in the input hash, and is recorded in each target of its OS beside the floor its
// wheels set. Internal to the app layer; tests go through run_lock.
#include <optional>
#include <string>

#include "aitk/app/lock.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/target.hpp"

namespace aitk::app::lock_detail {

struct OsCap {
    std::optional<pep::OsVersion> version;  // nullopt: the OS's default
    std::string by;                         // "--glibc 2.28", "ai.yaml:3:8 (glibc)"
    std::string text() const;               // "2.28", "" when not capped
};

struct OsCaps {
    OsCap glibc;  // Linux targets
    OsCap macos;  // macOS targets
    // The cap of a target of `os` ("linux", "macos"); nullptr for an OS without one.
    const OsCap* of(const std::string& os) const;
};

// --glibc's and --macos's values checked; throw util::InputError (exit 2) saying what is wrong
// and the fix.
pep::OsVersion checked_glibc_option(const std::string& text);
pep::OsVersion checked_macos_option(const std::string& text);

// --glibc over the input's own cap; --macos.
OsCaps os_caps_for(const LockRequest& request, const project::ProjectInput& input);

// What `target` assumes under `caps`.
project::TargetAssumptions assumptions_for(const project::Target& target, const OsCaps& caps);

// The cap of the target's OS and the floor the locked wheels set, into `locked`.
void record_floor(lock::LockedTarget& locked, const OsCaps& caps);

}  // namespace aitk::app::lock_detail
