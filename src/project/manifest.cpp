// The manifest parser: the top level, environment variables, hardware profiles, indexes and
// default targets. python/torch and the requirement lists have their own files.
#include "aitk/project/manifest.hpp"

#include <algorithm>

#include "aitk/fs/input_file.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/text.hpp"
#include "aitk/util/utf8.hpp"
#include "manifest_sections.hpp"

namespace aitk::embedded {
std::string_view ai_toolkit_manifest_yaml();
}

namespace aitk::project {

namespace detail {

namespace {

bool is_identifier(std::string_view s) {
    if (s.empty() || util::is_ascii_digit(s.front())) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return util::is_ascii_alnum(c) || c == '_'; });
}

// Lockfiles are named after the manifest: beyond util::path_name_problem (a file name on every
// system), the name keeps to a plain spelling.
bool is_plain_name(std::string_view s) {
    if (s.empty() || s.size() > 100 || s.front() == '.' || s.front() == '-') return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return util::is_ascii_alnum(c) || c == '-' || c == '_' || c == '.';
    });
}

std::string optional_text(const ManifestYaml& y, const YAML::Node& map, std::string_view key,
                          const std::string& path) {
    YAML::Node v = ManifestYaml::get(map, key);
    return v.IsDefined() ? y.string(v, key_path(path, key)) : std::string();
}

void read_environment(const ManifestYaml& y, const YAML::Node& node, Manifest& m) {
    const std::string hint =
        "write entries such as - {name: PYTORCH_ENABLE_MPS_FALLBACK, "
        "value: \"1\", os: [macos]}";
    y.sequence(node, "environment", hint);
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node entry = node[i];
        const std::string path = item_path("environment", i);
        y.mapping(entry, path, hint);
        y.expect_keys(entry, path, {"name", "value", "os", "arch", "backends"});
        EnvironmentVariable v;
        v.where = y.location(entry);
        YAML::Node name = ManifestYaml::get(entry, "name");
        if (!name.IsDefined()) y.fail(entry, path, "missing key \"name\"", hint);
        v.name = y.string(name, key_path(path, "name"));
        if (!is_identifier(v.name)) {
            y.fail(name, key_path(path, "name"),
                   util::double_quoted(v.name) + " is not a variable name",
                   "use letters, digits and '_', not starting with a digit");
        }
        if (v.name == "PATH") {
            y.fail(name, key_path(path, "name"), "PATH is managed by aitk-env's launch scripts",
                   "set another variable");
        }
        YAML::Node value = ManifestYaml::get(entry, "value");
        if (!value.IsDefined()) {
            y.fail(entry, path, "missing key \"value\"", "write value: \"\" for an empty value");
        }
        v.value = y.string(value, key_path(path, "value"), "write the value as text");
        v.when = read_applicability(y, entry, path, true);
        m.environment.push_back(std::move(v));
    }
}

void read_profiles(const ManifestYaml& y, const YAML::Node& node, Manifest& m) {
    const std::string hint =
        "write profiles such as - {id: flux-lora, min_ram_gib: 32, min_vram_gib: 24}";
    y.sequence(node, "hardware_profiles", hint);
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node p = node[i];
        const std::string path = item_path("hardware_profiles", i);
        y.mapping(p, path, hint);
        y.expect_keys(p, path,
                      {"id", "description", "min_ram_gib", "min_vram_gib", "source", "unverified"});
        platform::HardwareProfile profile;
        auto required = [&](std::string_view key) {
            YAML::Node v = ManifestYaml::get(p, key);
            if (!v.IsDefined()) y.fail(p, path, "missing key " + util::double_quoted(key), hint);
            return v;
        };
        YAML::Node id = required("id");
        profile.id = y.string(id, key_path(path, "id"));
        profile.description = optional_text(y, p, "description", path);
        if (profile.description.empty()) profile.description = profile.id;
        profile.min_ram_gib =
            y.non_negative_number(required("min_ram_gib"), key_path(path, "min_ram_gib"));
        profile.min_vram_gib =
            y.non_negative_number(required("min_vram_gib"), key_path(path, "min_vram_gib"));
        profile.source = optional_text(y, p, "source", path);
        profile.unverified =
            y.string_list(ManifestYaml::get(p, "unverified"), key_path(path, "unverified"));
        for (const auto& field : profile.unverified) {
            if (field != "min_ram_gib" && field != "min_vram_gib") {
                y.fail(ManifestYaml::get(p, "unverified"), key_path(path, "unverified"),
                       util::double_quoted(field) + " is not a profile value",
                       "list min_ram_gib and/or min_vram_gib");
            }
        }
        for (const auto& existing : m.hardware_profiles) {
            if (existing.id == profile.id)
                y.fail(id, key_path(path, "id"),
                       "duplicate profile id " + util::double_quoted(profile.id),
                       "give each profile its own id");
        }
        m.hardware_profiles.push_back(std::move(profile));
    }
    if (!m.hardware_profiles.empty()) {
        m.profile_ram_gib = m.hardware_profiles.front().min_ram_gib;
        m.profile_vram_gib = m.hardware_profiles.front().min_vram_gib;
    }
}

