// Every input kind turned into one ProjectInput: a manifest (inline requirements or a project
// checkout's files), a requirements file, or an imported conda environment.
#include "aitk/project/project_input.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/utf8.hpp"
#include "input_render.hpp"
#include "manifest_sections.hpp"

namespace aitk::project {

namespace {

using Reader =
    std::function<util::Expected<std::string, std::string>(const std::filesystem::path&)>;

template <class T>
void append_unique(std::vector<T>& into, const std::vector<T>& from) {
    for (const auto& v : from) {
        if (std::find(into.begin(), into.end(), v) == into.end()) into.push_back(v);
    }
}

// Options of a later input on top of earlier ones, as pip reads options of several files: the
// last index URL wins, lists accumulate, switches stay on once set.
void merge_options(RequirementsOptions& into, const RequirementsOptions& from) {
    if (from.index_url) into.index_url = from.index_url;
    into.no_index = into.no_index || from.no_index;
    append_unique(into.extra_index_urls, from.extra_index_urls);
    append_unique(into.find_links, from.find_links);
    into.pre = into.pre || from.pre;
    into.only_binary.insert(into.only_binary.end(), from.only_binary.begin(),
                            from.only_binary.end());
    into.no_binary.insert(into.no_binary.end(), from.no_binary.begin(), from.no_binary.end());
    into.prefer_binary = into.prefer_binary || from.prefer_binary;
    into.require_hashes = into.require_hashes || from.require_hashes;
    append_unique(into.trusted_hosts, from.trusted_hosts);
}

void add_lines(std::vector<InputRequirement>& into, const std::vector<RequirementLine>& lines,
               const Applicability& when) {
    for (const auto& line : lines)
        into.push_back({line, when});
}

std::string render(const RequirementsFile& file) {
    return detail::render_lines(file.requirements, "") +
           detail::render_lines(file.constraints, "-c ") + detail::render_options(file.options);
}

}  // namespace

namespace detail {

// What the lock depends on in a requirements file: its lines after ${VAR} expansion and its
// options, in a fixed form (comments and layout do not count; text given in memory does).
std::string render_lines(const std::vector<RequirementLine>& lines, std::string_view prefix) {
    std::string out;
    for (const auto& line : lines) {
        out += prefix;
        if (line.editable) out += "-e ";
        out += line.text;
        for (const auto& h : line.hashes)
            out += " --hash=" + h;
        out += '\n';
    }
    return out;
}

std::string render_options(const RequirementsOptions& o) {
    std::string out;
    auto option = [&](std::string_view name, std::string_view value = {}) {
        out += name;
        if (!value.empty()) {
            out += ' ';
            out += value;
        }
        out += '\n';
    };
    if (o.index_url) option("--index-url", *o.index_url);
    if (o.no_index) option("--no-index");
    for (const auto& u : o.extra_index_urls)
        option("--extra-index-url", u);
    for (const auto& f : o.find_links)
        option("--find-links", f);
    if (o.pre) option("--pre");
    for (const auto& b : o.only_binary)
        option("--only-binary", b);
    for (const auto& b : o.no_binary)
        option("--no-binary", b);
    if (o.prefer_binary) option("--prefer-binary");
    if (o.require_hashes) option("--require-hashes");
    for (const auto& h : o.trusted_hosts)
        option("--trusted-host", h);
    return out;
}

namespace {

bool is_torch_family(std::string_view name) {
    return name == "torch" || name == "torchvision" || name == "torchaudio";
}

}  // namespace

// Unconditional plain torch/torchvision/torchaudio lines, so the backend choice knows the
// release; the lines stay in `requirements`, so adding these again changes nothing.
void copy_torch_pins(const std::vector<InputRequirement>& requirements,
                     std::map<std::string, std::string>& pins) {
    for (const auto& r : requirements) {
        const auto& req = r.line.requirement;
        if (!req || req->marker() || req->url() || !r.line.url.empty() || !r.when.everywhere())
            continue;
        std::string name = pep::canonicalize_name(req->name());
        if (!is_torch_family(name)) continue;
        std::string spec = req->specifier().to_string();
        auto [it, fresh] = pins.emplace(name, spec);
        if (!fresh && !spec.empty())
            it->second = it->second.empty() ? spec : it->second + "," + spec;
    }
}

}  // namespace detail

std::vector<const InputRequirement*> ProjectInput::requirements_for(const Target& target) const {
    std::vector<const InputRequirement*> out;
    out.reserve(requirements.size());
    for (const auto& r : requirements) {
        if (r.when.applies(target.os, target.arch, target.backend)) out.push_back(&r);
    }
    return out;
}

std::vector<const InputRequirement*> ProjectInput::constraints_for(const Target& target) const {
    std::vector<const InputRequirement*> out;
    for (const auto& c : constraints) {
        if (c.when.applies(target.os, target.arch, target.backend)) out.push_back(&c);
    }
    return out;
}

std::vector<const InputRequirement*> ProjectInput::overrides_for(const Target& target) const {
    std::vector<const InputRequirement*> out;
    for (const auto& o : overrides) {
        if (o.when.applies(target.os, target.arch, target.backend)) out.push_back(&o);
    }
    return out;
}

bool ProjectInput::allows_platform(std::string_view os, std::string_view arch) const {
    return platforms.empty() ||
           std::any_of(platforms.begin(), platforms.end(),
                       [&](const Applicability& a) { return a.applies(os, arch, {}); });
}

std::map<std::string, std::string> ProjectInput::environment_for(const Target& target) const {
    std::map<std::string, std::string> out;
    for (const auto& v : environment) {
        if (v.when.applies(target.os, target.arch, target.backend)) out[v.name] = v.value;
    }
    return out;
}

std::vector<const BackendOption*> ProjectInput::backends_for(std::string_view os,
                                                             std::string_view arch) const {
    std::vector<const BackendOption*> out;
    for (const auto& b : backends) {
        if (b.offered_on(os, arch)) out.push_back(&b);
    }
    return out;
}

Loaded<ProjectInput> from_manifest(const Manifest& manifest,
                                   const std::optional<std::filesystem::path>& project_dir,
                                   const RequirementsReadOptions& options) {
    ProjectInput in;
    in.name = manifest.name;
    in.name_where = SourceLocation{manifest.file, 0, 0};
    in.python_requires = manifest.python_requires;
    in.python_preferred = manifest.python_preferred;
    in.torch_packages = manifest.torch.packages;
    in.backends = manifest.torch.backends;
    in.torch_index_url = manifest.indexes.torch_index_url;
    in.environment = manifest.environment;
    in.default_targets = manifest.default_targets;
    in.glibc_cap = manifest.glibc;
    if (manifest.glibc) in.glibc_cap_by = manifest.glibc_where.to_string() + " (glibc)";
    in.options.index_url = manifest.indexes.index_url;
    in.options.extra_index_urls = manifest.indexes.extra_index_urls;
    in.options.find_links = manifest.indexes.find_links;
    in.hashed_inputs.emplace_back("manifest", manifest.text);

    // The parser checked every line already; what can fail now is ${VAR} expansion.
    auto add_manifest_lines =
        [&](const std::vector<ManifestRequirement>& list) -> std::optional<InputProblem> {
        for (const auto& r : list) {
            auto parsed = detail::parse_manifest_line(r, options);
            if (!parsed) return std::move(parsed.error());
            for (const auto& c : parsed->concealed)
                util::add_concealed(in.concealed, c);
            add_lines(in.requirements, parsed->requirements, r.when);
            add_lines(in.constraints, parsed->constraints, r.when);
            merge_options(in.options, parsed->options);
        }
        return std::nullopt;
    };

    if (project_dir) {
        if (manifest.project_requirement_files.empty()) {
            return util::input_problem(
                {manifest.file},
                "the manifest lists no project_requirement_files, so --project has nothing to "
                "read",
                "add project_requirement_files: [requirements.txt] to the manifest, or leave out "
                "--project");
        }
        for (const auto& name : manifest.project_requirement_files) {
            auto file = read_requirements_file(*project_dir / name, options);
            if (!file) return util::Unexpected<InputProblem>(std::move(file.error()));
            for (const auto& c : file->concealed)
                util::add_concealed(in.concealed, c);
            add_lines(in.requirements, file->requirements, {});
            add_lines(in.constraints, file->constraints, {});
            merge_options(in.options, file->options);
            in.hashed_inputs.emplace_back("project:" + name, render(*file));
        }
    } else if (auto problem = add_manifest_lines(manifest.requirements)) {
        return util::Unexpected<InputProblem>(std::move(*problem));
    }
    if (auto problem = add_manifest_lines(manifest.extra_requirements))
        return util::Unexpected<InputProblem>(std::move(*problem));
    if (manifest.text.empty()) {  // a manifest built in code: its parsed lines stand in
        std::vector<RequirementLine> lines;
        for (const auto& r : in.requirements)
            lines.push_back(r.line);
        in.hashed_inputs.front().second = detail::render_lines(lines, "");
    }
    return in;
}

ProjectInput from_requirements(const RequirementsFile& file, std::string name) {
    ProjectInput in;
    in.name = std::move(name);
    if (!file.files.empty())
        in.name_where = SourceLocation{util::utf8_of(file.files.front()), 0, 0};
    in.concealed = file.concealed;
    add_lines(in.requirements, file.requirements, {});
    add_lines(in.constraints, file.constraints, {});
    in.options = file.options;
    detail::copy_torch_pins(in.requirements, in.torch_packages);
    in.hashed_inputs.emplace_back("requirements", render(file));
    return in;
}

ProjectInput from_conda(const CondaImport& import, const CondaEnvironment& env) {
    ProjectInput in;
    const std::filesystem::path file(env.file);
    in.name = env.name.empty() ? util::utf8_of(file.stem()) : env.name;
    in.name_where = env.name.empty() ? SourceLocation{env.file, 0, 0} : env.name_where;
    in.concealed = env.pip.concealed;
    if (import.python) {
        auto v = pep::Version::parse(*import.python);
        if (v && v->release().size() >= 2) {
            std::string minor = std::to_string(v->major()) + "." + std::to_string(v->minor());
            in.python_requires = "==" + minor + ".*";
            // A snapshot names its exact interpreter: markers are evaluated for that one.
            in.python_preferred = v->release().size() >= 3 ? v->public_string() : minor;
        } else {
            in.notes.push_back("python " + *import.python +
                               " is not a version aitk-env can pick an interpreter for; the "
                               "newest supported Python is used");
        }
    }
    if (import.backend) {
        in.backends.push_back(BackendOption{*import.backend, {}, false, {}, {}});
        in.named_backend = *import.backend;
        in.named_backend_by = util::utf8_of(file.filename()) +
                              "'s conda packages (cpuonly, cudatoolkit, pytorch-cuda)";
    }
    add_lines(in.requirements, import.requirements, {});
    add_lines(in.constraints, env.pip.constraints, {});
    in.options = import.pip_options;
    for (const auto& [name, value] : import.variables)
        in.environment.push_back({name, value, {}, util::SourceLocation{env.file, 0, 0}});
    in.notes.insert(in.notes.end(), import.notes.begin(), import.notes.end());
    detail::copy_torch_pins(in.requirements, in.torch_packages);

    std::string rendered = detail::render_lines(import.requirements, "") +
                           detail::render_lines(env.pip.constraints, "-c ") +
                           detail::render_options(import.pip_options);
    for (const auto& [name, value] : import.variables)
        rendered += name + "=" + value + "\n";
    in.hashed_inputs.emplace_back("environment", std::move(rendered));
    return in;
}

}  // namespace aitk::project
