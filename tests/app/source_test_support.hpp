#pragma once
// Source packages for the app layer's lock and build tests: projects using the build layer's
// tiny in-tree PEP 517 backend (build_test_support.hpp) with dependencies and an imported build
// requirement, sdists of them published on a local mirror, and git repositories made on the
// spot.
#include <filesystem>
#include <string>
#include <vector>

#include "../build/build_test_support.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/util/strings.hpp"
#include "mirror_builder.hpp"

namespace aitk::app::source_test {

namespace stdfs = std::filesystem;
using build::test::BackendSpec;

struct SourceProject {
    BackendSpec backend;
    std::vector<std::string> requires_dist;  // in the METADATA the backend writes
    std::string build_requires = "[]";       // [build-system] requires, TOML
    // A module the backend imports before any hook: it must come from the build environment.
    std::string import_module;
    bool editable_hook = false;  // a build_editable hook (it builds the regular wheel)
};

inline std::string backend_text(const SourceProject& project) {
    std::string text = build::test::backend_source(project.backend);
    std::string requires_lines;
    for (const auto& r : project.requires_dist)
        requires_lines += "Requires-Dist: " + r + "\\n";
    const std::string summary = "\\nSummary: built by the test backend\\n\"";
    auto at = text.find(summary);
    if (at != std::string::npos) {
        text.insert(at + summary.size() - 1, requires_lines);
    }
    if (!project.import_module.empty()) text = "import " + project.import_module + "\n" + text;
    if (project.editable_hook) {
        text +=
            "\n\ndef build_editable(wheel_directory, config_settings=None, "
            "metadata_directory=None):\n"
            "    _mark(\"build_editable\")\n"
            "    return build_wheel(wheel_directory, config_settings, metadata_directory)\n";
    }
    return text;
}

inline std::string pyproject_text(const SourceProject& project) {
    return "[build-system]\nrequires = " + project.build_requires +
           "\nbuild-backend = \"testbackend\"\nbackend-path = [\"backend\"]\n";
}

inline void write_project(const stdfs::path& dir, const SourceProject& project) {
    build::test::write_file(dir / "pyproject.toml", pyproject_text(project));
    build::test::write_file(dir / "backend" / "testbackend.py", backend_text(project));
}

// An sdist "<name>-<version>.tar.gz" of `project` in `out_dir` with the given PKG-INFO.
inline stdfs::path write_sdist(const stdfs::path& out_dir, const SourceProject& project,
                               const std::string& pkg_info) {
    const std::string top = project.backend.name + "-" + project.backend.version + "/";
    std::vector<archive::WriteEntry> entries;
    entries.push_back(archive::WriteEntry::file(top + "PKG-INFO", pkg_info));
    entries.push_back(archive::WriteEntry::file(top + "pyproject.toml", pyproject_text(project)));
    entries.push_back(
        archive::WriteEntry::file(top + "backend/testbackend.py", backend_text(project)));
    stdfs::create_directories(out_dir);
    auto path = out_dir / (project.backend.name + "-" + project.backend.version + ".tar.gz");
    archive::write_archive(path, archive::Format::tar_gz, std::move(entries));
    return path;
}

inline std::string pkg_info(const std::string& metadata_version, const std::string& name,
                            const std::string& version,
                            const std::vector<std::string>& requires_dist,
                            const std::vector<std::string>& dynamic = {}) {
    std::string text = "Metadata-Version: " + metadata_version + "\nName: " + name +
                       "\nVersion: " + version + "\n";
    for (const auto& d : dynamic)
        text += "Dynamic: " + d + "\n";
    for (const auto& r : requires_dist)
        text += "Requires-Dist: " + r + "\n";
    return text;
}

// A git repository at `dir` holding `project` on branch main; returns the commit.
inline std::string make_repository(const stdfs::path& dir, const SourceProject& project) {
    stdfs::create_directories(dir);
    build::test::git(dir, {"init", "-q", "-b", "main"});
    write_project(dir, project);
    build::test::git(dir, {"add", "-A"});
    build::test::git(dir, {"commit", "-q", "-m", "first"});
    return build::test::git(dir, {"rev-parse", "HEAD"});
}

// Commits `project` again (another version, say) on the current branch; returns the commit.
inline std::string commit_again(const stdfs::path& dir, const SourceProject& project) {
    write_project(dir, project);
    build::test::git(dir, {"add", "-A"});
    build::test::git(dir, {"commit", "-q", "-m", "again"});
    return build::test::git(dir, {"rev-parse", "HEAD"});
}

inline std::size_t count_lines_starting(const stdfs::path& marker, const std::string& prefix) {
    std::error_code ec;
    if (!stdfs::exists(marker, ec)) return 0;
    std::size_t n = 0;
    for (const auto& line : build::test::lines_of(build::test::read_file_or_empty(marker))) {
        if (line.starts_with(prefix)) ++n;
    }
    return n;
}

}  // namespace aitk::app::source_test
