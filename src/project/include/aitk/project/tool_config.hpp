#pragma once
// aitk-env's own configuration file (`config.yaml` under the user's or the site's config
// folder): settings an administrator sets once for every user and every run, such as where
// downloads really come from on a cluster behind a pull-through cache. Strict: an unknown key or
// a value of the wrong type is a problem with file:line:column, never silently ignored.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/input_problem.hpp"

namespace aitk::project {

struct ToolConfig {
    // `rewrite-url: ["FROM=TO", ...]`, in the file's order (the rules themselves are checked by
    // whoever turns them into net::UrlRewriteRules, with `rewrite_url_locations` for positions).
    std::vector<std::string> rewrite_urls;
    std::vector<util::SourceLocation> rewrite_url_locations;  // one per rewrite_urls entry
};

// `file` names the text in messages. An empty text (or one holding only comments) is an empty
// configuration.
util::Loaded<ToolConfig> parse_tool_config(std::string_view text, const std::string& file);

// The configuration at `path`; an empty one when no file is there. Unreadable files and parse
// problems are problems.
util::Loaded<ToolConfig> load_tool_config(const std::filesystem::path& path);

}  // namespace aitk::project
