// Index strategies in the index layer (issue 34): uv's three names, which projects are gathered
// from every index, how the listings of several indexes merge (a version on several indexes is
// the first one's entry), and the client's lookups under each strategy against real local
// servers (every index's page fetched in one round, the torch family still only from its
// backend index, a failing index still an error, the indexes first-index passed over).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "aitk/index/client.hpp"
#include "aitk/index/routing.hpp"
#include "http_server.hpp"
#include "index_test_support.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using index::IndexClient;
using index::IndexKind;
using index::IndexLocation;
using index::IndexRouting;
using index::IndexStrategy;
using index::ProjectFiles;
using ::testing::HasSubstr;

namespace {

const test::ClearProxyEnvironment no_proxy;

index::DistributionFile file(const std::string& filename, const std::string& base) {
    index::DistributionFile draft;
    draft.filename = filename;
    draft.url = base + filename;
    auto classified = index::classify_file(std::move(draft), "");
    return std::get<index::DistributionFile>(classified);
}

ProjectFiles listing(const IndexLocation& where, const std::vector<std::string>& filenames) {
    ProjectFiles out;
    out.project = "vllm";
    out.index = where;
    out.page_url = where.url + "vllm/";
    for (const auto& name : filenames)
        out.files.push_back(file(name, where.url));
    return out;
}

const IndexLocation primary{"primary", "https://pypi.example/simple/", IndexKind::simple};
const IndexLocation extra{"extra-index 1", "https://wheels.example/simple/", IndexKind::simple};
const IndexLocation links{"find-links", "https://h.example/links.html", IndexKind::find_links};

TEST(IndexStrategy, UvNamesBothWays) {
    for (auto s : {IndexStrategy::first_index, IndexStrategy::unsafe_first_match,
                   IndexStrategy::unsafe_best_match}) {
        EXPECT_EQ(index::parse_index_strategy(index::to_string(s)), s);
    }
    EXPECT_EQ(index::to_string(IndexStrategy::first_index), "first-index");
    EXPECT_EQ(index::to_string(IndexStrategy::unsafe_first_match), "unsafe-first-match");
    EXPECT_EQ(index::to_string(IndexStrategy::unsafe_best_match), "unsafe-best-match");
    for (const char* bad : {"", "first", "best-match", "UNSAFE-BEST-MATCH", "unsafe_best_match"})
        EXPECT_FALSE(index::parse_index_strategy(bad)) << bad;
    EXPECT_EQ(index::index_strategy_names(),
              "first-index, unsafe-first-match or unsafe-best-match");
}

TEST(IndexStrategy, OnlyMergingStrategiesGatherAndNeverTheTorchFamilyOfABackend) {
    auto r = IndexRouting::from_options("https://pypi.example/simple", {"https://e/simple"}, {},
                                        "https://t/whl", "cu128");
    EXPECT_EQ(r.strategy, IndexStrategy::first_index);  // what routing says by itself
    EXPECT_FALSE(r.merges("numpy"));
    r.strategy = IndexStrategy::unsafe_best_match;
    EXPECT_TRUE(r.merges("numpy"));
    // One CUDA flavour for the whole family: the backend's routing is the same under every
    // strategy, for the core and for the rest of the family.
    EXPECT_FALSE(r.merges("torch"));
    EXPECT_FALSE(r.merges("xformers"));
    r.strategy = IndexStrategy::unsafe_first_match;
    EXPECT_TRUE(r.merges("pillow"));
    EXPECT_FALSE(r.merges("triton"));
    // Without a backend index the family is ordinary.
    auto plain = IndexRouting::from_options("https://pypi.example/simple", {"https://e/simple"});
    plain.strategy = IndexStrategy::unsafe_best_match;
    EXPECT_TRUE(plain.merges("torch"));
}

TEST(IndexStrategy, AVersionOnSeveralIndexesIsTheFirstIndexsEntry) {
    const auto merged = index::merge_listings(
        {listing(primary, {"vllm-0.22.0-py3-none-any.whl", "vllm-0.22.0.tar.gz",
                           "vllm-0.21.0-py3-none-any.whl"}),
         listing(extra,
                 {"vllm-0.22.0-cp38-abi3-manylinux_2_31_x86_64.whl",
                  "vllm-0.22.0+cu129-cp38-abi3-manylinux_2_31_x86_64.whl", "vllm-0.23.0.tar.gz"}),
         listing(links, {"vllm-0.21.0-cp312-cp312-manylinux_2_28_x86_64.whl",
                         "vllm-0.20.0-py3-none-any.whl"})});
    EXPECT_EQ(merged.project, "vllm");
    EXPECT_EQ(merged.index, primary);
    ASSERT_EQ(merged.listed_on, (std::vector<IndexLocation>{primary, extra, links}));
    std::vector<std::pair<std::string, std::string>> got;
    for (std::size_t i = 0; i < merged.files.size(); ++i)
        got.emplace_back(merged.files[i].filename, merged.index_of(i).name);
    // 0.22.0 and 0.21.0 are the primary's (its files only); the extra index adds 0.22.0+cu129
    // (another version: a local label is part of it) and 0.23.0, find-links 0.20.0.
    EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                       {"vllm-0.22.0-py3-none-any.whl", "primary"},
                       {"vllm-0.22.0.tar.gz", "primary"},
                       {"vllm-0.21.0-py3-none-any.whl", "primary"},
                       {"vllm-0.22.0+cu129-cp38-abi3-manylinux_2_31_x86_64.whl", "extra-index 1"},
                       {"vllm-0.23.0.tar.gz", "extra-index 1"},
                       {"vllm-0.20.0-py3-none-any.whl", "find-links"}}));
    EXPECT_EQ(merged.source_of(0), 0u);
    EXPECT_EQ(merged.source_of(3), 1u);
    EXPECT_EQ(merged.source_of(5), 2u);

    // pip's way: a later index adds every file whose name is new, of listed versions too (the
    // manylinux wheel of 0.22.0, the find-links wheel of 0.21.0); a name taken stays the first's.
    auto again = [&] {
        return std::vector<ProjectFiles>{
            listing(primary, {"vllm-0.22.0-py3-none-any.whl", "vllm-0.21.0-py3-none-any.whl"}),
            listing(extra, {"vllm-0.22.0-cp38-abi3-manylinux_2_31_x86_64.whl",
                            "vllm-0.22.0-py3-none-any.whl"}),
            listing(links, {"vllm-0.21.0-cp312-cp312-manylinux_2_28_x86_64.whl"})};
    };
    const auto every = index::merge_listings(again(), true);
    std::vector<std::pair<std::string, std::string>> all;
    for (std::size_t i = 0; i < every.files.size(); ++i)
        all.emplace_back(every.files[i].filename, every.index_of(i).name);
    EXPECT_EQ(all, (std::vector<std::pair<std::string, std::string>>{
                       {"vllm-0.22.0-py3-none-any.whl", "primary"},
                       {"vllm-0.21.0-py3-none-any.whl", "primary"},
                       {"vllm-0.22.0-cp38-abi3-manylinux_2_31_x86_64.whl", "extra-index 1"},
                       {"vllm-0.21.0-cp312-cp312-manylinux_2_28_x86_64.whl", "find-links"}}));
    EXPECT_EQ(index::merge_listings(again()).files.size(), 2u);  // uv's way: the primary's

    // One listing stays as it was; a file list without sources is all its index's.
    const auto one = index::merge_listings({listing(extra, {"vllm-1.0.tar.gz"})});
    EXPECT_EQ(one.index, extra);
    EXPECT_EQ(one.index_of(0), extra);
    EXPECT_EQ(one.source_of(0), 0u);
    const auto bare = listing(primary, {"vllm-1.0.tar.gz"});
    EXPECT_EQ(bare.index_of(0), primary);
}

