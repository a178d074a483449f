// The parts of a snapshot that read what installers leave in a .dist-info folder: PEP 610's
// direct_url.json, the WHEEL file's tags, and torch's local version label.
#include <algorithm>
#include <set>

#include "aitk/app/snapshot.hpp"
#include "aitk/index/url.hpp"
#include "aitk/install/direct_url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {

std::string_view to_string(FileOrigin origin) noexcept {
    switch (origin) {
        case FileOrigin::receipt:
            return "receipt";
        case FileOrigin::direct_url:
            return "direct_url";
        case FileOrigin::index:
            return "index";
        case FileOrigin::cache:
            return "cache";
    }
    return "index";
}

std::optional<std::string> backend_of_torch_version(std::string_view version) {
    auto plus = version.find('+');
    if (plus == std::string_view::npos) return std::nullopt;
    auto label = util::to_lower(version.substr(plus + 1));
    if (project::backend_problem(label)) return std::nullopt;
    return label;
}

namespace {}  // namespace

util::Expected<DirectReference, std::string> parse_direct_url(std::string_view json_text) {
    auto read = install::read_direct_url(json_text);
    if (!read) return util::Unexpected(read.error());
    const auto& direct = *read;
    lock::LockedSource source;
    source.subdirectory = direct.subdirectory;
    if (const auto* vcs = std::get_if<install::DirectUrl::Vcs>(&direct.info)) {
        source.kind = lock::SourceKind::vcs;
        source.url = util::strip_credentials(vcs->vcs + "+" + direct.url);
        source.commit = vcs->commit_id;
        const auto revision = vcs->requested_revision.value_or("");
        if (!pep::is_full_commit_id(revision)) source.revision = revision;
        return DirectReference(source);
    }
    if (const auto* dir = std::get_if<install::DirectUrl::Directory>(&direct.info)) {
        source.kind = lock::SourceKind::directory;
        source.url = util::strip_credentials(direct.url);
        source.editable = dir->editable;
        return DirectReference(source);
    }
    const auto& sha = std::get<install::DirectUrl::Archive>(direct.info).sha256;
    auto filename = index::url_filename(direct.url);
    if (filename.ends_with(".whl") && direct.subdirectory.empty()) {
        // The lock's file name becomes a path wherever the lock is used (cache, bundle, mirror).
        if (auto problem = util::path_name_problem(filename)) {
            return util::Unexpected("the file name '" + filename + "' of its URL " +
                                    util::redact_url(direct.url) +
                                    " cannot name a file: " + *problem);
        }
        return DirectReference(
            lock::LockedFile{filename, util::strip_credentials(direct.url), sha, std::nullopt});
    }
    source.kind = lock::SourceKind::url;
    source.url = util::strip_credentials(direct.url);
    source.sha256 = sha;
    return DirectReference(source);
}

util::Expected<WheelInfo, std::string> parse_wheel_info(std::string_view text) {
    WheelInfo info;
    std::set<std::string> tags;
    std::size_t line_number = 0;
    for (auto line : util::split(text, '\n')) {
        ++line_number;
        line = util::trim(line);
        auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        auto key = util::trim(line.substr(0, colon));
        auto value = util::trim(line.substr(colon + 1));
        if (util::iequals(key, "Tag")) {
            auto parsed = pep::parse_tag(value);
            if (!parsed) {
                return util::Unexpected("line " + std::to_string(line_number) + ": " +
                                        parsed.error().describe());
            }
            for (const auto& tag : *parsed)
                tags.insert(tag.to_string());
        } else if (util::iequals(key, "Build")) {
            info.build = std::string(value);
        }
    }
    if (tags.empty()) return util::Unexpected(std::string("no Tag line"));
    info.tags.assign(tags.begin(), tags.end());
    return info;
}

}  // namespace aitk::app
