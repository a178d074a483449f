// The snapshot's readers (PEP 610 direct_url.json, WHEEL tags, torch's backend label) and
// snapshot_prefix on prefixes written by hand: what it locks, with which extras and
// dependencies, without touching an index (every file here is named by direct_url.json).
#include "aitk/app/snapshot.hpp"
#include "app_calls.hpp"

#include <gtest/gtest.h>

#include "aitk/app/prefix.hpp"
#include "aitk/app/sync.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/url.hpp"
#include "aitk/util/error.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"
#include "test_files.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

using aitk::test::write_file;

TEST(SnapshotBackend, TorchLocalLabelNamesTheBackend) {
    EXPECT_EQ(backend_of_torch_version("2.9.0+cu130"), "cu130");
    EXPECT_EQ(backend_of_torch_version("2.9.0+cpu"), "cpu");
    EXPECT_EQ(backend_of_torch_version("2.8.0+rocm6.4"), "rocm6.4");
    EXPECT_EQ(backend_of_torch_version("2.8.0+xpu"), "xpu");
    EXPECT_EQ(backend_of_torch_version("2.9.0+CU126"), "cu126");
    EXPECT_EQ(backend_of_torch_version("2.9.0"), std::nullopt);
    EXPECT_EQ(backend_of_torch_version("2.9.0+git1234"), std::nullopt);
}

TEST(SnapshotDirectUrl, ArchiveWheelKeepsUrlAndSha256) {
    auto parsed = parse_direct_url(
        R"({"archive_info": {"hash": "sha256=AB12", "hashes": {"sha256": "cd34"}},
            "url": "https://user:pw@files.example/x/demo-1.0-py3-none-any.whl"})");
    ASSERT_TRUE(parsed) << parsed.error();
    auto file = std::get<lock::LockedFile>(*parsed);
    EXPECT_EQ(file, (lock::LockedFile{"demo-1.0-py3-none-any.whl",
                                      "https://files.example/x/demo-1.0-py3-none-any.whl", "cd34",
                                      std::nullopt}));
    // Only the older "hash" key.
    parsed = parse_direct_url(
        R"({"archive_info": {"hash": "sha256=AB12"}, "url": "file:///w/d-1.0-py3-none-any.whl"})");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(std::get<lock::LockedFile>(*parsed).sha256, "ab12");
    // Another algorithm only: the hash is left to compute.
    parsed = parse_direct_url(
        R"({"archive_info": {"hashes": {"md5": "00"}}, "url": "file:///w/d-1.0-py3-none-any.whl"})");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(std::get<lock::LockedFile>(*parsed).sha256, "");
}

TEST(SnapshotDirectUrl, SdistVcsAndDirectoryAreSources) {
    auto sdist = parse_direct_url(
        R"({"archive_info": {"hashes": {"sha256": "ee"}}, "url": "https://h/demo-1.0.tar.gz"})");
    ASSERT_TRUE(sdist);
    EXPECT_EQ(std::get<lock::LockedSource>(*sdist),
              (lock::LockedSource{lock::SourceKind::url, "https://h/demo-1.0.tar.gz", "", "ee",
                                  std::nullopt, ""}));

    auto vcs = parse_direct_url(
        R"({"url": "https://github.com/o/r.git", "subdirectory": "pkg",
            "vcs_info": {"vcs": "git", "requested_revision": "v1.2",
                         "commit_id": "0123456789abcdef0123456789abcdef01234567"}})");
    ASSERT_TRUE(vcs);
    lock::LockedSource expected{lock::SourceKind::vcs,
                                "git+https://github.com/o/r.git",
                                "0123456789abcdef0123456789abcdef01234567",
                                "",
                                std::nullopt,
                                "pkg"};
    expected.revision = "v1.2";
    EXPECT_EQ(std::get<lock::LockedSource>(*vcs), expected);

    // A revision that is the commit itself is not kept as a branch or tag.
    vcs = parse_direct_url(
        R"({"url": "https://github.com/o/r.git",
            "vcs_info": {"vcs": "git", "requested_revision": "0123456789abcdef0123456789abcdef01234567",
                         "commit_id": "0123456789abcdef0123456789abcdef01234567"}})");
    ASSERT_TRUE(vcs);
    EXPECT_EQ(std::get<lock::LockedSource>(*vcs).revision, "");

    auto dir = parse_direct_url(R"({"url": "file:///src/app", "dir_info": {"editable": true}})");
    ASSERT_TRUE(dir);
    lock::LockedSource folder{
        lock::SourceKind::directory, "file:///src/app", "", "", std::nullopt, ""};
    folder.editable = true;
    EXPECT_EQ(std::get<lock::LockedSource>(*dir), folder);
}

TEST(SnapshotDirectUrl, ProblemsAreSaid) {
    EXPECT_EQ(parse_direct_url("[1]").error(), "not a JSON object");
    EXPECT_EQ(parse_direct_url("{}").error(), "no \"url\"");
    EXPECT_EQ(parse_direct_url(R"({"url": "x"})").error(),
              "none of archive_info, vcs_info or dir_info");
    EXPECT_EQ(parse_direct_url(R"({"url": "x", "vcs_info": {"vcs": "git"}})").error(),
              "vcs_info without \"commit_id\"");
}

TEST(SnapshotWheelInfo, TagsAreExpandedSortedAndBuildKept) {
    auto info = parse_wheel_info(
        "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.41.2)\nRoot-Is-Purelib: false\n"
        "Tag: cp312-cp312-manylinux_2_17_x86_64\nTag: cp312-cp312-manylinux2014_x86_64\n"
        "Build: 1abc\n");
    ASSERT_TRUE(info) << info.error();
    EXPECT_EQ(info->tags, (std::vector<std::string>{"cp312-cp312-manylinux2014_x86_64",
                                                    "cp312-cp312-manylinux_2_17_x86_64"}));
    EXPECT_EQ(info->build, "1abc");
    info = parse_wheel_info("Tag: py2.py3-none-any\r\n");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->tags, (std::vector<std::string>{"py2-none-any", "py3-none-any"}));
    EXPECT_EQ(parse_wheel_info("Wheel-Version: 1.0\n").error(), "no Tag line");
    EXPECT_FALSE(parse_wheel_info("Tag: py3-none\n"));
}

