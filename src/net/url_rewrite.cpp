#include "aitk/net/url_rewrite.hpp"

namespace aitk::net {

util::Expected<UrlRewriteRule, util::ParseError> UrlRewriteRule::parse(std::string_view text) {
    auto eq = text.find('=');
    if (eq == std::string_view::npos) {
        return util::Unexpected(util::ParseError{"a URL rewrite rule is FROM=TO (no '=' found)",
                                                 std::string(text), text.size()});
    }
    if (eq == 0) {
        return util::Unexpected(util::ParseError{
            "a URL rewrite rule needs a non-empty FROM before '='", std::string(text), 0});
    }
    return UrlRewriteRule{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

util::Expected<UrlRewriteRules, util::ParseError> UrlRewriteRules::parse(
    const std::vector<std::string>& texts) {
    std::vector<UrlRewriteRule> rules;
    for (const auto& text : texts) {
        auto rule = UrlRewriteRule::parse(text);
        if (!rule) return util::Unexpected(std::move(rule.error()));
        rules.push_back(std::move(*rule));
    }
    return UrlRewriteRules(std::move(rules));
}

util::Expected<UrlRewriteRules, util::ParseError> UrlRewriteRules::parse_list(
    std::string_view text) {
    auto is_space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    };
    std::vector<UrlRewriteRule> rules;
    std::size_t i = 0;
    while (i < text.size()) {
        if (is_space(text[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && !is_space(text[end]))
            ++end;
        auto rule = UrlRewriteRule::parse(text.substr(i, end - i));
        if (!rule) {
            // Positions refer to the whole list, so a caret lands on the bad word.
            auto error = std::move(rule.error());
            if (error.position != util::ParseError::no_position) error.position += i;
            error.input = std::string(text);
            return util::Unexpected(std::move(error));
        }
        rules.push_back(std::move(*rule));
        i = end;
    }
    return UrlRewriteRules(std::move(rules));
}

void UrlRewriteRules::append(const UrlRewriteRules& later) {
    rules_.insert(rules_.end(), later.rules_.begin(), later.rules_.end());
}

const UrlRewriteRule* UrlRewriteRules::match(std::string_view url) const noexcept {
    for (const auto& rule : rules_) {
        if (url.starts_with(rule.from)) return &rule;
    }
    return nullptr;
}

std::string UrlRewriteRules::apply(std::string_view url) const {
    const auto* rule = match(url);
    if (!rule) return std::string(url);
    return rule->to + std::string(url.substr(rule->from.size()));
}

}  // namespace aitk::net
