// The mirror's pages and file list, and how a locked file is found on an index page: pure
// parts, checked byte for byte (the CLI test serves a real mirror to a real setup).
#include "aitk/app/mirror.hpp"

#include <gtest/gtest.h>

#include "aitk/app/artifact_locations.hpp"
#include "aitk/index/simple_page.hpp"
#include "aitk/util/error.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

const std::string sha_a(64, 'a');
const std::string sha_b(64, 'b');
const std::string sha_m(64, 'c');

std::vector<MirrorFile> two_projects() {
    MirrorFile torch{"torch", "2.9.0+cpu", "torch-2.9.0+cpu-cp312-cp312-linux_x86_64.whl",
                     sha_a,   1234,        ">=3.10",
                     sha_m};
    MirrorFile sdist{"foo-bar", "1.0", "foo_bar-1.0.tar.gz", sha_b, 99, "", std::nullopt};
    return {torch, sdist};
}

TEST(MirrorPages, ProjectPageIsPep503WithMetadataHashes) {
    auto pages = render_mirror_pages(two_projects(), std::nullopt);
    ASSERT_EQ(pages.size(), 6u);
    EXPECT_EQ(pages["simple/torch/index.html"],
              "<!DOCTYPE html>\n<html>\n  <head>\n"
              "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n"
              "    <title>Links for torch</title>\n  </head>\n  <body>\n"
              "    <h1>Links for torch</h1>\n"
              "    <a href=\"../../files/torch/torch-2.9.0%2Bcpu-cp312-cp312-linux_x86_64.whl#"
              "sha256=" +
                  sha_a +
                  "\" data-requires-python=\"&gt;=3.10\" data-dist-info-metadata=\"sha256=" +
                  sha_m + "\" data-core-metadata=\"sha256=" + sha_m +
                  "\">torch-2.9.0+cpu-cp312-cp312-linux_x86_64.whl</a><br>\n"
                  "  </body>\n</html>\n");
    EXPECT_EQ(pages["simple/foo-bar/index.html"].find("data-"), std::string::npos);
}

TEST(MirrorPages, RootListsProjectsSorted) {
    auto pages = render_mirror_pages(two_projects(), std::nullopt);
    const auto& root = pages["simple/index.html"];
    auto foo = root.find("<a href=\"foo-bar/\">foo-bar</a><br>");
    auto torch = root.find("<a href=\"torch/\">torch</a><br>");
    ASSERT_NE(foo, std::string::npos);
    ASSERT_NE(torch, std::string::npos);
    EXPECT_LT(foo, torch);
    EXPECT_EQ(nlohmann::json::parse(pages["simple/index.json"]),
              nlohmann::json::parse(R"({"meta":{"api-version":"1.1"},
                  "projects":[{"name":"foo-bar"},{"name":"torch"}]})"));
}

TEST(MirrorPages, JsonPageHasPep691And700Fields) {
    auto files = two_projects();
    MirrorFile older = files[0];
    older.version = "2.10.0+cpu";  // version order, not text order
    older.filename = "torch-2.10.0+cpu-cp312-cp312-linux_x86_64.whl";
    files.push_back(older);
    auto pages = render_mirror_pages(files, std::nullopt);
    auto json = nlohmann::json::parse(pages["simple/torch/index.json"]);
    EXPECT_EQ(json["meta"]["api-version"], "1.1");
    EXPECT_EQ(json["name"], "torch");
    EXPECT_EQ(json["versions"], nlohmann::json::array({"2.9.0+cpu", "2.10.0+cpu"}));
    ASSERT_EQ(json["files"].size(), 2u);
    // Files sorted by name.
    EXPECT_EQ(json["files"][0]["filename"], "torch-2.10.0+cpu-cp312-cp312-linux_x86_64.whl");
    const auto& f = json["files"][1];
    EXPECT_EQ(f["url"], "../../files/torch/torch-2.9.0%2Bcpu-cp312-cp312-linux_x86_64.whl");
    EXPECT_EQ(f["hashes"]["sha256"], sha_a);
    EXPECT_EQ(f["requires-python"], ">=3.10");
    EXPECT_EQ(f["core-metadata"]["sha256"], sha_m);
    EXPECT_EQ(f["dist-info-metadata"]["sha256"], sha_m);
    EXPECT_EQ(f["size"], 1234);
    auto sdist = nlohmann::json::parse(pages["simple/foo-bar/index.json"])["files"][0];
    EXPECT_FALSE(sdist.contains("core-metadata"));
    EXPECT_FALSE(sdist.contains("requires-python"));
}

