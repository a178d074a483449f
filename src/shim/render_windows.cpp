#include <algorithm>

#include "aitk/util/strings.hpp"
#include "embedded_templates.hpp"
#include "renderers.hpp"
#include "shell_text.hpp"
#include "template_fill.hpp"

namespace aitk::shim::detail {
namespace {

bool is_ascii(std::string_view text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::string quoted_list(std::span<const std::string_view> items) {
    std::vector<std::string> parts;
    for (std::string_view item : items)
        parts.push_back(powershell_quote(item));
    return util::join(parts, ", ");
}

// One `if` per needle: substitution in %VAR:text=% ignores case, so removing the needle changes
// the value exactly when it contains it.
std::string cmd_needle_tests(std::span<const std::string_view> needles, std::string_view label) {
    std::string out;
    for (std::string_view needle : needles) {
        out += "if not \"%_AITK_T:" + std::string(needle) + "=%\"==\"%_AITK_T%\" goto " +
               std::string(label) + "\n";
    }
    if (!out.empty()) out.pop_back();
    return out;
}

std::string with_crlf(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 32);
    for (char c : text) {
        if (c == '\n') out.push_back('\r');
        out.push_back(c);
    }
    return out;
}

constexpr std::string_view kCodePageBegin =
    "rem Values below are UTF-8: read them with the console switched to code page 65001.\n"
    "for /f \"tokens=2 delims=:.\" %%C in ('chcp') do set \"_AITK_CP=%%C\"\n"
    "chcp 65001 >nul";
constexpr std::string_view kCodePageEnd =
    "chcp %_AITK_CP% >nul\n"
    "set \"_AITK_CP=\"";

}  // namespace

std::string render_aitk_run_cmd(const PrefixEnvironment& prefix) {
    std::string prefix_value = cmd_escape(prefix_text(prefix)).value_or("");
    std::string scripts_value = cmd_escape(scripts_text(prefix)).value_or("");
    std::string variables;
    bool ascii = is_ascii(prefix_value) && is_ascii(scripts_value);
    for (const auto& [name, value] : applicable_variables(prefix)) {
        if (auto escaped = cmd_escape(value)) {
            variables += "if not defined " + name + " set " + name + "=" + *escaped + "\n";
            ascii = ascii && is_ascii(*escaped);
        } else {
            variables +=
                "rem " + name + " is not set here: a batch file cannot hold its line break.\n";
        }
    }
    std::vector<std::string> scrubbed(scrubbed_variable_names().begin(),
                                      scrubbed_variable_names().end());
    std::string text = fill_template(
        embedded::shim_aitk_run_cmd(),
        {
            {"CMD_PREFIX", prefix_value},
            {"CMD_SCRIPTS", scripts_value},
            {"CMD_SCRUBBED_NAMES", util::join(scrubbed, " ")},
            {"CMD_KEEP_TESTS", cmd_needle_tests(keeping_needles(), "aitk_path_keep")},
            {"CMD_SHADOW_TESTS", cmd_needle_tests(shadowing_needles(), "aitk_path_next")},
            {"CMD_VARIABLES", variables},
            {"CMD_CODEPAGE_BEGIN",
             ascii ? "rem Every value below is ASCII." : std::string(kCodePageBegin)},
            {"CMD_CODEPAGE_END", ascii ? "" : std::string(kCodePageEnd)},
        });
    return with_crlf(text);
}

std::string render_activate_ps1(const PrefixEnvironment& prefix) {
    std::string variables;
    for (const auto& [name, value] : applicable_variables(prefix)) {
        variables +=
            "_aitk_default " + powershell_quote(name) + " " + powershell_quote(value) + "\n";
    }
    std::string text = fill_template(
        embedded::shim_activate_ps1(),
        {
            {"PS_PREFIX", powershell_quote(prefix_text(prefix))},
            {"PS_SCRIPTS", powershell_quote(scripts_text(prefix))},
            {"PS_KEEP_NEEDLES", quoted_list(keeping_needles())},
            {"PS_SHADOW_NEEDLES", quoted_list(shadowing_needles())},
            {"PS_SCRUBBED_NAMES", quoted_list(scrubbed_variable_names())},
            {"PS_PROMPT", powershell_quote("(" + prompt_label(prefix_text(prefix)) + ") ")},
            {"PS_VARIABLES", variables},
        });
    return "\xEF\xBB\xBF" + text;
}

std::string render_dll_paths_pth() {
    return std::string(embedded::shim_dll_paths_pth());
}

std::string render_dll_paths_module(const PrefixEnvironment& prefix) {
    std::vector<std::string> literals;
    for (const auto& directory : prefix.dll_directories) {
        std::u8string text = directory.u8string();
        literals.push_back(python_literal(std::string(text.begin(), text.end())));
    }
    return fill_template(embedded::shim_dll_paths_py(),
                         {{"PY_EXTRA_DIRECTORIES", "[" + util::join(literals, ", ") + "]"}});
}

}  // namespace aitk::shim::detail
