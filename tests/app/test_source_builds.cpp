// Building a lock target's source nodes: a git commit and an sdist from the local mirror built
// through PEP 517 for a real CPython, installed like index wheels and imported; a second build
// is a cache hit that runs no backend; archive URLs, local folders (editable too), a backend that
// fails, and a setuptools sdist whose build requirements come from the mirror.
#include "aitk/app/source_builds.hpp"
#include "app_calls.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/app/build_environment.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/build/error.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/resolve/resolver.hpp"
#include "source_test_support.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using source_test::SourceProject;

SourceProject project(const std::string& name, const std::string& version,
                      const stdfs::path& marker) {
    SourceProject p;
    p.backend.name = name;
    p.backend.version = version;
    p.backend.marker = marker;
    p.requires_dist = {"dep-pkg>=1.0"};
    p.build_requires = "[\"build-helper\"]";
    p.import_module = "build_helper";
    return p;
}

lock::LockedSource source(lock::SourceKind kind, const std::string& url,
                          const std::string& sha256 = {}, std::uint64_t size = 0) {
    lock::LockedSource s;
    s.kind = kind;
    s.url = url;
    s.sha256 = sha256;
    s.size = size;
    return s;
}

class SourceBuildsTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        suite = new fs::TempDir(fs::TempDir::create("aitk-source-builds"));
        test::MirrorBuilder m(suite->path() / "mirror");
        m.add_index("simple");
        for (const std::string name : {"dep-pkg", "build-helper"}) {
            test::WheelSpec w;
            w.name = name;
            w.version = "1.0";
            m.add_wheel("simple", w);
        }
        sdist = new test::PublishedFile(m.add_file(
            "simple", source_test::write_sdist(
                          suite->path() / "out", project("sdist_demo", "0.5", sdist_marker()),
                          source_test::pkg_info("2.1", "sdist-demo", "0.5", {"dep-pkg>=1.0"}))));
        m.write();
    }
    static void TearDownTestSuite() {
        delete sdist;
        delete suite;
    }
    static stdfs::path sdist_marker() { return suite->path() / "sdist-demo.marker"; }

    void SetUp() override {
        server.serve_directory(suite->path() / "mirror");
        marker = work.path() / "git-demo.marker";
        repo = work.path() / "repo";
        commit = source_test::make_repository(repo, project("git_demo", "1.2.3", marker));
    }

    lock::LockedPackage git_package() const {
        lock::LockedPackage p;
        p.name = "git-demo";
        p.version = "1.2.3";
        p.requested = true;
        p.source = source(lock::SourceKind::vcs, "git+" + build::test::file_url(repo));
        p.source->commit = commit;
        p.source->revision = "main";
        return p;
    }

    lock::LockedPackage sdist_package() const {
        lock::LockedPackage p;
        p.name = "sdist-demo";
        p.version = "0.5";
        p.index = "primary";
        p.source = source(lock::SourceKind::sdist, server.url(sdist->url_path),
                          sdist->artifact.sha256, sdist->artifact.size);
        return p;
    }

    test::SourceBuildCall request(std::vector<const lock::LockedPackage*> sources) {
        test::SourceBuildCall r;
        r.sources = std::move(sources);
        r.interpreter = build::test::interpreter();
        r.cache_root = work.path() / "cache";
        r.routing = index::IndexRouting::from_options(server.url("/simple/"));
        r.output_dir = work.path() / "wheels";
        return r;
    }

    static inline fs::TempDir* suite = nullptr;
    static inline test::PublishedFile* sdist = nullptr;
    test::ClearProxyEnvironment no_proxy;
    test::HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-source-builds-work");
    stdfs::path marker;
    stdfs::path repo;
    std::string commit;
};

