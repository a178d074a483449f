// The downloader against the in-process server: parallelism, every scripted fault, resume,
// hash checks, retry timing through the injected clock. No assertion depends on wall-clock
// timing: waits are recorded by FakeClock and the server counts bytes and requests itself.
#include "aitk/net/downloader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
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

class DownloaderTest : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("aitk-net-test");
    HttpServer server;
    std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();

    // Serves `size` random bytes at `path` and returns them.
    std::string serve(const std::string& path, std::size_t size, unsigned seed = 1) {
        auto content = test::random_bytes(size, seed);
        server.add_file(path, content);
        return content;
    }

    net::FileRequest request_for(const std::string& path, const std::string& content) {
        net::FileRequest request;
        request.url = server.url(path);
        request.destination = dir.path() / "out" / path.substr(1);
        request.expected_sha256 = fs::sha256_hex(content);
        return request;
    }

    std::filesystem::path part_of(const net::FileRequest& request) {
        auto name = request.destination.filename();
        name += ".part";
        return request.destination.parent_path() / name;
    }

    net::Downloader make(net::DownloaderOptions options = test::test_options()) {
        return net::Downloader(std::move(options), clock);
    }
};

struct RecordingObserver : net::TransferObserver {
    std::vector<net::TransferInfo> started;
    std::vector<std::pair<std::size_t, net::FinishInfo>> finished;
    std::vector<std::pair<std::size_t, net::RetryInfo>> retries;
    std::map<std::size_t, std::vector<std::uint64_t>> progress;
    std::function<void()> on_first_start;

    void on_start(const net::TransferInfo& info) override {
        started.push_back(info);
        if (started.size() == 1 && on_first_start) on_first_start();
    }
    void on_progress(std::size_t id, std::uint64_t done, std::optional<std::uint64_t>) override {
        progress[id].push_back(done);
    }
    void on_retry(std::size_t id, const net::RetryInfo& info) override {
        retries.emplace_back(id, info);
    }
    void on_finish(std::size_t id, const net::FinishInfo& info) override {
        finished.emplace_back(id, info);
    }
};

TEST_F(DownloaderTest, DownloadsVerifiesAndRenamesIntoPlace) {
    const auto content = serve("/pkg/a-1.0-py3-none-any.whl", 300'000);
    auto downloader = make();
    const auto request = request_for("/pkg/a-1.0-py3-none-any.whl", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->sha256, fs::sha256_hex(content));
    EXPECT_EQ(outcome->size, content.size());
    EXPECT_EQ(outcome->attempts, 1);
    EXPECT_FALSE(outcome->resumed);
    EXPECT_EQ(outcome->http_version, 11);
    EXPECT_EQ(test::read_file(request.destination), content);
    EXPECT_FALSE(std::filesystem::exists(part_of(request)));
    const auto log = server.requests();
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].method, "GET");
    EXPECT_EQ(log[0].header("user-agent"), net::default_user_agent());
    EXPECT_THAT(log[0].header("user-agent"), ::testing::StartsWith("aitk-env/"));
    EXPECT_EQ(log[0].header("range"), "");
    EXPECT_TRUE(clock->sleeps.empty());
}

TEST_F(DownloaderTest, TwentyFilesInParallelUseExactlyTheConfiguredConcurrency) {
    std::vector<std::string> contents;
    std::vector<net::FileRequest> requests;
    for (int i = 0; i < 20; ++i) {
        const std::string path = "/files/f" + std::to_string(i) + ".bin";
        contents.push_back(serve(path, 50'000 + static_cast<std::size_t>(i) * 7'919, i + 1u));
        requests.push_back(request_for(path, contents.back()));
    }
    // Requests wait until four are in flight at once, so reaching four is certain, not luck.
    server.set_in_flight_gate(4);
    auto downloader = make(test::test_options(4));

    const auto outcomes = downloader.download(requests);

    ASSERT_EQ(outcomes.size(), 20u);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ASSERT_TRUE(outcomes[i]) << outcomes[i].error().message;
        EXPECT_EQ(outcomes[i]->sha256, fs::sha256_hex(contents[i]));
        EXPECT_EQ(test::read_file(requests[i].destination), contents[i]);
    }
    EXPECT_EQ(server.max_in_flight(), 4u);
    EXPECT_EQ(server.requests().size(), 20u);
    // Keep-alive: 20 transfers over at most 4 connections.
    std::set<int> connections;
    for (const auto& record : server.requests())
        connections.insert(record.remote_port);
    EXPECT_LE(connections.size(), 4u);
}

