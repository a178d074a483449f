// A pyproject.toml requirement with uv's [tool.uv.sources] applied, as uv lowers it: the sources
// that apply to the table it is declared in, each on the platforms its marker covers, and the
// plain requirement on the rest.
#include <algorithm>
#include <system_error>

#include "aitk/pep/name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "pyproject_convert.hpp"
#include "requirements_entry.hpp"

namespace aitk::project::detail {

namespace {

// "*" and "?" in one path component (uv's workspace globs); "**" is refused by the caller.
bool wildcard_match(std::string_view pattern, std::string_view text) {
    if (pattern.empty()) return text.empty();
    if (pattern.front() == '*') {
        for (std::size_t i = 0; i <= text.size(); ++i) {
            if (wildcard_match(pattern.substr(1), text.substr(i))) return true;
        }
        return false;
    }
    if (text.empty()) return false;
    if (pattern.front() != '?' && pattern.front() != text.front()) return false;
    return wildcard_match(pattern.substr(1), text.substr(1));
}

// The folders `pattern` (relative to `dir`, '/'-separated) names.
std::vector<std::filesystem::path> glob_folders(const std::filesystem::path& dir,
                                                std::string_view pattern) {
    std::vector<std::filesystem::path> current{dir};
    for (auto part : util::split(pattern, '/')) {
        if (part.empty() || part == ".") continue;
        std::vector<std::filesystem::path> next;
        for (const auto& folder : current) {
            if (part.find_first_of("*?") == std::string_view::npos) {
                next.push_back(folder / std::string(part));
                continue;
            }
            std::error_code ec;
            for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
                 it.increment(ec)) {
                if (it->is_directory(ec) &&
                    wildcard_match(part, util::utf8_of(it->path().filename()))) {
                    next.push_back(it->path());
                }
            }
        }
        std::sort(next.begin(), next.end());
        current = std::move(next);
    }
    return current;
}

std::string git_url(const UvSource& s) {
    std::string url = s.location.starts_with("git+") ? s.location : "git+" + s.location;
    const std::string& revision = !s.rev.empty() ? s.rev : !s.tag.empty() ? s.tag : s.branch;
    if (!revision.empty()) url += "@" + revision;
    if (!s.subdirectory.empty()) url += "#subdirectory=" + s.subdirectory;
    return url;
}

// "name[extras] @ url ; marker" for the requirement the source replaces.
std::string url_requirement(const pep::Requirement& requirement, const std::string& url) {
    std::string text = requirement.name();
    if (!requirement.extras().empty()) text += "[" + util::join(requirement.extras(), ",") + "]";
    text += " @ " + url;
    if (requirement.marker()) text += " ; " + requirement.marker()->to_string();
    return text;
}

// The URL a source stands for, and whether it is installed editable.
struct SourceUrl {
    std::string url;
    bool editable = false;
};

Loaded<SourceUrl> source_url(const PyprojectContext& c,
                             const std::map<std::string, std::filesystem::path>& members,
                             const std::string& package, const UvSource& s) {
    switch (s.kind) {
        case UvSourceKind::git:
            return SourceUrl{git_url(s), false};
        case UvSourceKind::url:
            return SourceUrl{s.subdirectory.empty()
                                 ? s.location
                                 : s.location + "#subdirectory=" + s.subdirectory,
                             false};
        case UvSourceKind::path: {
            auto path = join_relative(c.dir, util::path_from_utf8(s.location));
            std::error_code ec;
            if (!std::filesystem::exists(path, ec)) {
                return util::input_problem(
                    s.where,
                    "tool.uv.sources." + package + ": the path " + s.location + " does not exist",
                    "paths are taken from the folder of pyproject.toml");
            }
            if (s.package && !*s.package) {
                return util::input_problem(
                    s.where,
                    "tool.uv.sources." + package +
                        ": package = false (install only its dependencies) is not supported",
                    "install the package itself, or list its dependencies in the project");
            }
            const bool folder = std::filesystem::is_directory(path, ec);
            return SourceUrl{path_to_file_url(path), folder && s.editable.value_or(false)};
        }
        case UvSourceKind::workspace: {
            auto it = members.find(package);
            if (it == members.end()) {
                return util::input_problem(
                    s.where,
                    "tool.uv.sources." + package +
                        " is a workspace member, but no member of tool.uv.workspace is named " +
                        package,
                    "list its folder in [tool.uv.workspace] members");
            }
            return SourceUrl{path_to_file_url(it->second), s.editable.value_or(true)};
        }
        case UvSourceKind::index:
            break;
    }
    return SourceUrl{};
}

Loaded<RequirementLine> make_line(const std::string& text, const SourceLocation& where,
                                  const std::filesystem::path& dir, bool editable) {
    auto line = parse_requirement_line(text, where, dir);
    if (!line) return line;
    line->editable = editable;
    return line;
}

}  // namespace

std::vector<const UvSource*> PyprojectContext::sources_for(const std::string& package,
                                                           std::string_view extra,
                                                           std::string_view group) const {
    std::vector<const UvSource*> out;
    const auto& uv = project.uv;
    if (uv.no_sources || std::find(uv.no_sources_packages.begin(), uv.no_sources_packages.end(),
                                   package) != uv.no_sources_packages.end()) {
        return out;
    }
    auto it = uv.sources.find(package);
    if (it == uv.sources.end()) return out;
    for (const auto& s : it->second) {
        if (!s.extra.empty() && s.extra != extra) continue;
        if (!s.group.empty() && s.group != group) continue;
        out.push_back(&s);
    }
    return out;
}

