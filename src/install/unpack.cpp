// unpack_wheel: secure extraction, then every member checked against the wheel's RECORD with the
// digests computed while writing (no second read).
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/archive/extract.hpp"
#include "aitk/cache/tree_stamp.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "dist_info.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;
using detail::fail;

std::string_view top_component(std::string_view path) {
    return path.substr(0, path.find('/'));
}

// The one top-level .dist-info folder among the extracted members.
std::string find_dist_info(std::string_view label, const archive::ExtractResult& extracted) {
    std::vector<std::string_view> found;
    for (const auto& entry : extracted.entries) {
        std::string_view top = top_component(entry.path);
        if (top.size() == entry.path.size() && entry.type != archive::EntryType::directory) {
            continue;  // a top-level file, not a folder
        }
        if (top.ends_with(detail::dist_info_suffix) &&
            std::find(found.begin(), found.end(), top) == found.end()) {
            found.push_back(top);
        }
    }
    if (found.empty()) fail(label, "", "has no .dist-info folder");
    if (found.size() > 1) {
        std::sort(found.begin(), found.end());
        std::string names;
        for (auto name : found) {
            if (!names.empty()) names += ", ";
            names += name;
        }
        fail(label, "", "has several .dist-info folders (" + names + ")");
    }
    return std::string(found.front());
}

bool is_signature_or_record(std::string_view path, std::string_view dist_info) {
    if (!path.starts_with(dist_info) || path.size() <= dist_info.size() ||
        path[dist_info.size()] != '/') {
        return false;
    }
    std::string_view name = path.substr(dist_info.size() + 1);
    return name == "RECORD" || name == "RECORD.jws" || name == "RECORD.p7s";
}

std::string read_member(const stdfs::path& tree, const std::string& path) {
    return fs::read_file(tree / stdfs::path(std::u8string(path.begin(), path.end())));
}

// WHEEL and METADATA are judged here, before the tree enters the cache, so a wheel refused for
// them leaves nothing behind (the installer checks WHEEL again on trees unpacked earlier).
void verify_wheel_file(std::string_view label, const stdfs::path& tree,
                       const std::string& dist_info) {
    const std::string path = dist_info + "/WHEEL";
    std::error_code ec;
    if (!stdfs::is_regular_file(tree / path, ec)) fail(label, "", "has no " + path);
    std::string version;
    const std::string text = read_member(tree, path);
    for (std::string_view line : util::split(text, '\n')) {
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        if (util::iequals(util::trim(line.substr(0, colon)), "Wheel-Version")) {
            version = std::string(util::trim(line.substr(colon + 1)));
        }
    }
    if (version.empty()) fail(label, path, "has no Wheel-Version");
    if (!version.starts_with("1.") && version != "1") {
        fail(label, path,
             "has Wheel-Version " + version + "; aitk-env installs wheels of version 1.x");
    }
}

// A METADATA that names another project or version would install one thing under the name of
// another (and mislead resolution, `list` and pip). Only the Name and Version headers are read,
// as leniently as pip's email parser reads them: a wheel is not refused for the rest.
void verify_metadata(std::string_view label, const stdfs::path& tree, const std::string& dist_info,
                     std::string_view name, std::string_view version) {
    const std::string path = dist_info + "/METADATA";
    std::error_code ec;
    if (!stdfs::is_regular_file(tree / path, ec)) fail(label, "", "has no " + path);
    const std::string text = read_member(tree, path);
    std::optional<std::string> found_name;
    std::optional<std::string> found_version;
    for (std::string_view line : util::split(text, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) break;  // the headers end at the first blank line
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = util::trim(line.substr(0, colon));
        const std::string value(util::trim(line.substr(colon + 1)));
        if (util::iequals(key, "Name") && !found_name) found_name = value;
        if (util::iequals(key, "Version") && !found_version) found_version = value;
    }
    const std::string wheel = std::string(name) + " " + std::string(version);
    if (!found_name) fail(label, path, "has no Name header");
    if (!found_version) fail(label, path, "has no Version header");
    if (pep::canonicalize_name(*found_name) != pep::canonicalize_name(name)) {
        fail(label, path, "names the project '" + *found_name + "', but the wheel is " + wheel);
    }
    const auto have = pep::Version::parse(*found_version);
    const auto want = pep::Version::parse(version);
    if (have && want ? !(*have == *want) : *found_version != version) {
        fail(label, path, "says version " + *found_version + ", but the wheel is " + wheel);
    }
}

