#include "aitk/net/retry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "aitk/util/strings.hpp"

namespace aitk::net {
namespace {

std::uint64_t seed_from(const RetryPolicy& policy) {
    if (policy.jitter_seed) return *policy.jitter_seed;
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

std::optional<std::int64_t> parse_digits(std::string_view text) {
    if (text.empty() || text.size() > 12) return std::nullopt;
    std::int64_t value = 0;
    for (char c : text) {
        if (!util::is_ascii_digit(c)) return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
    year -= month <= 2 ? 1 : 0;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const auto year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned day_of_era =
        year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

std::optional<unsigned> month_number(std::string_view name) {
    static constexpr std::array<std::string_view, 12> months = {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
    for (std::size_t i = 0; i < months.size(); ++i) {
        if (util::iequals(name, months[i])) return static_cast<unsigned>(i + 1);
    }
    return std::nullopt;
}

}  // namespace

Backoff::Backoff(const RetryPolicy& policy) : policy_(policy), random_(seed_from(policy)) {}

std::chrono::milliseconds Backoff::delay(int consecutive_failures) {
    const double exponent = std::max(0, consecutive_failures - 1);
    const double cap = static_cast<double>(policy_.max_backoff.count());
    double base = static_cast<double>(policy_.initial_backoff.count()) *
                  std::pow(std::max(1.0, policy_.backoff_multiplier), exponent);
    base = std::min(base, cap);
    const double jitter = std::clamp(policy_.jitter, 0.0, 1.0);
    std::uniform_real_distribution<double> factor(1.0 - jitter, 1.0 + jitter);
    const double waited = std::min(base * factor(random_), cap);
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(waited)));
}

std::chrono::milliseconds Backoff::after_retry_after(std::chrono::milliseconds asked) {
    const double capped = static_cast<double>(std::min(asked, policy_.max_retry_after).count());
    const double jitter = std::clamp(policy_.jitter, 0.0, 1.0);
    std::uniform_real_distribution<double> factor(1.0, 1.0 + jitter);
    return std::chrono::milliseconds(
        static_cast<std::int64_t>(std::llround(capped * factor(random_))));
}

bool is_retryable_status(long status) noexcept {
    if (status == 408 || status == 429) return true;
    return status >= 500 && status <= 599 && status != 501 && status != 505;
}

std::optional<std::int64_t> parse_http_date(std::string_view value) {
    // Tokens split on the separators of all three formats; the time is the token with ':'.
    std::vector<std::string_view> tokens;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= value.size(); ++i) {
        if (i == value.size() || value[i] == ' ' || value[i] == ',' || value[i] == '-') {
            if (i > start) tokens.push_back(value.substr(start, i - start));
            start = i + 1;
        }
    }
    std::optional<unsigned> month;
    std::vector<std::int64_t> numbers;  // day then year, in every format
    std::optional<std::int64_t> seconds_of_day;
    for (const auto token : tokens) {
        if (token.find(':') != std::string_view::npos) {
            const auto parts = util::split(token, ':');
            if (parts.size() != 3) return std::nullopt;
            const auto h = parse_digits(parts[0]);
            const auto m = parse_digits(parts[1]);
            const auto s = parse_digits(parts[2]);
            if (!h || !m || !s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;
            seconds_of_day = *h * 3600 + *m * 60 + *s;
        } else if (auto n = parse_digits(token)) {
            numbers.push_back(*n);
        } else if (auto mon = month_number(token)) {
            month = mon;
        }
    }
    if (!month || !seconds_of_day || numbers.size() != 2) return std::nullopt;
    const std::int64_t day = numbers[0];
    std::int64_t year = numbers[1];
    if (year < 100) year += year >= 70 ? 1900 : 2000;
    if (day < 1 || day > 31 || year < 1970 || year > 9999) return std::nullopt;
    return days_from_civil(year, *month, static_cast<unsigned>(day)) * 86400 + *seconds_of_day;
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::int64_t now_epoch_seconds) {
    value = util::trim(value);
    if (const auto seconds = parse_digits(value)) return std::chrono::seconds(*seconds);
    if (const auto when = parse_http_date(value)) {
        return std::chrono::seconds(std::max<std::int64_t>(0, *when - now_epoch_seconds));
    }
    return std::nullopt;
}

std::string_view reason_phrase(long status) noexcept {
    switch (status) {
        case 200:
            return "OK";
        case 206:
            return "Partial Content";
        case 304:
            return "Not Modified";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 407:
            return "Proxy Authentication Required";
        case 408:
            return "Request Timeout";
        case 410:
            return "Gone";
        case 416:
            return "Range Not Satisfiable";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 502:
            return "Bad Gateway";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return {};
    }
}

}  // namespace aitk::net