std::string PyprojectContext::where_text(const SourceLocation& where) const {
    return where.file + (where.line ? ":" + std::to_string(where.line) : std::string());
}

std::vector<Applicability> restrict_to(const std::vector<Applicability>& when,
                                       const PlatformSet& platforms) {
    std::vector<Applicability> out;
    const auto& every = every_platform();
    for (const auto& a : when) {
        PlatformSet covered;
        for (std::size_t i = 0; i < every.size(); ++i)
            covered[i] = a.applies(every[i].os, every[i].arch, {});
        for (auto& narrowed : applicabilities(covered & platforms, a.backends))
            out.push_back(std::move(narrowed));
    }
    return out;
}

Loaded<std::map<std::string, std::filesystem::path>> workspace_members(const PyprojectContext& c) {
    std::map<std::string, std::filesystem::path> out;
    const auto& uv = c.project.uv;
    std::vector<std::filesystem::path> excluded;
    for (const auto& pattern : uv.workspace_exclude) {
        for (auto& folder : glob_folders(c.dir, pattern))
            excluded.push_back(folder.lexically_normal());
    }
    for (const auto& pattern : uv.workspace_members) {
        if (pattern.find("**") != std::string::npos || pattern.starts_with("/") ||
            pattern.find("..") != std::string::npos) {
            return util::input_problem(uv.workspace_where,
                                       "workspace member pattern '" + pattern +
                                           "' is not supported (only * and ? inside the "
                                           "project's folder)",
                                       "list the members' folders");
        }
        for (const auto& folder : glob_folders(c.dir, pattern)) {
            std::error_code ec;
            const auto file = folder / "pyproject.toml";
            if (!std::filesystem::is_regular_file(file, ec) ||
                std::find(excluded.begin(), excluded.end(), folder.lexically_normal()) !=
                    excluded.end()) {
                continue;
            }
            auto member = read_pyproject(file);
            if (!member) return util::Unexpected<InputProblem>(std::move(member.error()));
            if (!member->has_project) continue;
            if (!member->uv.sources.empty()) {
                // Its sources would apply to its own dependencies, which aitk-env reads from
                // its built metadata by name.
                return util::input_problem(
                    member->uv.sources.begin()->second.front().where,
                    "workspace member " + member->name +
                        " declares its own [tool.uv.sources], which aitk-env does not apply to "
                        "its dependencies",
                    "move the sources into the workspace root's pyproject.toml");
            }
            out[member->name] = folder;
        }
    }
    return out;
}

std::optional<InputProblem> add_with_sources(
    const PyprojectContext& c, const BackendPlan& plan,
    const std::map<std::string, std::filesystem::path>& members,
    const PyprojectRequirement& requirement, std::string_view extra, std::string_view group,
    const std::vector<Applicability>& when, std::vector<InputRequirement>& out) {
    const std::string name = requirement.requirement.canonical_name();
    const std::string plain_text = requirement.requirement.to_string();
    auto add = [&](const std::string& text, bool editable,
                   const std::vector<Applicability>& where) -> std::optional<InputProblem> {
        if (where.empty()) return std::nullopt;
        auto line = make_line(text, requirement.where, c.dir, editable);
        if (!line) return std::move(line.error());
        for (const auto& a : where)
            out.push_back({*line, a});
        return std::nullopt;
    };
    PlatformSet remaining = all_platforms();
    PlatformSet plain;  // where an index source leaves the requirement as written
    for (const UvSource* s : c.sources_for(name, extra, group)) {
        PlatformSet platforms = all_platforms();
        if (s->marker) {
            auto covered = platforms_where(*s->marker);
            if (!covered) {
                return InputProblem{s->where,
                                    "tool.uv.sources." + name + ": the marker '" +
                                        s->marker->to_string() + "': " + covered.error(),
                                    "limit the source with sys_platform, platform_system and "
                                    "platform_machine only"};
            }
            platforms = *covered;
        }
        platforms &= remaining;  // an earlier entry already covers these
        remaining &= ~platforms;
        if (s->kind == UvSourceKind::index) {
            const UvIndex& index = *c.indexes.at(s->location);
            const bool follows_backend =
                std::find(plan.backend_index_packages.begin(), plan.backend_index_packages.end(),
                          name) != plan.backend_index_packages.end() ||
                name == "torch" || name == "torchvision" || name == "torchaudio";
            if (!follows_backend && !same_index_url(index.url, c.default_index_url)) {
                return InputProblem{
                    s->where,
                    name + " comes from its own index '" + s->location + "' (" +
                        util::redact_url(index.url) +
                        "): aitk-env takes every package from the project's indexes in order "
                        "and cannot pin one package to an index",
                    "remove the source (the package then comes from the indexes in order), or "
                    "make the index one of the project's indexes"};
            }
            plain |= platforms;
            continue;
        }
        auto url = source_url(c, members, name, *s);
        if (!url) return std::move(url.error());
        if (auto p = add(url_requirement(requirement.requirement, url->url), url->editable,
                         restrict_to(when, platforms))) {
            return p;
        }
    }
    return add(plain_text, false, restrict_to(when, plain | remaining));
}

}  // namespace aitk::project::detail
