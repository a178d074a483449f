#pragma once
// Lock entries of direct references (`name @ URL`, VCS URLs, local folders), for lock.cpp
// (internal to the app layer; tests go through run_lock).
#include <map>
#include <optional>
#include <string>

#include "aitk/app/index_source.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app::lock_detail {

// The source node a direct reference names, from its URL alone: a VCS repository, a local
// folder, or an archive URL (with the `#sha256=` of its fragment).
lock::LockedSource direct_source(const std::string& url);

// A "name @ https://…/x.whl" reference: a wheel like any other, only not from an index.
std::optional<lock::LockedFile> direct_wheel(const std::string& url);

// What looking into a source node found, on top of what its URL says.
void complete_source(lock::LockedSource& source, const std::string& url,
                     const InspectedSource& inspected, bool editable);

// The commits an earlier lock chose for git requirements (by vcs_pin_key), except for the
// packages being upgraded.
std::map<std::string, std::string> locked_commits(const lock::LockedTarget* previous,
                                                  const LockRequest& request);

}  // namespace aitk::app::lock_detail