class StrategyClient : public ::testing::Test {
  protected:
    // The primary, the extra index and the backend index, on one server.
    void SetUp() override {
        server.add_file("/simple/vllm/index.html", "<a href='vllm-0.22.0-py3-none-any.whl'>x</a>");
        server.add_file("/simple/numpy/index.html", "<a href='numpy-2.2.0-py3-none-any.whl'>x</a>");
        server.add_file("/extra/vllm/index.html",
                        "<a href='vllm-0.22.0%2Bcu129-py3-none-any.whl'>x</a>"
                        "<a href='vllm-0.22.0-py3-none-any.whl'>copy</a>");
        server.add_file("/extra/torch/index.html",
                        "<a href='torch-9.0.0-py3-none-any.whl'>bait</a>");
        server.add_file("/whl/cu128/torch/index.html",
                        "<a href='torch-2.7.0%2Bcu128-py3-none-any.whl'>x</a>");
        // torchao: in the torch family but not its core; prime-rl pins a +git build that only
        // an extra index has, while the primary lists the plain release.
        server.add_file("/simple/torchao/index.html",
                        "<a href='torchao-0.17.0-py3-none-any.whl'>x</a>");
        server.add_file("/extra/torchao/index.html",
                        "<a href='torchao-0.17.0%2Bgit02105d46c-py3-none-any.whl'>x</a>");
    }

