// The manifest's `python:` and `torch:` sections.
#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/strings.hpp"
#include "manifest_sections.hpp"

namespace aitk::project::detail {

namespace {

// Points inside a scalar at a 0-based offset a pep parser reported.
util::SourceLocation inside(const ManifestYaml& y, const YAML::Node& scalar, std::size_t offset) {
    util::SourceLocation where = y.text_location(scalar);
    if (where.column != 0 && offset != util::ParseError::no_position) where.column += offset;
    return where;
}

// "3.12" or "3.12.3": a final release of two or three numbers.
bool is_python_version(std::string_view text) {
    auto parts = util::split(text, '.');
    if (parts.size() < 2 || parts.size() > 3) return false;
    return std::all_of(parts.begin(), parts.end(), [](std::string_view p) {
        return !p.empty() && p.size() <= 4 &&
               std::all_of(p.begin(), p.end(), [](char c) { return util::is_ascii_digit(c); });
    });
}

pep::SpecifierSet specifier_set(const ManifestYaml& y, const YAML::Node& node,
                                const std::string& path, const std::string& hint) {
    std::string text = y.string(node, path, hint);
    auto parsed = pep::SpecifierSet::parse(text);
    if (!parsed) {
        y.fail_at(inside(y, node, parsed.error().position),
                  path + ": " + util::double_quoted(text) +
                      " is not a PEP 440 specifier: " + parsed.error().message,
                  hint);
    }
    return std::move(*parsed);
}

// A torch-family pin: a bare version means exactly that version.
std::string pin(const ManifestYaml& y, const YAML::Node& node, const std::string& path) {
    const std::string hint =
        "write a version such as \"0.28.0\" or a specifier such as "
        "\">=0.28,<0.29\"";
    std::string text(util::trim(y.string(node, path, hint)));
    if (text.empty()) y.fail(node, path, "empty version", hint);
    if (util::is_ascii_digit(text.front())) {
        auto v = pep::Version::parse(text);
        if (!v) {
            y.fail_at(inside(y, node, v.error().position),
                      path + ": " + util::double_quoted(text) +
                          " is not a PEP 440 version: " + v.error().message,
                      hint);
        }
        return "==" + text;
    }
    specifier_set(y, node, path, hint);
    return text;
}

}  // namespace

void read_python(const ManifestYaml& y, const YAML::Node& node, Manifest& m) {
    y.expect_keys(node, "python", {"requires", "preferred"});
    std::optional<pep::SpecifierSet> requires_set;
    if (YAML::Node r = ManifestYaml::get(node, "requires"); r.IsDefined()) {
        requires_set = specifier_set(y, r, "python.requires",
                                     "write a PEP 440 specifier such as \">=3.10,<3.13\"");
        m.python_requires = std::string(util::trim(r.Scalar()));
    }
    if (YAML::Node p = ManifestYaml::get(node, "preferred"); p.IsDefined()) {
        const std::string hint = "write MAJOR.MINOR such as \"3.12\"";
        std::string text(util::trim(y.string(p, "python.preferred", hint)));
        if (!is_python_version(text)) {
            y.fail(p, "python.preferred",
                   util::double_quoted(text) +
                       " is not a Python version (expected MAJOR.MINOR[.MICRO])",
                   hint);
        }
        if (requires_set && !requires_set->contains(text, true)) {
            y.fail(p, "python.preferred",
                   "Python " + text + " is outside python.requires " +
                       util::double_quoted(m.python_requires),
                   "prefer a version that python.requires allows");
        }
        m.python_preferred = text;
    }
}

void read_torch(const ManifestYaml& y, const YAML::Node& node, TorchSpec& torch) {
    y.mapping(node, "torch", "write torch: {version: \"2.13.0\", backends: [cu130, cpu]}");
    y.expect_keys(node, "torch", {"version", "packages", "backends", "backend_options"});

    YAML::Node version = ManifestYaml::get(node, "version");
    if (!version.IsDefined()) {
        y.fail(node, "torch", "missing key \"version\"",
               "name the torch release, such as version: \"2.13.0\"");
    }
    {
        // Backend choice looks the release up in aitk-env's tables: an exact version only.
        const std::string hint = "write the torch release such as \"2.13.0\"";
        std::string text(util::trim(y.string(version, "torch.version", hint)));
        std::string_view bare = text;
        if (bare.substr(0, 2) == "==") bare = util::trim(bare.substr(2));
        auto v = pep::Version::parse(bare);
        if (!v || bare.find('*') != std::string_view::npos) {
            y.fail(version, "torch.version",
                   util::double_quoted(text) + " is not a torch release version", hint);
        }
        torch.packages["torch"] = "==" + std::string(bare);
    }

    if (YAML::Node packages = ManifestYaml::get(node, "packages"); packages.IsDefined()) {
        y.mapping(packages, "torch.packages", "write torch.packages: {torchvision: \"0.28.0\"}");
        for (auto it = packages.begin(); it != packages.end(); ++it) {
            std::string name = y.string(it->first, "torch.packages");
            std::string path = key_path("torch.packages", name);
            if (!pep::is_valid_name(name)) {
                y.fail(it->first, path, util::double_quoted(name) + " is not a valid package name",
                       "use the name as on PyPI, such as torchvision");
            }
            std::string canonical = pep::canonicalize_name(name);
            if (canonical == "torch") {
                y.fail(it->first, path, "torch's own pin is torch.version",
                       "remove torch from torch.packages");
            }
            if (torch.packages.count(canonical)) {
                y.fail(it->first, path, util::double_quoted(name) + " is listed twice",
                       "keep one of them");
            }
            if (!it->second.IsDefined() || it->second.IsNull()) {
                y.fail(it->first, path, "missing version",
                       "write a version such as \"0.28.0\" or a specifier such as \">=0.28\"");
            }
            torch.packages[canonical] = pin(y, it->second, path);
        }
    }

    std::vector<std::string> names;
    YAML::Node backends = ManifestYaml::get(node, "backends");
    if (backends.IsDefined()) {
        names = y.string_list(backends, "torch.backends", "write backends such as [cu130, cpu]");
        for (std::size_t i = 0; i < names.size(); ++i) {
            const std::string path = item_path("torch.backends", i);
            if (auto problem = backend_problem(names[i]))
                y.fail(backends[i], path, problem->message, problem->hint);
            if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i),
                          names[i]) != names.begin() + static_cast<std::ptrdiff_t>(i)) {
                y.fail(backends[i], path, util::double_quoted(names[i]) + " is listed twice",
                       "list each backend once, in preference order");
            }
            BackendOption option;
            option.name = names[i];
            torch.backends.push_back(std::move(option));
        }
    }

    YAML::Node options = ManifestYaml::get(node, "backend_options");
    if (!options.IsDefined()) return;
    y.mapping(options, "torch.backend_options",
              "write torch.backend_options: {cu126: {os: [linux, windows]}}");
    for (auto it = options.begin(); it != options.end(); ++it) {
        std::string name = y.string(it->first, "torch.backend_options");
        const std::string path = key_path("torch.backend_options", name);
        auto found = std::find_if(torch.backends.begin(), torch.backends.end(),
                                  [&](const BackendOption& b) { return b.name == name; });
        if (found == torch.backends.end()) {
            y.fail(it->first, path, util::double_quoted(name) + " is not in torch.backends",
                   "add it to torch.backends (in preference order) or remove its options");
        }
        const YAML::Node body = it->second;
        y.expect_keys(body, path,
                      {"os", "arch", "experimental", "refuse_compute_capability", "note"});
        found->where = read_applicability(y, body, path, false);
        if (YAML::Node e = ManifestYaml::get(body, "experimental"); e.IsDefined())
            found->experimental = y.boolean(e, key_path(path, "experimental"));
        if (YAML::Node r = ManifestYaml::get(body, "refuse_compute_capability"); r.IsDefined()) {
            const std::string rpath = key_path(path, "refuse_compute_capability");
            const std::string hint =
                "write a specifier over MAJOR.MINOR compute capabilities, such as \">=10.0\"";
            auto set = specifier_set(y, r, rpath, hint);
            if (set.empty()) y.fail(r, rpath, "empty specifier", hint);
            found->refuse_compute_capability = std::string(util::trim(r.Scalar()));
        }
        if (YAML::Node n = ManifestYaml::get(body, "note"); n.IsDefined())
            found->note = y.string(n, key_path(path, "note"));
    }
}

}  // namespace aitk::project::detail
