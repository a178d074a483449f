// URL reference resolution (RFC 3986 §5.4 examples), percent-decoding and file: URLs.
#include <gtest/gtest.h>

#include "aitk/index/url.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::index;

namespace {

TEST(Url, ResolvesTheRfc3986NormalExamples) {
    const std::string base = "http://a/b/c/d;p?q";
    const std::pair<const char*, const char*> cases[] = {
        {"g:h", "g:h"},
        {"g", "http://a/b/c/g"},
        {"./g", "http://a/b/c/g"},
        {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"},
        {"//g", "http://g"},
        {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q#s"},
        {"g#s", "http://a/b/c/g#s"},
        {"g?y#s", "http://a/b/c/g?y#s"},
        {";x", "http://a/b/c/;x"},
        {"g;x", "http://a/b/c/g;x"},
        {"", "http://a/b/c/d;p?q"},
        {".", "http://a/b/c/"},
        {"./", "http://a/b/c/"},
        {"..", "http://a/b/"},
        {"../", "http://a/b/"},
        {"../g", "http://a/b/g"},
        {"../..", "http://a/"},
        {"../../g", "http://a/g"},
    };
    for (const auto& [ref, want] : cases)
        EXPECT_EQ(resolve_url(base, ref), want) << ref;
}

TEST(Url, ResolvesTheRfc3986AbnormalExamples) {
    const std::string base = "http://a/b/c/d;p?q";
    const std::pair<const char*, const char*> cases[] = {
        {"../../../g", "http://a/g"},
        {"../../../../g", "http://a/g"},
        {"/./g", "http://a/g"},
        {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},
        {".g", "http://a/b/c/.g"},
        {"g..", "http://a/b/c/g.."},
        {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},
        {"./g/.", "http://a/b/c/g/"},
        {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},
        {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
        {"g;x=1/../y", "http://a/b/c/y"},
    };
    for (const auto& [ref, want] : cases)
        EXPECT_EQ(resolve_url(base, ref), want) << ref;
}

TEST(Url, ResolvesIndexStyleLinks) {
    const std::string page = "https://pypi.example/simple/numpy/";
    EXPECT_EQ(resolve_url(page, "../../files/numpy-2.1.0.tar.gz#sha256=ab"),
              "https://pypi.example/files/numpy-2.1.0.tar.gz#sha256=ab");
    EXPECT_EQ(
        resolve_url("https://download.pytorch.org/whl/cu126/torch/",
                    "/whl/cu126/torch-2.9.0%2Bcu126-cp312-cp312-linux_x86_64.whl"),
        "https://download.pytorch.org/whl/cu126/torch-2.9.0%2Bcu126-cp312-cp312-linux_x86_64.whl");
    EXPECT_EQ(resolve_url(page, "https://files.example/x.whl"), "https://files.example/x.whl");
    EXPECT_EQ(resolve_url(page, "  \n x.whl \t"), "https://pypi.example/simple/numpy/x.whl");
    EXPECT_EQ(resolve_url(page, "x\n.whl"), "https://pypi.example/simple/numpy/x.whl");
    EXPECT_EQ(resolve_url("http://h:8080", "x.whl"), "http://h:8080/x.whl");
    EXPECT_EQ(resolve_url("https://user:pw@h/simple/a/", "../../f/a.whl"),
              "https://user:pw@h/f/a.whl");
    EXPECT_EQ(resolve_url("file:///srv/wheels/", "a-1.0-py3-none-any.whl"),
              "file:///srv/wheels/a-1.0-py3-none-any.whl");
}

TEST(Url, HostileReferencesStayLinear) {
    std::string deep;
    for (int i = 0; i < 200'000; ++i)
        deep += "../";
    EXPECT_EQ(resolve_url("http://a/b/", deep + "x"), "http://a/x");
    std::string dots;
    for (int i = 0; i < 200'000; ++i)
        dots += "/.";
    EXPECT_EQ(resolve_url("http://a/b/", dots), "http://a/");
}

TEST(Url, FilenameIsPercentDecoded) {
    EXPECT_EQ(url_filename("https://h/whl/torch-2.9.0%2Bcpu-cp312-none-any.whl?x=1#sha256=00"),
              "torch-2.9.0+cpu-cp312-none-any.whl");
    EXPECT_EQ(url_filename("https://h/"), "");
}

TEST(Url, Utf8Validation) {
    EXPECT_TRUE(is_valid_utf8("plain"));
    EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xF0\x9F\x94\xA5"));
    EXPECT_FALSE(is_valid_utf8("\xC3"));
    EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
    EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
    EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xFF"));
}

TEST(Url, FileUrls) {
    EXPECT_EQ(file_url_to_path("file:///srv/my%20wheels/a.whl"),
              std::filesystem::path("/srv/my wheels/a.whl"));
    EXPECT_EQ(file_url_to_path("file://localhost/x"), std::filesystem::path("/x"));
    EXPECT_EQ(file_url_to_path("file:///C:/wheels"), std::filesystem::path("C:/wheels"));
    EXPECT_FALSE(file_url_to_path("file://otherhost/x"));
    EXPECT_FALSE(file_url_to_path("https://h/x"));
    EXPECT_EQ(path_to_file_url("/srv/my wheels/a+b.whl"), "file:///srv/my%20wheels/a%2Bb.whl");
    EXPECT_EQ(file_url_to_path(path_to_file_url("/srv/my wheels/a+b.whl")),
              std::filesystem::path("/srv/my wheels/a+b.whl"));
}

TEST(Url, SchemesAndOrigins) {
    EXPECT_TRUE(has_url_scheme("https://x"));
    EXPECT_TRUE(has_url_scheme("file:///x"));
    EXPECT_FALSE(has_url_scheme("C:\\wheels"));
    EXPECT_FALSE(has_url_scheme("/srv/wheels"));
    EXPECT_FALSE(has_url_scheme("wheels"));
    EXPECT_EQ(url_origin("HTTP://User:pw@Host:8080/a/b"), "http://host:8080");
    EXPECT_EQ(url_origin("file:///x"), "file://");
    const UrlParts parts = split_url("https://h/p/a.whl?q=1#sha256=ab");
    EXPECT_EQ(parts.scheme, "https");
    EXPECT_EQ(parts.authority, "h");
    EXPECT_EQ(parts.path, "/p/a.whl");
    EXPECT_EQ(parts.query, "q=1");
    EXPECT_EQ(parts.fragment, "sha256=ab");
}

}  // namespace

TEST(Url, FileUrlsKeepAWindowsDriveAndEncodeTheRest) {
    using aitk::index::file_url_from_generic_path;
    EXPECT_EQ(file_url_from_generic_path("C:/wheels/my wheels/a+b.whl"),
              "file:///C:/wheels/my%20wheels/a%2Bb.whl");
    EXPECT_EQ(file_url_from_generic_path("/srv/a b.whl"), "file:///srv/a%20b.whl");
    EXPECT_EQ(file_url_from_generic_path("C:/Zo\xc3\xab/x.whl"), "file:///C:/Zo%C3%AB/x.whl");
    EXPECT_EQ(aitk::index::file_url_to_path("file:///C:/wheels/a%20b.whl")->generic_string(),
              "C:/wheels/a b.whl");
}

}  // namespace AITK_FILE_LOCAL
