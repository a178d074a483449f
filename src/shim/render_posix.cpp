#include "aitk/util/shell_quote.hpp"
#include "aitk/util/strings.hpp"
#include "embedded_templates.hpp"
#include "renderers.hpp"
#include "shell_text.hpp"
#include "template_fill.hpp"

namespace aitk::shim::detail {
namespace {

std::string joined(std::span<const std::string_view> items, std::string (*render)(std::string_view),
                   std::string_view separator) {
    std::vector<std::string> parts;
    for (std::string_view item : items)
        parts.push_back(render(item));
    return util::join(parts, separator);
}

std::string plain(std::string_view text) {
    return std::string(text);
}

// Continued lines keep the long case patterns readable.
constexpr std::string_view kCaseSeparator = " | \\\n        ";

std::string posix_environment(const PrefixEnvironment& prefix) {
    std::string variables;
    for (const auto& [name, value] : applicable_variables(prefix)) {
        variables += "_aitk_default " + name + " " + util::sh_quote(value) + "\n";
    }
    return fill_template(
        embedded::shim_posix_environment_sh(),
        {
            {"SH_KEEP_PATTERNS", joined(keeping_needles(), sh_contains_pattern, kCaseSeparator)},
            {"SH_SHADOW_PATTERNS",
             joined(shadowing_needles(), sh_contains_pattern, kCaseSeparator)},
            {"SH_SCRUBBED_NAMES", joined(scrubbed_variable_names(), plain, " ")},
            {"SH_VARIABLES", variables},
        });
}

TemplateValues sh_values(const PrefixEnvironment& prefix) {
    return {
        {"SH_PREFIX", util::sh_quote(prefix_text(prefix))},
        {"SH_SCRIPTS", util::sh_quote(scripts_text(prefix))},
        {"SH_PROMPT", util::sh_quote("(" + prompt_label(prefix_text(prefix)) + ") ")},
        {"POSIX_ENVIRONMENT", posix_environment(prefix)},
    };
}

}  // namespace

std::string render_aitk_run_sh(const PrefixEnvironment& prefix) {
    return fill_template(embedded::shim_aitk_run_sh(), sh_values(prefix));
}

std::string render_activate_sh(const PrefixEnvironment& prefix) {
    return fill_template(embedded::shim_activate_sh(), sh_values(prefix));
}

std::string render_activate_fish(const PrefixEnvironment& prefix) {
    std::string variables;
    for (const auto& [name, value] : applicable_variables(prefix)) {
        variables += "_aitk_default " + name + " " + fish_quote(value) + "\n";
    }
    return fill_template(embedded::shim_activate_fish(),
                         {
                             {"FISH_PREFIX", fish_quote(prefix_text(prefix))},
                             {"FISH_SCRIPTS", fish_quote(scripts_text(prefix))},
                             {"FISH_KEEP_NEEDLES", joined(keeping_needles(), fish_quote, " ")},
                             {"FISH_SHADOW_NEEDLES", joined(shadowing_needles(), fish_quote, " ")},
                             {"FISH_SCRUBBED_NAMES", joined(scrubbed_variable_names(), plain, " ")},
                             {"FISH_VARIABLES", variables},
                         });
}

std::vector<std::pair<std::string, std::string>> applicable_variables(
    const PrefixEnvironment& prefix) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, value] : prefix.variables) {
        if (!lock_variable_problem(name, value, prefix.os)) out.emplace_back(name, value);
    }
    return out;
}

}  // namespace aitk::shim::detail