TEST_F(SourceBuildsTest, BuildsAGitCommitAndAnSdistThenFindsThemInTheCache) {
    const auto git = git_package();
    const auto sd = sdist_package();
    const auto sdist_builds_before =
        source_test::count_lines_starting(sdist_marker(), "build_wheel");
    auto built = build_source_packages(request({&git, &sd}));
    ASSERT_EQ(built.size(), 2u);

    EXPECT_EQ(built[0].name, "git-demo");
    EXPECT_EQ(built[0].version, "1.2.3");
    EXPECT_EQ(built[0].wheel.filename(), "git_demo-1.2.3-py3-none-any.whl");
    EXPECT_FALSE(built[0].from_cache);
    EXPECT_FALSE(built[0].editable);
    EXPECT_EQ(built[0].wheel_sha256, fs::sha256_file_hex(built[0].wheel));
    ASSERT_TRUE(built[0].direct_url);
    EXPECT_EQ(nlohmann::json::parse(*built[0].direct_url),
              nlohmann::json(
                  {{"url", build::test::file_url(repo)},
                   {"vcs_info",
                    {{"vcs", "git"}, {"commit_id", commit}, {"requested_revision", "main"}}}}));
    // In the built-wheel cache, under the cache root.
    EXPECT_EQ(built[0].wheel.string().rfind((work.path() / "cache").string(), 0), 0u);

    EXPECT_EQ(built[1].name, "sdist-demo");
    EXPECT_EQ(built[1].wheel.filename(), "sdist_demo-0.5-py3-none-any.whl");
    EXPECT_FALSE(built[1].from_cache);
    EXPECT_FALSE(built[1].direct_url);  // from an index: pip writes no direct_url.json
    EXPECT_EQ(source_test::count_lines_starting(sdist_marker(), "build_wheel"),
              sdist_builds_before + 1);
    EXPECT_EQ(source_test::count_lines_starting(marker, "build_wheel"), 1u);
    // The backend imported build-helper from the build environment.
    EXPECT_NE(build::test::read_file_or_empty(marker).find("build-env"), std::string::npos);

    // Again: both from the cache, no backend runs.
    auto again = build_source_packages(request({&git, &sd}));
    ASSERT_EQ(again.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(again[i].from_cache);
        EXPECT_EQ(again[i].wheel, built[i].wheel);
        EXPECT_EQ(again[i].wheel_sha256, built[i].wheel_sha256);
    }
    EXPECT_EQ(source_test::count_lines_starting(marker, "build_wheel"), 1u);
    EXPECT_EQ(source_test::count_lines_starting(sdist_marker(), "build_wheel"),
              sdist_builds_before + 1);

    // The wheels install like index wheels (unpacked once per sha256) and import.
    cache::Cache cache(work.path() / "cache");
    auto layout = install::PrefixLayout::for_venv(work.path() / "prefix", "3.12", false);
    for (const auto& b : built) {
        auto tree = cache.ensure_unpacked(
            b.wheel_sha256, [&](const stdfs::path& dest) { install::unpack_wheel(b.wheel, dest); });
        install::WheelInstallRequest r;
        r.unpacked = tree.path();
        r.name = b.name;
        r.version = b.version;
        r.direct_url = b.direct_url;
        auto result = install::install_wheel(layout, r);
        EXPECT_EQ(stdfs::exists(result.dist_info / "direct_url.json"), b.direct_url.has_value());
    }
    util::ProcessRequest run;
    run.argv = {build::test::python312.string(), "-c",
                "import git_demo, sdist_demo; print(git_demo.VALUE, sdist_demo.VALUE)"};
    run.environment_changes = {{"PYTHONPATH", layout.purelib.string()}};
    auto ran = util::run_process(run);
    ASSERT_TRUE(ran && ran->succeeded()) << (ran ? ran->err : ran.error().message);
    EXPECT_EQ(ran->out, "42 42\n");
}

TEST_F(SourceBuildsTest, ABuildFailureThrowsTheBackendsOutputAndCachesNothing) {
    auto broken = project("git_demo", "1.2.3", marker);
    broken.backend.before_build = "raise RuntimeError('boom: no compiler here')";
    const auto bad = source_test::commit_again(repo, broken);
    auto package = git_package();
    package.source->commit = bad;
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            build_source_packages(request({&package}));
            FAIL() << "the broken build succeeded";
        } catch (const build::BuildError& e) {
            EXPECT_NE(e.output_tail().find("RuntimeError: boom: no compiler here"),
                      std::string::npos)
                << e.output_tail();
            EXPECT_NE(e.reproduce_command().find("pep517"), std::string::npos)
                << e.reproduce_command();
        }
    }
}

