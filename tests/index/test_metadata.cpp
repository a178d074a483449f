// Core metadata without downloading wheels, against real local servers: PEP 658 files (hash
// checked), range requests on a 200 MB wheel, servers that ignore Range, the caches, offline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "aitk/archive/writer.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/client.hpp"
#include "aitk/index/simple_page.hpp"
#include "http_server.hpp"
#include "index_test_support.hpp"
#include "mirror_builder.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using index::DistributionFile;
using index::IndexError;
using index::MetadataFetcher;
using index::MetadataSource;
using test::HttpServer;
using ::testing::HasSubstr;

namespace {

const test::ClearProxyEnvironment no_proxy;

class MetadataTest : public test::TorchMirrorTest {
  protected:
    std::vector<DistributionFile> files_of(HttpServer& on, const std::string& index_path,
                                           const std::string& project) {
        net::Downloader pages(test::index_test_options(), clock);
        index::IndexClient client(
            pages, nullptr, index::IndexRouting::from_options(on.url("/" + index_path + "/")));
        auto found = client.project(project);
        EXPECT_TRUE(found) << found.error().message;
        return found ? found->files : std::vector<DistributionFile>{};
    }
    static const test::PublishedFile& published(std::string_view filename) {
        return *std::find_if(scenario->files.begin(), scenario->files.end(),
                             [&](const auto& f) { return f.artifact.filename == filename; });
    }
    MetadataFetcher fetcher(cache::Cache* with_cache, index::MetadataOptions options = {},
                            bool offline = false) {
        return MetadataFetcher(downloader, with_cache, options, offline, clock);
    }
    static std::string url_path_of(const DistributionFile& f) {
        return f.url.substr(f.url.find('/', 8));
    }

    net::Downloader downloader{test::index_test_options(), clock};
    fs::TempDir cache_dir = fs::TempDir::create("aitk-index-cache");
    cache::Cache cache{cache_dir.path()};
};

TEST_F(MetadataTest, Pep658FileIsUsedAndCachedByArtifactHash) {
    const auto numpy = files_of(server, "simple", "numpy");
    const auto wheel = *std::find_if(numpy.begin(), numpy.end(), [](const auto& f) {
        return f.is_wheel() && f.version().to_string() == "2.1.0";
    });
    const auto& p = published(wheel.filename);
    server.clear_log();

    auto first = fetcher(&cache).fetch(wheel);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->source, MetadataSource::pep658);
    EXPECT_EQ(first->text, p.artifact.metadata);
    EXPECT_EQ(first->metadata.name, "numpy");
    EXPECT_EQ(first->metadata.version_text, "2.1.0");
    EXPECT_EQ(first->requests, 1);
    EXPECT_EQ(first->bytes_transferred, p.artifact.metadata.size());
    EXPECT_EQ(server.requests_for(p.url_path + ".metadata").size(), 1u);
    EXPECT_EQ(server.requests_for(p.url_path).size(), 0u);
    EXPECT_EQ(cache.find_metadata(p.artifact.sha256), p.artifact.metadata);

    auto second = fetcher(&cache).fetch(wheel);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->source, MetadataSource::metadata_cache);
    EXPECT_EQ(second->requests, 0);
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(MetadataTest, RangeRequestsReadTorchWheelsWithoutPep658) {
    const auto torch = files_of(server, "whl/cu126", "torch");
    ASSERT_FALSE(torch.empty());
    const auto& wheel = torch.front();
    ASSERT_FALSE(wheel.core_metadata.available);
    const auto& p = published(wheel.filename);
    server.clear_log();

    auto result = fetcher(&cache).fetch(wheel);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::range_requests);
    EXPECT_EQ(result->text, p.artifact.metadata);
    EXPECT_EQ(result->metadata.version.to_string(), wheel.version().to_string());
    EXPECT_THAT(result->metadata.requires_dist,
                ::testing::Contains(HasSubstr("nvidia-cudnn-cu12")));
    const auto log = server.requests_for(p.url_path);
    ASSERT_FALSE(log.empty());
    for (const auto& r : log) {
        EXPECT_THAT(r.header("range"), ::testing::StartsWith("bytes="));
        EXPECT_EQ(r.status, 206);
    }
    EXPECT_LE(server.bytes_served(p.url_path), p.artifact.size);
    EXPECT_EQ(result->bytes_transferred, server.bytes_served(p.url_path));
    EXPECT_EQ(cache.find_metadata(p.artifact.sha256), p.artifact.metadata);
    EXPECT_FALSE(cache.find_artifact(p.artifact.sha256));
}

