#include "aitk/build/build_system.hpp"

#include <toml++/toml.h>
#include <system_error>

#include "aitk/archive/member_path.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::build {
namespace {

using util::SourceLocation;

SourceLocation where(std::string_view file, const toml::node& node) {
    const auto& begin = node.source().begin;
    return SourceLocation{std::string(file), static_cast<std::size_t>(begin.line),
                          static_cast<std::size_t>(begin.column)};
}

bool is_identifier(std::string_view part) {
    if (part.empty() || util::is_ascii_digit(part.front())) return false;
    for (char c : part) {
        // Non-ASCII identifiers are valid Python; accept their bytes rather than refuse them.
        if (!util::is_ascii_alnum(c) && c != '_' && static_cast<unsigned char>(c) < 0x80) {
            return false;
        }
    }
    return true;
}

bool is_dotted_path(std::string_view text) {
    for (std::string_view part : util::split(text, '.')) {
        if (!is_identifier(part)) return false;
    }
    return true;
}

// "module.path" or "module.path:object.path" (PEP 517).
bool is_backend_spec(std::string_view text) {
    std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return is_dotted_path(text);
    return is_dotted_path(text.substr(0, colon)) && is_dotted_path(text.substr(colon + 1));
}

}  // namespace

BuildSystem BuildSystem::legacy_default() {
    BuildSystem system;
    system.requirements.push_back(*pep::Requirement::parse("setuptools>=40.8.0"));
    system.backend = std::string(legacy_backend);
    return system;
}

util::Loaded<BuildSystem> parse_build_system(std::string_view toml_text, std::string_view file) {
    toml::table document;
    try {
        document = toml::parse(toml_text, file);
    } catch (const toml::parse_error& e) {
        const auto& begin = e.source().begin;
        return util::input_problem(
            SourceLocation{std::string(file), static_cast<std::size_t>(begin.line),
                           static_cast<std::size_t>(begin.column)},
            "not valid TOML: " + std::string(e.description()),
            "fix the syntax of pyproject.toml (https://toml.io)");
    }
    const toml::node* table_node = document.get("build-system");
    if (table_node == nullptr) return BuildSystem::legacy_default();
    const toml::table* table = table_node->as_table();
    if (table == nullptr) {
        return util::input_problem(where(file, *table_node), "build-system is not a table",
                                   "write it as a [build-system] table (PEP 518)");
    }

    BuildSystem system;
    system.declared = true;
    const toml::node* requires_node = table->get("requires");
    if (requires_node == nullptr) {
        return util::input_problem(
            where(file, *table), "[build-system] has no 'requires' key",
            "list the build requirements, e.g. requires = [\"setuptools>=61\"] (PEP 518)");
    }
    const toml::array* requires_array = requires_node->as_array();
    if (requires_array == nullptr) {
        return util::input_problem(where(file, *requires_node),
                                   "'requires' is not an array of strings",
                                   "write requires = [\"name>=1.0\", ...]");
    }
    for (const toml::node& element : *requires_array) {
        const auto* text = element.as_string();
        if (text == nullptr) {
            return util::input_problem(where(file, element),
                                       "'requires' holds something that is not a string",
                                       "write each requirement as a quoted PEP 508 string");
        }
        auto requirement = pep::Requirement::parse(text->get());
        if (!requirement) {
            return util::input_problem(
                where(file, element),
                "build requirement '" + text->get() + "': " + requirement.error().describe(),
                "write a PEP 508 requirement such as \"setuptools>=61\"");
        }
        system.requirements.push_back(std::move(*requirement));
    }

    if (const toml::node* backend_node = table->get("build-backend")) {
        const auto* backend = backend_node->as_string();
        if (backend == nullptr || !is_backend_spec(util::trim(backend->get()))) {
            return util::input_problem(
                where(file, *backend_node), "'build-backend' is not a backend object reference",
                "write it as \"module.path\" or \"module.path:object\" (PEP 517)");
        }
        system.backend = std::string(util::trim(backend->get()));
    } else {
        system.backend = std::string(legacy_backend);
    }

    if (const toml::node* path_node = table->get("backend-path")) {
        const toml::array* paths = path_node->as_array();
        if (paths == nullptr) {
            return util::input_problem(where(file, *path_node),
                                       "'backend-path' is not an array of strings",
                                       "write backend-path = [\"folder\"]");
        }
        for (const toml::node& element : *paths) {
            const auto* text = element.as_string();
            std::string entry = text ? text->get() : std::string();
            // The same rules as archive members: relative, no '..', '/' separators.
            auto normalised = archive::normalize_member_path(entry);
            if (text == nullptr || !normalised) {
                return util::input_problem(
                    where(file, element),
                    text ? "backend-path entry '" + entry +
                               "' is not a folder inside the project: " + normalised.error()
                         : std::string("'backend-path' holds something that is not a string"),
                    "backend-path lists folders relative to pyproject.toml, inside the project");
            }
            system.backend_path.push_back(normalised->empty() ? "." : *normalised);
        }
    }
    return system;
}

util::Loaded<BuildSystem> read_build_system(const std::filesystem::path& project_dir) {
    const std::filesystem::path file = project_dir / "pyproject.toml";
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return BuildSystem::legacy_default();
    auto text = fs::read_input_file(file, fs::pyproject_file);
    if (!text) {
        return util::input_problem({util::utf8_of(file), 0, 0},
                                   "cannot read the project file: " + text.error(),
                                   "a source tree's pyproject.toml must be a regular file");
    }
    return parse_build_system(*text, util::utf8_of(file));
}

}  // namespace aitk::build
