#include <array>
#include <string>

#include "aitk/lock/exporters.hpp"

namespace aitk::lock {
namespace {

struct FormatName {
    ExportFormat format;
    std::string_view name;
};
constexpr std::array<FormatName, 4> format_names = {{{ExportFormat::env_yml, "env-yml"},
                                                     {ExportFormat::requirements, "requirements"},
                                                     {ExportFormat::pylock, "pylock"},
                                                     {ExportFormat::dockerfile, "dockerfile"}}};

}  // namespace

std::optional<ExportFormat> parse_export_format(std::string_view name) noexcept {
    for (const auto& entry : format_names) {
        if (entry.name == name) return entry.format;
    }
    return std::nullopt;
}

std::string_view export_format_name(ExportFormat format) noexcept {
    for (const auto& entry : format_names) {
        if (entry.format == format) return entry.name;
    }
    return {};
}

std::string export_format_list() {
    std::string out;
    for (const auto& entry : format_names) {
        if (!out.empty()) out += ", ";
        out += entry.name;
    }
    return out;
}

}  // namespace aitk::lock
