#include "lock_glibc.hpp"

#include "aitk/lock/lock_floor.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/error.hpp"

namespace aitk::app::lock_detail {

std::string GlibcCap::text() const {
    return version ? pep::to_string(*version) : std::string();
}

pep::OsVersion checked_glibc_option(const std::string& text) {
    auto cap = project::parse_glibc_cap(text);
    if (!cap) {
        throw util::InputError("--glibc " + text + ": " + cap.error(),
                               "give the newest glibc the target's machines have, such as "
                               "--glibc 2.28 (`ldd --version` prints it there), or leave "
                               "--glibc out to take every manylinux level");
    }
    return *cap;
}

GlibcCap glibc_cap_for(const LockRequest& request, const project::ProjectInput& input) {
    if (request.glibc) return {checked_glibc_option(*request.glibc), "--glibc " + *request.glibc};
    if (input.glibc_cap) return {input.glibc_cap, input.glibc_cap_by};
    return {};
}

project::TargetAssumptions assumptions_for(const project::Target& target, const GlibcCap& cap) {
    project::TargetAssumptions assumptions;
    if (target.os == "linux") assumptions.glibc = cap.version;
    return assumptions;
}

void record_floor(lock::LockedTarget& locked, const GlibcCap& cap) {
    if (locked.os == "linux") locked.os_cap = cap.text();
    locked.os_floor = lock::floor_of(locked);
}

}  // namespace aitk::app::lock_detail
