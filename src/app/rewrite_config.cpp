#include "aitk/app/rewrite_config.hpp"

#include "aitk/app/artifact_locations.hpp"
#include "aitk/project/tool_config.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

namespace {

constexpr const char* rule_hint =
    "write each rule as FROM=TO, e.g. https://files.pythonhosted.org/=http://cache:8080/files/";

bool absolute(const std::string& path) {
    return !path.empty() && std::filesystem::path(path).is_absolute();
}

net::UrlRewriteRules from_config(const std::filesystem::path& path) {
    auto config = project::load_tool_config(path);
    if (!config) throw config.error().to_error();
    std::vector<net::UrlRewriteRule> rules;
    for (std::size_t i = 0; i < config->rewrite_urls.size(); ++i) {
        auto rule = net::UrlRewriteRule::parse(config->rewrite_urls[i]);
        if (!rule) {
            util::InputProblem problem{
                config->rewrite_url_locations[i],
                "rewrite-url '" + config->rewrite_urls[i] + "': " + rule.error().message,
                rule_hint};
            throw problem.to_error();
        }
        rules.push_back(std::move(*rule));
    }
    return net::UrlRewriteRules(std::move(rules));
}

}  // namespace

RewriteSources rewrite_sources(std::vector<std::string> command_line,
                               const util::Environment& env) {
    RewriteSources sources;
    sources.command_line = std::move(command_line);
    auto get = [&](const char* name) {
        return util::environment_lookup(env, name).value_or(std::string());
    };
    if (auto value = util::environment_lookup(env, "AITK_ENV_REWRITE_URL"))
        sources.environment = *value;
#ifdef _WIN32
    if (auto appdata = get("APPDATA"); absolute(appdata))
        sources.user_config = std::filesystem::path(appdata) / "aitk-env" / "config.yaml";
    std::string site = get("AITK_ENV_SYSTEM_CONFIG_DIR");
    if (site.empty() && absolute(get("PROGRAMDATA")))
        site = util::utf8_of(std::filesystem::path(get("PROGRAMDATA")) / "aitk-env");
#else
    if (auto xdg = get("XDG_CONFIG_HOME"); absolute(xdg)) {
        sources.user_config = std::filesystem::path(xdg) / "aitk-env" / "config.yaml";
    } else if (auto home = get("HOME"); absolute(home)) {
        sources.user_config = std::filesystem::path(home) / ".config" / "aitk-env" / "config.yaml";
    }
    std::string site = get("AITK_ENV_SYSTEM_CONFIG_DIR");
    if (site.empty()) site = "/etc/aitk-env";
#endif
    if (!site.empty()) sources.site_config = std::filesystem::path(site) / "config.yaml";
    return sources;
}

net::UrlRewriteRules merge_rewrite_rules(const RewriteSources& sources) {
    auto rules = parse_rewrite_options(sources.command_line);
    if (sources.environment) {
        auto listed = net::UrlRewriteRules::parse_list(*sources.environment);
        if (!listed) {
            throw util::InputError("AITK_ENV_REWRITE_URL: " + listed.error().describe(), rule_hint);
        }
        rules.append(*listed);
    }
    if (sources.user_config) rules.append(from_config(*sources.user_config));
    if (sources.site_config) rules.append(from_config(*sources.site_config));
    return rules;
}

net::UrlRewriteRules configured_rewrite_rules(const std::vector<std::string>& command_line) {
    return merge_rewrite_rules(rewrite_sources(command_line, util::current_environment()));
}

}  // namespace aitk::app
