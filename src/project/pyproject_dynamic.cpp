// A pyproject.toml's requirement lists: [project] dependencies and optional-dependencies as
// written, or, for the fields `dynamic` names, from the metadata the project's build backend
// made (PEP 517 prepare_metadata_for_build_wheel): Requires-Dist split by its extra markers.
#include "aitk/pep/name.hpp"
#include "pyproject_convert.hpp"

namespace aitk::project::detail {

namespace {

// `requirement` with every `extra == "<extra>"` made true for a root requirement (the resolver
// evaluates root markers with no extra set): `extra == ""`.
std::optional<pep::Requirement> without_extra_marker(const pep::Requirement& requirement,
                                                     const std::string& extra) {
    std::string text = requirement.to_string();
    for (const auto& c : requirement.marker()->comparisons()) {
        const bool left = c.lhs.variable == pep::MarkerVariable::extra && !c.rhs.is_variable() &&
                          pep::canonicalize_name(c.rhs.value) == extra;
        const bool right = c.rhs.variable == pep::MarkerVariable::extra && !c.lhs.is_variable() &&
                           pep::canonicalize_name(c.lhs.value) == extra;
        if (!left && !right) continue;
        const std::string op(pep::marker_op_string(c.op));
        const std::string replacement = left ? "extra " + op + " \"\"" : "\"\" " + op + " extra";
        const std::string original = c.to_string();
        for (auto at = text.find(original); at != std::string::npos;
             at = text.find(original, at + replacement.size())) {
            text.replace(at, original.size(), replacement);
        }
    }
    auto parsed = pep::Requirement::parse(text);
    if (!parsed) return std::nullopt;
    return std::move(*parsed);
}

}  // namespace

Loaded<RequirementTables> tables_of(const Pyproject& p, const PyprojectSelection& selection,
                                    const pep::CoreMetadata* built,
                                    std::vector<std::string>& notes) {
    RequirementTables t;
    t.dependencies = p.dependencies;
    t.extras = p.optional_dependencies;
    const bool dynamic_dependencies = p.is_dynamic("dependencies");
    const bool dynamic_extras = p.is_dynamic("optional-dependencies");
    if (!dynamic_dependencies && !dynamic_extras) return t;
    const std::string fields = dynamic_dependencies && dynamic_extras
                                   ? "'dependencies' and 'optional-dependencies'"
                               : dynamic_dependencies ? "'dependencies'"
                                                      : "'optional-dependencies'";
    if (built == nullptr) {
        if (selection.dynamic_may_stay_unread) {
            notes.push_back(p.label + ": project.dynamic lists " + fields +
                            ", which only the build backend knows; they are not read here");
            return t;
        }
        return util::input_problem(
            p.dynamic_where,
            "project.dynamic lists " + fields +
                ": they are known only to the project's build backend (PEP 517 "
                "prepare_metadata_for_build_wheel), which --no-build does not run",
            "drop --no-build so that aitk-env asks the backend, or list them in [project]");
    }
    for (const auto& text : built->requires_dist) {
        auto requirement = pep::Requirement::parse(text);
        if (!requirement) {
            return util::input_problem(p.dynamic_where,
                                       "the build backend's metadata holds an invalid "
                                       "Requires-Dist '" +
                                           text + "': " + requirement.error().describe(),
                                       "report it to the project");
        }
        const auto& marker = requirement->marker();
        if (!marker || !marker->mentions_extra()) {
            if (dynamic_dependencies) t.dependencies.push_back({p.dynamic_where, *requirement});
            continue;
        }
        if (!dynamic_extras) continue;
        for (const auto& extra : marker->referenced_extras()) {
            auto stripped = without_extra_marker(*requirement, extra);
            if (stripped) t.extras[extra].push_back({p.dynamic_where, std::move(*stripped)});
        }
    }
    if (dynamic_extras) {
        for (const auto& extra : built->provides_extra)
            t.extras[pep::canonicalize_name(extra)];
    }
    return t;
}

}  // namespace aitk::project::detail
