#include "aitk/project/tool_config.hpp"
#include "aitk/util/utf8.hpp"

#include <yaml-cpp/yaml.h>

#include <system_error>

#include "aitk/fs/input_file.hpp"

namespace aitk::project {

namespace {

util::SourceLocation location_of(const YAML::Node& node, const std::string& file) {
    const auto mark = node.Mark();
    if (mark.line < 0) return {file, 0, 0};
    return {file, static_cast<std::size_t>(mark.line) + 1,
            static_cast<std::size_t>(mark.column) + 1};
}

constexpr const char* rewrite_hint =
    "write it as a list of \"FROM=TO\" strings, e.g. rewrite-url: "
    "[\"https://files.pythonhosted.org/=http://cache:8080/files/\"]";

}  // namespace

util::Loaded<ToolConfig> parse_tool_config(std::string_view text, const std::string& file) {
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::ParserException& e) {
        return util::input_problem({file, static_cast<std::size_t>(e.mark.line) + 1,
                                    static_cast<std::size_t>(e.mark.column) + 1},
                                   "not valid YAML: " + e.msg);
    }
    ToolConfig config;
    if (!root || root.IsNull()) return config;
    if (!root.IsMap()) {
        return util::input_problem(location_of(root, file),
                                   "the configuration must be a mapping of settings",
                                   "start with `rewrite-url:`");
    }
    bool seen_rewrite = false;
    for (const auto& entry : root) {
        const auto& key = entry.first;
        if (!key.IsScalar()) {
            return util::input_problem(location_of(key, file), "a key must be a plain name");
        }
        const auto name = key.Scalar();
        if (name != "rewrite-url") {
            return util::input_problem(location_of(key, file), "unknown setting '" + name + "'",
                                       "the settings are: rewrite-url");
        }
        if (seen_rewrite) {
            return util::input_problem(location_of(key, file), "'rewrite-url' is given twice");
        }
        seen_rewrite = true;
        const auto& value = entry.second;
        if (!value || value.IsNull()) continue;
        if (!value.IsSequence()) {
            return util::input_problem(location_of(value, file),
                                       "'rewrite-url' must be a list of \"FROM=TO\" strings",
                                       rewrite_hint);
        }
        for (const auto& item : value) {
            if (!item.IsScalar()) {
                return util::input_problem(location_of(item, file),
                                           "each 'rewrite-url' entry must be a \"FROM=TO\" string",
                                           rewrite_hint);
            }
            config.rewrite_urls.push_back(item.Scalar());
            config.rewrite_url_locations.push_back(location_of(item, file));
        }
    }
    return config;
}

util::Loaded<ToolConfig> load_tool_config(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return ToolConfig{};
    auto text = fs::read_input_file(path, fs::config_file);
    if (!text) {
        return util::input_problem({util::utf8_of(path), 0, 0},
                                   "cannot read the configuration file: " + text.error(),
                                   "check its permissions, or remove it");
    }
    return parse_tool_config(*text, util::utf8_of(path));
}

}  // namespace aitk::project