TEST_F(MetadataTest, AWholeBackendIndexInOneParallelBatch) {
    std::vector<DistributionFile> all;
    for (const std::string project : {"torch", "torchvision", "torchaudio", "triton"}) {
        const auto files = files_of(server, "whl/cu130", project);
        all.insert(all.end(), files.begin(), files.end());
    }
    ASSERT_GE(all.size(), 10u);
    server.clear_log();
    server.set_in_flight_gate(4, std::chrono::seconds(5));
    auto f = fetcher(nullptr);
    const auto outcomes = f.fetch(all);
    ASSERT_EQ(outcomes.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        ASSERT_TRUE(outcomes[i]) << outcomes[i].error().message;
        EXPECT_EQ(outcomes[i]->text, published(all[i].filename).artifact.metadata);
        EXPECT_EQ(outcomes[i]->source, MetadataSource::range_requests);
    }
    EXPECT_GE(server.max_in_flight(), 2u);
}

TEST_F(MetadataTest, A200MegabyteWheelCostsLessThanOneMegabyte) {
    auto dir = fs::TempDir::create("aitk-index-big");
    test::MirrorBuilder mirror(dir.path());
    test::IndexOptions no_pep658;
    no_pep658.pep658 = false;
    mirror.add_index("simple", no_pep658);
    test::WheelSpec big;
    big.name = "bigpkg";
    big.version = "1.0";
    big.tag = "cp312-cp312-manylinux_2_28_x86_64";
    big.requires_dist = {"numpy>=2"};
    big.padding_bytes = 200ull << 20;
    const auto& p = mirror.add_wheel("simple", big);
    mirror.write();
    ASSERT_GT(p.artifact.size, 200ull << 20);
    HttpServer big_server;
    big_server.serve_directory(dir.path());
    const auto files = files_of(big_server, "simple", "bigpkg");
    ASSERT_EQ(files.size(), 1u);
    big_server.clear_log();

    auto result = fetcher(&cache).fetch(files[0]);

    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::range_requests);
    EXPECT_EQ(result->metadata.requires_dist, std::vector<std::string>{"numpy>=2"});
    EXPECT_LT(big_server.bytes_served(p.url_path), 1u << 20);
    EXPECT_LT(result->bytes_transferred, 1u << 20);
    EXPECT_LE(result->requests, 3);
    EXPECT_FALSE(cache.find_artifact(p.artifact.sha256));
}

TEST_F(MetadataTest, TinyTailsReadTheDirectoryAndTheMemberSeparately) {
    const auto torch = files_of(server, "whl/cu126", "torchvision");
    const auto& wheel = torch.front();
    const auto& p = published(wheel.filename);
    server.clear_log();
    index::MetadataOptions options;
    options.tail_bytes = 40;  // the end record only
    auto result = fetcher(nullptr, options).fetch(wheel);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::range_requests);
    EXPECT_EQ(result->text, p.artifact.metadata);
    const auto log = server.requests_for(p.url_path);
    ASSERT_GE(log.size(), 2u);
    EXPECT_EQ(log[0].header("range"), "bytes=-40");
    EXPECT_TRUE(log[0].header("if-range").empty());
    EXPECT_FALSE(log[1].header("if-range").empty());  // later ranges must come from one file
    EXPECT_LT(server.bytes_served(p.url_path), p.artifact.size);
}

TEST_F(MetadataTest, MetadataStoredBeforeTheBulkIsFetchedByItself) {
    const std::string metadata =
        "Metadata-Version: 2.1\nName: early\nVersion: 1.0\nRequires-Dist: six\n";
    std::vector<archive::WriteEntry> entries = {
        archive::WriteEntry::file("early-1.0.dist-info/METADATA", metadata),
        archive::WriteEntry::file("early/blob.bin", test::pseudo_random_bytes(5u << 20, 9)),
        archive::WriteEntry::file("early-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n"),
        archive::WriteEntry::file("early-1.0.dist-info/RECORD", ""),
    };
    entries[1].store = true;
    archive::WriteOptions keep_order;
    keep_order.sort = false;
    HttpServer s;
    const std::string zip =
        archive::write_archive_to_memory(archive::Format::zip, std::move(entries), keep_order);
    s.add_file("/f/early-1.0-py3-none-any.whl", zip);
    const auto parsed = index::parse_html_page("<a href='/f/early-1.0-py3-none-any.whl'>x</a>",
                                               s.url("/simple/early/"), "early");
    auto result = fetcher(nullptr).fetch(parsed->files[0]);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->text, metadata);
    EXPECT_EQ(result->requests, 2);
    EXPECT_LT(s.bytes_served("/f/early-1.0-py3-none-any.whl"), 70'000u);
    EXPECT_EQ(s.requests().back().header("range").rfind("bytes=0-", 0), 0u);
}

