#include "lock_project.hpp"

#include "aitk/app/index_routing.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/app/source_metadata.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app::lock_detail {

namespace {

// "cu130, cu128 (extra 'cu128' of pyproject.toml:20), …": the backends the input lists here.
std::string offered(const project::ProjectInput& input, std::string_view os,
                    std::string_view arch) {
    std::vector<std::string> names;
    for (const auto* b : input.backends_for(os, arch))
        names.push_back(b->name + (b->note.empty() ? "" : " (" + b->note + ")"));
    return util::join(names, ", ");
}

}  // namespace

ProjectMetadataReader project_metadata_reader(Session& session, const LockRequest& request,
                                              const std::string& python) {
    return [&session, &request, python](const std::filesystem::path& project_dir) {
        SourceInspectorSettings settings;
        RoutingDefaults defaults;
        defaults.index_url = "https://pypi.org/simple";
        settings.routing = routing_from_settings(request.indexes, {}, defaults);
        settings.python = python;
        settings.interpreter = request.sources.interpreter;
        settings.discovery = discovery_options(session);
        settings.environment = request.sources.build_environment;
        settings.timeout = request.sources.timeout;
        settings.git = request.sources.git;
        HostSourceInspector inspector(session, std::move(settings));
        return inspector.directory(util::utf8_of(project_dir.filename()), project_dir).metadata;
    };
}

void check_named_target(const project::ProjectInput& input, const project::Target& target) {
    const std::string platform = target.os + "-" + target.arch;
    if (!input.allows_platform(target.os, target.arch)) {
        throw util::InputError("--target " + target.id() + ": " + input.name +
                                   " is locked only for some platforms (" + input.platforms_by +
                                   "), and " + platform + " is not one of them",
                               "lock it for a platform its environments allow");
    }
    if (input.selected_backend && target.backend != *input.selected_backend) {
        throw util::InputError(
            "--target " + target.id() + " has the backend " + target.backend + ", but " +
                input.selected_backend_by + " takes torch from " + *input.selected_backend,
            "drop the --extra or --group, or lock a " + *input.selected_backend + " target");
    }
    if (!input.only_listed_backends || input.backends_for(target.os, target.arch).empty() ||
        backend_note(input, target)) {
        return;
    }
    throw util::InputError(
        "--target " + target.id() + ": " + input.name + " takes torch on " + platform +
            " only from " + offered(input, target.os, target.arch),
        "lock one of those backends, or add a source for " + target.backend + " to the project");
}

std::optional<std::string> backend_note(const project::ProjectInput& input,
                                        const project::Target& target) {
    if (!input.only_listed_backends) return std::nullopt;
    for (const auto* b : input.backends_for(target.os, target.arch)) {
        if (b->name == target.backend) {
            return "backend " + b->name + (b->note.empty() ? "" : ": " + b->note);
        }
    }
    return std::nullopt;
}

}  // namespace aitk::app::lock_detail
