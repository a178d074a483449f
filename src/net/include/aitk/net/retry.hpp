#pragma once
// The retry rules of a transfer, kept apart from libcurl so they can be tested exactly.
#include <chrono>
#include <optional>
#include <random>
#include <string_view>

#include "aitk/net/options.hpp"

namespace aitk::net {

// Exponential backoff with multiplicative jitter: the n-th consecutive failure waits
// initial * multiplier^(n-1) * U[1 - jitter, 1 + jitter], capped at max_backoff.
class Backoff {
  public:
    explicit Backoff(const RetryPolicy& policy);
    std::chrono::milliseconds delay(int consecutive_failures);
    // The wait for a server's Retry-After: capped at max_retry_after, then spread upwards by
    // U[1, 1 + jitter], never earlier than asked, so that many clients told the same moment (a
    // fleet behind one pull-through cache) do not all come back at once.
    std::chrono::milliseconds after_retry_after(std::chrono::milliseconds asked);

  private:
    RetryPolicy policy_;
    std::mt19937_64 random_;
};

// 408, 429 and 5xx other than 501/505 are worth another try; every other status is final.
bool is_retryable_status(long status) noexcept;

// Retry-After as delay-seconds ("120") or an HTTP-date, relative to `now` (wall-clock seconds
// since the epoch). A date in the past gives 0; anything unparsable gives nullopt.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::int64_t now_epoch_seconds);

// Parses an IMF-fixdate, RFC 850 or asctime date into seconds since the epoch (UTC).
std::optional<std::int64_t> parse_http_date(std::string_view value);

// "Not Found" for 404 etc.; empty for unknown codes.
std::string_view reason_phrase(long status) noexcept;

}  // namespace aitk::net
