#include "aitk/build/environment.hpp"

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::build {
namespace {

// Set by a running venv or by the user; in a build they would point Python at the wrong place
// (PYTHONHOME, PYTHONPATH, PYTHONSTARTUP, PYTHONUSERBASE, ...) or change what pip-calling
// backends do (PIP_*).
bool leaks_into_build(std::string_view name) {
    return util::istarts_with(name, "PYTHON") || util::istarts_with(name, "PIP_") ||
           util::iequals(name, "VIRTUAL_ENV") || util::iequals(name, "__PYVENV_LAUNCHER__");
}

std::string join_paths(const std::vector<std::filesystem::path>& paths, char separator) {
    std::string joined;
    for (const auto& path : paths) {
        if (!joined.empty()) joined += separator;
        joined += util::utf8_of(path);
    }
    return joined;
}

}  // namespace

util::Environment backend_environment(const util::Environment& base, const BuildEnvironment& env,
                                      bool windows) {
    const char separator = windows ? ';' : ':';
    util::Environment out;
    for (const auto& [name, value] : base) {
        if (!leaks_into_build(name)) out.emplace(name, value);
    }
    if (!env.site_packages.empty()) out["PYTHONPATH"] = join_paths(env.site_packages, separator);
    out["PYTHONNOUSERSITE"] = "1";
    out["PYTHONUNBUFFERED"] = "1";
    // Build environments may be shared cache folders: nothing of a build should be written there.
    out["PYTHONDONTWRITEBYTECODE"] = "1";
    if (!env.scripts.empty()) {
        std::string path_name = "PATH";
        std::string path_value;
        for (const auto& [name, value] : out) {
            if (windows ? util::iequals(name, "PATH") : name == "PATH") {
                path_name = name;
                path_value = value;
            }
        }
        std::string scripts = join_paths(env.scripts, separator);
        out[path_name] = path_value.empty() ? scripts : scripts + separator + path_value;
    }
    return out;
}

}  // namespace aitk::build
