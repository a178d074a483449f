// The index client against a real local server: the torch-like mirror's HTML and JSON pages,
// content negotiation, caching with revalidation, offline runs, routing (torch family only
// from the backend index, first index wins), find-links and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/offline.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/client.hpp"
#include "aitk/index/url.hpp"
#include "http_server.hpp"
#include "index_test_support.hpp"
#include "mirror_builder.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using index::IndexClient;
using index::IndexError;
using index::IndexRouting;
using index::PageFormat;
using index::PageOrigin;
using test::HttpServer;
using ::testing::HasSubstr;

namespace {

const test::ClearProxyEnvironment no_proxy;

class ClientTest : public test::TorchMirrorTest {
  protected:
    IndexRouting routing(std::string backend = "cu126") const {
        return IndexRouting::from_options(server.url("/simple/"), {}, {}, server.url("/whl"),
                                          backend);
    }
    std::unique_ptr<IndexClient> client(IndexRouting r, index::ClientOptions options = {},
                                        cache::Cache* with_cache = nullptr) {
        options.clock = clock;
        return std::make_unique<IndexClient>(downloader, with_cache, std::move(r), options);
    }
    std::size_t requests_for(const std::string& path) const {
        return server.requests_for(path).size();
    }
    static std::set<std::string> filenames(const index::ProjectFiles& files) {
        std::set<std::string> out;
        for (const auto& f : files.files)
            out.insert(f.filename);
        return out;
    }
    static std::set<std::string> published(std::string_view index, std::string_view project) {
        std::set<std::string> out;
        for (const auto& f : scenario->files) {
            if (f.index == index && f.project == project) out.insert(f.artifact.filename);
        }
        return out;
    }

    net::Downloader downloader{test::index_test_options(), clock};
    fs::TempDir cache_dir = fs::TempDir::create("aitk-index-cache");
    cache::Cache cache{cache_dir.path()};
};

TEST_F(ClientTest, JsonPageOfThePrimaryIndex) {
    auto c = client(routing());
    const auto numpy = c->project("NumPy");

    ASSERT_TRUE(numpy) << numpy.error().message;
    EXPECT_EQ(numpy->project, "numpy");
    EXPECT_EQ(numpy->index.name, "primary");
    EXPECT_EQ(numpy->format, PageFormat::json);
    EXPECT_EQ(numpy->api_version, "1.1");
    EXPECT_EQ(numpy->origin, PageOrigin::network);
    EXPECT_EQ(filenames(*numpy), published("simple", "numpy"));
    EXPECT_EQ(numpy->files.size(), 25u);
    for (const auto& f : numpy->files) {
        const auto& p =
            *std::find_if(scenario->files.begin(), scenario->files.end(),
                          [&](const auto& x) { return x.artifact.filename == f.filename; });
        EXPECT_EQ(f.url, server.url(p.url_path));
        EXPECT_EQ(f.sha256(), p.artifact.sha256);
        EXPECT_EQ(f.size, p.artifact.size);
        EXPECT_EQ(f.requires_python, p.artifact.requires_python);
        EXPECT_EQ(f.yanked, f.version().to_string() == "2.0.0") << f.filename;
        if (f.yanked) {
            EXPECT_EQ(f.yanked_reason, "broken ABI, use 2.0.1");
        }
        EXPECT_EQ(f.core_metadata.available, f.is_wheel()) << f.filename;
    }
    const auto log = server.requests_for("/simple/numpy/");
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].header("accept"),
              "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
              "text/html;q=0.01");
}

