// `lock` looking into source nodes: a git requirement on a branch is pinned to the branch's
// commit and locked with its real version and dependencies (read with the build backend on
// this machine's interpreter), an earlier lock's commit is kept until --upgrade, a package
// whose only file is an sdist is locked as that sdist (url + sha256) with the dependencies of
// its PKG-INFO or its backend. Against a local mirror and repositories made by the tests.
#include <gtest/gtest.h>

#include <memory>

#include "../index/index_test_support.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/source_metadata.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "app_calls.hpp"
#include "source_test_support.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using source_test::SourceProject;

SourceProject git_demo(const stdfs::path& marker, const std::string& version = "1.2.3") {
    SourceProject p;
    p.backend.name = "git_demo";
    p.backend.version = version;
    p.backend.marker = marker;
    p.requires_dist = {"dep-pkg>=1.0"};
    return p;
}

class LockSourcesTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        suite = new fs::TempDir(fs::TempDir::create("aitk-lock-sources"));
        const auto root = suite->path() / "mirror";
        test::MirrorBuilder m(root);
        m.add_index("simple");
        for (const std::string name : {"dep-pkg", "build-helper"}) {
            test::WheelSpec w;
            w.name = name;
            w.version = "1.0";
            m.add_wheel("simple", w);
        }
        // Dynamic dependencies (Metadata-Version 2.1): read with its backend, which needs
        // build-helper from the mirror.
        SourceProject dynamic;
        dynamic.backend.name = "sdist_demo";
        dynamic.backend.version = "0.5";
        dynamic.backend.marker = suite->path() / "sdist-demo.marker";
        dynamic.requires_dist = {"dep-pkg>=1.0"};
        dynamic.build_requires = "[\"build-helper\"]";
        dynamic.import_module = "build_helper";
        sdist_demo = new test::PublishedFile(m.add_file(
            "simple", source_test::write_sdist(
                          suite->path() / "out", dynamic,
                          source_test::pkg_info("2.1", "sdist-demo", "0.5", {"ignored-by-lock"}))));
        // Static dependencies (Metadata-Version 2.2, nothing dynamic): PKG-INFO is enough.
        SourceProject fixed;
        fixed.backend.name = "static_demo";
        fixed.backend.version = "0.7";
        fixed.backend.marker = suite->path() / "static-demo.marker";
        static_demo = new test::PublishedFile(m.add_file(
            "simple", source_test::write_sdist(
                          suite->path() / "out", fixed,
                          source_test::pkg_info("2.2", "static-demo", "0.7",
                                                {"dep-pkg", "build-helper; extra == 'x'"}))));
        m.write();
    }
    static void TearDownTestSuite() {
        delete sdist_demo;
        delete static_demo;
        delete suite;
    }

    void SetUp() override {
        server.serve_directory(suite->path() / "mirror");
        marker = work.path() / "git-demo.marker";
        repo = work.path() / "repo";
        first_commit = source_test::make_repository(repo, git_demo(marker));
    }

    test::LockCall request(const std::string& requirements, std::vector<std::string> targets) {
        fs::write_file_atomic(work.path() / "requirements.txt", requirements);
        test::LockCall r;
        r.input.requirements = "requirements.txt";
        r.targets = std::move(targets);
        r.python = "3.12.1";
        r.indexes.index_url = server.url("/simple/");
        r.cache_root = work.path() / "cache";
        r.cwd = work.path();
        r.machine = test::cpu_machine();
        r.sources.inspect = true;
        r.sources.interpreter = build::test::interpreter();
        return r;
    }

    std::string git_requirement() const {
        return "git-demo @ git+" + build::test::file_url(repo) + "@main\n";
    }

    static const lock::LockedPackage& package(const lock::LockedTarget& target,
                                              std::string_view name) {
        const auto* p = target.find(name);
        if (!p) throw std::runtime_error("not locked: " + std::string(name));
        return *p;
    }

    static inline fs::TempDir* suite = nullptr;
    static inline test::PublishedFile* sdist_demo = nullptr;
    static inline test::PublishedFile* static_demo = nullptr;
    test::ClearProxyEnvironment no_proxy;
    test::HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-lock-sources-work");
    stdfs::path marker;
    stdfs::path repo;
    std::string first_commit;
};

