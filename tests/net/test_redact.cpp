#include "aitk/net/redact.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

using aitk::net::has_credentials;
using aitk::net::redact_url;
using aitk::net::scrub_credentials;

TEST(RedactUrl, RemovesTheWholeUserinfo) {
    EXPECT_EQ(redact_url("https://user:pass@example.com/simple/"),
              "https://***@example.com/simple/");
    EXPECT_EQ(redact_url("https://TOKEN@example.com/x"), "https://***@example.com/x");
    EXPECT_EQ(redact_url("https://__token__:pypi-AgEI@host:8443"), "https://***@host:8443");
    EXPECT_EQ(redact_url("http://u:p%40ss@h/p?q=a@b#f@g"), "http://***@h/p?q=a@b#f@g");
}

TEST(RedactUrl, PasswordsWithRawAtSignsStillGo) {
    EXPECT_EQ(redact_url("https://user:p@ss@host/x"), "https://***@host/x");
}

TEST(RedactUrl, LeavesUrlsWithoutCredentialsAlone) {
    for (const char* url : {"https://pypi.org/simple/", "http://h/p?x=a@b", "file:///tmp/a@b.whl",
                            "https://download.pytorch.org/whl/cu126", "", "not a url"}) {
        EXPECT_EQ(redact_url(url), url);
        EXPECT_FALSE(has_credentials(url)) << url;
    }
    EXPECT_TRUE(has_credentials("https://a:b@h/"));
}

TEST(ScrubCredentials, RemovesUserAndPasswordInAnyForm) {
    const std::string url = "https://alice:p%40ss-word@host/x";
    EXPECT_EQ(scrub_credentials("login alice with p@ss-word or p%40ss-word failed", url),
              "login *** with *** or *** failed");
    EXPECT_EQ(scrub_credentials("nothing here", "https://host/x"), "nothing here");
}

}  // namespace AITK_FILE_LOCAL