// A venv written by hand: pyvenv.cfg, and dist-infos as pip leaves them.
class SnapshotPrefix : public ::testing::Test {
  protected:
    void SetUp() override {
        write_file(prefix() / "pyvenv.cfg",
                   "home = /usr/bin\ninclude-system-site-packages = false\n"
                   "version = 3.12.4\n");
        stdfs::create_directories(site());
    }
    stdfs::path prefix() const { return work.path() / "venv"; }
    stdfs::path site() const { return prefix() / "lib" / "python3.12" / "site-packages"; }

    void dist(const std::string& name, const std::string& version,
              const std::vector<std::string>& requires_dist, const std::vector<std::string>& extras,
              bool requested, const std::string& direct_url) {
        auto info = site() / (name + "-" + version + ".dist-info");
        std::string metadata =
            "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
        for (const auto& r : requires_dist)
            metadata += "Requires-Dist: " + r + "\n";
        for (const auto& e : extras)
            metadata += "Provides-Extra: " + e + "\n";
        write_file(info / "METADATA", metadata);
        write_file(info / "WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n");
        write_file(info / "INSTALLER", "pip\n");
        write_file(info / "RECORD", name + "-" + version + ".dist-info/METADATA,,\n");
        if (requested) write_file(info / "REQUESTED", "");
        if (!direct_url.empty()) write_file(info / "direct_url.json", direct_url);
    }
    static std::string wheel_url(const std::string& name, const std::string& version) {
        return R"({"archive_info": {"hashes": {"sha256": ")" + std::string(64, 'a') +
               R"("}}, "url": "https://files.example/)" + name + "-" + version +
               R"(-py3-none-any.whl"})";
    }

    test::SnapshotCall request() const {
        test::SnapshotCall r;
        r.prefix = prefix();
        r.os = "linux";
        r.arch = "x86_64";
        r.cache_root = work.path() / "cache";
        r.network.offline = true;
        return r;
    }

    fs::TempDir work = fs::TempDir::create("aitk-snapshot");
};