TEST_F(LockSourcesTest, AGitBranchIsLockedAtItsCommitWithItsVersionAndDependencies) {
    auto outcome = run_lock(request(git_requirement(), {"linux-x86_64-cpu"}));
    ASSERT_EQ(outcome.lockfile.targets.size(), 1u);
    const auto& target = outcome.lockfile.targets[0];

    const auto& demo = package(target, "git-demo");
    EXPECT_EQ(demo.version, "1.2.3");
    EXPECT_TRUE(demo.requested);
    EXPECT_EQ(demo.dependencies, std::vector<std::string>{"dep-pkg"});
    EXPECT_FALSE(demo.wheel);
    ASSERT_TRUE(demo.source);
    EXPECT_EQ(demo.source->kind, lock::SourceKind::vcs);
    EXPECT_EQ(demo.source->url, "git+" + build::test::file_url(repo));
    EXPECT_EQ(demo.source->commit, first_commit);
    EXPECT_EQ(demo.source->revision, "main");
    EXPECT_EQ(first_commit.size(), 40u);

    const auto& dep = package(target, "dep-pkg");
    EXPECT_EQ(dep.version, "1.0");
    EXPECT_FALSE(dep.requested);
    ASSERT_TRUE(dep.wheel);
    EXPECT_EQ(dep.wheel->filename, "dep_pkg-1.0-py3-none-any.whl");

    // The metadata came from the backend on this machine, and the note says so.
    EXPECT_EQ(source_test::count_lines_starting(marker, "prepare_metadata_for_build_wheel"), 1u);
    EXPECT_EQ(source_test::count_lines_starting(marker, "build_wheel"), 0u);
    const std::string note = "linux-x86_64-cpu: git-demo 1.2.3 (git+" +
                             build::test::file_url(repo) +
                             "@main): metadata from its build backend with Python 3.12.1 on "
                             "this machine";
    EXPECT_NE(std::find(outcome.notes.begin(), outcome.notes.end(), note), outcome.notes.end())
        << ::testing::PrintToString(outcome.notes);

    // The file says so too, and reads back the same.
    auto text = fs::read_file(outcome.path);
    // Plain, or double-quoted when the random hash could read as a number ("0b6f…", "1e40…").
    EXPECT_TRUE(text.find("        commit: " + first_commit + "\n") != std::string::npos ||
                text.find("        commit: \"" + first_commit + "\"\n") != std::string::npos)
        << text;
    EXPECT_NE(text.find("        revision: main\n"), std::string::npos) << text;
    auto parsed = lock::parse_lockfile(text, "lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, outcome.lockfile);
}

TEST_F(LockSourcesTest, ARelockKeepsTheLockedCommitUntilUpgrade) {
    run_lock(request(git_requirement(), {"linux-x86_64-cpu"}));
    const auto second_commit = source_test::commit_again(repo, git_demo(marker, "1.3.0"));
    ASSERT_NE(second_commit, first_commit);

    // The branch moved; the lock stays where it was, and its metadata comes from the cache.
    auto kept = run_lock(request(git_requirement(), {"linux-x86_64-cpu"}));
    EXPECT_FALSE(kept.written);
    EXPECT_EQ(package(kept.lockfile.targets[0], "git-demo").source->commit, first_commit);
    EXPECT_EQ(package(kept.lockfile.targets[0], "git-demo").version, "1.2.3");
    EXPECT_EQ(source_test::count_lines_starting(marker, "prepare_metadata_for_build_wheel"), 1u);

    auto upgrade = request(git_requirement(), {"linux-x86_64-cpu"});
    upgrade.upgrade_packages = {"Git_Demo"};
    auto moved = run_lock(upgrade);
    EXPECT_TRUE(moved.written);
    EXPECT_EQ(package(moved.lockfile.targets[0], "git-demo").source->commit, second_commit);
    EXPECT_EQ(package(moved.lockfile.targets[0], "git-demo").version, "1.3.0");
    EXPECT_EQ(source_test::count_lines_starting(marker, "prepare_metadata_for_build_wheel"), 2u);
}

TEST_F(LockSourcesTest, AFullCommitIdIsUsedAsItIsAndNotRecordedAsARevision) {
    source_test::commit_again(repo, git_demo(marker, "2.0.0"));
    auto outcome = run_lock(
        request("git-demo @ git+" + build::test::file_url(repo) + "@" + first_commit + "\n",
                {"linux-x86_64-cpu"}));
    const auto& demo = package(outcome.lockfile.targets[0], "git-demo");
    EXPECT_EQ(demo.source->commit, first_commit);
    EXPECT_EQ(demo.source->revision, "");
    EXPECT_EQ(demo.version, "1.2.3");
}

TEST_F(LockSourcesTest, EveryTargetGetsTheHostsMetadataReadOnce) {
    auto outcome = run_lock(request(git_requirement(), {"windows-x86_64-cpu", "linux-x86_64-cpu"}));
    ASSERT_EQ(outcome.lockfile.targets.size(), 2u);
    for (const auto& target : outcome.lockfile.targets) {
        SCOPED_TRACE(target.id);
        const auto& demo = package(target, "git-demo");
        EXPECT_EQ(demo.version, "1.2.3");
        EXPECT_EQ(demo.source->commit, first_commit);
        EXPECT_EQ(demo.dependencies, std::vector<std::string>{"dep-pkg"});
    }
    EXPECT_EQ(source_test::count_lines_starting(marker, "prepare_metadata_for_build_wheel"), 1u);
    std::size_t notes = 0;
    for (const auto& note : outcome.notes) {
        if (note.find("git-demo 1.2.3") != std::string::npos &&
            note.find("on this machine") != std::string::npos)
            ++notes;
    }
    EXPECT_EQ(notes, 2u) << ::testing::PrintToString(outcome.notes);
}

TEST_F(LockSourcesTest, SdistOnlyPackagesAreLockedAsTheirSdistWithTheirDependencies) {
    const auto dynamic_marker = suite->path() / "sdist-demo.marker";
    const auto static_marker = suite->path() / "static-demo.marker";
    const auto before =
        source_test::count_lines_starting(dynamic_marker, "prepare_metadata_for_build_wheel");
    auto outcome = run_lock(request("sdist-demo\nstatic-demo\n", {"linux-x86_64-cpu"}));
    const auto& target = outcome.lockfile.targets[0];

    const auto& dynamic = package(target, "sdist-demo");
    EXPECT_EQ(dynamic.version, "0.5");
    EXPECT_EQ(dynamic.index, "primary");
    EXPECT_EQ(dynamic.dependencies, std::vector<std::string>{"dep-pkg"});
    EXPECT_FALSE(dynamic.wheel);
    ASSERT_TRUE(dynamic.source);
    EXPECT_EQ(dynamic.source->kind, lock::SourceKind::sdist);
    EXPECT_EQ(dynamic.source->url, server.url(sdist_demo->url_path));
    EXPECT_EQ(dynamic.source->sha256, sdist_demo->artifact.sha256);
    EXPECT_EQ(dynamic.source->size, sdist_demo->artifact.size);
    // Its backend ran (importing build-helper from the build environment) to read them.
    EXPECT_EQ(source_test::count_lines_starting(dynamic_marker, "prepare_metadata_for_build_wheel"),
              before + 1);
    EXPECT_NE(build::test::read_file_or_empty(dynamic_marker).find("build-env"), std::string::npos);

    const auto& fixed = package(target, "static-demo");
    EXPECT_EQ(fixed.version, "0.7");
    EXPECT_EQ(fixed.dependencies, std::vector<std::string>{"dep-pkg"});
    ASSERT_TRUE(fixed.source);
    EXPECT_EQ(fixed.source->kind, lock::SourceKind::sdist);
    EXPECT_EQ(fixed.source->sha256, static_demo->artifact.sha256);
    EXPECT_FALSE(stdfs::exists(static_marker));  // PKG-INFO 2.2 was enough: no backend ran

    EXPECT_EQ(package(target, "dep-pkg").version, "1.0");
    EXPECT_EQ(target.find("build-helper"), nullptr);  // a build requirement, not a dependency
    EXPECT_EQ(target.find("ignored-by-lock"), nullptr);
}

TEST_F(LockSourcesTest, AnInterpreterOfAnotherPythonIsRefusedNamingTheVersionNeeded) {
    auto r = request(git_requirement(), {"linux-x86_64-cpu"});
    r.sources.interpreter = build::test::interpreter("/usr/bin/python3.11", "3.11.2");
    try {
        run_lock(r);
        FAIL() << "locked with a Python 3.11 backend for a Python 3.12 lock";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "reading the metadata of source packages needs Python 3.12 (the lock is for "
                  "Python 3.12.1), but /usr/bin/python3.11 is Python 3.11.2");
        EXPECT_EQ(e.hint(), "give a Python 3.12 interpreter");
    }
    EXPECT_FALSE(stdfs::exists(marker));
}

