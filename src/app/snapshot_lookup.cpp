// Where a snapshot finds the file of a distribution no receipt or direct_url.json names: the
// indexes (the exact wheel, else that version's sdist) or the shared cache; and the hashes of
// files nobody gave one for.
#include <algorithm>
#include <system_error>

#include "aitk/fs/hash.hpp"
#include "aitk/index/url.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "hash_downloads.hpp"
#include "snapshot_parts.hpp"

namespace aitk::app::snapshot_detail {
namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view pypi_simple = "https://pypi.org/simple";

std::string torch_index_base(const SnapshotRequest& request) {
    if (request.indexes.torch_index_url) return *request.indexes.torch_index_url;
    auto tables = platform::builtin_tables();
    return tables ? tables->torch_index_url : std::string("https://download.pytorch.org/whl");
}

// The same file: name, version, build tag and the whole (expanded, sorted) tag set.
bool same_wheel(const pep::WheelFilename& parsed, const std::string& name,
                const pep::Version& version, const WheelInfo& wheel) {
    if (parsed.name != name || !(parsed.version == version)) return false;
    std::string build;
    if (parsed.build) build = std::to_string(parsed.build->number) + parsed.build->suffix;
    if (build != wheel.build) return false;
    std::vector<std::string> tags;
    for (const auto& tag : parsed.tags)
        tags.push_back(tag.to_string());
    std::sort(tags.begin(), tags.end());
    return tags == wheel.tags;
}

}  // namespace

// The indexes to look files up on: the options given, else the prefix lock's, else PyPI.
// `torch_backend` is empty when torch carries no backend label (its wheels are then PyPI's).
index::IndexRouting snapshot_routing(const SnapshotRequest& request,
                                     const lock::Lockfile* prefix_lock,
                                     const std::string& torch_backend) {
    const auto& given = request.indexes;
    const bool options_given =
        given.index_url || !given.extra_index_urls.empty() || !given.find_links.empty();
    const std::string torch_base = torch_index_base(request);
    if (!options_given && prefix_lock && !prefix_lock->indexes.empty()) {
        auto routing = routing_from_lock(prefix_lock->indexes, torch_backend);
        if (!routing.torch_backend_index && !torch_backend.empty()) {
            routing.torch_backend_index =
                routing_from_settings({}, torch_backend, {"", torch_base}).torch_backend_index;
        }
        return routing;
    }
    return routing_from_settings(given, torch_backend, {pypi_simple, torch_base});
}

// The index file that is exactly the installed wheel: same name, version, build and tags.
const index::DistributionFile* matching_wheel(const index::ProjectFiles& files,
                                              const std::string& name, const pep::Version& version,
                                              const WheelInfo& wheel) {
    for (const auto& file : files.files) {
        if (file.wheel() && same_wheel(*file.wheel(), name, version, wheel)) return &file;
    }
    return nullptr;
}

const index::DistributionFile* matching_sdist(const index::ProjectFiles& files,
                                              const std::string& name,
                                              const pep::Version& version) {
    for (const auto& file : files.files) {
        if (file.is_wheel() || file.project() != name) continue;
        if (file.version() == version) return &file;
    }
    return nullptr;
}

// A wheel of that name, version, build and tags already in the shared cache.
std::optional<stdfs::path> cached_wheel(const cache::Cache& cache, const std::string& name,
                                        const pep::Version& version, const WheelInfo& wheel) {
    std::error_code ec;
    const auto root = cache.base() / "artifacts" / "sha256";
    if (!stdfs::is_directory(root, ec)) return std::nullopt;
    for (stdfs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
         it.increment(ec)) {
        if (!it->is_regular_file(ec) || it.depth() != 2) continue;
        auto filename = util::utf8_of(it->path().filename());
        if (!filename.ends_with(".whl")) continue;
        auto parsed = pep::WheelFilename::parse(filename);
        if (parsed && same_wheel(*parsed, name, version, wheel)) return it->path();
    }
    return std::nullopt;
}

void fill_hashes(Session& session, std::vector<Unhashed>& files) {
    std::vector<Unhashed*> remote;
    for (auto& f : files) {
        if (auto path = index::file_url_to_path(f.url)) {
            std::error_code ec;
            if (!stdfs::is_regular_file(*path, ec)) {
                throw util::Error(util::ExitCode::failure,
                                  f.filename + ": " + util::utf8_of(*path) + " no longer exists",
                                  "put the file back, or reinstall the package from an index");
            }
            *f.sha256 = fs::sha256_file_hex(*path);
            *f.size = stdfs::file_size(*path, ec);
        } else {
            remote.push_back(&f);
        }
    }
    std::vector<UnhashedFile> wanted;
    for (const auto* f : remote)
        wanted.push_back({f->filename, f->url});
    auto hashes = download_to_hash(session, wanted, "no sha256 is known for");
    for (std::size_t i = 0; i < hashes.size(); ++i) {
        *remote[i]->sha256 = hashes[i].sha256;
        *remote[i]->size = hashes[i].size;
    }
}

}  // namespace aitk::app::snapshot_detail