TEST_F(SnapshotPrefix, ExtrasAndDependenciesFollowWhatIsInstalled) {
    dist("app", "1.0",
         {"lib>=1", "fast[turbo]; extra == 'speed'", "never; extra == 'other'",
          "winonly; sys_platform == 'win32'", "old; python_version < '3.8'", "gone"},
         {"speed", "other"}, true, wheel_url("app", "1.0"));
    dist("lib", "2.0", {}, {}, false, wheel_url("lib", "2.0"));
    dist("fast", "0.5", {"turbo-core; extra == 'turbo'"}, {"turbo"}, false,
         wheel_url("fast", "0.5"));
    dist("turbo-core", "3.0", {}, {}, false, wheel_url("turbo_core", "3.0"));
    dist("winonly", "1.0", {}, {}, false, wheel_url("winonly", "1.0"));
    dist("pip", "24.0", {}, {}, true, "");

    auto outcome = snapshot_prefix(request());
    const auto& target = outcome.lockfile.targets.at(0);
    EXPECT_EQ(target.id, "linux-x86_64-cpu");
    EXPECT_EQ(target.python, "3.12.4");
    EXPECT_EQ(target.marker_environment.at("python_full_version"), "3.12.4");
    EXPECT_EQ(target.marker_environment.at("sys_platform"), "linux");
    std::vector<std::string> names;
    for (const auto& p : target.packages)
        names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"app", "fast", "lib", "turbo-core", "winonly"}));

    const auto* app = target.find("app");
    EXPECT_TRUE(app->requested);
    // "speed" is active: everything it asks for is installed; "other" is not ("never" is
    // missing). Markers for other platforms and Pythons are false here.
    EXPECT_EQ(app->extras, std::vector<std::string>{"speed"});
    EXPECT_EQ(app->dependencies, (std::vector<std::string>{"fast", "lib"}));
    EXPECT_EQ(target.find("fast")->extras, std::vector<std::string>{"turbo"});
    EXPECT_EQ(target.find("fast")->dependencies, std::vector<std::string>{"turbo-core"});
    EXPECT_FALSE(target.find("lib")->requested);
    ASSERT_TRUE(target.find("lib")->wheel);
    EXPECT_EQ(target.find("lib")->wheel->url, "https://files.example/lib-2.0-py3-none-any.whl");

    EXPECT_EQ(outcome.left_out, std::vector<std::string>{"pip 24.0 (installer tooling, as pip "
                                                         "freeze leaves out; --all keeps it)"});
    EXPECT_EQ(outcome.notes, std::vector<std::string>{"app requires gone, which is not installed"});
    EXPECT_EQ(outcome.entries.at(0).origin, FileOrigin::direct_url);
    EXPECT_EQ(outcome.lockfile.default_target, "linux-x86_64-cpu");
    EXPECT_EQ(outcome.lockfile.name, "venv");
    EXPECT_TRUE(outcome.lockfile.indexes.empty());

    // The lock it makes is one parse_lockfile accepts, and writing is deterministic.
    auto text = lock::write_lockfile(outcome.lockfile);
    auto parsed = lock::parse_lockfile(text, "snap.yml");
    ASSERT_TRUE(parsed) << parsed.error().to_error().what();
    EXPECT_EQ(*parsed, outcome.lockfile);
    EXPECT_EQ(lock::write_lockfile(snapshot_prefix(request()).lockfile), text);
}