TEST_F(ClientTest, HtmlWhenTheServerDoesNotNegotiate) {
    test::ServerOptions no_negotiation;
    no_negotiation.pep691_negotiation = false;
    HttpServer html_only(no_negotiation);
    html_only.serve_directory(scenario->root);
    auto c = client(IndexRouting::from_options(html_only.url("/simple/")));
    const auto numpy = c->project("numpy");

    ASSERT_TRUE(numpy) << numpy.error().message;
    EXPECT_EQ(numpy->format, PageFormat::html);
    EXPECT_EQ(numpy->api_version, "1.1");  // from <meta name="pypi:repository-version">
    EXPECT_EQ(filenames(*numpy), published("simple", "numpy"));
    const auto lt = std::find_if(numpy->files.begin(), numpy->files.end(),
                                 [](const auto& f) { return f.version().to_string() == "1.26.4"; });
    ASSERT_NE(lt, numpy->files.end());
    EXPECT_EQ(lt->requires_python, ">=3.9,<3.13");  // "&lt;" decoded
    EXPECT_TRUE(std::any_of(numpy->files.begin(), numpy->files.end(),
                            [](const auto& f) { return f.yanked; }));
}

TEST_F(ClientTest, TorchComesOnlyFromTheBackendIndex) {
    auto c = client(routing("cu126"));
    const auto torch = c->project("torch");

    ASSERT_TRUE(torch) << torch.error().message;
    EXPECT_EQ(torch->index.kind, index::IndexKind::torch_backend);
    EXPECT_EQ(torch->index.url, server.url("/whl/cu126/"));
    EXPECT_EQ(torch->format, PageFormat::html);
    EXPECT_EQ(filenames(*torch), published("whl/cu126", "torch"));
    for (const auto& f : torch->files) {
        EXPECT_THAT(f.url, ::testing::StartsWith(server.url("/whl/cu126/torch-")));
        EXPECT_THAT(f.url, HasSubstr("%2Bcu126"));
        EXPECT_EQ(f.version().local(), "cu126") << f.filename;
    }
    // The PyPI-style torch on the primary index (the bait) was never even asked for.
    EXPECT_EQ(requests_for("/simple/torch/"), 0u);

    // The rest of the family too, and triton; nvidia-* and numpy come from the primary.
    const std::vector<std::string> names = {"torchvision", "torchaudio", "triton", "numpy",
                                            "nvidia-cudnn-cu12"};
    const auto many = c->projects(names);
    ASSERT_EQ(many.size(), 5u);
    for (std::size_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(many[i]) << many[i].error().message;
        EXPECT_EQ(many[i]->index.kind, index::IndexKind::torch_backend) << names[i];
    }
    EXPECT_EQ(requests_for("/simple/triton/"), 0u);
    EXPECT_EQ(many[3]->index.name, "primary");
    EXPECT_EQ(many[4]->index.name, "primary");
}

TEST_F(ClientTest, CpuBackendAndMissingFamilyMembers) {
    auto c = client(routing("cpu"));
    const auto torch = c->project("torch");
    ASSERT_TRUE(torch);
    EXPECT_EQ(filenames(*torch), published("whl/cpu", "torch"));

    // No triton on the cpu index: triton is of the family but not its core, so the primary
    // index is asked next.
    const auto triton = c->project("triton");
    EXPECT_EQ(requests_for("/simple/triton/"), 1u);
    if (triton) {
        EXPECT_EQ(triton->index.name, "primary");
    }

    // The core is taken only from the backend index: a core name it lacks is an error, never
    // the primary index's copy.
    IndexRouting only_core = routing("cpu");
    only_core.torch_core.push_back("triton");
    auto strict = client(only_core);
    const auto core = strict->project("triton");
    ASSERT_FALSE(core);
    EXPECT_EQ(core.error().kind, IndexError::Kind::not_found);
    EXPECT_THAT(core.error().message,
                HasSubstr("'triton' is a core torch package, which is taken only from the "
                          "torch backend index (torch cpu " +
                          server.url("/whl/cpu/") + ")"));
    EXPECT_EQ(requests_for("/simple/triton/"), 1u);
}

