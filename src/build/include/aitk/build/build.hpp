#pragma once
// Source → wheel through PEP 517, in an environment the caller provides:
//   1. read [build-system] (build_system.hpp),
//   2. provider.prepare(requires),
//   3. get_requires_for_build_wheel; when it names more, provider.prepare(requires + those),
//   4. the hook (build_wheel, prepare_metadata_for_build_wheel, build_editable).
// Built wheels are cached by source id, interpreter and platform (wheel_cache.hpp).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "aitk/build/environment.hpp"
#include "aitk/build/hooks.hpp"
#include "aitk/build/source.hpp"
#include "aitk/build/wheel_cache.hpp"
#include "aitk/python/discovery.hpp"

namespace aitk::build {

struct BuildOptions {
    // What the backend's environment starts from (see backend_environment()); nullopt: this
    // process's environment.
    std::optional<util::Environment> environment;
    std::chrono::milliseconds timeout = std::chrono::hours(2);  // per hook
    ConfigSettings config_settings;
    // Scratch folders (unpacked sources, copies, driver files) are made in here; empty: the
    // system's temp folder. A failed build's scratch folder is kept for the reproduce command.
    std::filesystem::path work_dir;
    // Where the wheel is put when it is not cached (no `cache`, or a directory source). May be
    // empty for prepare_metadata (a fallback wheel is then dropped).
    std::filesystem::path output_dir;
    const BuiltWheelCache* cache = nullptr;  // nullptr: no cache
    // See HookCall::isolated. A build that is not isolated depends on what the interpreter has
    // installed, so it is not cached.
    bool isolated = true;
};

struct BuiltWheel {
    std::filesystem::path path;  // in the cache, or in output_dir
    bool from_cache = false;     // no backend ran
};

// Builds (or finds) the wheel of `source` for `interpreter`. The wheel's name is checked to be
// a valid wheel filename. Throws BuildError (backend failures, bad pyproject.toml, a wheel that
// was not written) and whatever the provider throws.
BuiltWheel build_wheel(const BuildSource& source, BuildEnvironmentProvider& provider,
                       const python::Interpreter& interpreter, const BuildOptions& options);

struct PreparedMetadata {
    std::string metadata;  // the METADATA text
    // True when prepare_metadata_for_build_wheel gave it; false when a wheel was built for it
    // (the backend lacks the hook) or a cached wheel had it.
    bool from_hook = false;
    // The wheel built (or found) on the way, when there is one to keep (cached or put in
    // output_dir).
    std::optional<std::filesystem::path> wheel;
};

// The core metadata the wheel of `source` will have. A cached wheel answers without running a
// backend; a wheel the fallback builds is stored like build_wheel's.
PreparedMetadata prepare_metadata(const BuildSource& source, BuildEnvironmentProvider& provider,
                                  const python::Interpreter& interpreter,
                                  const BuildOptions& options);

// An editable wheel (PEP 660) of a local project, into options.output_dir (never cached).
BuiltWheel build_editable(const std::filesystem::path& project, BuildEnvironmentProvider& provider,
                          const python::Interpreter& interpreter, const BuildOptions& options);

}  // namespace aitk::build