TEST(MirrorPages, OurOwnIndexClientReadsBothForms) {
    auto pages = render_mirror_pages(two_projects(), std::nullopt);
    const std::string page_url = "https://m.example/simple/torch/";
    auto html = index::parse_html_page(pages["simple/torch/index.html"], page_url, "torch");
    auto json = index::parse_json_page(pages["simple/torch/index.json"], page_url, "torch");
    ASSERT_TRUE(html);
    ASSERT_TRUE(json);
    for (const auto* page : {&*html, &*json}) {
        EXPECT_EQ(page->api_version, "1.1");
        ASSERT_EQ(page->files.size(), 1u);
        const auto& f = page->files[0];
        EXPECT_EQ(f.filename, "torch-2.9.0+cpu-cp312-cp312-linux_x86_64.whl");
        EXPECT_EQ(f.url,
                  "https://m.example/files/torch/torch-2.9.0%2Bcpu-cp312-cp312-linux_x86_64.whl");
        EXPECT_EQ(f.hashes, (index::Hashes{{"sha256", sha_a}}));
        EXPECT_EQ(f.requires_python, ">=3.10");
        EXPECT_TRUE(f.core_metadata.available);
        EXPECT_EQ(f.core_metadata.hashes, (index::Hashes{{"sha256", sha_m}}));
    }
    EXPECT_EQ(json->files[0].size, 1234u);
}

TEST(MirrorPages, BaseUrlGivesAbsoluteLinks) {
    auto pages = render_mirror_pages(two_projects(), std::string("https://m.example/x//"));
    EXPECT_NE(pages["simple/foo-bar/index.html"].find(
                  "href=\"https://m.example/x/files/foo-bar/foo_bar-1.0.tar.gz#sha256="),
              std::string::npos);
    EXPECT_NE(pages["simple/index.html"].find("href=\"https://m.example/x/simple/torch/\""),
              std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(pages["simple/foo-bar/index.json"])["files"][0]["url"],
              "https://m.example/x/files/foo-bar/foo_bar-1.0.tar.gz");
}

TEST(MirrorPages, SameInputSameBytes) {
    auto files = two_projects();
    auto reversed = files;
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(render_mirror_pages(files, std::nullopt),
              render_mirror_pages(reversed, std::nullopt));
}

lock::LockedPackage wheel_package(const std::string& name, const std::string& filename,
                                  const std::string& sha) {
    lock::LockedPackage p;
    p.name = name;
    p.version = "1.0";
    p.wheel = lock::LockedFile{filename, "https://files.example/" + filename, sha, 10};
    return p;
}

lock::Lockfile two_targets() {
    lock::Lockfile lock;
    lock::LockedTarget cpu;
    cpu.id = "linux-x86_64-cpu";
    cpu.packages = {wheel_package("common", "common-1.0-py3-none-any.whl", sha_a),
                    wheel_package("only-cpu", "only_cpu-1.0-py3-none-any.whl", sha_b)};
    lock::LockedTarget cuda;
    cuda.id = "linux-x86_64-cu130";
    lock::LockedPackage sdist;
    sdist.name = "built";
    sdist.version = "2.0";
    sdist.source = lock::LockedSource{
        lock::SourceKind::sdist, "https://files.example/built-2.0.tar.gz", "", sha_m, 5, ""};
    lock::LockedPackage vcs;
    vcs.name = "from-git";
    vcs.source = lock::LockedSource{
        lock::SourceKind::vcs, "git+https://g.example/r", "abc", "", std::nullopt, ""};
    cuda.packages = {sdist, wheel_package("common", "common-1.0-py3-none-any.whl", sha_a), vcs};
    lock.targets = {cuda, cpu};
    return lock;
}