std::string url(const ManifestYaml& y, const YAML::Node& node, const std::string& path) {
    const std::string hint = "write a URL such as https://pypi.org/simple";
    std::string text = y.string(node, path, hint);
    if (util::trim(text).empty() ||
        std::any_of(text.begin(), text.end(), [](char c) { return util::is_ascii_space(c); })) {
        y.fail(node, path, util::double_quoted(text) + " is not a URL", hint);
    }
    return text;
}

void read_indexes(const ManifestYaml& y, const YAML::Node& node, ManifestIndexes& out) {
    y.expect_keys(node, "indexes",
                  {"index_url", "extra_index_urls", "find_links", "torch_index_url"});
    if (YAML::Node v = ManifestYaml::get(node, "index_url"); v.IsDefined())
        out.index_url = url(y, v, "indexes.index_url");
    if (YAML::Node v = ManifestYaml::get(node, "torch_index_url"); v.IsDefined())
        out.torch_index_url = url(y, v, "indexes.torch_index_url");
    for (std::string_view key : {"extra_index_urls", "find_links"}) {
        YAML::Node list = ManifestYaml::get(node, key);
        if (!list.IsDefined()) continue;
        const std::string path = key_path("indexes", key);
        y.sequence(list, path, "write a list of URLs");
        auto& target = key == "find_links" ? out.find_links : out.extra_index_urls;
        for (std::size_t i = 0; i < list.size(); ++i)
            target.push_back(url(y, list[i], item_path(path, i)));
    }
}

void read_default_targets(const ManifestYaml& y, const YAML::Node& node, Manifest& m) {
    const std::string path = "default_targets";
    m.default_targets = y.string_list(node, path, "write targets such as linux-x86_64-cu130");
    for (std::size_t i = 0; i < m.default_targets.size(); ++i) {
        const std::string ipath = item_path(path, i);
        auto target = Target::parse(m.default_targets[i]);
        if (!target) {
            y.fail(node[i], ipath, target.error(),
                   "targets are OS-ARCH-BACKEND, such as linux-x86_64-cu130 or macos-arm64-mps");
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (m.default_targets[j] == m.default_targets[i])
                y.fail(node[i], ipath,
                       util::double_quoted(m.default_targets[i]) + " is listed twice",
                       "list each target once");
        }
        const auto& backends = m.torch.backends;
        if (backends.empty()) continue;
        bool offered = std::any_of(backends.begin(), backends.end(), [&](const BackendOption& b) {
            return b.name == target->backend && b.offered_on(target->os, target->arch);
        });
        if (!offered) {
            y.fail(node[i], ipath,
                   "backend " + target->backend + " is not offered on " + target->os + "-" +
                       target->arch + " by torch.backends",
                   "add it to torch.backends (and its backend_options) or drop this target");
        }
    }
}

void read_glibc(const ManifestYaml& y, const YAML::Node& node, Manifest& m) {
    const std::string hint =
        "write the newest glibc the Linux machines have, such as glibc: \"2.28\" (`ldd "
        "--version` prints it), or drop the key to take every manylinux level";
    auto cap = parse_glibc_cap(y.string(node, "glibc", hint));
    if (!cap) y.fail(node, "glibc", cap.error(), hint);
    m.glibc = *cap;
    m.glibc_where = y.location(node);
}

void read_format(const ManifestYaml& y, const YAML::Node& root) {
    YAML::Node f = ManifestYaml::get(root, "format");
    if (!f.IsDefined()) return;
    std::string text = y.string(f, "format", "write format: 1");
    if (text != "1")
        y.fail(f, "format",
               "unsupported format " + util::double_quoted(text) + " (this aitk-env reads 1)",
               "write format: 1, or use a newer aitk-env");
}

