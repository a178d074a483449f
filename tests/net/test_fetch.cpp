// In-memory fetches (index pages, metadata, zip tails) and the server behaviours the index layer
// relies on: response headers, conditional requests, PEP 691 negotiation, ranges, redirects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aitk/fs/temp.hpp"
#include "aitk/net/downloader.hpp"
#include "http_server.hpp"
#include "net_test_helpers.hpp"
#include "portable_env.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using test::Fault;
using test::HttpServer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

const test::NoProxyEnvironment no_proxy;
constexpr const char* json_v1 = "application/vnd.pypi.simple.v1+json";

class FetchTest : public ::testing::Test {
  protected:
    HttpServer server;
    std::shared_ptr<test::FakeClock> clock = std::make_shared<test::FakeClock>();
    net::Downloader downloader{test::test_options(), clock};

    net::FetchOutcome get(const std::string& path, net::Headers headers = {}) {
        net::FetchRequest request;
        request.url = server.url(path);
        request.headers = std::move(headers);
        return downloader.fetch(request);
    }
};

TEST_F(FetchTest, ReturnsBodyAndValidators) {
    server.add_file("/simple/foo/index.html", "<html>foo</html>");

    const auto page = get("/simple/foo/");

    ASSERT_TRUE(page) << page.error().message;
    EXPECT_EQ(page->status, 200);
    EXPECT_FALSE(page->not_modified);
    EXPECT_EQ(page->body, "<html>foo</html>");
    EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
    ASSERT_TRUE(page->etag);
    EXPECT_THAT(*page->etag, StartsWith("\""));
    ASSERT_TRUE(page->last_modified);
    EXPECT_THAT(*page->last_modified, HasSubstr("GMT"));
    EXPECT_EQ(page->url, server.url("/simple/foo/"));
    EXPECT_EQ(page->effective_url, server.url("/simple/foo/"));
    EXPECT_EQ(page->attempts, 1);
    EXPECT_EQ(net::find_header(page->headers, "Accept-Ranges"), "bytes");
}

TEST_F(FetchTest, IfNoneMatchGivesNotModified) {
    server.add_file("/simple/foo/index.html", "<html>foo</html>");
    const auto first = get("/simple/foo/");
    ASSERT_TRUE(first && first->etag);

    net::FetchRequest again;
    again.url = server.url("/simple/foo/");
    again.if_none_match = first->etag;
    const auto second = downloader.fetch(again);

    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->status, 304);
    EXPECT_TRUE(second->not_modified);
    EXPECT_TRUE(second->body.empty());
    EXPECT_EQ(server.requests().back().header("if-none-match"), *first->etag);
}

TEST_F(FetchTest, ChangedPageIsSentInFull) {
    server.add_file("/simple/foo/index.html", "old");
    const auto first = get("/simple/foo/");
    ASSERT_TRUE(first);
    server.add_file("/simple/foo/index.html", "new");

    net::FetchRequest again;
    again.url = server.url("/simple/foo/");
    again.if_none_match = first->etag;
    const auto second = downloader.fetch(again);

    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 200);
    EXPECT_EQ(second->body, "new");
}

TEST_F(FetchTest, IfModifiedSinceGivesNotModified) {
    server.add_file("/page.html", "x");
    const auto first = get("/page.html");
    ASSERT_TRUE(first && first->last_modified);

    net::FetchRequest again;
    again.url = server.url("/page.html");
    again.if_modified_since = first->last_modified;
    const auto second = downloader.fetch(again);

    ASSERT_TRUE(second);
    EXPECT_TRUE(second->not_modified);
}

TEST_F(FetchTest, Pep691JsonIsNegotiatedWithAccept) {
    server.add_file("/simple/foo/index.html", "<html/>");
    server.add_file("/simple/foo/index.json", R"({"meta":{"api-version":"1.0"}})");

    const auto json = get("/simple/foo/", {{"Accept", std::string(json_v1) + ", text/html;q=0.1"}});
    ASSERT_TRUE(json) << json.error().message;
    EXPECT_EQ(json->content_type, json_v1);
    EXPECT_EQ(json->body, R"({"meta":{"api-version":"1.0"}})");
    EXPECT_EQ(net::find_header(json->headers, "vary"), "Accept");

    const auto html = get("/simple/foo/");  // libcurl's */*
    ASSERT_TRUE(html);
    EXPECT_EQ(html->body, "<html/>");
    EXPECT_EQ(html->content_type, "text/html; charset=utf-8");

    const auto prefers_html =
        get("/simple/foo/", {{"Accept", std::string(json_v1) + ";q=0.2, text/html"}});
    ASSERT_TRUE(prefers_html);
    EXPECT_EQ(prefers_html->body, "<html/>");

    const auto v1_html = get("/simple/foo/", {{"Accept", "application/vnd.pypi.simple.v1+html"}});
    ASSERT_TRUE(v1_html);
    EXPECT_EQ(v1_html->content_type, "application/vnd.pypi.simple.v1+html");
    EXPECT_EQ(server.requests().front().header("accept"),
              std::string(json_v1) + ", text/html;q=0.1");
}

