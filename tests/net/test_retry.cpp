#include "aitk/net/retry.hpp"

#include <gtest/gtest.h>

#include <set>

#include "aitk/net/content_range.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::net;
using namespace std::chrono_literals;

TEST(Backoff, GrowsExponentiallyWithinJitterAndCaps) {
    RetryPolicy policy;
    policy.initial_backoff = 100ms;
    policy.backoff_multiplier = 2.0;
    policy.max_backoff = 1000ms;
    policy.jitter = 0.5;
    policy.jitter_seed = 7;
    Backoff backoff(policy);
    for (int round = 0; round < 50; ++round) {
        for (int n = 1; n <= 6; ++n) {
            const double base = std::min(1000.0, 100.0 * (1 << (n - 1)));
            const auto delay = backoff.delay(n);
            EXPECT_GE(delay.count(), static_cast<long>(base * 0.5) - 1) << n;
            EXPECT_LE(delay.count(), std::min<long>(1000, static_cast<long>(base * 1.5) + 1)) << n;
        }
    }
}

TEST(Backoff, RetryAfterIsSpreadUpwardsAndCapped) {
    RetryPolicy policy;
    policy.jitter = 0.25;
    policy.jitter_seed = 11;
    policy.max_retry_after = 60'000ms;
    Backoff backoff(policy);
    std::set<long> seen;
    for (int i = 0; i < 100; ++i) {
        const auto wait = backoff.after_retry_after(2000ms);
        EXPECT_GE(wait.count(), 2000) << "never earlier than the server asked";
        EXPECT_LE(wait.count(), 2500);
        seen.insert(wait.count());
    }
    EXPECT_GT(seen.size(), 50u) << "clients told the same moment come back at different ones";
    const auto capped = backoff.after_retry_after(3'600'000ms);
    EXPECT_GE(capped.count(), 60'000);
    EXPECT_LE(capped.count(), 75'000);
    policy.jitter = 0;
    Backoff exact(policy);
    EXPECT_EQ(exact.after_retry_after(1500ms), 1500ms);
}

TEST(Backoff, WithoutJitterIsExact) {
    RetryPolicy policy;
    policy.initial_backoff = 250ms;
    policy.jitter = 0;
    Backoff backoff(policy);
    EXPECT_EQ(backoff.delay(1), 250ms);
    EXPECT_EQ(backoff.delay(2), 500ms);
    EXPECT_EQ(backoff.delay(3), 1000ms);
    EXPECT_EQ(backoff.delay(20), policy.max_backoff);
}

TEST(Backoff, SameSeedSameWaits) {
    RetryPolicy policy;
    policy.jitter_seed = 1234;
    Backoff a(policy), b(policy);
    for (int n = 1; n < 10; ++n)
        EXPECT_EQ(a.delay(n), b.delay(n));
}

TEST(RetryableStatus, TransientOnly) {
    for (long status : {408L, 429L, 500L, 502L, 503L, 504L, 599L}) {
        EXPECT_TRUE(is_retryable_status(status)) << status;
    }
    for (long status : {200L, 304L, 400L, 401L, 403L, 404L, 410L, 416L, 501L, 505L}) {
        EXPECT_FALSE(is_retryable_status(status)) << status;
    }
}

TEST(RetryAfter, SecondsAndDates) {
    const std::int64_t now = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
    EXPECT_EQ(parse_retry_after("120", now), 120s);
    EXPECT_EQ(parse_retry_after(" 0 ", now), 0s);
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:51:37 GMT", now), 120s);
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0s);  // past
    EXPECT_FALSE(parse_retry_after("soon", now));
    EXPECT_FALSE(parse_retry_after("-5", now));
    EXPECT_FALSE(parse_retry_after("", now));
}

TEST(HttpDate, AllThreeFormats) {
    EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
    EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
    EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), 784111777);
    EXPECT_EQ(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
    EXPECT_EQ(parse_http_date("Tue, 29 Feb 2028 12:00:00 GMT"), 1835438400);
    EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 25:00:00 GMT"));
    EXPECT_FALSE(parse_http_date("yesterday"));
    EXPECT_FALSE(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"));
}

TEST(ReasonPhrase, KnownAndUnknown) {
    EXPECT_EQ(reason_phrase(404), "Not Found");
    EXPECT_EQ(reason_phrase(503), "Service Unavailable");
    EXPECT_EQ(reason_phrase(299), "");
}

TEST(ContentRange, ParsesRangesAndUnsatisfiedForms) {
    const auto r = parse_content_range("bytes 100-199/1000");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->first, 100u);
    EXPECT_EQ(r->last, 199u);
    EXPECT_EQ(r->complete_length, 1000u);
    const auto unknown = parse_content_range("bytes 0-9/*");
    ASSERT_TRUE(unknown);
    EXPECT_FALSE(unknown->complete_length);
    const auto unsatisfied = parse_content_range("bytes */1000");
    ASSERT_TRUE(unsatisfied);
    EXPECT_FALSE(unsatisfied->first);
    EXPECT_EQ(unsatisfied->complete_length, 1000u);
    for (const char* bad : {"", "bytes", "bytes 5-1/10", "bytes 0-10/10", "bytes */*",
                            "items 0-1/2", "bytes a-b/c", "bytes 0-1", "bytes -1-2/3"}) {
        EXPECT_FALSE(parse_content_range(bad)) << bad;
    }
}

TEST(ContentRange, StrongEtags) {
    EXPECT_TRUE(is_strong_etag("\"abc\""));
    EXPECT_FALSE(is_strong_etag("W/\"abc\""));
    EXPECT_FALSE(is_strong_etag("abc"));
    EXPECT_FALSE(is_strong_etag("\""));
}

}  // namespace AITK_FILE_LOCAL
