#include "aitk/project/torch_pins.hpp"

#include <algorithm>

#include "aitk/pep/name.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/platform/overrides.hpp"

namespace aitk::project {

namespace {

// A local label that is a backend name ("cu128", "cpu", "rocm6.3", "xpu"); others ("+local1")
// say nothing about the build.
std::optional<std::string> label_backend(std::string_view label) {
    if (label.empty()) return std::nullopt;
    auto parsed = platform::parse_backend_name(label);
    if (!parsed || *parsed == "auto" || *parsed == "mps") return std::nullopt;
    return *parsed;
}

// Where a torch-family pin was written, for messages: the requirement line naming it.
std::string pin_place(const ProjectInput& input, const std::string& name) {
    for (const auto& r : input.requirements) {
        if (r.line.requirement && pep::canonicalize_name(r.line.requirement->name()) == name)
            return " (" + r.line.where.to_string() + ")";
    }
    return " (" + input.name + "'s torch pins)";
}

}  // namespace

std::optional<BackendIndexUrl> backend_index_url(std::string_view url) {
    std::string_view path = url;
    if (auto q = path.find_first_of("?#"); q != std::string_view::npos) path = path.substr(0, q);
    while (!path.empty() && path.back() == '/')
        path.remove_suffix(1);
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos || slash == 0) return std::nullopt;
    auto backend = label_backend(path.substr(slash + 1));
    // "https://host/cu128" has no base path; a scheme's "//" is not a folder.
    if (!backend || path.substr(0, slash).ends_with("/")) return std::nullopt;
    return BackendIndexUrl{std::string(path.substr(0, slash)), *backend};
}

Loaded<TorchPins> torch_pins(const ProjectInput& input) {
    TorchPins pins;
    if (auto it = input.torch_packages.find("torch"); it != input.torch_packages.end())
        pins.torch_specifier = it->second;

    // A local label on any pin of the family fixes the build; two labels must agree.
    std::string label_name;
    for (const auto& [name, specifier] : input.torch_packages) {
        auto set = pep::SpecifierSet::parse(specifier);
        if (!set) continue;  // the resolver reports a bad specifier with its place
        for (const auto& clause : set->specifiers()) {
            if (!clause.version()) continue;
            auto backend = label_backend(clause.version()->local());
            if (!backend) continue;
            std::string written = name + clause.to_string();
            if (pins.backend && *pins.backend != *backend) {
                return util::input_problem(
                    {input.name},
                    label_name + " and " + written + " name different builds (" + *pins.backend +
                        ", " + *backend + ")",
                    "pin the whole torch family to one build: torch, torchvision and torchaudio "
                    "come from one backend index");
            }
            if (!pins.backend) {
                pins.backend = *backend;
                pins.backend_by = written + pin_place(input, name);
                pins.backend_strict = true;
                label_name = written;
            }
        }
    }

    std::vector<std::string> urls;
    if (input.options.index_url) urls.push_back(*input.options.index_url);
    urls.insert(urls.end(), input.options.extra_index_urls.begin(),
                input.options.extra_index_urls.end());
    urls.insert(urls.end(), input.options.find_links.begin(), input.options.find_links.end());
    std::string first_url;
    for (const auto& url : urls) {
        auto named = backend_index_url(url);
        if (!named) continue;
        if (!pins.index_base) {
            pins.index_base = named->base;
            first_url = url;
        }
        if (std::find(pins.index_backends.begin(), pins.index_backends.end(), named->backend) ==
            pins.index_backends.end()) {
            pins.index_backends.push_back(named->backend);
        }
    }
    if (!pins.backend && pins.index_backends.size() == 1) {
        pins.backend = pins.index_backends.front();
        pins.backend_by = "the index " + first_url;
    }
    if (!pins.backend && input.named_backend) {
        pins.backend = *input.named_backend;
        pins.backend_by = input.named_backend_by;
    }
    return pins;
}

}  // namespace aitk::project