TEST_F(ClientTest, FirstIndexWinsAgainstAnExtraIndex) {
    // An "extra" index that also has numpy (a squatter) and a project the primary lacks.
    auto extra_dir = fs::TempDir::create("aitk-index-extra");
    test::MirrorBuilder extra(extra_dir.path());
    test::WheelSpec bait;
    bait.name = "numpy";
    bait.version = "99.0";
    extra.add_wheel("extra", bait);
    test::WheelSpec only;
    only.name = "only-extra";
    only.version = "1.0";
    extra.add_wheel("extra", only);
    extra.write();
    HttpServer extra_server;
    extra_server.serve_directory(extra_dir.path());

    auto c =
        client(IndexRouting::from_options(server.url("/simple/"), {extra_server.url("/extra/")}));
    const auto numpy = c->project("numpy");
    ASSERT_TRUE(numpy);
    EXPECT_EQ(numpy->index.name, "primary");
    EXPECT_EQ(extra_server.requests_for("/extra/numpy/").size(), 0u);

    const auto found = c->project("Only_Extra");
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(found->index.name, "extra-index 1");
    EXPECT_EQ(found->files.size(), 1u);
    EXPECT_EQ(server.requests_for("/simple/only-extra/").back().status, 404);

    const auto missing = c->project("nowhere");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().kind, IndexError::Kind::not_found);
    EXPECT_THAT(
        missing.error().message,
        HasSubstr("no index lists a project named 'nowhere' (looked at: primary " +
                  server.url("/simple/") + ", extra-index 1 " + extra_server.url("/extra/") + ")"));
}

TEST_F(ClientTest, AFailingIndexIsAnErrorNotAReasonToAskTheNext) {
    auto extra_dir = fs::TempDir::create("aitk-index-extra");
    test::MirrorBuilder extra(extra_dir.path());
    test::WheelSpec bait;
    bait.name = "requests";
    bait.version = "99.0";
    extra.add_wheel("extra", bait);
    extra.write();
    HttpServer extra_server;
    extra_server.serve_directory(extra_dir.path());
    server.set_fault("/simple/requests/", test::Fault::http_status(503, 10));

    auto c =
        client(IndexRouting::from_options(server.url("/simple/"), {extra_server.url("/extra/")}));
    const auto requests = c->project("requests");
    ASSERT_FALSE(requests);
    EXPECT_EQ(requests.error().kind, IndexError::Kind::network);
    EXPECT_THAT(requests.error().message, HasSubstr("503"));
    EXPECT_EQ(extra_server.requests().size(), 0u);
}

TEST_F(ClientTest, PagesAreCachedAndRevalidated) {
    {
        auto c = client(routing(), {}, &cache);
        ASSERT_TRUE(c->project("numpy"));
        ASSERT_TRUE(c->project("numpy"));  // once per client
        EXPECT_EQ(requests_for("/simple/numpy/"), 1u);
    }
    ASSERT_TRUE(cache.find_http(server.url("/simple/numpy/")));

    auto c = client(routing(), {}, &cache);
    const auto numpy = c->project("numpy");
    ASSERT_TRUE(numpy) << numpy.error().message;
    EXPECT_EQ(numpy->origin, PageOrigin::revalidated);
    EXPECT_EQ(numpy->format, PageFormat::json);
    EXPECT_EQ(filenames(*numpy), published("simple", "numpy"));
    const auto log = server.requests_for("/simple/numpy/");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].status, 200);
    EXPECT_FALSE(log[1].header("if-none-match").empty());
    EXPECT_FALSE(log[1].header("if-modified-since").empty());
    EXPECT_EQ(log[1].status, 304);
    EXPECT_EQ(log[1].bytes_sent, 0u);

    // Trusted as fresh: no request at all.
    index::ClientOptions trusting;
    trusting.trust_cached_for = std::chrono::hours(1);
    auto t = client(routing(), trusting, &cache);
    const auto again = t->project("numpy");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->origin, PageOrigin::cache);
    EXPECT_EQ(requests_for("/simple/numpy/"), 2u);
}

TEST_F(ClientTest, AChangedPageIsFetchedAgain) {
    HttpServer memory;
    const std::string page1 = "<a href='/f/demo-1.0-py3-none-any.whl'>1</a>";
    memory.add_file("/simple/demo/index.html", page1);
    {
        auto c = client(IndexRouting::from_options(memory.url("/simple/")), {}, &cache);
        ASSERT_EQ(c->project("demo")->files.size(), 1u);
    }
    memory.add_file("/simple/demo/index.html",
                    page1 + "<a href='/f/demo-2.0-py3-none-any.whl'>2</a>");
    {
        auto c = client(IndexRouting::from_options(memory.url("/simple/")), {}, &cache);
        const auto demo = c->project("demo");
        ASSERT_TRUE(demo);
        EXPECT_EQ(demo->origin, PageOrigin::network);
        EXPECT_EQ(demo->files.size(), 2u);
        EXPECT_EQ(memory.requests().back().status, 200);
    }
    // The client writes the cache behind the resolution's back: done once it is gone.
    EXPECT_EQ(cache.find_http(memory.url("/simple/demo/"))->body.size(), page1.size() + 44u);
}

