#pragma once
// The one error type of the archive layer: it names the archive and, where there is one, the
// member, and says which kind of problem it was so callers (and tests) need not parse text.
#include <string>

#include "aitk/util/error.hpp"

namespace aitk::archive {

enum class Problem {
    unreadable,          // not an archive we read, truncated, corrupt, or an I/O error
    unsafe_path,         // '..', absolute, drive letter, backslash, empty or overlong name
    unsafe_link,         // a symlink or hardlink that leaves the destination or is not allowed
    special_file,        // device, FIFO or socket
    duplicate,           // two members for one path (or a member below a file)
    too_large,           // the size cap (zip-bomb defence) was reached
    too_many_entries,    // the entry-count cap was reached
    missing_member,      // read_member did not find what was asked for
    destination_exists,  // extraction never merges into or replaces an existing folder
    write_failed,        // the disk refused (full, permissions, ...)
};

std::string_view to_string(Problem problem) noexcept;

class ArchiveError : public util::Error {
  public:
    // `member` may be empty when the problem concerns the archive as a whole.
    ArchiveError(Problem problem, std::string archive, std::string member, std::string detail);

    Problem problem() const noexcept { return problem_; }
    const std::string& archive() const noexcept { return archive_; }
    const std::string& member() const noexcept { return member_; }
    const std::string& detail() const noexcept { return detail_; }

  private:
    Problem problem_;
    std::string archive_;
    std::string member_;
    std::string detail_;
};

}  // namespace aitk::archive