TEST(LockedArtifacts, EveryTargetEachFileOnceSorted) {
    auto all = locked_artifacts(two_targets(), {});
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].project, "built");
    EXPECT_EQ(all[0].filename, "built-2.0.tar.gz");
    EXPECT_EQ(all[0].sha256, sha_m);
    EXPECT_EQ(all[1].filename, "common-1.0-py3-none-any.whl");
    EXPECT_EQ(all[2].filename, "only_cpu-1.0-py3-none-any.whl");
    auto cuda = locked_artifacts(two_targets(), {"linux-x86_64-cu130"});
    ASSERT_EQ(cuda.size(), 2u);
}

TEST(LockedArtifacts, UnknownTargetAndConflictingHashesAreBadInput) {
    try {
        (void)locked_artifacts(two_targets(), {"linux-x86_64-cu999"});
        FAIL();
    } catch (const util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--target linux-x86_64-cu999: the lockfile has no such target");
    }
    auto lock = two_targets();
    lock.targets[1].packages[0].wheel->sha256 = sha_b;
    EXPECT_THROW((void)locked_artifacts(lock, {}), util::InputError);
}

index::ProjectFiles page_with(const std::string& filename, const std::string& fragment) {
    auto page = index::parse_html_page(
        "<a href=\"../../files/" + filename + fragment + "\">" + filename + "</a>",
        "https://mirror.example/simple/common/", "common");
    index::ProjectFiles files;
    files.project = "common";
    files.page_url = "https://mirror.example/simple/common/";
    if (page) files.files = page->files;
    return files;
}

TEST(FindLockedFile, SameFilenameAndHashGivesTheIndexUrl) {
    auto url = find_locked_file(page_with("common-1.0-py3-none-any.whl", "#sha256=" + sha_a),
                                "common-1.0-py3-none-any.whl", sha_a);
    ASSERT_TRUE(url) << url.error();
    EXPECT_EQ(*url, "https://mirror.example/files/common-1.0-py3-none-any.whl");
    // No hash on the page: the download is checked against the lock anyway.
    EXPECT_TRUE(find_locked_file(page_with("common-1.0-py3-none-any.whl", ""),
                                 "common-1.0-py3-none-any.whl", sha_a));
}

TEST(FindLockedFile, OtherHashOrAbsentFileIsAnError) {
    auto other = find_locked_file(page_with("common-1.0-py3-none-any.whl", "#sha256=" + sha_b),
                                  "common-1.0-py3-none-any.whl", sha_a);
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error(),
              "common-1.0-py3-none-any.whl: https://mirror.example/simple/common/ "
              "lists it with sha256 " +
                  sha_b + ", the lock has " + sha_a);
    auto absent = find_locked_file(page_with("common-1.0-py3-none-any.whl", ""),
                                   "common-2.0-py3-none-any.whl", sha_a);
    ASSERT_FALSE(absent);
    EXPECT_EQ(absent.error(),
              "common-2.0-py3-none-any.whl: not on https://mirror.example/simple/common/");
}

TEST(ParseRewriteOptions, BadValueIsBadInputNamingIt) {
    try {
        (void)parse_rewrite_options({"a=b", "nope"});
        FAIL();
    } catch (const util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--rewrite-url nope: a URL rewrite rule is FROM=TO (no '=' found)");
    }
    EXPECT_EQ(parse_rewrite_options({"a=b"}).apply("a/x"), "b/x");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
