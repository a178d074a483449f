#pragma once
// The isolated environments PEP 517 builds run in, made by aitk-env itself: the build
// requirements are resolved with its own resolver over the indexes (wheels only, for the
// interpreter the backend runs with, on this machine), downloaded into the cache, unpacked once
// per sha256 and installed into a venv-shaped folder under the cache's tmp/. No interpreter is
// copied there: the backend runs with the real one and the folder on PYTHONPATH.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aitk/app/session.hpp"
#include "aitk/build/environment.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/python/discovery.hpp"

namespace aitk::app {

struct BuildEnvironmentSettings {
    index::IndexRouting routing;  // where the build requirements come from
    // The interpreter the backends run with: its version, platform and markers choose the
    // wheels, and console scripts point at it.
    python::Interpreter interpreter;
};

// What pip would see on `interpreter`: its probed marker values, or, for an interpreter known
// only by version and platform, the values a CPython of that version has there.
pep::MarkerEnvironment interpreter_markers(const python::Interpreter& interpreter);
// The wheel tags `interpreter` accepts (glibc version from the probe; manylinux_2_28 assumed
// when unknown).
pep::TargetPlatform interpreter_platform(const python::Interpreter& interpreter);

class IndexBuildEnvironmentProvider final : public build::BuildEnvironmentProvider {
  public:
    // The session's cache, downloader and network settings fetch the build requirements; it
    // must outlive the provider.
    IndexBuildEnvironmentProvider(Session& session, BuildEnvironmentSettings settings);
    ~IndexBuildEnvironmentProvider() override;
    IndexBuildEnvironmentProvider(const IndexBuildEnvironmentProvider&) = delete;
    IndexBuildEnvironmentProvider& operator=(const IndexBuildEnvironmentProvider&) = delete;

    // The same set of requirements (in any order) gives the same environment again; every
    // environment lives as long as the provider. Throws resolve::Unsatisfiable (no wheels
    // satisfy them) or util::Error (download, hash, unpack), naming `purpose`.
    build::BuildEnvironment prepare(const std::vector<pep::Requirement>& requirements,
                                    const std::string& purpose) override;

    // How many environments were installed (not answered from the ones already made).
    std::size_t environments_made() const noexcept;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace aitk::app
