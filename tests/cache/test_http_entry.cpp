#include "aitk/cache/http_entry.hpp"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

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

// Entries are stored without a flush to disk, so after a power loss a file may keep its size
// while its body reads back as zeros: the body's digest makes that a miss. Entries written
// before the digest existed (flushed ones) are still read.
TEST(HttpEntry, ABodyThatIsNotTheOneWrittenIsAMissEvenAtItsSize) {
    HttpEntry e;
    e.url = "https://x/simple/torch/";
    e.body = "<a href=\"torch-2.7.0.whl\">torch-2.7.0.whl</a>";
    const std::string good = serialize_http_entry(e);
    ASSERT_NE(good.find("body-sha256: "), std::string::npos);
    std::string zeroed = good;
    std::fill(zeroed.end() - 10, zeroed.end(), '\0');
    EXPECT_FALSE(parse_http_entry(zeroed).has_value());
    std::string changed = good;
    changed.back() = '!';
    EXPECT_FALSE(parse_http_entry(changed).has_value());

    std::string older = good;
    const auto line = older.find("body-sha256: ");
    older.erase(line, older.find('\n', line) + 1 - line);
    const auto back = parse_http_entry(older);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->body, e.body);
}

}  // namespace AITK_FILE_LOCAL
