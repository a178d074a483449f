#include "aitk/archive/error.hpp"

namespace aitk::archive {
namespace {

std::string compose(const std::string& archive, const std::string& member,
                    const std::string& detail) {
    std::string out = "archive " + archive;
    if (!member.empty()) out += ", member '" + member + "'";
    out += ": " + detail;
    return out;
}

}  // namespace

std::string_view to_string(Problem problem) noexcept {
    switch (problem) {
        case Problem::unreadable:
            return "unreadable";
        case Problem::unsafe_path:
            return "unsafe path";
        case Problem::unsafe_link:
            return "unsafe link";
        case Problem::special_file:
            return "special file";
        case Problem::duplicate:
            return "duplicate";
        case Problem::too_large:
            return "too large";
        case Problem::too_many_entries:
            return "too many entries";
        case Problem::missing_member:
            return "missing member";
        case Problem::destination_exists:
            return "destination exists";
        case Problem::write_failed:
            return "write failed";
    }
    return "unknown";
}

ArchiveError::ArchiveError(Problem problem, std::string archive, std::string member,
                           std::string detail)
    : util::Error(util::ExitCode::failure, compose(archive, member, detail)),
      problem_(problem),
      archive_(std::move(archive)),
      member_(std::move(member)),
      detail_(std::move(detail)) {}

}  // namespace aitk::archive