Manifest read_tree(const ManifestYaml& y, const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull())
        y.fail_at({y.file(), 1, 1}, "the manifest is empty", "start with name: my-project");
    y.mapping(root, "", "a manifest is a mapping of keys such as name:, python:, torch:");
    y.expect_keys(root, "",
                  {"format", "name", "description", "upstream", "python", "torch", "requirements",
                   "project_requirement_files", "extra_requirements", "environment",
                   "hardware_profiles", "indexes", "default_targets", "glibc"});
    read_format(y, root);
    Manifest m;
    YAML::Node name = ManifestYaml::get(root, "name");
    if (!name.IsDefined()) y.fail(root, "", "missing key \"name\"", "add name: my-project");
    m.name = y.string(name, "name");
    if (!is_plain_name(m.name)) {
        y.fail(name, "name", util::double_quoted(m.name) + " cannot name a lockfile",
               "use letters, digits, '-', '_' and '.', starting with a letter or digit");
    }
    if (auto problem = util::path_name_problem(m.name)) {
        y.fail(name, "name", util::double_quoted(m.name) + " cannot name a lockfile: " + *problem,
               std::string(util::path_name_rule));
    }
    m.description = optional_text(y, root, "description", "");
    m.upstream = optional_text(y, root, "upstream", "");
    if (YAML::Node python = ManifestYaml::get(root, "python"); python.IsDefined())
        read_python(y, python, m);
    if (YAML::Node torch = ManifestYaml::get(root, "torch"); torch.IsDefined())
        read_torch(y, torch, m.torch);
    m.requirements = read_requirement_lines(y, ManifestYaml::get(root, "requirements"),
                                            "requirements", {}, m.torch);
    if (YAML::Node files = ManifestYaml::get(root, "project_requirement_files"); files.IsDefined())
        m.project_requirement_files = read_project_files(y, files);
    if (YAML::Node extra = ManifestYaml::get(root, "extra_requirements"); extra.IsDefined())
        m.extra_requirements = read_extra_requirements(y, extra, m.torch);
    if (YAML::Node env = ManifestYaml::get(root, "environment"); env.IsDefined())
        read_environment(y, env, m);
    if (YAML::Node profiles = ManifestYaml::get(root, "hardware_profiles"); profiles.IsDefined())
        read_profiles(y, profiles, m);
    if (YAML::Node indexes = ManifestYaml::get(root, "indexes"); indexes.IsDefined())
        read_indexes(y, indexes, m.indexes);
    if (YAML::Node targets = ManifestYaml::get(root, "default_targets"); targets.IsDefined())
        read_default_targets(y, targets, m);
    if (YAML::Node glibc = ManifestYaml::get(root, "glibc"); glibc.IsDefined())
        read_glibc(y, glibc, m);
    return m;
}

}  // namespace

Applicability read_applicability(const ManifestYaml& y, const YAML::Node& map,
                                 const std::string& path, bool with_backends) {
    Applicability out;
    if (YAML::Node os = ManifestYaml::get(map, "os"); os.IsDefined()) {
        const std::string p = key_path(path, "os");
        out.os = y.string_list(os, p, "write OS names such as [linux, windows]");
        for (std::size_t i = 0; i < out.os.size(); ++i) {
            if (auto problem = os_problem(out.os[i]))
                y.fail(os[i], item_path(p, i), problem->message, problem->hint);
        }
    }
    if (YAML::Node arch = ManifestYaml::get(map, "arch"); arch.IsDefined()) {
        const std::string p = key_path(path, "arch");
        out.arch = y.string_list(arch, p, "write architectures such as [x86_64]");
        for (std::size_t i = 0; i < out.arch.size(); ++i) {
            if (auto problem = arch_problem(out.arch[i]))
                y.fail(arch[i], item_path(p, i), problem->message, problem->hint);
        }
    }
    if (!with_backends) return out;
    if (YAML::Node backends = ManifestYaml::get(map, "backends"); backends.IsDefined()) {
        const std::string p = key_path(path, "backends");
        out.backends = y.string_list(backends, p, "write backends or kinds such as [cuda, cpu]");
        for (std::size_t i = 0; i < out.backends.size(); ++i) {
            const std::string& b = out.backends[i];
            if (b == "cuda" || b == "rocm") continue;  // kinds; cpu/mps/xpu are names too
            if (auto problem = backend_problem(b)) {
                y.fail(backends[i], item_path(p, i),
                       problem->message + "; kinds cuda and rocm match every build of theirs",
                       problem->hint);
            }
        }
    }
    return out;
}

}  // namespace detail

Loaded<Manifest> parse_manifest(std::string_view yaml, std::string_view file) {
    if (auto problem = util::check_text(yaml, file)) {
        return util::Unexpected<InputProblem>(std::move(*problem));
    }
    try {
        detail::ManifestYaml reader(file, yaml);
        YAML::Node root = YAML::Load(std::string(yaml));
        Manifest m = detail::read_tree(reader, root);
        m.file = std::string(file);
        m.text = std::string(yaml);
        return m;
    } catch (detail::ManifestFailure& failure) {
        return util::Unexpected<InputProblem>(std::move(failure.problem));
    } catch (const YAML::Exception& e) {
        util::SourceLocation where{std::string(file), 0, 0};
        if (!e.mark.is_null() && e.mark.line >= 0) {
            where.line = static_cast<std::size_t>(e.mark.line) + 1;
            where.column = static_cast<std::size_t>(e.mark.column) + 1;
        }
        return util::input_problem(std::move(where), "not valid YAML: " + e.msg,
                                   "check the indentation and quoting around this place");
    } catch (const std::exception& e) {
        return util::input_problem({std::string(file), 0, 0},
                                   std::string("cannot read the manifest: ") + e.what());
    }
}

Loaded<Manifest> read_manifest(const std::filesystem::path& path) {
    auto text = fs::read_input_file(path, fs::manifest_file);
    if (!text) {
        return util::input_problem({util::utf8_of(path), 0, 0},
                                   "cannot read the manifest: " + text.error(),
                                   "pass an existing manifest file with -m");
    }
    return parse_manifest(*text, util::utf8_of(path));
}

std::string_view builtin_manifest_text() {
    return embedded::ai_toolkit_manifest_yaml();
}

std::string_view builtin_manifest_name() {
    return "ai-toolkit.yaml";
}

}  // namespace aitk::project