TEST_F(SourceBuildsTest, AnArchiveUrlAndALocalFolderEditableOrNot) {
    const auto sd = sdist_package();
    lock::LockedPackage by_url;
    by_url.name = "sdist-demo";
    by_url.version = "0.5";
    by_url.source = source(lock::SourceKind::url, build::test::file_url(sdist->artifact.path),
                           sdist->artifact.sha256, sdist->artifact.size);

    auto folder = work.path() / "local";
    auto local = project("local_demo", "3.0", work.path() / "local.marker");
    local.editable_hook = true;
    source_test::write_project(folder, local);
    lock::LockedPackage plain;
    plain.name = "local-demo";
    plain.version = "3.0";
    plain.source = source(lock::SourceKind::directory, build::test::file_url(folder));
    lock::LockedPackage editable = plain;
    editable.source->editable = true;

    auto built = build_source_packages(request({&by_url, &plain, &editable}));
    ASSERT_EQ(built.size(), 3u);
    EXPECT_EQ(nlohmann::json::parse(*built[0].direct_url),
              nlohmann::json({{"url", build::test::file_url(sdist->artifact.path)},
                              {"archive_info",
                               {{"hash", "sha256=" + sdist->artifact.sha256},
                                {"hashes", {{"sha256", sdist->artifact.sha256}}}}}}));
    EXPECT_EQ(built[0].wheel.filename(), "sdist_demo-0.5-py3-none-any.whl");

    EXPECT_EQ(built[1].wheel.parent_path(), work.path() / "wheels");
    EXPECT_FALSE(built[1].editable);
    EXPECT_EQ(nlohmann::json::parse(*built[1].direct_url),
              nlohmann::json({{"url", build::test::file_url(folder)},
                              {"dir_info", nlohmann::json::object()}}));
    EXPECT_TRUE(built[2].editable);
    EXPECT_EQ(nlohmann::json::parse(*built[2].direct_url),
              nlohmann::json(
                  {{"url", build::test::file_url(folder)}, {"dir_info", {{"editable", true}}}}));
    EXPECT_EQ(source_test::count_lines_starting(work.path() / "local.marker", "build_editable"),
              1u);
    // A folder has no content id: it is built every time.
    auto again = build_source_packages(request({&plain}));
    EXPECT_FALSE(again[0].from_cache);
    EXPECT_EQ(source_identity(plain), "dir:" + folder.generic_string());
    EXPECT_EQ(source_identity(sd), "sha256:" + sdist->artifact.sha256);
    EXPECT_EQ(source_identity(git_package()), "git+" + build::test::file_url(repo) + "@" + commit);
}

TEST_F(SourceBuildsTest, AnArchiveWhoseHashIsNotTheLockedOneIsRefused) {
    auto sd = sdist_package();
    sd.source->sha256 = std::string(64, 'a');
    try {
        build_source_packages(request({&sd}));
        FAIL() << "built an sdist whose hash differs from the lock";
    } catch (const util::Error& e) {
        EXPECT_NE(std::string(e.what()).find("sdist_demo-0.5.tar.gz"), std::string::npos)
            << e.what();
    }
}

TEST_F(SourceBuildsTest, AWheelOfAnotherVersionThanTheLockedOneIsRefused) {
    auto git = git_package();
    git.version = "9.9";
    try {
        build_source_packages(request({&git}));
        FAIL() << "accepted a build of another version";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "building git-demo 9.9 made version 1.2.3 "
                  "(git_demo-1.2.3-py3-none-any.whl), not the locked 9.9");
    }
}