TEST_F(FetchTest, RangeHeaderReadsTheTailOfAFile) {
    const auto content = test::random_bytes(100'000, 3);
    server.add_file("/big.whl", content);

    const auto tail = get("/big.whl", {{"Range", "bytes=-1000"}});
    ASSERT_TRUE(tail) << tail.error().message;
    EXPECT_EQ(tail->status, 206);
    EXPECT_EQ(tail->body, content.substr(99'000));
    EXPECT_EQ(net::find_header(tail->headers, "content-range"), "bytes 99000-99999/100000");

    const auto middle = get("/big.whl", {{"Range", "bytes=10-19"}});
    ASSERT_TRUE(middle);
    EXPECT_EQ(middle->body, content.substr(10, 10));
    EXPECT_EQ(server.bytes_served("/big.whl"), 1'010u);
}

TEST_F(FetchTest, UnsatisfiableRangeIs416) {
    server.add_file("/small.bin", "0123456789");
    const auto outcome = get("/small.bin", {{"Range", "bytes=50-"}});
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().http_status, 416);
    EXPECT_EQ(server.requests().back().status, 416);
}

TEST_F(FetchTest, NotFoundIsAnErrorWithTheStatus) {
    const auto outcome = get("/simple/nope/");
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::http_status);
    EXPECT_EQ(outcome.error().http_status, 404);
    EXPECT_EQ(outcome.error().attempts, 1);
}

TEST_F(FetchTest, RetriesTransientErrorsAndReturnsTheGoodBody) {
    // Faults are keyed by the requested path, not the index file behind it.
    server.add_file("/simple/index.html", "root page");
    server.set_fault("/simple/", Fault::http_status(502, 1));
    server.add_file("/meta.json", "0123456789");
    server.set_fault("/meta.json", Fault::truncate_at(4, 1));

    const auto root = get("/simple/");
    const auto meta = get("/meta.json");

    ASSERT_TRUE(root) << root.error().message;
    EXPECT_EQ(root->body, "root page");
    EXPECT_EQ(root->attempts, 2);
    ASSERT_TRUE(meta) << meta.error().message;
    EXPECT_EQ(meta->body, "0123456789");  // a broken in-memory body starts over
    EXPECT_EQ(meta->attempts, 2);
    EXPECT_EQ(server.requests_for("/meta.json")[1].header("range"), "");
}

TEST_F(FetchTest, BodiesAboveTheLimitAreRefused) {
    auto options = test::test_options();
    options.max_memory_body = 1'000;
    net::Downloader small(options, clock);
    server.add_file("/huge.json", std::string(5'000, 'x'));
    net::FetchRequest request;
    request.url = server.url("/huge.json");

    const auto outcome = small.fetch(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::too_large);
    EXPECT_THAT(outcome.error().message, HasSubstr("larger than the 1000-byte limit"));
}

TEST_F(FetchTest, FollowsRedirectsOfDirectoriesWithoutSlash) {
    auto dir = fs::TempDir::create("aitk-net-fetch");
    std::filesystem::create_directories(dir.path() / "simple" / "bar");
    test::write_file(dir.path() / "simple" / "bar" / "index.html", "bar page");
    server.serve_directory(dir.path());

    const auto outcome = get("/simple/bar");

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->body, "bar page");
    EXPECT_EQ(outcome->effective_url, server.url("/simple/bar/"));
    const auto log = server.requests();
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].status, 301);
}

TEST_F(FetchTest, ServesDirectoryFilesWithRanges) {
    auto dir = fs::TempDir::create("aitk-net-fetch");
    const auto content = test::random_bytes(70'000, 5);
    test::write_file(dir.path() / "w.whl", content);
    server.serve_directory(dir.path(), "/files/");

    const auto whole = get("/files/w.whl");
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->body, content);
    EXPECT_EQ(whole->content_type, "application/zip");
    const auto part = get("/files/w.whl", {{"Range", "bytes=65530-65545"}});
    ASSERT_TRUE(part);
    EXPECT_EQ(part->body, content.substr(65'530, 16));
    EXPECT_FALSE(get("/files/../etc/passwd"));
}

TEST_F(FetchTest, ManyPagesInParallel) {
    std::vector<net::FetchRequest> requests;
    for (int i = 0; i < 30; ++i) {
        const std::string path = "/simple/p" + std::to_string(i) + "/";
        server.add_file(path + "index.html", "page " + std::to_string(i));
        requests.push_back(net::FetchRequest{server.url(path), {}, {}, {}});
    }
    const auto outcomes = downloader.fetch(requests);
    ASSERT_EQ(outcomes.size(), 30u);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ASSERT_TRUE(outcomes[i]);
        EXPECT_EQ(outcomes[i]->body, "page " + std::to_string(i));
    }
    EXPECT_LE(server.max_in_flight(), 4u);
}

TEST_F(FetchTest, ProxyFromTheEnvironmentIsUsed) {
    // The test server doubles as the proxy: it receives the absolute URL.
    server.add_file("http://pypi.invalid/simple.txt", "via proxy");
    ::setenv("http_proxy", server.base_url().c_str(), 1);
    net::Downloader proxied(test::test_options(), clock);
    net::FetchRequest request;
    request.url = "http://pypi.invalid/simple.txt";

    const auto outcome = proxied.fetch(request);
    ::unsetenv("http_proxy");

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->body, "via proxy");
    EXPECT_EQ(server.requests().back().path, "http://pypi.invalid/simple.txt");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
