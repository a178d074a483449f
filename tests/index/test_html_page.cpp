// PEP 503 HTML project pages and find-links pages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aitk/index/simple_page.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::index;
using ::testing::HasSubstr;

namespace {

const std::string sha_a(64, 'a');
const std::string sha_b(64, 'b');

const SkippedFile* find_skipped(const ProjectPage& page, std::string_view filename) {
    for (const auto& s : page.skipped) {
        if (s.filename == filename) return &s;
    }
    return nullptr;
}

TEST(HtmlPage, ReadsAPypiStylePage) {
    const std::string html =
        "<!DOCTYPE html>\n<html><head>"
        "<meta name=\"pypi:repository-version\" content=\"1.1\">"
        "<title>Links for numpy</title></head><body>\n"
        "<a href=\"../../files/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl#sha256=" +
        sha_a + "\" data-requires-python=\"&gt;=3.10\" data-dist-info-metadata=\"sha256=" + sha_b +
        "\" data-core-metadata=\"sha256=" + sha_b +
        "\">numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl</a><br/>\n"
        "<a href=\"../../files/numpy-1.26.4.tar.gz#sha256=" +
        sha_b +
        "\" data-requires-python=\"&gt;=3.9,&lt;3.13\">numpy-1.26.4.tar.gz</a>\n"
        "<a href=\"../../files/numpy-2.0.0-py3-none-any.whl\" data-yanked=\"broken ABI, use "
        "2.0.1\">x</a>\n"
        "</body></html>";

    const auto page = parse_html_page(html, "https://pypi.example/simple/numpy/", "numpy");

    ASSERT_TRUE(page) << page.error().describe();
    EXPECT_EQ(page->format, PageFormat::html);
    EXPECT_EQ(page->api_version, "1.1");
    ASSERT_EQ(page->files.size(), 3u);
    EXPECT_TRUE(page->skipped.empty());

    const auto& wheel = page->files[0];
    EXPECT_EQ(wheel.filename, "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    EXPECT_EQ(wheel.url,
              "https://pypi.example/files/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    EXPECT_EQ(wheel.sha256(), sha_a);
    EXPECT_EQ(wheel.requires_python, ">=3.10");
    EXPECT_FALSE(wheel.yanked);
    EXPECT_TRUE(wheel.core_metadata.available);
    EXPECT_EQ(wheel.core_metadata.hashes.at("sha256"), sha_b);
    EXPECT_EQ(wheel.metadata_url(), wheel.url + ".metadata");
    EXPECT_EQ(wheel.kind(), FileKind::wheel);
    EXPECT_EQ(wheel.project(), "numpy");
    EXPECT_EQ(wheel.version().to_string(), "2.1.0");
    ASSERT_NE(wheel.wheel(), nullptr);
    EXPECT_EQ(wheel.wheel()->tags.front().platform, "manylinux_2_17_x86_64");

    const auto& sdist = page->files[1];
    EXPECT_EQ(sdist.kind(), FileKind::sdist);
    EXPECT_EQ(sdist.requires_python, ">=3.9,<3.13");
    EXPECT_FALSE(sdist.core_metadata.available);

    const auto& yanked = page->files[2];
    EXPECT_TRUE(yanked.yanked);
    EXPECT_EQ(yanked.yanked_reason, "broken ABI, use 2.0.1");
    EXPECT_TRUE(yanked.hashes.empty());
}

TEST(HtmlPage, ReadsAPytorchStylePage) {
    const std::string html =
        "<!DOCTYPE html>\n<html>\n<body>\n<h1>Links for torch</h1>\n"
        "<a href=\"/whl/cu126/torch-2.9.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=" +
        sha_a +
        "\" data-requires-python=\"&gt;=3.10\" data-dist-info-metadata=\"true\" "
        "data-core-metadata=\"true\">torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl</"
        "a><br/>\n"
        "<a href=\"/whl/cu126/torch-2.8.0%2Bcu126-cp311-cp311-win_amd64.whl\">torch-2.8.0+cu126-"
        "cp311-cp311-win_amd64.whl</a><br/>\n"
        "</body>\n</html>\n";

    const auto page =
        parse_html_page(html, "https://download.pytorch.org/whl/cu126/torch/", "torch");

    ASSERT_TRUE(page) << page.error().describe();
    EXPECT_EQ(page->api_version, "");
    ASSERT_EQ(page->files.size(), 2u);
    const auto& first = page->files[0];
    EXPECT_EQ(first.filename, "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(first.url,
              "https://download.pytorch.org/whl/cu126/"
              "torch-2.9.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(first.version().to_string(), "2.9.0+cu126");
    EXPECT_TRUE(first.core_metadata.available);
    EXPECT_TRUE(first.core_metadata.hashes.empty());
    EXPECT_EQ(page->files[1].sha256(), std::nullopt);
    EXPECT_EQ(page->files[1].version().to_string(), "2.8.0+cu126");
}

TEST(HtmlPage, BaseHrefAndAbsoluteLinks) {
    const std::string html =
        "<html><head><BASE HREF='https://cdn.example/pkgs/'><base href='/ignored/'></head>"
        "<a href='demo-1.0-py3-none-any.whl'>a</a>"
        "<a href='https://other.example/demo-1.1-py3-none-any.whl'>b</a>"
        "<a href='//proto.example/demo-1.2-py3-none-any.whl'>c</a>";
    const auto page = parse_html_page(html, "http://index.example/simple/demo/", "demo");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 3u);
    EXPECT_EQ(page->files[0].url, "https://cdn.example/pkgs/demo-1.0-py3-none-any.whl");
    EXPECT_EQ(page->files[1].url, "https://other.example/demo-1.1-py3-none-any.whl");
    EXPECT_EQ(page->files[2].url, "https://proto.example/demo-1.2-py3-none-any.whl");
}

TEST(HtmlPage, MetadataAttributeForms) {
    const std::string html =
        "<a href='a-1.0-py3-none-any.whl' data-core-metadata='sha256=" + sha_a +
        "' data-dist-info-metadata='false'>1</a>"
        "<a href='a-1.1-py3-none-any.whl' data-dist-info-metadata='sha256=" +
        sha_b +
        "'>2</a>"
        "<a href='a-1.2-py3-none-any.whl' data-core-metadata='false'>3</a>"
        "<a href='a-1.3-py3-none-any.whl' data-core-metadata='sha256=nothex'>4</a>"
        "<a href='a-1.4-py3-none-any.whl' data-core-metadata='TRUE'>5</a>";
    const auto page = parse_html_page(html, "http://h/simple/a/", "a");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 5u);
    EXPECT_EQ(page->files[0].core_metadata.hashes.at("sha256"), sha_a);  // core-metadata wins
    EXPECT_EQ(page->files[1].core_metadata.hashes.at("sha256"), sha_b);  // legacy name
    EXPECT_FALSE(page->files[2].core_metadata.available);
    EXPECT_FALSE(page->files[3].core_metadata.available);
    EXPECT_TRUE(page->files[4].core_metadata.available);
}

TEST(HtmlPage, HashFragments) {
    const std::string html = "<a href='a-1.0-py3-none-any.whl#sha256=" + std::string(64, 'A') +
                             "'>1</a>"
                             "<a href='a-1.1-py3-none-any.whl#md5=" +
                             std::string(32, '0') +
                             "'>2</a>"
                             "<a href='a-1.2-py3-none-any.whl#egg=a&amp;sha512=" +
                             std::string(128, 'f') +
                             "'>3</a>"
                             "<a href='a-1.3-py3-none-any.whl#sha256=abc'>4</a>"
                             "<a href='a-1.4-py3-none-any.whl#sha256=" +
                             std::string(63, 'a') + "g'>5</a>";
    const auto page = parse_html_page(html, "http://h/simple/a/", "a");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 3u);
    EXPECT_EQ(page->files[0].sha256(), std::string(64, 'a'));
    EXPECT_EQ(page->files[1].hashes.at("md5"), std::string(32, '0'));
    EXPECT_EQ(page->files[2].hashes.at("sha512"), std::string(128, 'f'));
    ASSERT_EQ(page->skipped.size(), 2u);
    EXPECT_THAT(page->skipped[0].reason, HasSubstr("the #sha256= fragment is not 64 hex digits"));
    EXPECT_EQ(page->skipped[0].filename, "a-1.3-py3-none-any.whl");
}

