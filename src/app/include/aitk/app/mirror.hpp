#pragma once
// `aitk-env mirror`: the locked artifacts as a static simple index that any static web server
// or object store can serve, so a lock can be installed where the public indexes are out of
// reach (`setup -l LOCK --index-url <served DIR>/simple`). Layout under DIR:
//   simple/index.html, simple/index.json                  project list (PEP 503 / PEP 691)
//   simple/<project>/index.html, simple/<project>/index.json
//                                                          files with #sha256, Requires-Python,
//                                                          PEP 658/714 metadata hashes, PEP 700
//                                                          sizes and versions
//   files/<project>/<filename>, files/<project>/<filename>.metadata (wheels: their METADATA)
// Links are relative (the folder can be moved or published anywhere) unless a base URL is
// given. Output is sorted and free of timestamps, so mirroring the same lock twice gives the
// same bytes; each file is written atomically and only when it changed.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/artifact_locations.hpp"
#include "aitk/app/settings.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/net/observer.hpp"

namespace aitk::app {

// One artifact as the pages describe it.
struct MirrorFile {
    std::string project;  // normalised
    std::string version;  // "" when the lock does not know it
    std::string filename;
    std::string sha256;
    std::uint64_t size = 0;
    std::string requires_python;                 // "" when unknown
    std::optional<std::string> metadata_sha256;  // wheels: of files/<p>/<filename>.metadata
};

// Every page of a mirror holding `files`: path relative to DIR ("simple/torch/index.html") →
// content. `base_url` ("https://host/mirror", no trailing slash needed) makes links absolute;
// credentials in it are left out.
std::map<std::string, std::string> render_mirror_pages(const std::vector<MirrorFile>& files,
                                                       const std::optional<std::string>& base_url);

// The artifacts of `targets` of `lock` (all targets when empty): wheels and sdists that have a
// sha256, each filename once, sorted by project and filename. Throws util::InputError for an
// unknown target or one filename locked with two hashes.
struct LockedArtifact {
    std::string project;
    std::string version;
    std::string filename;
    std::string url;
    std::string sha256;
};
std::vector<LockedArtifact> locked_artifacts(const lock::Lockfile& lock,
                                             const std::vector<std::string>& targets);

struct MirrorRequest {
    std::filesystem::path lockfile;
    std::filesystem::path output;
    std::optional<std::string> base_url;
    std::vector<std::string> targets;  // ids; empty: every target of the lock
    ArtifactSources sources;           // where the artifacts are downloaded from
};

struct MirrorOutcome {
    std::filesystem::path output;
    std::size_t projects = 0;
    std::size_t files = 0;       // artifacts in the mirror
    std::size_t downloaded = 0;  // into the cache, this run
    std::size_t written = 0;     // files of DIR created or changed
    std::size_t unchanged = 0;   // files of DIR already right
    // What the user should know (credentials left out of --base-url), said once on stderr.
    std::vector<std::string> warnings;
    nlohmann::json to_json() const;
    std::string summary() const;
};

// Throws util::InputError (bad lock, target), util::Error (download or hash failure, I/O).
MirrorOutcome run_mirror(Session& session, const MirrorRequest& request);

}  // namespace aitk::app
