// unpack_wheel: RECORD read first (its sizes cap every member and, summed, the whole wheel),
// secure extraction, then every member checked against the wheel's RECORD with the digests
// computed while writing (no second read).
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/archive/extract.hpp"
#include "aitk/cache/tree_stamp.hpp"
#include "aitk/archive/zip_member.hpp"
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

// What is wrong with a RECORD row's hash, which aitk-env must be able to check.
std::optional<std::string> hash_problem(const InstalledFile& row) {
    if (row.hash.empty()) return std::string("has no hash in RECORD");
    if (!is_sha256_record_hash(row.hash)) {
        return "has a " + row.hash.substr(0, row.hash.find('=')) +
               " hash in RECORD; aitk-env verifies sha256 hashes";
    }
    return std::nullopt;
}

// A wheel's RECORD as read before extraction, through the zip's central directory.
struct RecordFirst {
    std::string path;  // "<name>-<version>.dist-info/RECORD"
    std::string text;
    std::vector<InstalledFile> rows;
    std::unordered_map<std::string, std::uint64_t> sizes;  // RECORD path -> size
};

// Signature files beside RECORD (RECORD.jws, RECORD.p7s) sign its hash: a few KiB.
constexpr std::uint64_t signature_cap = 1u << 20;

bool is_top_level_record(std::string_view name) {
    constexpr std::string_view suffix = ".dist-info/RECORD";
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) return false;
    return name.find_first_of("/\\") == name.size() - std::string_view("/RECORD").size();
}

// The top-level RECORD of the .dist-info that the file name names (any one, when the name is
// not a wheel's). Nothing when the zip's directory has none: extraction then runs under the
// expansion limit alone, and the checks after it say what is missing.
std::optional<RecordFirst> read_record_first(std::string_view label, const stdfs::path& wheel) {
    const auto filename = pep::WheelFilename::parse(util::utf8_of(wheel.filename()));
    auto member = archive::read_zip_member_where(wheel, [&](std::string_view name) {
        if (!is_top_level_record(name)) return false;
        const std::string_view folder =
            name.substr(0, name.size() - std::string_view("/RECORD").size());
        return !filename ||
               detail::dist_info_matches(folder, filename->name, filename->version.to_string());
    });
    if (!member) return std::nullopt;
    RecordFirst record;
    record.path = std::move(member->path);
    record.text = std::move(member->content);
    auto rows = parse_record(record.text);
    if (!rows) fail(label, record.path, rows.error());
    record.rows = std::move(*rows);
    // A row without a hash (often without a size either) is refused now, as
    // verify_against_record would refuse it after extracting: its size is no cap.
    for (const InstalledFile& row : record.rows) {
        if (row.path == record.path) continue;
        if (auto problem = hash_problem(row)) fail(label, row.path, *problem);
        record.sizes.emplace(row.path, row.size);
    }
    return record;
}

std::string size_text(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) {
        return std::to_string(bytes >> 20) + " MiB";
    }
    return std::to_string(bytes) + " bytes";
}

// How the expansion limit of a wheel of `wheel_bytes` came about, for messages.
std::string expansion_rule(std::uint64_t wheel_bytes, const UnpackLimits& limits) {
    UnpackLimits uncapped = limits;
    uncapped.max_total_bytes = UINT64_MAX;
    if (wheel_expansion_limit(wheel_bytes, uncapped) > limits.max_total_bytes) {
        return "the extraction limit of " + size_text(limits.max_total_bytes);
    }
    return "the larger of " + size_text(limits.expansion_floor) + " and " +
           std::to_string(limits.expansion_ratio) + " times the wheel's " +
           std::to_string(wheel_bytes) + " bytes";
}

// RECORD's sizes, added up in its order before a byte is extracted: the member that takes
// them past the limit is named.
void check_expansion(std::string_view label, std::uint64_t wheel_bytes, const UnpackLimits& limits,
                     const RecordFirst& record) {
    const std::uint64_t limit = wheel_expansion_limit(wheel_bytes, limits);
    auto add = [](std::uint64_t a, std::uint64_t b) {
        return b > UINT64_MAX - a ? UINT64_MAX : a + b;
    };
    std::uint64_t total = record.text.size();
    std::string_view crossing = total > limit ? std::string_view(record.path) : std::string_view();
    for (const InstalledFile& row : record.rows) {
        if (row.path == record.path) continue;
        total = add(total, row.size);
        if (crossing.empty() && total > limit) crossing = row.path;
    }
    if (crossing.empty()) return;
    fail(label, crossing,
         "takes the wheel past " + std::to_string(limit) +
             " bytes expanded (RECORD's sizes add up "
             "to " +
             std::to_string(total) + "), the most it may expand to: " +
             expansion_rule(wheel_bytes, limits) + "; no real wheel expands that much (zip bomb?)");
}