// A pypi-style mirror with one wheel, for tests that damage it.
struct SmallMirror {
    explicit SmallMirror(bool pep658 = true, std::uint64_t padding = 0) {
        test::IndexOptions options;
        options.pep658 = pep658;
        options.json = false;
        builder.add_index("simple", options);
        test::WheelSpec w;
        w.name = "demo";
        w.version = "1.0";
        w.requires_dist = {"six"};
        w.padding_bytes = padding;
        file = builder.add_wheel("simple", w);
        w.version = "2.0";
        second = builder.add_wheel("simple", w);
        builder.write();
    }
    fs::TempDir dir = fs::TempDir::create("aitk-index-small");
    test::MirrorBuilder builder{dir.path()};
    test::PublishedFile file;
    test::PublishedFile second;
};

TEST_F(MetadataTest, AMetadataFileWithTheWrongHashIsRejected) {
    SmallMirror m;
    std::ofstream(m.file.artifact.path.string() + ".metadata", std::ios::trunc)
        << "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: evil\n";
    HttpServer s;
    s.serve_directory(m.dir.path());
    const auto files = files_of(s, "simple", "demo");
    ASSERT_EQ(files.size(), 2u);

    auto result = fetcher(&cache).fetch(files[0]);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, IndexError::Kind::hash_mismatch);
    EXPECT_THAT(result.error().message,
                HasSubstr("the sha256 of " + s.url(m.file.url_path) + ".metadata is "));
    EXPECT_THAT(result.error().message,
                HasSubstr("but the index says " + files[0].core_metadata.hashes.at("sha256")));
    EXPECT_FALSE(cache.find_metadata(m.file.artifact.sha256));
}

TEST_F(MetadataTest, AnAdvertisedButMissingMetadataFileFallsBackToRanges) {
    SmallMirror m;
    std::filesystem::remove(m.file.artifact.path.string() + ".metadata");
    HttpServer s;
    s.serve_directory(m.dir.path());
    const auto files = files_of(s, "simple", "demo");
    auto result = fetcher(nullptr).fetch(files[0]);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::range_requests);
    EXPECT_EQ(result->text, m.file.artifact.metadata);
    EXPECT_EQ(s.requests_for(m.file.url_path + ".metadata").front().status, 404);
}

TEST_F(MetadataTest, AServerWithoutRangesGivesTheWholeSmallWheel) {
    SmallMirror m(false);
    test::NoRangeServer s(m.dir.path());
    const auto page = test::slurp_file(m.dir.path() / "simple" / "demo" / "index.html");
    const auto parsed = index::parse_html_page(page, s.url("/simple/demo/"), "demo");
    ASSERT_TRUE(parsed);
    ASSERT_EQ(parsed->files.size(), 2u);

    auto f = fetcher(&cache);
    auto result = f.fetch(parsed->files[0]);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::full_download);
    EXPECT_EQ(result->text, m.file.artifact.metadata);
    EXPECT_EQ(result->bytes_transferred, m.file.artifact.size);
    ASSERT_TRUE(result->artifact);
    EXPECT_EQ(cache.find_artifact(m.file.artifact.sha256), result->artifact);
    EXPECT_EQ(f.hosts_without_ranges(), std::set<std::string>{s.url("")});
}

TEST_F(MetadataTest, AServerWithoutRangesAndABigWheelFallsBackToADownload) {
    SmallMirror m(false, 3u << 20);
    test::NoRangeServer s(m.dir.path());
    const auto page = test::slurp_file(m.dir.path() / "simple" / "demo" / "index.html");
    const auto parsed = index::parse_html_page(page, s.url("/simple/demo/"), "demo");
    ASSERT_TRUE(parsed);
    index::MetadataOptions options;
    options.range_request_limit = 256u << 10;
    options.max_metadata_bytes = 64u << 10;

    auto f = fetcher(&cache, options);
    auto first = f.fetch(parsed->files[0]);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->source, MetadataSource::full_download);
    EXPECT_EQ(first->text, m.file.artifact.metadata);
    EXPECT_EQ(first->requests, 2);  // the refused range request, then the download
    EXPECT_TRUE(cache.find_artifact(m.file.artifact.sha256));

    // The host is known now: the next wheel is downloaded straight away.
    const int before = s.requests();
    auto second = f.fetch(parsed->files[1]);
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->source, MetadataSource::full_download);
    EXPECT_EQ(s.requests() - before, 1);

    // Without full downloads that is an error that says why.
    index::MetadataOptions strict = options;
    strict.allow_full_download = false;
    auto g = fetcher(nullptr, strict);
    auto refused = g.fetch(parsed->files[0]);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, IndexError::Kind::unsupported);
    EXPECT_THAT(refused.error().message,
                HasSubstr("the server ignored the Range header and sent the whole file"));
}