    IndexRouting routing(IndexStrategy strategy) const {
        auto r = IndexRouting::from_options(server.url("/simple/"), {server.url("/extra/")}, {},
                                            server.url("/whl"), "cu128");
        r.strategy = strategy;
        return r;
    }
    std::unique_ptr<IndexClient> client(IndexRouting r) {
        index::ClientOptions options;
        options.clock = clock;
        return std::make_unique<IndexClient>(downloader, nullptr, std::move(r), options);
    }
    std::size_t asked(const std::string& prefix) const {
        std::size_t n = 0;
        for (const auto& r : server.requests())
            n += r.path.rfind(prefix, 0) == 0 ? 1 : 0;
        return n;
    }

    std::shared_ptr<test::InstantClock> clock = std::make_shared<test::InstantClock>();
    net::Downloader downloader{test::index_test_options(), clock};
    test::HttpServer server;
};

TEST_F(StrategyClient, BestMatchGathersEveryIndexsVersionsInOneRound) {
    // The four pages (two projects on two indexes) are answered only once all four are asked.
    server.set_in_flight_gate(4, std::chrono::seconds(5));
    auto c = client(routing(IndexStrategy::unsafe_best_match));
    const std::vector<std::string> names = {"vllm", "numpy"};
    const auto outcomes = c->projects(names);
    EXPECT_GE(server.max_in_flight(), 4u);
    ASSERT_TRUE(outcomes[0]) << outcomes[0].error().message;
    const auto& vllm = *outcomes[0];
    std::set<std::string> files;
    for (std::size_t i = 0; i < vllm.files.size(); ++i)
        files.insert(vllm.files[i].filename + " @ " + vllm.index_of(i).name);
    EXPECT_EQ(files, (std::set<std::string>{"vllm-0.22.0-py3-none-any.whl @ primary",
                                            "vllm-0.22.0+cu129-py3-none-any.whl @ extra-index 1"}));
    // numpy is on the primary only: the extra index's 404 is no error.
    ASSERT_TRUE(outcomes[1]) << outcomes[1].error().message;
    EXPECT_EQ(outcomes[1]->index.name, "primary");
    EXPECT_EQ(outcomes[1]->files.size(), 1u);
    ASSERT_EQ(server.requests_for("/extra/numpy/").size(), 1u);
    EXPECT_EQ(server.requests_for("/extra/numpy/").back().status, 404);
}

