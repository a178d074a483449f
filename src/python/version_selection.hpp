#pragma once
// Internal to the python layer: where pyenv, asdf and mise keep their data, and which versions
// pyenv and asdf select, read from their files and environment variables the way they do (so
// that what a shim would run is known without running it).
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/python/discovery.hpp"

namespace aitk::python::detail {

// options.pyenv_root, else <home>/.pyenv; empty when neither is known.
std::filesystem::path pyenv_root(const DiscoveryOptions& options);
// ASDF_DATA_DIR, else <home>/.asdf.
std::filesystem::path asdf_root(const DiscoveryOptions& options);
// MISE_DATA_DIR, else $XDG_DATA_HOME/mise, else <home>/.local/share/mise.
std::filesystem::path mise_root(const DiscoveryOptions& options);

// The versions pyenv selects, as pyenv-version-name does: PYENV_VERSION, else the first
// .python-version from PYENV_DIR / the working folder upwards, else <root>/version. Each name is
// resolved to an installed version ("3.12" → the newest 3.12.x installed, "python-3.12.1" →
// "3.12.1"); names not installed are dropped (their shims would fail), "system" is kept.
// Nothing selected at all reads as {"system"}.
std::vector<std::string> pyenv_selected_versions(const std::filesystem::path& root,
                                                 const DiscoveryOptions& options);

// The python versions asdf selects: ASDF_PYTHON_VERSION, else the "python" line of the nearest
// .tool-versions (ASDF_DEFAULT_TOOL_VERSIONS_FILENAME) from the working folder upwards, else of
// the one in home. Versions not installed under <root>/installs/python are dropped, "system" is
// kept; nothing selected is empty (asdf's shims then refuse to run).
std::vector<std::string> asdf_selected_versions(const std::filesystem::path& root,
                                                const DiscoveryOptions& options);

}  // namespace aitk::python::detail
