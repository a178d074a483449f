#include <array>

#include "aitk/pep/marker.hpp"

namespace aitk::pep {
namespace {

// In MarkerVariable's order: the string variables, then the sets.
constexpr std::array<std::string_view, marker_variable_count + 2> kNames{
    "implementation_name",
    "implementation_version",
    "os_name",
    "platform_machine",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_full_version",
    "platform_python_implementation",
    "python_version",
    "sys_platform",
    "extra",
    "extras",
    "dependency_groups",
};

}  // namespace

std::string_view marker_variable_name(MarkerVariable variable) noexcept {
    auto index = static_cast<std::size_t>(variable);
    return index < kNames.size() ? kNames[index] : std::string_view("extra");
}

std::optional<MarkerVariable> marker_variable_from_name(std::string_view name) noexcept {
    for (std::size_t i = 0; i < marker_variable_count; ++i) {
        if (kNames[i] == name) return static_cast<MarkerVariable>(i);
    }
    return std::nullopt;
}

Parsed<MarkerVariable> MarkerEnvironment::set(std::string_view name, std::string value) {
    auto variable = marker_variable_from_name(name);
    if (!variable) {
        std::string known;
        for (std::size_t i = 0; i < marker_variable_count; ++i) {
            if (!known.empty()) known += ", ";
            known += kNames[i];
        }
        return parse_error("unknown marker variable '" + std::string(name) + "'; known: " + known,
                           name, 0);
    }
    set(*variable, std::move(value));
    return *variable;
}

std::map<std::string, std::string> marker_map(const MarkerEnvironment& env) {
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < marker_variable_count; ++i) {
        auto variable = static_cast<MarkerVariable>(i);
        if (variable == MarkerVariable::extra) continue;
        out[std::string(marker_variable_name(variable))] = env.get(variable);
    }
    return out;
}

}  // namespace aitk::pep