TEST(HtmlPage, SkipsOtherProjectsAndNonDistributionsWithReasons) {
    const std::string html =
        "<a href='numpy-2.0.0-py3-none-any.whl'>ok</a>"
        "<a href='numpyx-1.0-py3-none-any.whl'>other</a>"
        "<a href='numpy-1.0.win32.exe'>exe</a>"
        "<a href='numpy-1.0-py2.7.egg'>egg</a>"
        "<a href='numpy-1.0.tar.bz2'>bz2</a>"
        "<a href='numpy-notaversion-py3-none-any.whl'>bad</a>"
        "<a href='numpy-1.0-py3-none.whl'>badtags</a>"
        "<a href='a%2F..%2Fnumpy-1.0.tar.gz'>slash</a>"
        "<a href='numpy-1.0%0A.tar.gz'>control</a>"
        "<a href='numpy-1.0%FF.tar.gz'>utf8</a>"
        "<a href='https://h/simple/numpy/'>dir</a>"
        "<a name='anchor-without-href'>x</a>";
    const auto page = parse_html_page(html, "http://h/simple/numpy/", "numpy");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 1u);
    EXPECT_EQ(page->files[0].filename, "numpy-2.0.0-py3-none-any.whl");
    EXPECT_EQ(page->skipped.size(), 10u);
    EXPECT_THAT(find_skipped(*page, "numpyx-1.0-py3-none-any.whl")->reason,
                HasSubstr("belongs to project 'numpyx', not 'numpy'"));
    EXPECT_THAT(find_skipped(*page, "numpy-1.0.win32.exe")->reason,
                HasSubstr("not a wheel (.whl) or an sdist"));
    EXPECT_THAT(find_skipped(*page, "numpy-1.0-py2.7.egg")->reason, HasSubstr("not a wheel"));
    EXPECT_THAT(find_skipped(*page, "numpy-1.0.tar.bz2")->reason,
                HasSubstr("'.tar.bz2' is not supported"));
    EXPECT_THAT(find_skipped(*page, "numpy-notaversion-py3-none-any.whl")->reason,
                HasSubstr("invalid wheel filename"));
    EXPECT_THAT(find_skipped(*page, "a/../numpy-1.0.tar.gz")->reason,
                HasSubstr("path separator or control character"));
    EXPECT_THAT(find_skipped(*page, "numpy-1.0\n.tar.gz")->reason,
                HasSubstr("path separator or control character"));
    EXPECT_THAT(find_skipped(*page, "numpy-1.0\xFF.tar.gz")->reason, HasSubstr("not valid UTF-8"));
    EXPECT_THAT(find_skipped(*page, "")->reason, HasSubstr("no filename"));
}

