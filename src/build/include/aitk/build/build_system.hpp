#pragma once
// The [build-system] table of pyproject.toml (PEP 517 / PEP 518): which requirements the build
// needs and which backend runs it. Pure parsing; read_build_system() only reads the file.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/requirement.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::build {

struct BuildSystem {
    std::vector<pep::Requirement> requirements;  // `requires`
    std::string backend;                         // `build-backend`: "module.path[:object.path]"
    // `backend-path`: folders relative to the project, '/'-separated and normalised.
    std::vector<std::string> backend_path;
    // False when the project declares nothing (no pyproject.toml, or no [build-system] table)
    // and the legacy setuptools default applies.
    bool declared = false;

    // What pip assumes for a project without a [build-system] table:
    // requires ["setuptools>=40.8.0"], backend "setuptools.build_meta:__legacy__".
    static BuildSystem legacy_default();
};

inline constexpr std::string_view legacy_backend = "setuptools.build_meta:__legacy__";

// Parses pyproject.toml text; `file` names it in problems ("<dir>/pyproject.toml:3:12: ...").
// Problems: TOML syntax, [build-system] without `requires`, a requirement that is not PEP 508,
// a malformed `build-backend`, a `backend-path` entry that is absolute or leaves the project.
// A table without `build-backend` gets the legacy backend with the declared requirements.
util::Loaded<BuildSystem> parse_build_system(std::string_view toml_text, std::string_view file);

// The build system of the project in `project_dir`: its pyproject.toml, or the legacy default
// when there is none. Throws util::Error when the file exists but cannot be read.
util::Loaded<BuildSystem> read_build_system(const std::filesystem::path& project_dir);

}  // namespace aitk::build
