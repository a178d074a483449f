#pragma once
// Helpers of the pyproject.toml reader's tests: parse a text, convert it, and look at the
// requirement lines that came out.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/project/pyproject.hpp"

namespace aitk::project::pyproject_test {

namespace fs = std::filesystem;

inline Pyproject parsed(std::string_view text, const fs::path& file = "/project/pyproject.toml") {
    auto p = parse_pyproject(text, file, "pyproject.toml");
    EXPECT_TRUE(p) << (p ? "" : p.error().describe());
    return p ? std::move(*p) : Pyproject{};
}

inline InputProblem parse_problem(std::string_view text) {
    auto p = parse_pyproject(text, "/project/pyproject.toml", "pyproject.toml");
    EXPECT_FALSE(p) << "expected a problem";
    return p ? InputProblem{} : p.error();
}

inline ProjectInput converted(const Pyproject& p, const PyprojectSelection& selection = {},
                              const pep::CoreMetadata* built = nullptr) {
    auto in = from_pyproject(p, selection, built);
    EXPECT_TRUE(in) << (in ? "" : in.error().describe());
    return in ? std::move(*in) : ProjectInput{};
}

inline InputProblem conversion_problem(const Pyproject& p, const PyprojectSelection& selection = {},
                                       const pep::CoreMetadata* built = nullptr) {
    auto in = from_pyproject(p, selection, built);
    EXPECT_FALSE(in) << "expected a problem";
    return in ? InputProblem{} : in.error();
}

// "file:///abs/path" as the reader writes a local folder (on Windows "file:///C:/…").
inline std::string file_url_of(const fs::path& path) {
    const auto generic = fs::absolute(path).lexically_normal().generic_string();
    return "file://" + std::string(generic.starts_with('/') ? "" : "/") + generic;
}

inline Target target(std::string_view id) {
    return *Target::parse(id);
}

// The requirement lines for `id`, as "text" (with "-e " for editable lines), in order.
inline std::vector<std::string> lines_for(const ProjectInput& in, std::string_view id) {
    std::vector<std::string> out;
    for (const auto* r : in.requirements_for(target(id)))
        out.push_back((r->line.editable ? "-e " : "") + r->line.text);
    return out;
}

inline bool has(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

inline std::vector<std::string> backends_on(const ProjectInput& in, std::string_view os,
                                            std::string_view arch) {
    std::vector<std::string> out;
    for (const auto* b : in.backends_for(os, arch))
        out.push_back(b->name);
    return out;
}

}  // namespace aitk::project::pyproject_test
