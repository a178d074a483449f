#include "lock_sources.hpp"

#include <algorithm>

#include "aitk/build/git_url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app::lock_detail {
namespace {

bool is_archive_name(std::string_view name) {
    for (std::string_view ext : {".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar"}) {
        if (name.size() > ext.size() && util::iequals(name.substr(name.size() - ext.size()), ext))
            return true;
    }
    return false;
}

}  // namespace

lock::LockedSource direct_source(const std::string& url) {
    lock::LockedSource source;
    auto vcs = pep::parse_vcs_url(url);
    if (vcs && *vcs) {
        source.kind = lock::SourceKind::vcs;
        source.url = util::strip_credentials((*vcs)->vcs + "+" + (*vcs)->repository);
        source.commit = (*vcs)->revision;
        source.subdirectory = (*vcs)->subdirectory;
        return source;
    }
    const auto reference = pep::split_fragment(url);
    const std::string_view plain = reference.url;
    if (auto sha256 = reference.sha256()) source.sha256 = std::string(*sha256);
    const bool local = plain.starts_with("file:") || plain.starts_with("/");
    source.kind =
        local && !is_archive_name(plain) ? lock::SourceKind::directory : lock::SourceKind::url;
    source.url = util::strip_credentials(plain);
    return source;
}

std::optional<lock::LockedFile> direct_wheel(const std::string& url) {
    if (auto vcs = pep::parse_vcs_url(url); vcs && *vcs) return std::nullopt;
    const auto reference = pep::split_fragment(url);
    const std::string_view plain = reference.url;
    const std::string sha = util::to_lower(reference.sha256().value_or(""));
    auto slash = plain.rfind('/');
    std::string filename(slash == std::string_view::npos ? plain : plain.substr(slash + 1));
    if (!filename.ends_with(".whl")) return std::nullopt;
    return lock::LockedFile{filename, util::strip_credentials(plain), sha, std::nullopt};
}

void complete_source(lock::LockedSource& source, const std::string& url,
                     const InspectedSource& inspected, bool editable) {
    if (source.kind == lock::SourceKind::vcs) {
        auto git = build::parse_git_url(url);
        if (git) {
            source.url = util::strip_credentials("git+" + git->repository);
            source.subdirectory = git->subdirectory;
            source.revision = pep::is_full_commit_id(git->revision) ? std::string() : git->revision;
        }
        source.commit = inspected.commit;
        return;
    }
    if (source.kind == lock::SourceKind::directory) {
        source.editable = editable;
        return;
    }
    if (source.sha256.empty()) source.sha256 = inspected.sha256;
    if (!source.size && inspected.size != 0) source.size = inspected.size;
}

std::map<std::string, std::string> locked_commits(const lock::LockedTarget* previous,
                                                  const LockRequest& request) {
    std::map<std::string, std::string> out;
    if (!previous || request.upgrade) return out;
    for (const auto& package : previous->packages) {
        if (!package.source || package.source->kind != lock::SourceKind::vcs) continue;
        if (std::any_of(
                request.upgrade_packages.begin(), request.upgrade_packages.end(),
                [&](const std::string& n) { return pep::canonicalize_name(n) == package.name; })) {
            continue;
        }
        const auto& s = *package.source;
        if (!pep::is_full_commit_id(s.commit)) continue;
        auto git =
            build::parse_git_url(s.url + (s.revision.empty() ? "" : "@" + s.revision) +
                                 (s.subdirectory.empty() ? "" : "#subdirectory=" + s.subdirectory));
        if (git) out[vcs_pin_key(*git)] = s.commit;
    }
    return out;
}

}  // namespace aitk::app::lock_detail