TEST_F(SnapshotPrefix, InstallerToolsStayWhenNeededAndTorchNamesTheBackend) {
    dist("torch", "2.9.0+cu130", {"setuptools; python_version >= '3.12'"}, {}, true,
         wheel_url("torch", "2.9.0%2Bcu130"));
    dist("setuptools", "70.0", {}, {}, false, wheel_url("setuptools", "70.0"));
    dist("wheel", "0.43", {}, {}, false, "");
    auto outcome = snapshot_prefix(request());
    const auto& target = outcome.lockfile.targets.at(0);
    EXPECT_EQ(target.id, "linux-x86_64-cu130");
    EXPECT_EQ(target.backend, "cu130");
    ASSERT_EQ(target.packages.size(), 2u);
    EXPECT_EQ(target.packages[1].name, "torch");
    EXPECT_EQ(target.packages[1].dependencies, std::vector<std::string>{"setuptools"});
    EXPECT_EQ(target.packages[1].wheel->filename, "torch-2.9.0+cu130-py3-none-any.whl");
    EXPECT_EQ(outcome.left_out.size(), 1u);
}

TEST_F(SnapshotPrefix, LocalFilesWithoutHashAreHashedAndMissingOnesSaySo) {
    auto wheel = work.path() / "files" / "solo-1.0-py3-none-any.whl";
    write_file(wheel, "not really a zip");
    dist("solo", "1.0", {}, {}, true,
         R"({"archive_info": {}, "url": ")" + index::path_to_file_url(wheel) + R"("})");
    auto outcome = snapshot_prefix(request());
    const auto& file = *outcome.lockfile.targets.at(0).find("solo")->wheel;
    EXPECT_EQ(file.sha256, "d5bd64a5c43b6f8cc7f6c7897e954e58b89abfed62e851a47f842de714cca7d0");
    EXPECT_EQ(file.size, 16u);

    stdfs::remove(wheel);
    try {
        (void)snapshot_prefix(request());
        FAIL() << "no error";
    } catch (const util::Error& e) {
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        EXPECT_EQ(std::string(e.what()),
                  "solo-1.0-py3-none-any.whl: " + wheel.string() + " no longer exists");
    }
}

TEST_F(SnapshotPrefix, LocallyBuiltWheelLocksTheIndexSdist) {
    // pip built this wheel from the index's sdist: no index wheel has its tags.
    dist("sdpkg", "1.0", {}, {}, true, "");
    test::MirrorBuilder mirror(work.path() / "mirror");
    test::SdistSpec sdist;
    sdist.name = "sdpkg";
    sdist.version = "1.0";
    const auto published = mirror.add_sdist("simple", sdist);  // a copy: add_wheel reallocates
    test::WheelSpec other;
    other.name = "sdpkg";
    other.version = "1.0";
    other.tag = "cp313-cp313-win_amd64";
    mirror.add_wheel("simple", other);
    mirror.write();
    test::HttpServer server;
    server.serve_directory(mirror.root());

    auto r = request();
    r.network.offline = false;
    r.indexes.index_url = server.url("/simple/");
    auto outcome = snapshot_prefix(r);
    const auto* package = outcome.lockfile.targets.at(0).find("sdpkg");
    ASSERT_NE(package, nullptr);
    EXPECT_FALSE(package->wheel);
    ASSERT_TRUE(package->source);
    EXPECT_EQ(package->source->kind, lock::SourceKind::sdist);
    EXPECT_EQ(package->source->url, server.url(published.url_path));
    EXPECT_EQ(package->source->sha256, published.artifact.sha256);
    EXPECT_EQ(package->index, "primary");
    EXPECT_EQ(outcome.lockfile.indexes,
              (std::vector<lock::LockedIndex>{
                  {"primary", server.url("/simple/"), lock::IndexKind::simple}}));
    EXPECT_EQ(outcome.notes, std::vector<std::string>{
                                 "sdpkg 1.0: no wheel on the index has the installed wheel's tags; "
                                 "its sdist is locked (setup builds it)"});
    EXPECT_EQ(outcome.entries.at(0).origin, FileOrigin::index);
}

