#pragma once
// The isolated build environment. Installing build requirements needs the resolver and the
// installer, which live above this layer: the caller provides them through
// BuildEnvironmentProvider, and this layer only decides which variables a backend sees.
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/pep/requirement.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::build {

// Where the requirements of one build were installed. The provider keeps these folders alive
// for as long as the build that asked for them runs.
struct BuildEnvironment {
    std::vector<std::filesystem::path> site_packages;  // PYTHONPATH, in this order
    std::vector<std::filesystem::path> scripts;        // put before PATH, in this order
};

class BuildEnvironmentProvider {
  public:
    virtual ~BuildEnvironmentProvider() = default;
    // Makes an environment holding `requirements` (possibly none) for the interpreter the
    // build runs with. `purpose` says what it is for, for progress and error messages
    // ("build requirements of foo-1.0.tar.gz"). Throws util::Error when they cannot be had.
    virtual BuildEnvironment prepare(const std::vector<pep::Requirement>& requirements,
                                     const std::string& purpose) = 0;
};

// The environment a backend runs with: `base` without what would let the user's setup leak
// into the build (every PYTHON* variable, PIP_*, VIRTUAL_ENV, __PYVENV_LAUNCHER__), then
// PYTHONPATH = the environment's site-packages (unset when there are none),
// PYTHONNOUSERSITE=1, PYTHONUNBUFFERED=1, PYTHONDONTWRITEBYTECODE=1, and the scripts folders in
// front of PATH. Compiler settings (CC, CFLAGS, CUDA_HOME, MAX_JOBS, ...) are kept: builds of
// native extensions need them.
util::Environment backend_environment(const util::Environment& base, const BuildEnvironment& env,
                                      bool windows = false);

}  // namespace aitk::build
