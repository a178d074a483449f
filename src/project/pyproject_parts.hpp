#pragma once
// The pieces of the pyproject reader that share the TOML helpers. Private to the project layer.
#include <optional>
#include <string_view>
#include <vector>

#include "aitk/project/pyproject.hpp"
#include "pyproject_toml.hpp"

namespace aitk::project::detail {

// An array of PEP 508 strings (project.dependencies, an extra, an override list).
Loaded<std::vector<PyprojectRequirement>> read_requirement_list(const TomlFile& f,
                                                                const toml::node& node,
                                                                std::string_view what);

// [tool.uv] into `out` (pyproject_uv.cpp).
std::optional<InputProblem> read_uv_settings(const TomlFile& f, const toml::node& node,
                                             UvSettings& out);

}  // namespace aitk::project::detail