TEST_F(DownloaderTest, ANewTransferStartsAsSoonAsAnEarlierOneFinishes) {
    // With two slots, c can only start once b is done; a is held until c has been requested.
    // A downloader working in batches would wait for a first and never request c in time.
    const auto a = serve("/a.bin", 10'000, 1);
    const auto b = serve("/b.bin", 10'000, 2);
    const auto c = serve("/c.bin", 10'000, 3);
    server.set_fault("/a.bin", Fault::hold_until("/c.bin"));
    auto downloader = make(test::test_options(2));
    const std::vector<net::FileRequest> requests = {
        request_for("/a.bin", a), request_for("/b.bin", b), request_for("/c.bin", c)};

    const auto outcomes = downloader.download(requests);

    for (const auto& outcome : outcomes)
        ASSERT_TRUE(outcome) << outcome.error().message;
    const auto held = server.requests_for("/a.bin");
    ASSERT_EQ(held.size(), 1u);
    EXPECT_FALSE(held[0].hold_timed_out);
    EXPECT_EQ(held[0].fault, "hold");
}

TEST_F(DownloaderTest, ResumesWithRangeAfterConnectionReset) {
    const auto content = serve("/big.bin", 1'000'000);
    server.set_fault("/big.bin", Fault::reset_at(300'000));
    auto downloader = make();
    const auto request = request_for("/big.bin", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->resumed);
    EXPECT_EQ(outcome->attempts, 2);
    EXPECT_EQ(test::read_file(request.destination), content);
    const auto log = server.requests_for("/big.bin");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].fault, "reset");
    EXPECT_EQ(log[0].bytes_sent, 300'000u);
    const std::string range = log[1].header("range");
    ASSERT_THAT(range, ::testing::StartsWith("bytes="));
    const auto resumed_at = std::stoull(range.substr(6));
    EXPECT_GT(resumed_at, 0u);
    EXPECT_LE(resumed_at, 300'000u);
    EXPECT_EQ(log[1].status, 206);
    EXPECT_FALSE(log[1].header("if-range").empty());  // the same file, guaranteed by its ETag
    // Nothing fetched twice beyond what the reset may have lost in flight.
    EXPECT_EQ(server.bytes_served("/big.bin"), 300'000u + (content.size() - resumed_at));
    EXPECT_EQ(clock->sleeps.size(), 1u);
}

TEST_F(DownloaderTest, ResumesExactlyWhereATruncatedBodyEnded) {
    const auto content = serve("/t.bin", 800'000);
    server.set_fault("/t.bin", Fault::truncate_at(400'000));
    auto downloader = make();
    const auto request = request_for("/t.bin", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->resumed);
    const auto log = server.requests_for("/t.bin");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].fault, "truncate");
    EXPECT_EQ(log[1].header("range"), "bytes=400000-");
    EXPECT_EQ(server.bytes_served("/t.bin"), content.size());
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, RestartsFromScratchWhenTheServerIgnoresRange) {
    // The file changed between attempts: If-Range no longer matches, the server sends a 200.
    const auto content = serve("/changing.bin", 200'000, 1);
    server.set_fault("/changing.bin", Fault::truncate_at(100'000));
    const auto updated = test::random_bytes(200'000, 2);
    auto downloader = make();
    clock->on_sleep = [&](std::size_t) { server.add_file("/changing.bin", updated); };
    auto request = request_for("/changing.bin", updated);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(test::read_file(request.destination), updated);
    const auto log = server.requests_for("/changing.bin");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[1].header("range"), "bytes=100000-");
    EXPECT_EQ(log[1].status, 200);
    EXPECT_EQ(content.size(), updated.size());
}

TEST_F(DownloaderTest, RetriesServerErrorsWithGrowingBackoff) {
    const auto content = serve("/flaky.bin", 10'000);
    server.set_fault("/flaky.bin", Fault::http_status(500, 2));
    auto downloader = make();

    const auto outcome = downloader.download(request_for("/flaky.bin", content));

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 3);
    ASSERT_EQ(clock->sleeps.size(), 2u);
    // 500 ms then 1000 ms, each scaled by a jitter factor in [0.75, 1.25].
    EXPECT_GE(clock->sleeps[0], 375ms);
    EXPECT_LE(clock->sleeps[0], 625ms);
    EXPECT_GE(clock->sleeps[1], 750ms);
    EXPECT_LE(clock->sleeps[1], 1250ms);
}

TEST_F(DownloaderTest, JitterIsRepeatableWithAFixedSeed) {
    std::vector<std::vector<std::chrono::milliseconds>> runs;
    for (int run = 0; run < 2; ++run) {
        const auto content = serve("/flaky.bin", 1'000);
        server.set_fault("/flaky.bin", Fault::http_status(503, 3));
        auto local_clock = std::make_shared<FakeClock>();
        net::Downloader downloader(test::test_options(), local_clock);
        ASSERT_TRUE(downloader.download(request_for("/flaky.bin", content)));
        runs.push_back(local_clock->sleeps);
    }
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_EQ(runs[0].size(), 3u);
}

TEST_F(DownloaderTest, HonoursRetryAfterOnTooManyRequests) {
    const auto content = serve("/limited.bin", 1'000);
    server.set_fault("/limited.bin", Fault::http_status(429, 1, "7"));
    auto downloader = make();

    const auto outcome = downloader.download(request_for("/limited.bin", content));

    ASSERT_TRUE(outcome) << outcome.error().message;
    // Never earlier than asked; spread by up to the jitter (0.25) so a fleet does not return
    // at one instant.
    ASSERT_EQ(clock->sleeps.size(), 1u);
    EXPECT_GE(clock->sleeps[0], 7000ms);
    EXPECT_LE(clock->sleeps[0], 8750ms);
}

TEST_F(DownloaderTest, CapsAHugeRetryAfter) {
    const auto content = serve("/limited.bin", 1'000);
    server.set_fault("/limited.bin", Fault::http_status(503, 1, "86400"));
    auto options = test::test_options();
    options.retry.max_retry_after = 60s;
    auto downloader = make(options);

    ASSERT_TRUE(downloader.download(request_for("/limited.bin", content)));
    ASSERT_EQ(clock->sleeps.size(), 1u);
    EXPECT_GE(clock->sleeps[0], 60000ms);
    EXPECT_LE(clock->sleeps[0], 75000ms);
}

TEST_F(DownloaderTest, GivesUpAfterMaxAttemptsNamingUrlAndCause) {
    const auto content = serve("/down.bin", 1'000);
    server.set_fault("/down.bin", Fault::http_status(503, 100));
    auto options = test::test_options();
    options.retry.max_attempts = 3;
    auto downloader = make(options);
    const auto request = request_for("/down.bin", content);

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    const auto& error = outcome.error();
    EXPECT_EQ(error.kind, net::TransferError::Kind::http_status);
    EXPECT_EQ(error.http_status, 503);
    EXPECT_EQ(error.attempts, 3);
    EXPECT_EQ(error.url, server.url("/down.bin"));
    EXPECT_EQ(error.message, "GET " + server.url("/down.bin") +
                                 " failed after 3 attempts: HTTP 503 Service Unavailable");
    EXPECT_EQ(server.requests_for("/down.bin").size(), 3u);
    EXPECT_EQ(clock->sleeps.size(), 2u);
    EXPECT_FALSE(std::filesystem::exists(request.destination));
    EXPECT_FALSE(std::filesystem::exists(part_of(request)));
}

TEST_F(DownloaderTest, NotFoundFailsAtOnceWithoutRetry) {
    auto downloader = make();
    net::FileRequest request;
    request.url = server.url("/missing.whl");
    request.destination = dir.path() / "missing.whl";

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::http_status);
    EXPECT_EQ(outcome.error().http_status, 404);
    EXPECT_EQ(outcome.error().attempts, 1);
    EXPECT_EQ(outcome.error().message,
              "GET " + server.url("/missing.whl") + " failed: HTTP 404 Not Found");
    EXPECT_EQ(server.requests().size(), 1u);
    EXPECT_TRUE(clock->sleeps.empty());
    EXPECT_FALSE(std::filesystem::exists(request.destination));
    EXPECT_FALSE(std::filesystem::exists(part_of(request)));
}

TEST_F(DownloaderTest, HashMismatchNamesBothHashesAndKeepsNothing) {
    const auto content = serve("/x.whl", 5'000);
    auto request = request_for("/x.whl", content);
    const std::string wrong = fs::sha256_hex("something else");
    request.expected_sha256 = wrong;
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    const auto& error = outcome.error();
    EXPECT_EQ(error.kind, net::TransferError::Kind::hash_mismatch);
    EXPECT_EQ(error.message, "sha256 mismatch for " + server.url("/x.whl") + ": expected " + wrong +
                                 ", got " + fs::sha256_hex(content) +
                                 " (5000 bytes); the download was discarded");
    EXPECT_EQ(error.expected_sha256, wrong);
    EXPECT_EQ(error.actual_sha256, fs::sha256_hex(content));
    EXPECT_EQ(error.attempts, 2);  // one fresh download before giving up
    EXPECT_FALSE(std::filesystem::exists(request.destination));
    EXPECT_FALSE(std::filesystem::exists(part_of(request)));
}

TEST_F(DownloaderTest, ExpectedHashIsCaseInsensitiveAndValidated) {
    const auto content = serve("/x.whl", 100);
    auto request = request_for("/x.whl", content);
    std::transform(request.expected_sha256->begin(), request.expected_sha256->end(),
                   request.expected_sha256->begin(), ::toupper);
    auto downloader = make();
    EXPECT_TRUE(downloader.download(request));

    request.expected_sha256 = "abc";
    const auto outcome = downloader.download(request);
    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::bad_request);
    EXPECT_THAT(outcome.error().message, HasSubstr("'abc' is not 64 hexadecimal digits"));
}

TEST_F(DownloaderTest, CorruptedBodyOnceIsFetchedAgain) {
    const auto content = serve("/c.whl", 100'000);
    server.set_fault("/c.whl", Fault::wrong_bytes(1, 5'000));
    auto downloader = make();
    const auto request = request_for("/c.whl", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 2);
    const auto log = server.requests_for("/c.whl");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[1].header("range"), "");  // from scratch, not a resume
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, CorruptedBodyEveryTimeFailsAndLeavesNothing) {
    const auto content = serve("/c.whl", 100'000);
    server.set_fault("/c.whl", Fault::wrong_bytes(100));
    auto downloader = make();
    const auto request = request_for("/c.whl", content);

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::hash_mismatch);
    EXPECT_THAT(outcome.error().message, HasSubstr("expected " + fs::sha256_hex(content)));
    EXPECT_FALSE(std::filesystem::exists(request.destination));
    EXPECT_FALSE(std::filesystem::exists(part_of(request)));
}

TEST_F(DownloaderTest, WrongExpectedSizeIsAMismatch) {
    const auto content = serve("/s.bin", 10'000);
    auto request = request_for("/s.bin", content);
    request.expected_size = 9'000;
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::hash_mismatch);
    EXPECT_THAT(outcome.error().message,
                HasSubstr("size mismatch for " + server.url("/s.bin") +
                          ": the server sent more than the expected 9000 bytes"));
    EXPECT_FALSE(std::filesystem::exists(request.destination));
}

TEST_F(DownloaderTest, SlowTrickleHitsTheLowSpeedLimitAndResumes) {
    const auto content = serve("/slow.bin", 300'000);
    // libcurl averages speed over its last seconds, so the fast start stays small.
    server.set_fault("/slow.bin", Fault::trickle(1, 2'000, 10, 100ms));
    auto options = test::test_options();
    options.low_speed_limit = 1'000;
    options.low_speed_time = 1s;
    auto downloader = make(options);
    const auto request = request_for("/slow.bin", content);

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->resumed);
    const auto log = server.requests_for("/slow.bin");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].fault, "trickle");
    const auto range = log[1].header("range");
    ASSERT_THAT(range, ::testing::StartsWith("bytes="));
    EXPECT_GE(std::stoull(range.substr(6)), 2'000u);
    EXPECT_EQ(test::read_file(request.destination), content);
}

// A server that answered once in the run and then refuses connections is having a hiccup
// (a restart): the refusal is retried until it is back.
TEST_F(DownloaderTest, ConnectionRefusedAfterAFirstAnswerIsRetriedUntilTheServerIsBack) {
    const auto content = serve("/r.bin", 1'000);
    server.add_file("/hello.txt", "hi");
    auto downloader = make();
    ASSERT_TRUE(downloader.fetch(net::FetchRequest{server.url("/hello.txt"), {}, {}, {}}));
    server.stop();
    clock->on_sleep = [&](std::size_t count) {
        if (count == 2) server.start();  // down for two attempts, back for the third
    };

    const auto outcome = downloader.download(request_for("/r.bin", content));

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 3);
    EXPECT_EQ(server.requests_for("/r.bin").size(), 1u);
}

// The run's record of answered servers is shared by the downloaders of one command: what one
// of them reached, the next one retries.
TEST_F(DownloaderTest, ServersAnsweredThroughAnotherDownloaderOfTheRunAreRetried) {
    server.add_file("/hello.txt", "hi");
    auto options = test::test_options();
    options.retry.max_attempts = 3;
    options.reachability = std::make_shared<net::HostReachability>();
    {
        auto first = make(options);
        ASSERT_TRUE(first.fetch(net::FetchRequest{server.url("/hello.txt"), {}, {}, {}}));
    }
    EXPECT_TRUE(options.reachability->has_answered(server.url("/elsewhere")));
    server.stop();
    auto second = make(options);

    const auto outcome = second.fetch(net::FetchRequest{server.url("/hello.txt"), {}, {}, {}});

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::connection);
    EXPECT_EQ(outcome.error().attempts, 3);
    EXPECT_EQ(clock->sleeps.size(), 2u);
    EXPECT_THAT(outcome.error().message, HasSubstr("failed after 3 attempts: "));
    EXPECT_THAT(outcome.error().message, Not(HasSubstr("not retried")));
}

// A connection dropped after a first success is a transient fault: retried as before.
TEST_F(DownloaderTest, ADroppedConnectionAfterAFirstSuccessIsRetried) {
    const auto content = serve("/d.bin", 5'000);
    server.add_file("/hello.txt", "hi");
    auto downloader = make();
    ASSERT_TRUE(downloader.fetch(net::FetchRequest{server.url("/hello.txt"), {}, {}, {}}));
    server.set_fault("/d.bin", Fault::reset_at(0, 2));

    const auto outcome = downloader.download(request_for("/d.bin", content));

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 3);
    EXPECT_EQ(clock->sleeps.size(), 2u);
    EXPECT_EQ(test::read_file(outcome->destination), content);
}

// The first request to a server that refuses the connection says so at once: the network,
// the proxy or the URL is wrong, and retrying would only delay the answer. The caller's hint
// follows the downloader's own advice.
TEST_F(DownloaderTest, ARefusedFirstConnectionFailsAtOnceWithAdvice) {
    auto options = test::test_options();
    options.retry.max_attempts = 5;
    options.unreachable_hint = "or use --offline";
    auto downloader = make(options);
    RecordingObserver observer;
    net::FileRequest request;
    const auto port = std::to_string(test::unused_port());
    request.url = "http://127.0.0.1:" + port + "/x.whl";
    request.destination = dir.path() / "x.whl";

    const auto outcome = downloader.download(request, &observer);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::connection);
    EXPECT_EQ(outcome.error().attempts, 1);
    EXPECT_TRUE(clock->sleeps.empty());
    EXPECT_TRUE(observer.retries.empty());
    const auto& message = outcome.error().message;
    EXPECT_THAT(message, ::testing::StartsWith("GET " + request.url + " failed: "));
    EXPECT_THAT(message, HasSubstr("Failed to connect"));
    EXPECT_THAT(message, HasSubstr("nothing at http://127.0.0.1:" + port +
                                   " has answered in this run, so it was not retried"));
    EXPECT_THAT(message, HasSubstr("proxy variables https_proxy, http_proxy, all_proxy"));
    EXPECT_THAT(message, HasSubstr("; or use --offline)"));
    EXPECT_FALSE(std::filesystem::exists(request.destination));
}

// A server found unreachable is not tried again in the run: the other requests to it fail at
// once with the same cause, without another connection or lookup, in this downloader and in
// the others of the run.
TEST_F(DownloaderTest, RequestsToAServerFoundUnreachableAreNotSent) {
    auto options = test::test_options(1);  // one at a time: the first fails before the others
    options.reachability = std::make_shared<net::HostReachability>();
    auto downloader = make(options);
    const auto base = "http://127.0.0.1:" + std::to_string(test::unused_port());
    std::vector<net::FetchRequest> requests = {
        {base + "/a", {}, {}, {}}, {base + "/b", {}, {}, {}}, {base + "/c", {}, {}, {}}};

    const auto outcomes = downloader.fetch(requests);

    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_EQ(outcomes[0].error().attempts, 1);
    for (std::size_t i = 1; i < 3; ++i) {
        ASSERT_FALSE(outcomes[i]);
        EXPECT_EQ(outcomes[i].error().kind, net::TransferError::Kind::connection);
        EXPECT_EQ(outcomes[i].error().attempts, 0);
        EXPECT_THAT(outcomes[i].error().message,
                    ::testing::StartsWith("GET " + requests[i].url + " failed: "));
        EXPECT_THAT(outcomes[i].error().message, HasSubstr("Failed to connect"));
        EXPECT_THAT(outcomes[i].error().message, HasSubstr("so it was not retried"));
    }
    auto another = make(options);
    const auto later = another.fetch(net::FetchRequest{base + "/d", {}, {}, {}});
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().attempts, 0);
    EXPECT_TRUE(clock->sleeps.empty());
}

// A host name that does not resolve (.invalid never does, RFC 6761) fails at once as well,
// for every request of the batch.
TEST_F(DownloaderTest, AnUnresolvableHostFailsAtOnceWithAdvice) {
    auto options = test::test_options();
    options.retry.max_attempts = 5;
    auto downloader = make(options);
    std::vector<net::FetchRequest> requests = {
        {"http://pypi.aitk-env-test.invalid/simple/torch/", {}, {}, {}},
        {"https://files.aitk-env-test.invalid/a.whl", {}, {}, {}}};

    const auto outcomes = downloader.fetch(requests);

    ASSERT_EQ(outcomes.size(), 2u);
    for (const auto& outcome : outcomes) {
        ASSERT_FALSE(outcome);
        EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::connection);
        EXPECT_EQ(outcome.error().attempts, 1);
        EXPECT_THAT(outcome.error().message, HasSubstr("resolve"));
        EXPECT_THAT(outcome.error().message, HasSubstr("so it was not retried"));
    }
    EXPECT_THAT(outcomes[0].error().message, HasSubstr("http://pypi.aitk-env-test.invalid:80 "));
    EXPECT_THAT(outcomes[1].error().message, HasSubstr("https://files.aitk-env-test.invalid:443 "));
    EXPECT_TRUE(clock->sleeps.empty());
}

TEST_F(DownloaderTest, ContinuesAPartFileLeftByAnEarlierRun) {
    const auto content = serve("/p.whl", 400'000);
    const auto request = request_for("/p.whl", content);
    std::filesystem::create_directories(request.destination.parent_path());
    test::write_file(part_of(request), content.substr(0, 150'000));
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_TRUE(outcome->resumed);
    const auto log = server.requests_for("/p.whl");
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].header("range"), "bytes=150000-");
    EXPECT_EQ(server.bytes_served("/p.whl"), 250'000u);
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, AStalePartFileIsDiscardedOnceTheHashDisagrees) {
    const auto content = serve("/p.whl", 100'000);
    const auto request = request_for("/p.whl", content);
    std::filesystem::create_directories(request.destination.parent_path());
    test::write_file(part_of(request), test::random_bytes(30'000, 99));
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 2);
    const auto log = server.requests_for("/p.whl");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].header("range"), "bytes=30000-");
    EXPECT_EQ(log[1].header("range"), "");
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, ACompletePartFileIsVerifiedWithoutARequest) {
    const auto content = serve("/done.whl", 10'000);
    auto request = request_for("/done.whl", content);
    request.expected_size = content.size();
    std::filesystem::create_directories(request.destination.parent_path());
    test::write_file(part_of(request), content);
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->attempts, 0);
    EXPECT_TRUE(server.requests().empty());
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, ACompletePartFileWithoutKnownSizeEndsWithA416) {
    const auto content = serve("/done.whl", 10'000);
    const auto request = request_for("/done.whl", content);
    std::filesystem::create_directories(request.destination.parent_path());
    test::write_file(part_of(request), content);
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    const auto log = server.requests_for("/done.whl");
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].status, 416);
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, WithoutAnExpectedHashAPartFileIsNotTrusted) {
    const auto content = serve("/n.bin", 10'000);
    auto request = request_for("/n.bin", content);
    request.expected_sha256.reset();
    std::filesystem::create_directories(request.destination.parent_path());
    test::write_file(part_of(request), "garbage");
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->sha256, fs::sha256_hex(content));
    EXPECT_EQ(server.requests_for("/n.bin")[0].header("range"), "");
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, OneFailureDoesNotStopTheOthers) {
    const auto good = serve("/good.bin", 20'000);
    std::vector<net::FileRequest> requests = {request_for("/good.bin", good),
                                              request_for("/gone.bin", "x"),
                                              request_for("/good.bin", good)};
    requests[2].destination = dir.path() / "copy.bin";
    auto downloader = make();

    const auto outcomes = downloader.download(requests);

    EXPECT_TRUE(outcomes[0]);
    ASSERT_FALSE(outcomes[1]);
    EXPECT_EQ(outcomes[1].error().http_status, 404);
    EXPECT_TRUE(outcomes[2]);
}

TEST_F(DownloaderTest, ObserverSeesStartProgressRetryAndFinish) {
    const auto content = serve("/o.bin", 500'000);
    server.set_fault("/o.bin", Fault::truncate_at(200'000));
    const auto other = serve("/p.bin", 1'000, 2);
    RecordingObserver observer;
    auto downloader = make();
    const std::vector<net::FileRequest> requests = {request_for("/o.bin", content),
                                                    request_for("/p.bin", other)};

    const auto outcomes = downloader.download(requests, &observer);

    ASSERT_TRUE(outcomes[0] && outcomes[1]);
    ASSERT_EQ(observer.started.size(), 2u);
    EXPECT_EQ(observer.started[0].url, server.url("/o.bin"));
    EXPECT_EQ(observer.started[0].destination, requests[0].destination);
    ASSERT_EQ(observer.finished.size(), 2u);
    for (const auto& [id, info] : observer.finished) {
        EXPECT_TRUE(info.ok);
        EXPECT_EQ(info.bytes, id == 0 ? content.size() : other.size());
    }
    ASSERT_EQ(observer.retries.size(), 1u);
    EXPECT_EQ(observer.retries[0].first, 0u);
    EXPECT_TRUE(observer.retries[0].second.resuming);
    EXPECT_EQ(observer.retries[0].second.attempt, 1);
    const auto& progress = observer.progress[0];
    ASSERT_FALSE(progress.empty());
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    EXPECT_EQ(progress.back(), content.size());
}

TEST_F(DownloaderTest, CancelEndsEveryTransfer) {
    std::vector<net::FileRequest> requests;
    for (int i = 0; i < 5; ++i) {
        const std::string path = "/k" + std::to_string(i);
        requests.push_back(request_for(path, serve(path, 1'000, i + 1u)));
    }
    auto downloader = make(test::test_options(2));
    RecordingObserver observer;
    observer.on_first_start = [&] { downloader.cancel(); };

    const auto outcomes = downloader.download(requests, &observer);

    for (const auto& outcome : outcomes) {
        ASSERT_FALSE(outcome);
        EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::cancelled);
        EXPECT_THAT(outcome.error().message, HasSubstr("was cancelled"));
    }
    for (const auto& request : requests) {
        EXPECT_FALSE(std::filesystem::exists(request.destination));
    }
}

TEST_F(DownloaderTest, AnObserverExceptionLeavesTheDownloaderUsable) {
    const auto content = serve("/e.bin", 50'000);
    const auto request = request_for("/e.bin", content);
    auto downloader = make();
    struct Throwing : net::TransferObserver {
        void on_progress(std::size_t, std::uint64_t, std::optional<std::uint64_t>) override {
            throw std::runtime_error("observer broke");  // while the transfer is running
        }
    } observer;

    EXPECT_THROW(downloader.download(std::span(&request, 1), &observer), std::runtime_error);

    const auto outcome = downloader.download(request);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, FileUrlsWork) {
    const auto content = test::random_bytes(4'000, 7);
    const auto source = dir.path() / "source.bin";
    test::write_file(source, content);
    net::FileRequest request;
    request.url = "file://" + source.string();
    request.destination = dir.path() / "copy" / "source.bin";
    request.expected_sha256 = fs::sha256_hex(content);
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(test::read_file(request.destination), content);
}

TEST_F(DownloaderTest, FailsWhenTheDestinationCannotBeCreated) {
    const auto content = serve("/d.bin", 100);
    test::write_file(dir.path() / "blocker", "a file, not a directory");
    auto request = request_for("/d.bin", content);
    request.destination = dir.path() / "blocker" / "d.bin";
    auto downloader = make();

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::local_io);
    EXPECT_THAT(outcome.error().message, HasSubstr("blocker"));
    EXPECT_TRUE(server.requests().empty());
}

}  // namespace

namespace {

// The same faulty batch with bodies written on the transfer thread (0) or on 1 or 4 writer
// threads: results must not depend on where the bytes are written and hashed.
class WriterModes : public DownloaderTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WriterModes, FaultyBatchEndsWithVerifiedFiles) {
    std::vector<std::string> contents;
    std::vector<net::FileRequest> requests;
    for (int i = 0; i < 12; ++i) {
        const std::string path = "/m/f" + std::to_string(i) + ".whl";
        contents.push_back(serve(path, 600'000 + static_cast<std::size_t>(i) * 1'000, i + 10u));
        requests.push_back(request_for(path, contents.back()));
    }
    server.set_fault("/m/f0.whl", Fault::reset_at(250'000));
    server.set_fault("/m/f1.whl", Fault::truncate_at(300'000));
    server.set_fault("/m/f2.whl", Fault::wrong_bytes(1, 123'456));
    server.set_fault("/m/f3.whl", Fault::http_status(503, 2));
    std::filesystem::create_directories(requests[4].destination.parent_path());
    test::write_file(part_of(requests[4]), contents[4].substr(0, 100'000));
    test::write_file(part_of(requests[5]), test::random_bytes(50'000, 77));  // stale
    auto options = test::test_options(4);
    options.writer_threads = GetParam();
    options.receive_buffer_bytes = 16 * 1024;  // many small buffers through the writers
    auto downloader = make(options);

    const auto outcomes = downloader.download(requests);

    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ASSERT_TRUE(outcomes[i]) << i << ": " << outcomes[i].error().message;
        EXPECT_EQ(outcomes[i]->sha256, fs::sha256_hex(contents[i]));
        EXPECT_EQ(test::read_file(requests[i].destination), contents[i]);
        EXPECT_FALSE(std::filesystem::exists(part_of(requests[i])));
    }
    EXPECT_TRUE(outcomes[0]->resumed);
    EXPECT_TRUE(outcomes[1]->resumed);
    EXPECT_EQ(outcomes[2]->attempts, 2);
    EXPECT_EQ(outcomes[3]->attempts, 3);
    EXPECT_TRUE(outcomes[4]->resumed);
    EXPECT_EQ(outcomes[5]->attempts, 2);
}

// A write that fails (here: ENOSPC, the .part being a link to /dev/full) fails the transfer
// with the system's message, whether the transfer thread writes alone or beside hashing threads
// (written pieces are gathered first: the error may come with a later piece or at the close).
TEST_P(WriterModes, AWriteErrorFailsTheTransferWithItsCause) {
#ifdef _WIN32
    GTEST_SKIP() << "no /dev/full";
#else
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const auto content = serve("/full.whl", 700'000, 5);
    auto request = request_for("/full.whl", content);
    std::filesystem::create_directories(request.destination.parent_path());
    std::filesystem::create_symlink("/dev/full", part_of(request));
    auto options = test::test_options(2);
    options.writer_threads = GetParam();
    auto downloader = make(options);

    const auto outcome = downloader.download(request);

    ASSERT_FALSE(outcome);
    EXPECT_EQ(outcome.error().kind, net::TransferError::Kind::local_io);
    EXPECT_THAT(outcome.error().message, HasSubstr(std::strerror(ENOSPC)));
    EXPECT_FALSE(std::filesystem::exists(request.destination));
#endif
}

INSTANTIATE_TEST_SUITE_P(Writers, WriterModes, ::testing::Values(0u, 1u, 4u));

}  // namespace

}  // namespace AITK_FILE_LOCAL