TEST(HtmlPage, OnlyHttpHttpsAndLocalFileLinksAreFollowed) {
    const std::string html =
        "<a href='ftp://h/a-1.0-py3-none-any.whl'>1</a>"
        "<a href='javascript:alert(1)//a-1.1-py3-none-any.whl'>2</a>"
        "<a href='file:///etc/a-1.2-py3-none-any.whl'>3</a>"
        "<a href='h:/x/a-1.3-py3-none-any.whl'>4</a>"
        "<a href='HTTPS://h/a-1.4-py3-none-any.whl'>5</a>";
    const auto remote = parse_html_page(html, "https://h/simple/a/", "a");
    ASSERT_TRUE(remote);
    ASSERT_EQ(remote->files.size(), 1u);
    EXPECT_EQ(remote->files[0].filename, "a-1.4-py3-none-any.whl");
    ASSERT_EQ(remote->skipped.size(), 4u);
    EXPECT_EQ(remote->skipped[0].reason, "the URL scheme 'ftp' is not http, https or file");
    EXPECT_EQ(remote->skipped[1].reason, "the URL scheme 'javascript' is not http, https or file");
    EXPECT_EQ(remote->skipped[2].reason, "a file: link on a remote page is not followed");
    EXPECT_EQ(remote->skipped[3].reason, "the URL scheme 'h' is not http, https or file");

    const auto local = parse_html_page(html, "file:///srv/simple/a/", "a");
    ASSERT_TRUE(local);
    EXPECT_EQ(local->files.size(), 2u);
}

