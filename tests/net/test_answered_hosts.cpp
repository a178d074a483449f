// The run's record of servers that answered: keyed by scheme, host and port, never by path or
// credentials.
#include "aitk/net/answered_hosts.hpp"

#include <gtest/gtest.h>

using aitk::net::AnsweredHosts;
using aitk::net::url_origin;

TEST(UrlOrigin, IsSchemeHostAndPortInLowerCase) {
    EXPECT_EQ(url_origin("https://PyPI.org/simple/torch/"), "https://pypi.org:443");
    EXPECT_EQ(url_origin("http://user:secret@127.0.0.1:8080/x.whl#sha256=ab"),
              "http://127.0.0.1:8080");
    EXPECT_EQ(url_origin("HTTP://[::1]:9/p"), "http://[::1]:9");
    EXPECT_EQ(url_origin("file:///tmp/x.whl"), "");
    EXPECT_EQ(url_origin("not a url"), "");
}

TEST(AnsweredHosts, KnowsAServerOnceItAnswered) {
    AnsweredHosts hosts;
    EXPECT_FALSE(hosts.contains("https://pypi.org/simple/"));
    hosts.add("https://token@pypi.org/simple/torch/");
    EXPECT_TRUE(hosts.contains("https://pypi.org/simple/numpy/"));
    EXPECT_TRUE(hosts.contains("https://pypi.org:443/"));
    // Another port, scheme or host is another server.
    EXPECT_FALSE(hosts.contains("http://pypi.org/simple/"));
    EXPECT_FALSE(hosts.contains("https://pypi.org:8443/simple/"));
    EXPECT_FALSE(hosts.contains("https://files.pythonhosted.org/packages/"));
    // A URL without a host is never "answered".
    hosts.add("file:///tmp/x.whl");
    EXPECT_FALSE(hosts.contains("file:///tmp/x.whl"));
}