TEST_F(SnapshotPrefix, ReceiptVouchesForWhatAitkEnvInstalledAndKeepsItsTarget) {
    const std::string sha_a(64, 'a'), sha_b(64, 'b');
    lock::Lockfile own;
    own.name = "team";
    own.generator = "aitk-env 0.1.0";
    own.input_hash = "sha256:" + std::string(64, '0');
    own.indexes = {
        {"primary", "https://mirror.example/simple/", lock::IndexKind::simple},
        {"torch cu130", "https://download.pytorch.org/whl/cu130/", lock::IndexKind::torch_backend}};
    own.default_target = "linux-x86_64-cu130";
    lock::LockedTarget target;
    target.id = "linux-x86_64-cu130";
    target.os = "linux";
    target.arch = "x86_64";
    target.backend = "cu130";
    target.python = "3.12.4";
    target.variables = {{"TEAM", "1"}};
    lock::LockedPackage app{"app", "1.0", true, "primary", {}, {"lib"}, std::nullopt, std::nullopt};
    app.wheel =
        lock::LockedFile{"app-1.0-py3-none-any.whl",
                         "https://mirror.example/files/app-1.0-py3-none-any.whl", sha_a, 100};
    lock::LockedPackage lib{"lib", "2.0", false, "primary", {}, {}, std::nullopt, std::nullopt};
    lib.wheel =
        lock::LockedFile{"lib-2.0-py3-none-any.whl",
                         "https://mirror.example/files/lib-2.0-py3-none-any.whl", sha_b, 200};
    target.packages = {app, lib};
    own.targets = {target};
    auto layout = open_prefix(prefix(), false);
    write_prefix_lock(layout, own, target.id);
    Receipt receipt;
    receipt.target = target.id;
    // lib was reinstalled since (by pip, from a URL): the receipt no longer speaks for it.
    receipt.wheel_sha256 = {{"app", sha_a}, {"lib", sha_b}};
    receipt.write(layout.state);
    dist("app", "1.0", {"lib"}, {}, true, "");
    write_file(site() / "app-1.0.dist-info" / "INSTALLER", "aitk-env\n");
    dist("lib", "2.1", {}, {}, false, wheel_url("lib", "2.1"));

    auto outcome = snapshot_prefix(request());
    const auto& snap = outcome.lockfile.targets.at(0);
    // No torch to tell: the backend of the target the prefix was set up for.
    EXPECT_EQ(snap.id, "linux-x86_64-cu130");
    EXPECT_EQ(snap.variables, target.variables);
    ASSERT_EQ(snap.packages.size(), 2u);
    EXPECT_EQ(snap.packages[0], app);
    EXPECT_EQ(snap.packages[1].version, "2.1");
    EXPECT_EQ(snap.packages[1].wheel->url, "https://files.example/lib-2.1-py3-none-any.whl");
    EXPECT_EQ(snap.packages[1].index, "");
    EXPECT_EQ(outcome.lockfile.indexes, own.indexes);
    EXPECT_EQ(outcome.lockfile.name, "team");
    EXPECT_EQ(outcome.entries.at(0).origin, FileOrigin::receipt);
    EXPECT_EQ(outcome.entries.at(1).origin, FileOrigin::direct_url);
}

TEST_F(SnapshotPrefix, NoVersionInPyvenvCfgIsBadInput) {
    write_file(prefix() / "pyvenv.cfg", "home = /usr/bin\nversion = 3.12\n");
    try {
        (void)snapshot_prefix(request());
        FAIL() << "no error";
    } catch (const util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  (prefix() / "pyvenv.cfg").string() + " names no full Python version");
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
