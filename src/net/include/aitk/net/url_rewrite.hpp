#pragma once
// URL rewrite rules ("FROM=TO"): a URL that starts with FROM is fetched from TO followed by the
// rest of it. They let a lock (or an index, or a Python download) made against the public
// servers be installed through a mirror, a proxy or an object store without changing the lock:
// hashes stay what the lock says, only where the bytes come from changes. Pure: no I/O.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::net {

struct UrlRewriteRule {
    std::string from;  // never empty
    std::string to;    // may be empty (then the rest of the URL must be a whole URL itself)

    // "FROM=TO", split at the first '=' (URL prefixes rarely hold one; a TO may). An empty FROM
    // or a text without '=' is an error whose position points at the problem.
    static util::Expected<UrlRewriteRule, util::ParseError> parse(std::string_view text);
    std::string to_string() const { return from + "=" + to; }
    friend bool operator==(const UrlRewriteRule&, const UrlRewriteRule&) = default;
};

// Rules in priority order: the first whose FROM starts the URL wins, as a user reading a list
// of `--rewrite-url` options (or an environment variable) expects.
class UrlRewriteRules {
  public:
    UrlRewriteRules() = default;
    explicit UrlRewriteRules(std::vector<UrlRewriteRule> rules) : rules_(std::move(rules)) {}

    // Each text one rule (repeated command-line options). The first bad one is the error.
    static util::Expected<UrlRewriteRules, util::ParseError> parse(
        const std::vector<std::string>& texts);
    // Rules separated by ASCII whitespace (an environment variable, a config value).
    static util::Expected<UrlRewriteRules, util::ParseError> parse_list(std::string_view text);

    // Later rules (from a lower-priority source) go after the present ones.
    void append(const UrlRewriteRules& later);

    // The rule that applies to `url`, if any.
    const UrlRewriteRule* match(std::string_view url) const noexcept;
    // `url` rewritten by its first matching rule; `url` itself when none applies.
    std::string apply(std::string_view url) const;

    bool empty() const noexcept { return rules_.empty(); }
    const std::vector<UrlRewriteRule>& rules() const noexcept { return rules_; }
    friend bool operator==(const UrlRewriteRules&, const UrlRewriteRules&) = default;

  private:
    std::vector<UrlRewriteRule> rules_;
};

}  // namespace aitk::net