TEST_F(LockSourcesTest, AnEditableLocalFolderIsLockedAsAnEditableDirectory) {
    auto folder = work.path() / "local";
    auto local = git_demo(work.path() / "local.marker", "3.0");
    local.backend.name = "local_demo";
    source_test::write_project(folder, local);
    auto outcome = run_lock(
        request("-e " + build::test::file_url(folder) + "#egg=local-demo\n", {"linux-x86_64-cpu"}));
    const auto& demo = package(outcome.lockfile.targets[0], "local-demo");
    EXPECT_EQ(demo.version, "3.0");
    EXPECT_EQ(demo.dependencies, std::vector<std::string>{"dep-pkg"});
    ASSERT_TRUE(demo.source);
    EXPECT_EQ(demo.source->kind, lock::SourceKind::directory);
    EXPECT_EQ(demo.source->url, build::test::file_url(folder));
    EXPECT_TRUE(demo.source->editable);
    auto text = fs::read_file(outcome.path);
    EXPECT_NE(text.find("        editable: true\n"), std::string::npos) << text;
    auto parsed = lock::parse_lockfile(text, "lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, outcome.lockfile);

    // A requirement must be named after the project it points to.
    try {
        run_lock(
            request("other-name @ " + build::test::file_url(folder) + "\n", {"linux-x86_64-cpu"}));
        FAIL() << "locked local_demo as other-name";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()), "other-name @ " + build::test::file_url(folder) +
                                             ": the project there is named local_demo, not "
                                             "other-name");
    }
}