TEST_F(StrategyClient, FirstIndexAsksNoFurtherAndSaysWhatItPassedOver) {
    auto c = client(routing(IndexStrategy::first_index));
    const auto vllm = c->project("vllm");
    ASSERT_TRUE(vllm) << vllm.error().message;
    EXPECT_EQ(vllm->index.name, "primary");
    EXPECT_EQ(vllm->files.size(), 1u);
    EXPECT_EQ(asked("/extra/"), 0u);
    // For the message of an unsatisfiable pin: what the later indexes list.
    const auto passed = c->passed_over("vllm");
    ASSERT_EQ(passed.size(), 1u);
    EXPECT_EQ(passed[0].index.name, "extra-index 1");
    EXPECT_EQ(passed[0].files.size(), 2u);
    EXPECT_TRUE(c->passed_over("numpy").empty());
}

TEST_F(StrategyClient, BeyondTheBackendIndexAFamilyMemberFollowsTheStrategy) {
    // The backend index has no torchao; where it is looked up next, every index counts under
    // best-match (prime-rl's torchao==0.17.0+git… on an extra index), the first under
    // first-index.
    {
        auto c = client(routing(IndexStrategy::unsafe_best_match));
        const auto torchao = c->project_beyond_backend("torchao");
        ASSERT_TRUE(torchao) << torchao.error().message;
        std::set<std::string> files;
        for (const auto& f : torchao->files)
            files.insert(f.filename);
        EXPECT_EQ(files, (std::set<std::string>{"torchao-0.17.0-py3-none-any.whl",
                                                "torchao-0.17.0+git02105d46c-py3-none-any.whl"}));
        // The first lookup too: the backend index does not list it, so every index after it
        // counts, in the same rounds as other projects.
        const auto first = c->project("torchao");
        ASSERT_TRUE(first) << first.error().message;
        EXPECT_EQ(first->files.size(), 2u);
        EXPECT_EQ(first->index.name, "primary");
    }
    {
        auto c = client(routing(IndexStrategy::first_index));
        const auto torchao = c->project_beyond_backend("torchao");
        ASSERT_TRUE(torchao) << torchao.error().message;
        EXPECT_EQ(torchao->index.name, "primary");
        ASSERT_EQ(torchao->files.size(), 1u);
    }
}

TEST_F(StrategyClient, TheTorchFamilyStaysOnItsBackendIndexUnderEveryStrategy) {
    for (auto s : {IndexStrategy::first_index, IndexStrategy::unsafe_first_match,
                   IndexStrategy::unsafe_best_match}) {
        server.clear_log();
        auto c = client(routing(s));
        const auto torch = c->project("torch");
        ASSERT_TRUE(torch) << torch.error().message;
        EXPECT_EQ(torch->index.name, "torch cu128");
        ASSERT_EQ(torch->files.size(), 1u);
        EXPECT_EQ(torch->files[0].filename, "torch-2.7.0+cu128-py3-none-any.whl");
        EXPECT_EQ(asked("/extra/"), 0u) << index::to_string(s);
        EXPECT_EQ(asked("/simple/"), 0u) << index::to_string(s);
    }
}

TEST_F(StrategyClient, AFailingIndexIsStillAnErrorWhenEveryIndexIsAsked) {
    server.set_fault("/extra/vllm/", test::Fault::http_status(503, 10));
    auto c = client(routing(IndexStrategy::unsafe_best_match));
    const auto vllm = c->project("vllm");
    ASSERT_FALSE(vllm);
    EXPECT_EQ(vllm.error().kind, index::IndexError::Kind::network);
    EXPECT_THAT(vllm.error().message, HasSubstr("503"));

    const auto nowhere = c->project("nowhere");
    ASSERT_FALSE(nowhere);
    EXPECT_EQ(nowhere.error().kind, index::IndexError::Kind::not_found);
    EXPECT_THAT(nowhere.error().message, HasSubstr("no index lists a project named 'nowhere'"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
