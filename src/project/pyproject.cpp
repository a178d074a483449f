// pyproject.toml → the Pyproject model: PEP 621 [project], PEP 735 [dependency-groups], the
// presence of [build-system], and uv's [tool.uv] (pyproject_uv.cpp).
#include "aitk/project/pyproject.hpp"

#include <algorithm>

#include "aitk/fs/input_file.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/utf8.hpp"
#include "pyproject_parts.hpp"
#include "pyproject_toml.hpp"

namespace aitk::project {

namespace {

using detail::TomlFile;

// [project]: what decides the environment; the other PEP 621 keys (description, authors,
// scripts, …) change nothing installed and are not looked at.
std::optional<InputProblem> read_project_table(const TomlFile& f, const toml::table& table,
                                               Pyproject& out) {
    out.has_project = true;
    if (const auto* node = table.get("name")) {
        auto name = f.name(*node, "project.name");
        if (!name) return std::move(name.error());
        // The lockfile is named after the project: lockfiles/<name>.lock.yml.
        if (auto problem = util::path_name_problem(*name)) {
            return InputProblem{f.at(*node), "project.name '" + *name + "': " + *problem,
                                std::string(util::path_name_rule)};
        }
        out.name = *name;
        out.name_where = f.at(*node);
    } else {
        return InputProblem{f.at(table), "[project] has no name",
                            "add name = \"your-project\" (PEP 621 requires it)"};
    }
    if (const auto* node = table.get("requires-python")) {
        auto text = f.string(*node, "project.requires-python");
        if (!text) return std::move(text.error());
        auto set = pep::SpecifierSet::parse(*text);
        if (!set) {
            return InputProblem{f.at(*node),
                                "project.requires-python '" + *text +
                                    "' is not a version specifier: " + set.error().describe(),
                                "write it as \">=3.10\" or \">=3.10,<3.14\""};
        }
        out.requires_python = *text;
    }
    if (const auto* node = table.get("dependencies")) {
        auto list = detail::read_requirement_list(f, *node, "project.dependencies");
        if (!list) return std::move(list.error());
        out.dependencies = std::move(*list);
    }
    if (const auto* node = table.get("optional-dependencies")) {
        std::optional<InputProblem> problem;
        const auto* extras = f.table(*node, "project.optional-dependencies", problem);
        if (!extras) return problem;
        for (const auto& [key, value] : *extras) {
            const std::string what = "project.optional-dependencies." + std::string(key.str());
            if (!pep::is_valid_name(key.str())) {
                return InputProblem{f.at(key),
                                    "extra '" + std::string(key.str()) + "' is not a valid name",
                                    "extras are named like projects (PEP 685)"};
            }
            const std::string extra = pep::canonicalize_name(key.str());
            if (out.optional_dependencies.count(extra)) {
                return InputProblem{f.at(key),
                                    "extra '" + std::string(key.str()) +
                                        "' is listed twice (names are compared normalised)",
                                    "merge the two lists"};
            }
            auto list = detail::read_requirement_list(f, value, what);
            if (!list) return std::move(list.error());
            out.optional_dependencies[extra] = std::move(*list);
            out.extra_where[extra] = f.at(key);
        }
    }
    if (const auto* node = table.get("dynamic")) {
        auto list = f.strings(*node, "project.dynamic");
        if (!list) return std::move(list.error());
        for (auto& [field, where] : *list)
            out.dynamic.push_back(std::move(field));
        out.dynamic_where = f.at(*node);
    }
    return std::nullopt;
}

// [dependency-groups] (PEP 735): lists of requirements and {include-group = "name"} tables.
std::optional<InputProblem> read_groups(const TomlFile& f, const toml::node& node, Pyproject& out) {
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, "dependency-groups", problem);
    if (!table) return problem;
    out.has_groups = true;
    for (const auto& [key, value] : *table) {
        if (!pep::is_valid_name(key.str())) {
            return InputProblem{
                f.at(key), "dependency group '" + std::string(key.str()) + "' is not a valid name",
                "groups are named like projects (PEP 735)"};
        }
        const std::string group = pep::canonicalize_name(key.str());
        if (out.groups.count(group)) {
            return InputProblem{f.at(key),
                                "dependency group '" + std::string(key.str()) +
                                    "' is listed twice (names are compared normalised)",
                                "merge the two lists"};
        }
        const std::string what = "dependency-groups." + std::string(key.str());
        const auto* array = value.as_array();
        if (array == nullptr) {
            return InputProblem{f.at(value), what + " is not an array",
                                "write " + std::string(key.str()) +
                                    " = [\"requirement\", {include-group = \"other\"}]"};
        }
        std::vector<DependencyGroupItem> items;
        for (const auto& element : *array) {
            DependencyGroupItem item;
            item.where = f.at(element);
            if (element.is_string()) {
                auto requirement = f.requirement(element, what);
                if (!requirement) return std::move(requirement.error());
                item.requirement = std::move(*requirement);
            } else if (const auto* include = element.as_table()) {
                if (auto unknown = f.unknown_key(*include, {"include-group"}, what + " entry"))
                    return unknown;
                const auto* name = include->get("include-group");
                if (name == nullptr) {
                    return InputProblem{item.where, what + ": a table entry needs include-group",
                                        "write {include-group = \"other-group\"}"};
                }
                auto included = f.name(*name, "include-group");
                if (!included) return std::move(included.error());
                item.include_group = *included;
            } else {
                return InputProblem{item.where,
                                    what +
                                        " holds something that is neither a requirement "
                                        "string nor an include-group table",
                                    "write \"name>=1.0\" or {include-group = \"other\"}"};
            }
            items.push_back(std::move(item));
        }
        out.groups[group] = std::move(items);
        out.group_where[group] = f.at(key);
    }
    return std::nullopt;
}

// [tool.aitk-env]: aitk-env's own settings for the project (today its glibc cap).
std::optional<InputProblem> read_aitk_settings(const TomlFile& f, const toml::node& node,
                                               Pyproject& out) {
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, "tool.aitk-env", problem);
    if (!table) return problem;
    if (auto unknown = f.unknown_key(*table, {"glibc"}, "tool.aitk-env")) {
        unknown->hint = "the key aitk-env reads there is glibc";
        return unknown;
    }
    if (const auto* glibc = table->get("glibc")) {
        const std::string hint =
            "write the newest glibc the Linux machines have, such as glibc = \"2.28\" (`ldd "
            "--version` prints it), or drop the key to take every manylinux level";
        auto text = f.string(*glibc, "tool.aitk-env.glibc");
        if (!text) {
            text.error().hint = hint;
            return std::move(text.error());
        }
        auto cap = parse_glibc_cap(*text);
        if (!cap) return InputProblem{f.at(*glibc), "tool.aitk-env." + cap.error(), hint};
        out.glibc = *cap;
        out.glibc_where = f.at(*glibc);
    }
    return std::nullopt;
}

}  // namespace