TEST_F(LockSourcesTest, WithoutInspectionSourcesStayOpaque) {
    auto r = request(git_requirement() + "sdist-demo\n", {"linux-x86_64-cpu"});
    r.sources.inspect = false;
    auto outcome = run_lock(r);
    const auto& target = outcome.lockfile.targets[0];
    const auto& demo = package(target, "git-demo");
    EXPECT_EQ(demo.version, "");
    EXPECT_EQ(demo.source->commit, "main");
    EXPECT_EQ(demo.source->revision, "");
    EXPECT_TRUE(demo.dependencies.empty());
    EXPECT_TRUE(package(target, "sdist-demo").dependencies.empty());
    EXPECT_FALSE(stdfs::exists(marker));
}

TEST(SourceMetadata, StaticDependenciesNeedMetadata22AndNothingDynamicAboutThem) {
    auto parse = [](const std::string& text) { return *pep::CoreMetadata::parse(text); };
    EXPECT_FALSE(static_dependencies(parse(source_test::pkg_info("2.1", "a", "1", {}))));
    EXPECT_TRUE(static_dependencies(parse(source_test::pkg_info("2.2", "a", "1", {}))));
    EXPECT_TRUE(
        static_dependencies(parse(source_test::pkg_info("2.4", "a", "1", {}, {"Summary"}))));
    EXPECT_FALSE(
        static_dependencies(parse(source_test::pkg_info("2.2", "a", "1", {}, {"requires-dist"}))));
    EXPECT_FALSE(
        static_dependencies(parse(source_test::pkg_info("2.3", "a", "1", {}, {"Provides-Extra"}))));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
