#pragma once
// Calling one PEP 517 hook: templates/pep517_driver.py (compiled in) runs in the given
// interpreter with the backend environment (environment.hpp), the project folder as working
// directory and a time limit. Everything the backend prints goes to a log file; a failure
// becomes a BuildError with the log's last lines and the command that reruns the hook.
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/build/build_system.hpp"
#include "aitk/build/environment.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::build {

enum class Hook {
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
    build_wheel,
    get_requires_for_build_editable,
    build_editable,
};

std::string_view to_string(Hook hook) noexcept;

using ConfigSettings = std::map<std::string, std::string>;

// The driver's text (templates/pep517_driver.py).
std::string_view driver_script();

struct HookCall {
    Hook hook = Hook::build_wheel;
    std::filesystem::path project;  // the source tree; the working directory of the backend
    BuildSystem build_system;
    BuildEnvironment environment;
    ConfigSettings config_settings;
    // build_wheel / build_editable: where the wheel goes. prepare_metadata_for_build_wheel:
    // where a wheel built by the fallback (no such hook) goes.
    std::filesystem::path wheel_directory;
    // prepare_metadata_for_build_wheel: where the .dist-info folder goes. build_*: the folder
    // an earlier prepare_metadata_for_build_wheel filled (optional).
    std::filesystem::path metadata_directory;
    std::string label;  // what is being built, for messages ("foo-1.0.tar.gz")
    // The interpreter's own site-packages (and the user's) are taken off sys.path, so only the
    // build environment provides packages (pip's build isolation). False: they stay visible,
    // like pip's --no-build-isolation (a CUDA extension building against the installed torch).
    bool isolated = true;
};

struct HookRunner {
    std::filesystem::path python;  // the interpreter the wheel is for
    // What the backend environment starts from (see backend_environment()); nullopt: this
    // process's environment.
    std::optional<util::Environment> environment;
    std::chrono::milliseconds timeout = std::chrono::hours(2);
    // A fresh folder for the driver, its request, result and log is made in here for each
    // call (empty: the system's temp folder). It is removed after success and kept after a
    // failure, so that the reproduce command works.
    std::filesystem::path work_dir;
    std::size_t tail_lines = 30;  // lines of output a BuildError shows
};

struct HookResult {
    // get_requires_*: the extra requirements, as the backend wrote them.
    std::vector<std::string> requirements;
    // build_*: the wheel's file name in wheel_directory. prepare_metadata_for_build_wheel: the
    // .dist-info folder's name in metadata_directory.
    std::string name;
    // The backend lacks the hook and the PEP 517 fallback was used (get_requires_*: no extra
    // requirements; prepare_metadata_for_build_wheel: a wheel was built, see `fallback_wheel`).
    bool hook_missing = false;
    // prepare_metadata_for_build_wheel through the fallback: the wheel's file name in
    // wheel_directory.
    std::string fallback_wheel;
    std::string output;  // what the backend printed (the log's last 64 KiB)
};

// Runs the hook. Throws BuildError when the interpreter cannot start, the backend cannot be
// imported, the hook raises, returns something invalid, or runs past the timeout.
HookResult run_hook(const HookRunner& runner, const HookCall& call);

// Quotes `argument` for a POSIX shell (single quotes unless it is plainly safe).
std::string shell_quote(std::string_view argument);

}  // namespace aitk::build