void verify_against_record(std::string_view label, const stdfs::path& wheel,
                           const stdfs::path& tree, const archive::ExtractResult& extracted) {
    const std::string dist_info = find_dist_info(label, extracted);
    if (auto filename = pep::WheelFilename::parse(util::utf8_of(wheel.filename()))) {
        if (!detail::dist_info_matches(dist_info, filename->name, filename->version.to_string())) {
            fail(label, "",
                 "its folder '" + dist_info + "' does not match the wheel's name and version (" +
                     filename->name + " " + filename->version.to_string() + ")");
        }
    }

    const std::string record_path = dist_info + "/RECORD";
    std::unordered_map<std::string_view, std::size_t> files;  // path -> entry index
    files.reserve(extracted.entries.size());
    for (std::size_t i = 0; i < extracted.entries.size(); ++i) {
        if (extracted.entries[i].type == archive::EntryType::file) {
            files.emplace(extracted.entries[i].path, i);
        }
    }
    if (files.find(record_path) == files.end()) fail(label, "", "has no " + record_path);

    auto record = parse_record(read_member(tree, record_path));
    if (!record) fail(label, record_path, record.error());

    for (const auto& entry : extracted.entries) {
        if (entry.path == cache::tree_stamp_name) {
            fail(label, entry.path,
                 "has a name aitk-env keeps for the record of the files it unpacks; it cannot be "
                 "installed");
        }
    }

    std::vector<bool> listed(extracted.entries.size(), false);
    for (const InstalledFile& row : *record) {
        if (auto problem = record_path_problem(row.path)) {
            fail(label, row.path, "RECORD lists an unsafe path: it " + *problem);
        }
        auto it = files.find(row.path);
        if (it == files.end()) fail(label, row.path, "is listed in RECORD but not in the wheel");
        if (listed[it->second]) fail(label, row.path, "is listed twice in RECORD");
        listed[it->second] = true;
        if (row.path == record_path) continue;  // RECORD cannot hold its own hash
        const archive::ExtractedEntry& entry = extracted.entries[it->second];
        if (row.hash.empty()) fail(label, row.path, "has no hash in RECORD");
        if (!is_sha256_record_hash(row.hash)) {
            fail(label, row.path,
                 "has a " + row.hash.substr(0, row.hash.find('=')) +
                     " hash in RECORD; aitk-env verifies sha256 hashes");
        }
        if (entry.size != row.size) {
            fail(label, row.path,
                 "is " + std::to_string(entry.size) + " bytes, RECORD says " +
                     std::to_string(row.size));
        }
        if (!entry.sha256 || !record_hash_matches(row.hash, *entry.sha256)) {
            fail(label, row.path,
                 "has " + (entry.sha256 ? record_hash(*entry.sha256) : std::string("no hash")) +
                     ", RECORD says " + row.hash);
        }
    }
    for (std::size_t i = 0; i < extracted.entries.size(); ++i) {
        const auto& entry = extracted.entries[i];
        if (entry.type != archive::EntryType::file || listed[i]) continue;
        if (is_signature_or_record(entry.path, dist_info)) continue;
        fail(label, entry.path, "is not listed in RECORD");
    }
    if (auto parts = detail::split_dist_info(dist_info)) {
        verify_wheel_file(label, tree, dist_info);
        verify_metadata(label, tree, dist_info, parts->name, parts->version);
    }
}

}  // namespace

void unpack_wheel(const std::filesystem::path& wheel, const std::filesystem::path& destination) {
    unpack_wheel(wheel, destination, UnpackLimits{});
}

void unpack_wheel(const std::filesystem::path& wheel, const std::filesystem::path& destination,
                  const UnpackLimits& limits) {
    const std::string label = util::utf8_of(wheel.filename());
    archive::ExtractOptions options;
    options.max_total_bytes = limits.max_total_bytes;
    options.max_entries = limits.max_entries;
    options.links = archive::LinkPolicy::reject;  // pip cannot install links from wheels either
    options.compute_sha256 = true;
    options.threads = limits.threads;
    // No member dated after its unpacking: installed files must not look edited after their
    // install (plan_install compares their times with RECORD's).
    options.latest_mtime = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    archive::ExtractResult extracted;
    try {
        extracted = archive::extract(wheel, destination, options);
    } catch (const archive::ArchiveError& e) {
        fail(label, e.member(), e.detail());
    }
    try {
        verify_against_record(label, wheel, destination, extracted);
    } catch (...) {
        fs::remove_all_quietly(destination);
        throw;
    }
}

}  // namespace aitk::install