TEST_F(ClientTest, OfflineUsesOnlyTheCacheAndSaysWhatIsMissing) {
    index::ClientOptions offline;
    offline.offline = true;
    {
        auto c = client(routing(), offline, &cache);
        const auto numpy = c->project("numpy");
        ASSERT_FALSE(numpy);
        EXPECT_EQ(numpy.error().kind, IndexError::Kind::offline_missing);
        EXPECT_THAT(numpy.error().message,
                    HasSubstr("offline: the index page " + server.url("/simple/numpy/") +
                              " is not in the cache at " + cache.root().string()));
        const std::vector<std::string> names = {"torch", "idna"};
        EXPECT_FALSE(c->projects(names)[0]);
        EXPECT_EQ(c->missing_pages(), (std::vector<std::string>{server.url("/simple/numpy/"),
                                                                server.url("/whl/cu126/torch/"),
                                                                server.url("/simple/idna/")}));
        const auto report = cache::check_offline(cache, {}, c->missing_pages());
        EXPECT_EQ(report.missing_pages.size(), 3u);
    }
    EXPECT_TRUE(server.requests().empty());

    // Fill the cache online (a project found on the extra index after a 404 on the primary
    // too), then the same lookups work offline without a single request.
    HttpServer extra;
    extra.add_file("/extra/only-extra/index.html",
                   "<a href='only_extra-1.0-py3-none-any.whl'>x</a>");
    const auto routes = IndexRouting::from_options(server.url("/simple/"), {extra.url("/extra/")},
                                                   {}, server.url("/whl"), "cu126");
    const std::vector<std::string> names = {"numpy", "torch", "only-extra"};
    {
        auto c = client(routes, {}, &cache);
        for (const auto& outcome : c->projects(names))
            ASSERT_TRUE(outcome) << outcome.error().message;
    }
    server.clear_log();
    extra.clear_log();
    auto c = client(routes, offline, &cache);
    const auto outcomes = c->projects(names);
    for (const auto& outcome : outcomes) {
        ASSERT_TRUE(outcome) << outcome.error().message;
        EXPECT_EQ(outcome->origin, PageOrigin::cache);
    }
    EXPECT_EQ(outcomes[2]->index.name, "extra-index 1");
    EXPECT_EQ(filenames(*outcomes[1]), published("whl/cu126", "torch"));
    EXPECT_TRUE(server.requests().empty());
    EXPECT_TRUE(extra.requests().empty());
    EXPECT_TRUE(c->missing_pages().empty());
}

