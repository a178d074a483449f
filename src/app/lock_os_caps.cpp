#include "lock_os_caps.hpp"

#include "aitk/lock/lock_floor.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/error.hpp"

namespace aitk::app::lock_detail {

std::string OsCap::text() const {
    return version ? pep::to_string(*version) : std::string();
}

const OsCap* OsCaps::of(const std::string& os) const {
    if (os == "linux") return &glibc;
    if (os == "macos") return &macos;
    return nullptr;
}

namespace {

// `parsed` (the value of `flag`), or util::InputError saying what is wrong and `hint`.
pep::OsVersion checked_cap(const std::string& flag, const std::string& text,
                           util::Expected<pep::OsVersion, std::string> parsed,
                           const std::string& hint) {
    if (!parsed) throw util::InputError(flag + " " + text + ": " + parsed.error(), hint);
    return *parsed;
}

}  // namespace

pep::OsVersion checked_glibc_option(const std::string& text) {
    return checked_cap("--glibc", text, project::parse_glibc_cap(text),
                       "give the newest glibc the target's machines have, such as --glibc 2.28 "
                       "(`ldd --version` prints it there), or leave --glibc out to take every "
                       "manylinux level");
}

pep::OsVersion checked_macos_option(const std::string& text) {
    return checked_cap("--macos", text, project::parse_macos_cap(text),
                       "give the oldest macOS the target's machines have, such as --macos 13.0 "
                       "(`sw_vers -productVersion` prints it there), or leave --macos out for "
                       "macOS " +
                           pep::to_string(project::default_macos));
}

OsCaps os_caps_for(const LockRequest& request, const project::ProjectInput& input) {
    OsCaps caps;
    if (request.glibc) {
        caps.glibc = {checked_glibc_option(*request.glibc), "--glibc " + *request.glibc};
    } else if (input.glibc_cap) {
        caps.glibc = {input.glibc_cap, input.glibc_cap_by};
    }
    if (request.macos)
        caps.macos = {checked_macos_option(*request.macos), "--macos " + *request.macos};
    return caps;
}

project::TargetAssumptions assumptions_for(const project::Target& target, const OsCaps& caps) {
    project::TargetAssumptions assumptions;
    if (target.os == "linux") assumptions.glibc = caps.glibc.version;
    if (target.os == "macos" && caps.macos.version) assumptions.macos = *caps.macos.version;
    return assumptions;
}

void record_floor(lock::LockedTarget& locked, const OsCaps& caps) {
    if (const OsCap* cap = caps.of(locked.os)) locked.os_cap = cap->text();
    locked.os_floor = lock::floor_of(locked);
}

}  // namespace aitk::app::lock_detail
