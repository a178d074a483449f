// The manifest's requirement lists: `requirements`, `extra_requirements` and
// `project_requirement_files`. Each item is one line of a requirements file.
#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"
#include "manifest_sections.hpp"

namespace aitk::project::detail {

namespace {

const char* const kIncludeHint =
    "list requirement files under project_requirement_files and pass --project DIR";

// "-r file", "-rfile", "--requirement=file", and the same for constraints.
bool is_include(std::string_view line) {
    for (std::string_view long_form : {"--requirement", "--constraint"}) {
        if (line.substr(0, long_form.size()) == long_form) {
            std::string_view rest = line.substr(long_form.size());
            if (rest.empty() || rest.front() == '=' || util::is_ascii_space(rest.front()))
                return true;
        }
    }
    return line.size() >= 2 && line[0] == '-' && (line[1] == 'r' || line[1] == 'c');
}

bool is_absolute_anywhere(std::string_view p) {
    if (!p.empty() && (p.front() == '/' || p.front() == '\\')) return true;
    return p.size() >= 2 && util::is_ascii_alpha(p[0]) && p[1] == ':';  // C:\ or C:
}

}  // namespace

Loaded<RequirementsFile> parse_manifest_line(const ManifestRequirement& requirement,
                                             const RequirementsReadOptions& options) {
    if (is_include(requirement.text)) {
        return util::input_problem(
            requirement.where, "a manifest requirement cannot include another file", kIncludeHint);
    }
    RequirementsReadOptions line_options;
    line_options.environment = options.environment;
    line_options.read =
        [](const std::filesystem::path&) -> util::Expected<std::string, std::string> {
        return util::Unexpected<std::string>(
            std::string("a manifest requirement cannot include another file"));
    };
    auto parsed = parse_requirements_text(requirement.text, requirement.where.file, line_options);
    if (!parsed) {
        InputProblem problem = std::move(parsed.error());
        util::SourceLocation where = requirement.where;
        if (where.column != 0 && problem.where.line <= 1 && problem.where.column != 0)
            where.column += problem.where.column - 1;
        problem.where = std::move(where);
        return util::Unexpected<InputProblem>(std::move(problem));
    }
    for (auto& line : parsed->requirements)
        line.where = requirement.where;
    for (auto& line : parsed->constraints)
        line.where = requirement.where;
    return parsed;
}

std::vector<ManifestRequirement> read_requirement_lines(const ManifestYaml& y,
                                                        const YAML::Node& node,
                                                        const std::string& path,
                                                        const Applicability& when,
                                                        const TorchSpec& torch) {
    std::vector<ManifestRequirement> out;
    if (!node.IsDefined()) return out;
    y.sequence(node, path, "write one requirement line per list item");
    out.reserve(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node item = node[i];
        const std::string ipath = item_path(path, i);
        std::string hint = "write one requirement per item, such as \"numpy>=1.26\"";
        if (item.IsMap() && path == "requirements")
            hint += "; per-OS requirements go under extra_requirements";
        const std::string& raw = y.string(item, ipath, hint);
        ManifestRequirement r;
        r.where = y.text_location(item);
        const std::string_view text = util::trim(raw);
        if (text.empty()) y.fail(item, ipath, "empty requirement", hint);
        if (text.find('\n') != std::string_view::npos) {
            y.fail(item, ipath, "a requirement item must be one line",
                   "split it into one list item per requirement");
        }
        if (text.front() == '#') y.fail(item, ipath, "the item is only a comment", hint);
        // Quoted text may start with spaces; columns count from the requirement itself.
        if (r.where.column != 0) {
            std::size_t lead = static_cast<std::size_t>(text.data() - raw.data());
            if (raw.find('\n') == std::string::npos) r.where.column += lead;
        }
        r.text = std::string(text);
        r.when = when;
        auto parsed = parse_manifest_line(r, {});
        if (!parsed) {
            InputProblem problem = std::move(parsed.error());
            problem.message = ipath + ": " + problem.message;
            throw ManifestFailure{std::move(problem)};
        }
        if (parsed->requirements.empty() && parsed->constraints.empty() && text.front() != '-')
            y.fail(item, ipath, "the item holds no requirement", hint);
        for (const auto& line : parsed->requirements) {
            if (!line.requirement) continue;
            std::string name = pep::canonicalize_name(line.requirement->name());
            if (torch.packages.count(name)) {
                y.fail(item, ipath,
                       util::double_quoted(name) + " is pinned by the torch section (" + name +
                           torch.packages.at(name) + ")",
                       name == "torch" ? "remove this line, or change torch.version"
                                       : "remove this line, or change torch.packages");
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<ManifestRequirement> read_extra_requirements(const ManifestYaml& y,
                                                         const YAML::Node& node,
                                                         const TorchSpec& torch) {
    std::vector<ManifestRequirement> out;
    y.sequence(node, "extra_requirements",
               "write a list of groups such as - {os: [windows], requirements: [pkg]}");
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node group = node[i];
        const std::string path = item_path("extra_requirements", i);
        y.mapping(group, path, "write a group such as {os: [windows], requirements: [pkg]}");
        y.expect_keys(group, path, {"os", "arch", "backends", "requirements"});
        Applicability when = read_applicability(y, group, path, true);
        YAML::Node lines = ManifestYaml::get(group, "requirements");
        if (!lines.IsDefined()) {
            y.fail(group, path, "missing key \"requirements\"",
                   "list the requirement lines this group adds");
        }
        auto group_lines =
            read_requirement_lines(y, lines, key_path(path, "requirements"), when, torch);
        for (auto& r : group_lines)
            out.push_back(std::move(r));
    }
    return out;
}

std::vector<std::string> read_project_files(const ManifestYaml& y, const YAML::Node& node) {
    const std::string path = "project_requirement_files";
    std::vector<std::string> files =
        y.string_list(node, path, "write paths relative to the project directory");
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (util::trim(files[i]).empty())
            y.fail(node[i], item_path(path, i), "empty path",
                   "write a path such as requirements.txt");
        if (is_absolute_anywhere(files[i])) {
            y.fail(node[i], item_path(path, i),
                   util::double_quoted(files[i]) + " is an absolute path",
                   "write it relative to the project directory given with --project");
        }
    }
    return files;
}

}  // namespace aitk::project::detail
