// Servers that waste a download's time or lie about it: one that stalls after a few bytes (and
// sends the same bytes again on every resume), one that drips bytes below the speed floor, one
// whose Content-Length is shorter than the body it sends, and redirects to places a download must
// not go (file:, other schemes, URLs carrying credentials). Each fails the file within a bounded
// number of requests (the retry budget, not twenty resumes) with a message that says what
// happened. The speed floor is libcurl's (1 s here); backoff waits go through the FakeClock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/net/downloader.hpp"
#include "http_server.hpp"
#include "net_test_helpers.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using namespace std::chrono_literals;
using test::FakeClock;
using test::Fault;
using test::HttpServer;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const test::NoProxyEnvironment no_proxy;

class StallingServers : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("aitk-net-stall");
    HttpServer server;
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();

    std::string serve(const std::string& path, std::size_t size) {
        auto content = test::random_bytes(size, 7);
        server.add_file(path, content);
        return content;
    }

    net::FileRequest request_for(const std::string& path, const std::string& content,
                                 bool with_size = true) {
        net::FileRequest request;
        request.url = server.url(path);
        request.destination = dir.path() / "out" / path.substr(1);
        request.expected_sha256 = fs::sha256_hex(content);
        if (with_size) request.expected_size = content.size();
        return request;
    }

    // Three attempts without progress (two retries), a floor of 1 KiB/s over 1 s.
    static net::DownloaderOptions options() {
        auto o = test::test_options(1);
        o.retry.max_attempts = 3;
        o.low_speed_limit = 1024;
        o.low_speed_time = 1s;
        return o;
    }

    net::Downloader make() { return net::Downloader(options(), clock); }

    // For the tests that are not about speed: a loaded machine (Wine on two busy cores) can
    // take over a second to answer, and a 1 s floor would retry and add a request they count.
    net::Downloader make_without_the_tight_floor() {
        auto o = options();
        o.low_speed_time = 60s;
        return net::Downloader(o, clock);
    }
};

