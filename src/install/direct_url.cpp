#include "aitk/install/direct_url.hpp"

#include <nlohmann/json.hpp>

#include "aitk/util/strings.hpp"

namespace aitk::install {
namespace {

std::string string_or_empty(const nlohmann::json& object, const char* key) {
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>()
                                                           : std::string();
}

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

nlohmann::json info_json(const DirectUrl::Archive& archive) {
    nlohmann::json json = nlohmann::json::object();
    if (!archive.sha256.empty()) {
        json["hashes"] = {{"sha256", archive.sha256}};
        json["hash"] = "sha256=" + archive.sha256;
    }
    return json;
}

nlohmann::json info_json(const DirectUrl::Vcs& vcs) {
    nlohmann::json json = {{"vcs", vcs.vcs}, {"commit_id", vcs.commit_id}};
    if (vcs.requested_revision) json["requested_revision"] = *vcs.requested_revision;
    return json;
}

nlohmann::json info_json(const DirectUrl::Directory& directory) {
    nlohmann::json json = nlohmann::json::object();
    if (directory.editable) json["editable"] = true;
    return json;
}

}  // namespace

std::string write_direct_url(const DirectUrl& direct) {
    nlohmann::json json = {{"url", direct.url}};
    std::visit(
        [&](const auto& info) {
            using Info = std::decay_t<decltype(info)>;
            const char* key = std::is_same_v<Info, DirectUrl::Archive> ? "archive_info"
                              : std::is_same_v<Info, DirectUrl::Vcs>   ? "vcs_info"
                                                                       : "dir_info";
            json[key] = info_json(info);
        },
        direct.info);
    if (!direct.subdirectory.empty()) json["subdirectory"] = direct.subdirectory;
    return json.dump();
}

util::Expected<DirectUrl, std::string> read_direct_url(std::string_view json_text) {
    auto json = nlohmann::json::parse(json_text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        return util::Unexpected(std::string("not a JSON object"));
    }
    DirectUrl out;
    out.url = string_or_empty(json, "url");
    if (out.url.empty()) return util::Unexpected(std::string("no \"url\""));
    out.subdirectory = string_or_empty(json, "subdirectory");
    if (json.contains("vcs_info") && json["vcs_info"].is_object()) {
        const auto& vcs = json["vcs_info"];
        DirectUrl::Vcs info;
        info.vcs = string_or_empty(vcs, "vcs");
        if (info.vcs.empty()) return util::Unexpected(std::string("vcs_info without \"vcs\""));
        info.commit_id = string_or_empty(vcs, "commit_id");
        if (info.commit_id.empty()) {
            return util::Unexpected(std::string("vcs_info without \"commit_id\""));
        }
        if (vcs.contains("requested_revision") && vcs["requested_revision"].is_string()) {
            info.requested_revision = vcs["requested_revision"].get<std::string>();
        }
        out.info = std::move(info);
        return out;
    }
    if (json.contains("dir_info") && json["dir_info"].is_object()) {
        const auto& dir = json["dir_info"];
        out.info = DirectUrl::Directory{dir.contains("editable") && dir["editable"].is_boolean() &&
                                        dir["editable"].get<bool>()};
        return out;
    }
    if (json.contains("archive_info") && json["archive_info"].is_object()) {
        out.info = DirectUrl::Archive{sha256_of(json["archive_info"])};
        return out;
    }
    return util::Unexpected(std::string("none of archive_info, vcs_info or dir_info"));
}

}  // namespace aitk::install
