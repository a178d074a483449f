// The parts of a snapshot that read what installers leave in a .dist-info folder: PEP 610's
// direct_url.json, the WHEEL file's tags, and torch's local version label.
#include <algorithm>
#include <set>

#include "aitk/app/snapshot.hpp"
#include "aitk/build/git_url.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/project/target.hpp"
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

namespace {

std::string sha256_of(const nlohmann::json& archive) {
    if (archive.contains("hashes") && archive["hashes"].is_object()) {
        const auto& hashes = archive["hashes"];
        if (hashes.contains("sha256") && hashes["sha256"].is_string()) {
            return util::to_lower(hashes["sha256"].get<std::string>());
        }
    }
    // The older single "hash" key: "<algorithm>=<hex>".
    if (archive.contains("hash") && archive["hash"].is_string()) {
        auto hash = archive["hash"].get<std::string>();
        if (hash.starts_with("sha256=")) return util::to_lower(hash.substr(7));
    }
    return {};
}

std::string string_or_empty(const nlohmann::json& object, const char* key) {
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>()
                                                           : std::string();
}

}  // namespace

util::Expected<DirectReference, std::string> parse_direct_url(std::string_view json_text) {
    auto json = nlohmann::json::parse(json_text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return util::Unexpected(std::string("not a JSON object"));
    }
    auto url = string_or_empty(json, "url");
    if (url.empty()) return util::Unexpected(std::string("no \"url\""));
    auto subdirectory = string_or_empty(json, "subdirectory");
    if (json.contains("vcs_info") && json["vcs_info"].is_object()) {
        const auto& vcs = json["vcs_info"];
        lock::LockedSource source;
        source.kind = "vcs";
        auto tool = string_or_empty(vcs, "vcs");
        if (tool.empty()) return util::Unexpected(std::string("vcs_info without \"vcs\""));
        source.url = util::strip_credentials(tool + "+" + url);
        source.commit = string_or_empty(vcs, "commit_id");
        if (source.commit.empty()) {
            return util::Unexpected(std::string("vcs_info without \"commit_id\""));
        }
        auto revision = string_or_empty(vcs, "requested_revision");
        if (!build::is_full_commit_id(revision)) source.revision = revision;
        source.subdirectory = subdirectory;
        return DirectReference(source);
    }
    if (json.contains("dir_info") && json["dir_info"].is_object()) {
        lock::LockedSource source;
        source.kind = "directory";
        source.url = util::strip_credentials(url);
        source.subdirectory = subdirectory;
        const auto& dir = json["dir_info"];
        source.editable =
            dir.contains("editable") && dir["editable"].is_boolean() && dir["editable"].get<bool>();
        return DirectReference(source);
    }
    if (json.contains("archive_info") && json["archive_info"].is_object()) {
        auto sha = sha256_of(json["archive_info"]);
        auto filename = index::url_filename(url);
        if (filename.ends_with(".whl") && subdirectory.empty()) {
            return DirectReference(
                lock::LockedFile{filename, util::strip_credentials(url), sha, std::nullopt});
        }
        lock::LockedSource source;
        source.kind = "url";
        source.url = util::strip_credentials(url);
        source.sha256 = sha;
        source.subdirectory = subdirectory;
        return DirectReference(source);
    }
    return util::Unexpected(std::string("none of archive_info, vcs_info or dir_info"));
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