TEST(HtmlPage, NameMatchingIsNormalised) {
    const std::string html =
        "<a href='Typing_Extensions-4.12.2-py3-none-any.whl'>1</a>"
        "<a href='typing.extensions-4.0.0.tar.gz'>2</a>";
    const auto page =
        parse_html_page(html, "http://h/simple/typing-extensions/", "typing-extensions");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->files.size(), 2u);
}

TEST(HtmlPage, FlatFindLinksPagesKeepEveryProject) {
    const std::string html =
        "<a href='a-1.0-py3-none-any.whl'>a</a><a href='b-2.0.tar.gz'>b</a>"
        "<a href='README.txt'>readme</a>";
    const auto page = parse_html_page(html, "http://h/wheels/", "");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 2u);
    EXPECT_EQ(page->files[1].project(), "b");
    EXPECT_EQ(page->skipped.size(), 1u);
}

TEST(HtmlPage, RejectsAnotherMajorRepositoryVersion) {
    const std::string html =
        "<html>\n<head>\n  <meta name=\"pypi:repository-version\" content=\"2.0\">\n</head>"
        "<a href='a-1.0-py3-none-any.whl'>a</a>";
    const auto page = parse_html_page(html, "https://u:secret@h/simple/a/", "a");
    ASSERT_FALSE(page);
    EXPECT_THAT(page.error().message, HasSubstr("repository version '2.0'"));
    EXPECT_THAT(page.error().message, HasSubstr("only major version 1"));
    EXPECT_EQ(page.error().line, 3u);
    EXPECT_EQ(page.error().column, 3u);
    EXPECT_EQ(page.error().url, "https://***@h/simple/a/");
    EXPECT_EQ(page.error().describe().find("secret"), std::string::npos);
    EXPECT_THAT(page.error().describe(), HasSubstr("line 3, column 3: the page declares"));
}

TEST(HtmlPage, HostileInput) {
    PageLimits small;
    small.max_bytes = 1000;
    const auto huge = parse_html_page(std::string(1001, 'x'), "http://h/simple/a/", "a", small);
    ASSERT_FALSE(huge);
    EXPECT_EQ(huge.error().message, "the page is 1001 bytes, above the limit of 1000 bytes");

    PageLimits few;
    few.max_files = 3;
    std::string many;
    for (int i = 0; i < 5; ++i)
        many += "<a href='a-1." + std::to_string(i) + "-py3-none-any.whl'>x</a>\n";
    const auto too_many = parse_html_page(many, "http://h/simple/a/", "a", few);
    ASSERT_FALSE(too_many);
    EXPECT_EQ(too_many.error().message, "the page has more than 3 links");
    EXPECT_EQ(too_many.error().line, 4u);

    // Invalid UTF-8, NUL bytes, broken entities and half tags: a page, never a crash.
    const std::string junk = std::string(
                                 "\xFF\xFE<a href='a-1.0-py3-none-any.whl' "
                                 "data-requires-python='&#xFFFFFFFF;&bogus;\x80'>") +
                             std::string("\0<a href=\"", 11) + "<a<a<a href=";
    const auto page = parse_html_page(junk, "http://h/simple/a/", "a");
    ASSERT_TRUE(page);
    ASSERT_EQ(page->files.size(), 1u);
    EXPECT_EQ(page->files[0].requires_python, "\xEF\xBF\xBD&bogus;\x80");
    EXPECT_TRUE(requires_python_allows(page->files[0], *aitk::pep::Version::parse("3.12")));
}

TEST(HtmlPage, BigRealisticPageParses) {
    std::string html = "<html><body>\n";
    for (int i = 0; i < 20'000; ++i) {
        html += "<a href=\"../../files/p-1." + std::to_string(i) +
                "-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=" + sha_a +
                "\" data-requires-python=\"&gt;=3.9\">x</a><br/>\n";
    }
    const auto page = parse_html_page(html, "https://h/simple/p/", "p");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->files.size(), 20'000u);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