TEST_F(SourceBuildsTest, BuildEnvironmentsAreInstalledOncePerRequirementSet) {
    BuildEnvironmentSettings settings;
    settings.routing = index::IndexRouting::from_options(server.url("/simple/"));
    settings.interpreter = build::test::interpreter();
    Session session({work.path() / "cache", {}, {}, {}, nullptr, nullptr});
    IndexBuildEnvironmentProvider provider(session, settings);
    auto helper = *pep::Requirement::parse("build-helper>=1");
    auto dep = *pep::Requirement::parse("dep-pkg");
    auto first = provider.prepare({helper, dep}, "build requirements of x");
    auto second = provider.prepare({dep, helper}, "build requirements of y");
    EXPECT_EQ(provider.environments_made(), 1u);
    EXPECT_EQ(first.site_packages, second.site_packages);
    ASSERT_EQ(first.site_packages.size(), 1u);
    EXPECT_TRUE(stdfs::exists(first.site_packages[0] / "build_helper" / "__init__.py"));
    EXPECT_TRUE(stdfs::exists(first.site_packages[0] / "dep_pkg" / "__init__.py"));
    EXPECT_EQ(first.site_packages[0].parent_path().parent_path().parent_path().parent_path(),
              session.cache().temp_dir());
    EXPECT_TRUE(provider.prepare({}, "nothing").site_packages.empty());
    EXPECT_EQ(provider.prepare({helper}, "z").site_packages.size(), 1u);
    EXPECT_EQ(provider.environments_made(), 2u);

    try {
        provider.prepare({*pep::Requirement::parse("build-helper>=2")}, "build requirements of w");
        FAIL() << "installed a build-helper that does not exist";
    } catch (const resolve::Unsatisfiable& e) {
        EXPECT_EQ(std::string(e.what()).rfind(
                      "cannot install the build requirements of w for Python 3.12.1:\n", 0),
                  0u)
            << e.what();
    }
}

// setuptools from Debian's python3-setuptools-whl / python3-wheel-whl, served by the mirror;
// those wheels run with Debian's own Python only.
TEST(SourceBuildsSetuptools, AnSdistBuiltWithSetuptoolsFromTheMirror) {
    stdfs::path setuptools, wheel;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator("/usr/share/python-wheels", ec)) {
        auto name = e.path().filename().string();
        if (name.starts_with("setuptools-") && name.ends_with(".whl")) setuptools = e.path();
        if (name.starts_with("wheel-") && name.ends_with(".whl")) wheel = e.path();
    }
    if (setuptools.empty() || wheel.empty())
        GTEST_SKIP() << "Debian's setuptools/wheel wheels are absent";
    const stdfs::path python = "/usr/bin/python3.11";
    if (!stdfs::exists(python)) GTEST_SKIP() << python << " is not installed";

    test::ClearProxyEnvironment no_proxy;
    auto dir = fs::TempDir::create("aitk-source-builds-setuptools");
    test::MirrorBuilder m(dir.path() / "mirror");
    m.add_index("simple");
    m.add_file("simple", setuptools);
    m.add_file("simple", wheel);
    test::SdistSpec spec;
    spec.name = "setup-demo";
    spec.version = "1.0";
    spec.requires_dist = {"six>=1.16"};
    const auto published = m.add_sdist("simple", spec);
    m.write();
    test::HttpServer server;
    server.serve_directory(dir.path() / "mirror");

    lock::LockedPackage package;
    package.name = "setup-demo";
    package.version = "1.0";
    package.index = "primary";
    package.source = source(lock::SourceKind::sdist, server.url(published.url_path),
                            published.artifact.sha256, published.artifact.size);
    test::SourceBuildCall r;
    r.sources = {&package};
    r.interpreter = build::test::interpreter(python, "3.11.2");
    r.cache_root = dir.path() / "cache";
    r.routing = index::IndexRouting::from_options(server.url("/simple/"));
    auto built = build_source_packages(r);
    ASSERT_EQ(built.size(), 1u);
    EXPECT_EQ(built[0].wheel.filename(), "setup_demo-1.0-py3-none-any.whl");
    EXPECT_FALSE(built[0].from_cache);
    auto metadata = pep::CoreMetadata::parse(archive::read_wheel_metadata(built[0].wheel).content);
    ASSERT_TRUE(metadata);
    EXPECT_EQ(metadata->name, "setup-demo");
    ASSERT_EQ(metadata->requires_dist.size(), 1u);
    EXPECT_EQ(pep::Requirement::parse(metadata->requires_dist[0])->to_string(), "six>=1.16");
    EXPECT_TRUE(build_source_packages(r)[0].from_cache);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
