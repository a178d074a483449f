#pragma once
// The parts snapshot.cpp puts together (internal to the app layer; tests go through
// snapshot_prefix).
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aitk/app/index_routing.hpp"
#include "aitk/app/snapshot.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/index/client.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/requirement.hpp"

namespace aitk::app::snapshot_detail {

std::optional<std::string> read_optional(const std::filesystem::path& path);

// --- the installed graph (snapshot_graph.cpp) ---

// One installed distribution and what its METADATA asks for.
struct Dist {
    const install::InstalledDistribution* installed = nullptr;
    std::vector<pep::Requirement> requires_dist;
    std::vector<std::string> provides_extra;  // normalised
    std::set<std::string> extras;             // active
    std::set<std::string> dependencies;       // installed names
};

std::vector<std::string> extra_list(const std::set<std::string>& extras);
// By name; unreadable METADATA or Requires-Dist lines become notes.
std::map<std::string, Dist> read_distributions(
    const std::vector<install::InstalledDistribution>& installed, std::vector<std::string>& notes);
// Extras: a requested package's extras whose requirements are all installed (the user's command
// line is not recorded), then whatever installed packages ask of each other, to a fixed point.
void activate_extras(std::map<std::string, Dist>& dists, const pep::MarkerEnvironment& env);
// Requirements that hold for `env` and name an installed distribution; the others, when they
// hold, become notes ("x requires y, which is not installed").
void find_dependencies(std::map<std::string, Dist>& dists, const pep::MarkerEnvironment& env,
                       std::vector<std::string>& notes);
// Names to keep: everything but installer tools (pip, setuptools, wheel, distribute) no kept
// package needs, unless `keep_tools`.
std::set<std::string> kept_names(const std::map<std::string, Dist>& dists, bool keep_tools,
                                 std::vector<std::string>& left_out);

// --- files (snapshot_lookup.cpp) ---

// The indexes to look files up on: the options given, else the prefix lock's, else PyPI.
// `torch_backend` is empty when torch carries no backend label (its wheels are then PyPI's).
index::IndexRouting snapshot_routing(const SnapshotRequest& request,
                                     const lock::Lockfile* prefix_lock,
                                     const std::string& torch_backend);
// The index file that is exactly the installed wheel: same name, version, build and tags.
const index::DistributionFile* matching_wheel(const index::ProjectFiles& files,
                                              const std::string& name, const pep::Version& version,
                                              const WheelInfo& wheel);
const index::DistributionFile* matching_sdist(const index::ProjectFiles& files,
                                              const std::string& name, const pep::Version& version);
// A wheel of that name, version, build and tags already in the shared cache.
std::optional<std::filesystem::path> cached_wheel(const cache::Cache& cache,
                                                  const std::string& name,
                                                  const pep::Version& version,
                                                  const WheelInfo& wheel);

// Lock entries whose sha256 is still unknown: local files are hashed in place, others are
// downloaded once into the cache (as lock does for indexes that omit the hash).
struct Unhashed {
    std::string* sha256;
    std::optional<std::uint64_t>* size;
    std::string url;
    std::string filename;
};
void fill_hashes(Session& session, std::vector<Unhashed>& files);

}  // namespace aitk::app::snapshot_detail