TEST_F(ClientTest, FindLinksFoldersAndPages) {
    auto wheels = fs::TempDir::create("aitk-index-wheelhouse");
    test::WheelSpec local;
    local.name = "local-only";
    local.version = "0.1";
    test::build_wheel(local, wheels.path());
    local.version = "0.2";
    test::build_wheel(local, wheels.path());
    std::ofstream(wheels.path() / "notes.txt") << "not a distribution";

    HttpServer flat;
    flat.add_file("/wheels/index.html",
                  "<a href='flat_pkg-1.0-py3-none-any.whl'>1</a><a href='other-2.0.tar.gz'>2</a>");

    auto c = client(IndexRouting::from_options(server.url("/simple/"), {},
                                               {wheels.path().string(), flat.url("/wheels/")}));
    const auto from_folder = c->project("local-only");
    ASSERT_TRUE(from_folder) << from_folder.error().message;
    EXPECT_EQ(from_folder->origin, PageOrigin::local);
    EXPECT_EQ(from_folder->format, PageFormat::directory);
    ASSERT_EQ(from_folder->files.size(), 2u);
    EXPECT_THAT(from_folder->files[0].url, ::testing::StartsWith("file://"));
    EXPECT_EQ(from_folder->skipped.size(), 1u);

    const auto from_page = c->project("flat-pkg");
    ASSERT_TRUE(from_page) << from_page.error().message;
    EXPECT_EQ(from_page->files.size(), 1u);
    EXPECT_EQ(from_page->files[0].url, flat.url("/wheels/flat_pkg-1.0-py3-none-any.whl"));
    EXPECT_EQ(from_page->index.kind, index::IndexKind::find_links);

    // The flat page is fetched once for all the projects on it.
    ASSERT_TRUE(c->project("other"));
    EXPECT_EQ(flat.requests_for("/wheels/").size(), 1u);

    auto missing = client(IndexRouting::from_options("", {}, {"/no/such/folder"}));
    const auto error = missing->project("x");
    ASSERT_FALSE(error);
    EXPECT_EQ(error.error().kind, IndexError::Kind::local_io);
    EXPECT_THAT(error.error().message, HasSubstr("/no/such/folder does not exist"));
}

TEST_F(ClientTest, ASimpleIndexOnDisk) {
    // Relative links only: the pytorch-style pages' root-relative links need a server at "/".
    auto c = client(IndexRouting::from_options(index::path_to_file_url(scenario->root / "simple")));
    const auto numpy = c->project("numpy");
    ASSERT_TRUE(numpy) << numpy.error().message;
    EXPECT_EQ(numpy->origin, PageOrigin::local);
    EXPECT_EQ(filenames(*numpy), published("simple", "numpy"));
    const auto wheel = std::find_if(numpy->files.begin(), numpy->files.end(),
                                    [](const auto& f) { return f.is_wheel(); });
    EXPECT_EQ(index::file_url_to_path(wheel->url),
              scenario->root / "files" / "simple" / "numpy" / wheel->filename);
    const auto metadata = c->metadata(*wheel);
    ASSERT_TRUE(metadata) << metadata.error().message;
    EXPECT_EQ(metadata->source, index::MetadataSource::local_file);
    EXPECT_EQ(metadata->metadata.name, "numpy");
    const auto missing = c->project("not-there");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().kind, IndexError::Kind::not_found);
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(ClientTest, ManyProjectsAreFetchedInParallel) {
    server.set_in_flight_gate(4, std::chrono::seconds(5));
    auto c = client(routing());
    const std::vector<std::string> names = {"filelock", "sympy",      "mpmath", "networkx",
                                            "jinja2",   "markupsafe", "fsspec", "requests"};
    const auto outcomes = c->projects(names);
    for (const auto& o : outcomes)
        ASSERT_TRUE(o) << o.error().message;
    EXPECT_GE(server.max_in_flight(), 4u);
    EXPECT_EQ(server.requests().size(), names.size());
}

TEST_F(ClientTest, BrokenPagesAreClearErrors) {
    HttpServer memory;
    memory.add_file("/simple/broken/index.html",
                    "{\"meta\": {\"api-version\": \"1.0\"}, \"files\": [",
                    "application/vnd.pypi.simple.v1+json");
    memory.add_file("/simple/future/index.html", "{\"meta\": {\"api-version\": \"2.0\"}}",
                    "application/vnd.pypi.simple.v1+json");
    auto c = client(IndexRouting::from_options(memory.url("/simple/")), {}, &cache);
    const auto broken = c->project("broken");
    ASSERT_FALSE(broken);
    EXPECT_EQ(broken.error().kind, IndexError::Kind::bad_page);
    EXPECT_THAT(broken.error().message, HasSubstr(memory.url("/simple/broken/") + ": line 1"));
    EXPECT_THAT(broken.error().message, HasSubstr("not valid JSON"));
    const auto future = c->project("future");
    ASSERT_FALSE(future);
    EXPECT_THAT(future.error().message, HasSubstr("only major version 1"));
    EXPECT_FALSE(cache.find_http(memory.url("/simple/broken/")));  // nothing bad is cached
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
