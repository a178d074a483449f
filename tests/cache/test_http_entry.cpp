#include "aitk/cache/http_entry.hpp"

#include <gtest/gtest.h>

using namespace aitk::cache;

TEST(HttpEntry, RoundTripsEveryField) {
    HttpEntry e;
    e.url = "https://download.pytorch.org/whl/cu126/torch/";
    e.etag = "W/\"abc\"";
    e.last_modified = "Tue, 01 Jul 2025 10:00:00 GMT";
    e.content_type = "application/vnd.pypi.simple.v1+json";
    e.stored_at = 1751364000;
    e.body = std::string("<html>\n\n\0binary too</html>", 27);
    auto back = parse_http_entry(serialize_http_entry(e));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, e);

    HttpEntry empty;
    EXPECT_EQ(parse_http_entry(serialize_http_entry(empty)), empty);
}

TEST(HttpEntry, HeaderValuesCannotInjectLines) {
    HttpEntry e;
    e.url = "https://x/simple/";
    e.etag = "\"a\"\nbody-size: 0";
    e.body = "page";
    auto back = parse_http_entry(serialize_http_entry(e));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->etag, "\"a\"body-size: 0");
    EXPECT_EQ(back->body, "page");
}

TEST(HttpEntry, DamagedOrForeignFilesAreMisses) {
    HttpEntry e;
    e.url = "https://x/simple/";
    e.body = "0123456789";
    std::string good = serialize_http_entry(e);
    EXPECT_FALSE(parse_http_entry(good.substr(0, good.size() - 1)).has_value());  // truncated
    EXPECT_FALSE(parse_http_entry(good + "x").has_value());                       // grown
    EXPECT_FALSE(parse_http_entry("").has_value());
    EXPECT_FALSE(parse_http_entry("<html>").has_value());
    std::string bad_time = good;
    bad_time.replace(bad_time.find("stored-at: 0"), 12, "stored-at: x");
    EXPECT_FALSE(parse_http_entry(bad_time).has_value());
    // Every prefix parses to nothing or to something, never crashes.
    for (std::size_t n = 0; n < good.size(); ++n)
        (void)parse_http_entry(good.substr(0, n));
}

