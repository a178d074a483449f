#pragma once
// pip's hash-checking mode in the lock stage: what the inputs must hold before anything is
// resolved, and what every locked file must match afterwards. Private to the app layer.
#include <string>
#include <vector>

#include "aitk/app/index_source.hpp"
#include "aitk/app/session.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/project/hash_pins.hpp"

namespace aitk::app {

// A file whose digests match none of its project's pins: the lock stops with exit 1, as pip
// stops with "THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE".
class HashMismatch : public util::Error {
  public:
    HashMismatch(std::string message, std::string hint)
        : util::Error(util::ExitCode::failure, std::move(message), std::move(hint)) {}
};

// The lines pip refuses in hash-checking mode (unpinned, editable, VCS, folders): one
// util::InputError (exit 2) listing each at its file:line:column. Nothing when all are fine.
void refuse_unhashable_lines(const project::HashChecking& checking, const std::string& target_id);

// After a failed resolution: when pinned files were left out for their digests, the failure is
// theirs, and HashMismatch says which (package, file, the pinned and the actual digests).
void throw_if_refused_for_hashes(const std::vector<HashRefusal>& refusals,
                                 const std::string& target_id);

// Every locked file against its project's pins: a package without pins is a util::InputError
// (exit 2) naming the lines to add with the digests the index gives, a file whose digests
// match none of its pins is a HashMismatch. Files with no sha256 yet (an sdist the index gave
// none for) and pins of algorithms the index does not give (sha384, sha512) are downloaded
// into the cache and hashed there; `packages` gains the sha256 and size so found.
void check_locked_hashes(Session& session, const project::HashChecking& checking,
                         std::vector<lock::LockedPackage>& packages, const std::string& target_id);

// `setup -l LOCK --require-hashes`: every package of every target must install from one file
// with a sha256 (a git or folder source has none); util::InputError (exit 2) lists the others.
void refuse_unhashed_locked_files(const lock::Lockfile& lockfile, const std::string& lock_label);

}  // namespace aitk::app