TEST_F(MetadataTest, AnObserverWatchesTheWholeWheelDownloads) {
    struct Recorder : net::TransferObserver {
        std::vector<std::string> started;
        int finished = 0;
        void on_start(const net::TransferInfo& info) override { started.push_back(info.url); }
        void on_finish(std::size_t, const net::FinishInfo&) override { ++finished; }
    } recorder;
    SmallMirror m(false);
    test::NoRangeServer s(m.dir.path());
    const auto page = test::slurp_file(m.dir.path() / "simple" / "demo" / "index.html");
    const auto parsed = index::parse_html_page(page, s.url("/simple/demo/"), "demo");
    ASSERT_TRUE(parsed);
    auto f = fetcher(&cache);
    ASSERT_TRUE(f.fetch(parsed->files[0]));  // learns that the host ignores ranges
    f.set_observer(&recorder);
    auto result = f.fetch(parsed->files[1]);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::full_download);
    ASSERT_EQ(recorder.started.size(), 1u);
    EXPECT_EQ(recorder.started[0], parsed->files[1].url);
    EXPECT_EQ(recorder.finished, 1);
}

TEST_F(MetadataTest, MetadataThatContradictsTheFilenameIsAnError) {
    SmallMirror m(false);
    HttpServer s;
    s.add_file("/f/demo-3.0-py3-none-any.whl", test::slurp_file(m.file.artifact.path));
    const auto parsed = index::parse_html_page("<a href='/f/demo-3.0-py3-none-any.whl'>x</a>",
                                               s.url("/simple/demo/"), "demo");
    ASSERT_TRUE(parsed);
    auto result = fetcher(nullptr).fetch(parsed->files[0]);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, IndexError::Kind::metadata_mismatch);
    EXPECT_THAT(result.error().message,
                HasSubstr("describes demo 1.0, not what the filename says (demo 3.0)"));
}

TEST_F(MetadataTest, SomethingThatIsNotAZipFailsClearly) {
    HttpServer s;
    s.add_file("/f/demo-1.0-py3-none-any.whl", test::pseudo_random_bytes(10'000, 5));
    const auto parsed = index::parse_html_page("<a href='/f/demo-1.0-py3-none-any.whl'>x</a>",
                                               s.url("/simple/demo/"), "demo");
    auto result = fetcher(nullptr).fetch(parsed->files[0]);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, IndexError::Kind::bad_metadata);
    EXPECT_THAT(result.error().message,
                HasSubstr("could not read the METADATA of demo-1.0-py3-none-any.whl"));
}

TEST_F(MetadataTest, SdistsNeedABuild) {
    const auto numpy = files_of(server, "simple", "numpy");
    const auto sdist =
        *std::find_if(numpy.begin(), numpy.end(), [](const auto& f) { return !f.is_wheel(); });
    auto result = fetcher(nullptr).fetch(sdist);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, IndexError::Kind::unsupported);
    EXPECT_THAT(result.error().message, HasSubstr("numpy-2.2.0.tar.gz needs a build"));
}

TEST_F(MetadataTest, OfflineReadsOnlyTheCache) {
    const auto torch = files_of(server, "whl/cu126", "torch");
    const auto& wheel = torch.front();
    server.clear_log();
    auto offline_result = fetcher(&cache, {}, true).fetch(wheel);
    ASSERT_FALSE(offline_result);
    EXPECT_EQ(offline_result.error().kind, IndexError::Kind::offline_missing);
    EXPECT_THAT(offline_result.error().message,
                HasSubstr("offline: the metadata of " + wheel.filename + " is not in the cache"));
    EXPECT_TRUE(server.requests().empty());

    ASSERT_TRUE(fetcher(&cache).fetch(wheel));
    server.clear_log();
    auto cached = fetcher(&cache, {}, true).fetch(wheel);
    ASSERT_TRUE(cached) << cached.error().message;
    EXPECT_EQ(cached->source, MetadataSource::metadata_cache);
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(MetadataTest, AWheelInTheArtifactCacheIsReadLocally) {
    const auto torch = files_of(server, "whl/cpu", "torch");
    const auto& wheel = torch.front();
    const auto& p = published(wheel.filename);
    cache.import_artifact(p.artifact.path, p.artifact.sha256, p.artifact.filename);
    server.clear_log();
    auto result = fetcher(&cache, {}, true).fetch(wheel);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::artifact_cache);
    EXPECT_EQ(result->text, p.artifact.metadata);
    EXPECT_TRUE(server.requests().empty());
}

TEST_F(MetadataTest, FindLinksFilesAreReadFromDisk) {
    auto wheels = fs::TempDir::create("aitk-index-wheelhouse");
    test::WheelSpec w;
    w.name = "local-only";
    w.version = "0.1";
    const auto built = test::build_wheel(w, wheels.path());
    index::IndexClient client(downloader, nullptr,
                              index::IndexRouting::from_options("", {}, {wheels.path().string()}));
    const auto files = client.project("local-only");
    ASSERT_TRUE(files);
    auto result = client.metadata(files->files.front());
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->source, MetadataSource::local_file);
    EXPECT_EQ(result->text, built.metadata);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
