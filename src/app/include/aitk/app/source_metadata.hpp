#pragma once
// The lock's SourceInspector (index_source.hpp): what a source node is, read on this machine.
//   git: the revision resolved to a commit in the git cache (or the earlier lock's commit
//        kept), the metadata from prepare_metadata_for_build_wheel on that commit;
//   sdist/archive: downloaded into the cache (hashed when the index gives no sha256), the
//        metadata from PKG-INFO when it is Metadata-Version 2.2+ and declares neither
//        Requires-Dist nor Provides-Extra dynamic, else from prepare_metadata_for_build_wheel;
//   local folder: prepare_metadata_for_build_wheel in place.
// Backends run with an interpreter of the lock's Python X.Y on this machine, whatever the
// target: such metadata is marked InspectedSource::built. Answers are kept for the run (every
// target asks again) and built metadata in the cache (by source, interpreter and platform).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "aitk/app/index_source.hpp"
#include "aitk/app/session.hpp"
#include "aitk/build/git.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/python/discovery.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct SourceInspectorSettings {
    index::IndexRouting routing;  // where build requirements come from
    std::string python;           // the lock's full Python version: backends run with its X.Y
    // The interpreter backends run with; nullopt: the newest one `discovery` finds for the
    // lock's X.Y, looked for on the first build.
    std::optional<python::Interpreter> interpreter;
    python::DiscoveryOptions discovery;
    // What backends and git start from; nullopt: this process's environment.
    std::optional<util::Environment> environment;
    std::chrono::milliseconds timeout = std::chrono::hours(2);  // per PEP 517 hook
    build::GitOptions git;
};

class HostSourceInspector final : public SourceInspector {
  public:
    // Archives and build requirements come through the session's cache and downloader; it must
    // outlive the inspector.
    HostSourceInspector(Session& session, SourceInspectorSettings settings);
    ~HostSourceInspector() override;
    HostSourceInspector(const HostSourceInspector&) = delete;
    HostSourceInspector& operator=(const HostSourceInspector&) = delete;

    InspectedSource vcs(const std::string& name, const pep::VcsUrl& url,
                        const std::string& locked_commit) override;
    InspectedSource archive(const std::string& name, const index::DistributionFile& file) override;
    InspectedSource directory(const std::string& name,
                              const std::filesystem::path& project) override;

    // The interpreter backends run with (found on first use). Throws util::Error naming the
    // Python version needed when there is none, or when the given one is another X.Y.
    const python::Interpreter& interpreter();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Whether PKG-INFO can be trusted for dependencies without a build (PEP 643): Metadata-Version
// 2.2 or later, and neither Requires-Dist nor Provides-Extra listed as Dynamic.
bool static_dependencies(const pep::CoreMetadata& pkg_info);

// The PKG-INFO text of an sdist (the member "<top>/PKG-INFO"), without unpacking the rest;
// nullopt when it has none. Throws archive::ArchiveError for an unreadable archive.
std::optional<std::string> read_pkg_info(const std::filesystem::path& sdist);

}  // namespace aitk::app