void verify_against_record(std::string_view label, const stdfs::path& wheel,
                           const stdfs::path& tree, const archive::ExtractResult& extracted,
                           const std::optional<RecordFirst>& first) {
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

    const std::string record_text = read_member(tree, record_path);
    if (first && (first->path != record_path || first->text != record_text)) {
        fail(label, record_path,
             "differs from the RECORD the zip's central directory points to (" + first->path + ")");
    }
    std::vector<InstalledFile> parsed;  // unless `first` holds the same RECORD parsed
    if (!first) {
        auto record = parse_record(record_text);
        if (!record) fail(label, record_path, record.error());
        parsed = std::move(*record);
    }
    const std::vector<InstalledFile>& rows = first ? first->rows : parsed;

    for (const auto& entry : extracted.entries) {
        if (entry.path == cache::tree_stamp_name) {
            fail(label, entry.path,
                 "has a name aitk-env keeps for the record of the files it unpacks; it cannot be "
                 "installed");
        }
    }

    std::vector<bool> listed(extracted.entries.size(), false);
    for (const InstalledFile& row : rows) {
        if (auto problem = record_path_problem(row.path)) {
            fail(label, row.path, "RECORD lists an unsafe path: it " + *problem);
        }
        auto it = files.find(row.path);
        if (it == files.end()) fail(label, row.path, "is listed in RECORD but not in the wheel");
        if (listed[it->second]) fail(label, row.path, "is listed twice in RECORD");
        listed[it->second] = true;
        if (row.path == record_path) continue;  // RECORD cannot hold its own hash
        const archive::ExtractedEntry& entry = extracted.entries[it->second];
        if (auto problem = hash_problem(row)) fail(label, row.path, *problem);
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

std::uint64_t wheel_expansion_limit(std::uint64_t wheel_bytes,
                                    const UnpackLimits& limits) noexcept {
    const std::uint64_t by_ratio =
        limits.expansion_ratio != 0 && wheel_bytes > UINT64_MAX / limits.expansion_ratio
            ? UINT64_MAX
            : wheel_bytes * limits.expansion_ratio;
    return std::min(limits.max_total_bytes, std::max(limits.expansion_floor, by_ratio));
}

void unpack_wheel(const std::filesystem::path& wheel, const std::filesystem::path& destination,
                  const UnpackLimits& limits) {
    const std::string label = util::utf8_of(wheel.filename());
    std::error_code ec;
    const std::uint64_t size = stdfs::file_size(wheel, ec);
    const std::uint64_t wheel_bytes = ec ? 0 : size;  // unreadable: extraction says so
    std::optional<RecordFirst> record;
    try {
        record = read_record_first(label, wheel);
    } catch (const archive::ArchiveError& e) {
        fail(label, e.member(), e.detail());
    }
    if (record) check_expansion(label, wheel_bytes, limits, *record);

    const std::string dist_info =
        record ? record->path.substr(0, record->path.size() - std::string_view("/RECORD").size())
               : std::string();
    archive::ExtractOptions options;
    options.max_entries = limits.max_entries;
    options.links = archive::LinkPolicy::reject;  // pip cannot install links from wheels either
    options.compute_sha256 = true;
    options.threads = limits.threads;
    // No member dated after its unpacking: installed files must not look edited after their
    // install (plan_install compares their times with RECORD's).
    options.latest_mtime = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    if (!record) {
        // No RECORD to cap the members: the limit is counted on the bytes written instead.
        options.max_total_bytes = wheel_expansion_limit(wheel_bytes, limits);
        options.max_total_rule =
            "the most this wheel may expand to: " + expansion_rule(wheel_bytes, limits) +
            "; zip bomb?";
    } else {
        // Every member is capped at its RECORD size, whose sum check_expansion bounded.
        options.max_total_bytes = limits.max_total_bytes;
        options.member_limit = [&record, &dist_info](const std::string& path) {
            using archive::MemberLimit;
            if (path == record->path) return std::optional(MemberLimit{record->text.size()});
            if (auto it = record->sizes.find(path); it != record->sizes.end()) {
                return std::optional(MemberLimit{it->second});
            }
            if (is_signature_or_record(path, dist_info)) {
                return std::optional(MemberLimit{signature_cap});
            }
            // Not listed: made empty, its data unread; verify_against_record refuses it by name.
            return std::optional(MemberLimit{0, true});
        };
        options.member_limit_name = "the size RECORD gives for it";
    }
    archive::ExtractResult extracted;
    try {
        extracted = archive::extract(wheel, destination, options);
    } catch (const archive::ArchiveError& e) {
        fail(label, e.member(), e.detail());
    }
    try {
        verify_against_record(label, wheel, destination, extracted, record);
    } catch (...) {
        fs::remove_all_quietly(destination);
        throw;
    }
}

}  // namespace aitk::install
