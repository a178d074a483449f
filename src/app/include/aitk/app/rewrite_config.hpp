#pragma once
// Where downloads really come from, merged from every place an administrator or a user can say
// it: `--rewrite-url` options, AITK_ENV_REWRITE_URL (space-separated rules), the user's
// `$XDG_CONFIG_HOME/aitk-env/config.yaml` (default ~/.config/aitk-env/config.yaml) and the
// site's `/etc/aitk-env/config.yaml` (key `rewrite-url: ["FROM=TO", ...]`). Rules are appended
// in that priority order, so the first match wins and a user's rule overrides the site's.
// A cluster sets its pull-through cache once in the site file; hashes stay those of the lock.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/net/url_rewrite.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct RewriteSources {
    std::vector<std::string> command_line;             // --rewrite-url values, in order
    std::optional<std::string> environment;            // AITK_ENV_REWRITE_URL
    std::optional<std::filesystem::path> user_config;  // absent: no user configuration
    std::optional<std::filesystem::path> site_config;  // absent: no site configuration
};

// The sources `env` points at: AITK_ENV_REWRITE_URL; $XDG_CONFIG_HOME (absolute) or
// $HOME/.config for the user file; $AITK_ENV_SYSTEM_CONFIG_DIR (tests, relocated installs) or
// /etc/aitk-env for the site file (on Windows %APPDATA% and %PROGRAMDATA%).
RewriteSources rewrite_sources(std::vector<std::string> command_line, const util::Environment& env);

// Every rule, highest priority first. Throws util::InputError (exit 2) naming the option,
// the variable or file:line:column of the bad rule or setting.
net::UrlRewriteRules merge_rewrite_rules(const RewriteSources& sources);

// merge_rewrite_rules(rewrite_sources(command_line, this process's environment)): what every
// downloading command uses.
net::UrlRewriteRules configured_rewrite_rules(const std::vector<std::string>& command_line);

}  // namespace aitk::app