// A server that ignores Range and stalls after 1000 bytes: every resume receives the same 1000
// bytes again. That is no progress, so the file fails after the retries, not after twenty
// resumes, and the message says where it stalled.
TEST_F(StallingServers, AServerResendingTheSameBytesThenStallingFailsWithinTheRetries) {
    const auto content = serve("/stall.whl", 200'000);
    auto stall = Fault::stall_after(1'000, 100);
    stall.ignore_range = true;
    server.set_fault("/stall.whl", stall);
    auto downloader = make();

    const auto outcome = downloader.download(request_for("/stall.whl", content));

    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error().message, HasSubstr("stalled after 1000 bytes"));
    EXPECT_LE(server.requests_for("/stall.whl").size(), 4u);
}

// A server that honours Range but sends only 1000 bytes per connection before stalling: each
// attempt adds less than the floor's worth (1 KiB/s over 1 s), so it counts as a stall.
TEST_F(StallingServers, AServerSendingAFewBytesPerConnectionFailsWithinTheRetries) {
    const auto content = serve("/few.whl", 200'000);
    server.set_fault("/few.whl", Fault::stall_after(1'000, 100));
    auto downloader = make();

    const auto outcome = downloader.download(request_for("/few.whl", content));

    ASSERT_FALSE(outcome);
    // 1000 bytes per attempt over three attempts; on a loaded machine an attempt can stall
    // before its first byte arrives, so the total is a multiple of 1000, not always 3000.
    EXPECT_TRUE(std::regex_search(outcome.error().message,
                                  std::regex("stalled after [0-3]000 bytes of 200000")))
        << outcome.error().message;
    EXPECT_LE(server.requests_for("/few.whl").size(), 4u);
}

// A server that drips 100 bytes every 200 ms (500 B/s, half the floor) on every connection.
TEST_F(StallingServers, ADrippingServerFailsWithinTheRetries) {
    const auto content = serve("/drip.whl", 200'000);
    server.set_fault("/drip.whl", Fault::trickle(100, 0, 100, 200ms));
    auto downloader = make();

    const auto outcome = downloader.download(request_for("/drip.whl", content));

    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error().message, HasSubstr("stalled after "));
    EXPECT_THAT(outcome.error().message, HasSubstr("bytes/s"));
    EXPECT_LE(server.requests_for("/drip.whl").size(), 4u);
}

// A stall after real progress (a big first part, then nothing) still resumes: the partial file
// grew, so the next attempt is a resume, and it finishes when the server recovers.
TEST_F(StallingServers, AStallAfterRealProgressIsResumed) {
    const auto content = serve("/recovers.whl", 300'000);
    server.set_fault("/recovers.whl", Fault::stall_after(3'000, 1));
    auto downloader = make();
    const auto request = request_for("/recovers.whl", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->resumed);
    EXPECT_EQ(server.requests_for("/recovers.whl").size(), 2u);
    EXPECT_EQ(test::read_file(request.destination), content);
}

// Content-Length says 1000, the body is 5000 bytes: the file is reported as short (what was
// received against what the lock expects), never as a protocol error from the bytes left on
// the connection ("HTTP/0.9").
TEST_F(StallingServers, AShortContentLengthIsASizeMismatch) {
    const auto content = serve("/short.whl", 5'000);
    server.set_fault("/short.whl", Fault::short_length(1'000, 100));
    auto downloader = make_without_the_tight_floor();

    const auto outcome = downloader.download(request_for("/short.whl", content));

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::hash_mismatch);
    EXPECT_THAT(outcome.error().message, HasSubstr("received 1000 of 5000 bytes"));
    EXPECT_THAT(outcome.error().message, Not(HasSubstr("HTTP/0.9")));
    EXPECT_LE(server.requests_for("/short.whl").size(), 2u);
}

// Without a known size the hash tells; and the next file, fetched over the same connection, is
// not hurt by the stray bytes the lie left there.
TEST_F(StallingServers, AShortContentLengthWithoutAKnownSizeIsAHashMismatch) {
    const auto content = serve("/short.whl", 5'000);
    const auto healthy = serve("/healthy.whl", 3'000);
    server.set_fault("/short.whl", Fault::short_length(1'000, 100));
    auto downloader = make_without_the_tight_floor();
    const std::vector<net::FileRequest> requests = {request_for("/short.whl", content, false),
                                                    request_for("/healthy.whl", healthy, false)};

    const auto outcomes = downloader.download(requests);

    ASSERT_FALSE(outcomes[0]);
    EXPECT_EQ(outcomes[0].error().kind, net::TransferError::Kind::hash_mismatch);
    EXPECT_THAT(outcomes[0].error().message, HasSubstr("sha256 mismatch"));
    EXPECT_THAT(outcomes[0].error().message, Not(HasSubstr("HTTP/0.9")));
    ASSERT_TRUE(outcomes[1]) << outcomes[1].error().message;
    EXPECT_EQ(test::read_file(requests[1].destination), healthy);
}

// A redirect to a file: URL is refused by name and scheme, once, without a retry; not "HTTP 302".
TEST_F(StallingServers, ARedirectToAFileUrlIsRefusedByItsTarget) {
    const auto content = serve("/moved.whl", 1'000);
    server.set_fault("/moved.whl", Fault::redirect_to("file:///etc/passwd", 100));
    auto downloader = make_without_the_tight_floor();

    const auto outcome = downloader.download(request_for("/moved.whl", content));

    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error().message,
                HasSubstr("redirect to file:///etc/passwd refused: only http and https"));
    EXPECT_THAT(outcome.error().message, Not(HasSubstr("HTTP 302")));
    EXPECT_EQ(server.requests_for("/moved.whl").size(), 1u);
}

// The same for an index page (a fetch), and for another scheme with credentials in it: they
// are redacted.
TEST_F(StallingServers, ARedirectToAnotherSchemeIsRefusedWithoutItsCredentials) {
    server.set_fault("/simple/x/", Fault::redirect_to("ftp://user:s3cret@127.0.0.1/x", 100));
    server.add_file("/simple/x/index.html", "<html></html>");
    auto downloader = make_without_the_tight_floor();
    net::FetchRequest request;
    request.url = server.url("/simple/x/");

    const auto outcome = downloader.fetch(request);

    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error().message,
                HasSubstr("redirect to ftp://***@127.0.0.1/x refused: only http and https"));
    EXPECT_THAT(outcome.error().message, Not(HasSubstr("s3cret")));
    EXPECT_EQ(server.requests_for("/simple/x/").size(), 1u);
}

// A redirect that hands out credentials (to this host or another) is not followed: the
// credentials are neither used nor shown.
TEST_F(StallingServers, ARedirectCarryingCredentialsIsNotFollowed) {
    const auto content = serve("/other.whl", 1'000);
    server.set_fault(
        "/creds.whl",
        Fault::redirect_to(server.url_with_credentials("user", "s3cret", "/other.whl"), 100));
    auto downloader = make_without_the_tight_floor();
    auto request = request_for("/other.whl", content);
    request.url = server.url("/creds.whl");

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_THAT(outcome.error().message,
                HasSubstr("redirect to http://***@127.0.0.1:" + std::to_string(server.port()) +
                          "/other.whl refused"));
    EXPECT_THAT(outcome.error().message, HasSubstr("credentials"));
    EXPECT_THAT(outcome.error().message, Not(HasSubstr("s3cret")));
    EXPECT_EQ(server.requests_for("/creds.whl").size(), 1u);
    EXPECT_TRUE(server.requests_for("/other.whl").empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
