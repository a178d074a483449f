// The run's record of servers: keyed by scheme, host and port, never by path or credentials; a
// server that answered is never taken for unreachable.
#include "aitk/net/reachability.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

using aitk::net::HostReachability;
using aitk::net::url_origin;

TEST(UrlOrigin, IsSchemeHostAndPortInLowerCase) {
    EXPECT_EQ(url_origin("https://PyPI.org/simple/torch/"), "https://pypi.org:443");
    EXPECT_EQ(url_origin("http://user:secret@127.0.0.1:8080/x.whl#sha256=ab"),
              "http://127.0.0.1:8080");
    EXPECT_EQ(url_origin("HTTP://[::1]:9/p"), "http://[::1]:9");
    EXPECT_EQ(url_origin("file:///tmp/x.whl"), "");
    EXPECT_EQ(url_origin("not a url"), "");
}

TEST(HostReachability, KnowsAServerOnceItAnswered) {
    HostReachability hosts;
    EXPECT_FALSE(hosts.has_answered("https://pypi.org/simple/"));
    hosts.answered("https://token@pypi.org/simple/torch/");
    EXPECT_TRUE(hosts.has_answered("https://pypi.org/simple/numpy/"));
    EXPECT_TRUE(hosts.has_answered("https://pypi.org:443/"));
    // Another port, scheme or host is another server.
    EXPECT_FALSE(hosts.has_answered("http://pypi.org/simple/"));
    EXPECT_FALSE(hosts.has_answered("https://pypi.org:8443/simple/"));
    EXPECT_FALSE(hosts.has_answered("https://files.pythonhosted.org/packages/"));
    // A URL without a host is never "answered".
    hosts.answered("file:///tmp/x.whl");
    EXPECT_FALSE(hosts.has_answered("file:///tmp/x.whl"));
}

TEST(HostReachability, RemembersAnUnreachableServerUntilItAnswers) {
    HostReachability hosts;
    EXPECT_FALSE(hosts.unreachable_cause("http://mirror.invalid/a"));
    hosts.unreachable("http://mirror.invalid/simple/", "Could not resolve host: mirror.invalid");
    EXPECT_EQ(hosts.unreachable_cause("http://MIRROR.invalid:80/b"),
              "Could not resolve host: mirror.invalid");
    EXPECT_FALSE(hosts.unreachable_cause("https://mirror.invalid/a"));
    // An answer wins: the server is there after all.
    hosts.answered("http://mirror.invalid/c");
    EXPECT_FALSE(hosts.unreachable_cause("http://mirror.invalid/a"));
    hosts.unreachable("http://mirror.invalid/d", "Connection refused");
    EXPECT_FALSE(hosts.unreachable_cause("http://mirror.invalid/a"));
    EXPECT_FALSE(hosts.unreachable_cause("file:///tmp/x.whl"));
}

}  // namespace AITK_FILE_LOCAL