bool Pyproject::is_dynamic(std::string_view field) const {
    return std::find(dynamic.begin(), dynamic.end(), field) != dynamic.end();
}

bool Pyproject::installs_itself() const {
    return uv.package.value_or(has_build_system);
}

Loaded<Pyproject> parse_pyproject(std::string_view text, const std::filesystem::path& file,
                                  std::string label) {
    Pyproject out;
    out.file = file;
    out.label = label.empty() ? util::utf8_of(file) : std::move(label);
    TomlFile f(out.label);
    auto document = detail::parse_toml(text, out.label);
    if (!document) return util::Unexpected<InputProblem>(std::move(document.error()));

    if (const auto* node = document->get("project")) {
        std::optional<InputProblem> problem;
        const auto* table = f.table(*node, "project", problem);
        if (!table) return util::Unexpected<InputProblem>(std::move(*problem));
        if (auto p = read_project_table(f, *table, out))
            return util::Unexpected<InputProblem>(std::move(*p));
    }
    if (const auto* node = document->get("dependency-groups")) {
        if (auto p = read_groups(f, *node, out))
            return util::Unexpected<InputProblem>(std::move(*p));
    }
    out.has_build_system = document->get("build-system") != nullptr;
    if (const auto* tool = document->get("tool"); tool && tool->is_table()) {
        if (const auto* uv = tool->as_table()->get("uv")) {
            if (auto p = detail::read_uv_settings(f, *uv, out.uv))
                return util::Unexpected<InputProblem>(std::move(*p));
        }
        if (const auto* aitk = tool->as_table()->get("aitk-env")) {
            if (auto p = read_aitk_settings(f, *aitk, out))
                return util::Unexpected<InputProblem>(std::move(*p));
        }
    }
    return out;
}

Loaded<Pyproject> read_pyproject(const std::filesystem::path& file, std::string label) {
    if (label.empty()) label = util::utf8_of(file);
    auto text = fs::read_input_file(file, fs::pyproject_file);
    if (!text) {
        return util::input_problem(SourceLocation{label, 0, 0},
                                   "cannot read pyproject.toml: " + text.error(),
                                   "give the path of a project's pyproject.toml");
    }
    auto parsed = parse_pyproject(*text, file, label);
    if (!parsed && !fs::readable_by_everyone(file)) {
        // The message may quote the file; its place is what the user needs.
        parsed.error().message =
            "this value is not valid (its text is not shown: not everyone may read the file, so "
            "it stays private)";
        parsed.error().hint = "fix the file at that place";
    }
    return parsed;
}

}  // namespace aitk::project
