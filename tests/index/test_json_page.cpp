// PEP 691 JSON project pages and the content-type dispatch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aitk/index/simple_page.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::index;
using ::testing::HasSubstr;

namespace {

const std::string sha_a(64, 'a');
const std::string sha_b(64, 'b');
const std::string page_url = "https://pypi.example/simple/numpy/";

nlohmann::json base_page() {
    return {
        {"meta", {{"api-version", "1.1"}}}, {"name", "numpy"}, {"files", nlohmann::json::array()}};
}

TEST(JsonPage, ReadsEveryField) {
    auto doc = base_page();
    doc["files"].push_back(
        {{"filename", "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl"},
         {"url", "../../files/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl"},
         {"hashes", {{"sha256", sha_a}, {"blake2b_256", "ABCDEF"}}},
         {"requires-python", ">=3.10"},
         {"core-metadata", {{"sha256", sha_b}}},
         {"dist-info-metadata", false},
         {"yanked", false},
         {"size", 123456},
         {"upload-time", "2024-08-18T17:03:21.123456Z"}});
    doc["files"].push_back({{"filename", "numpy-2.0.0.tar.gz"},
                            {"url", "https://files.example/numpy-2.0.0.tar.gz"},
                            {"hashes", nlohmann::json::object()},
                            {"requires-python", nullptr},
                            {"dist-info-metadata", true},
                            {"yanked", "broken ABI"}});
    doc["files"].push_back({{"filename", "numpy-1.0.0-py3-none-any.whl"},
                            {"url", "numpy-1.0.0-py3-none-any.whl"},
                            {"hashes", nlohmann::json::object()},
                            {"yanked", true}});

    const auto page = parse_json_page(doc.dump(), page_url, "numpy");

    ASSERT_TRUE(page) << page.error().describe();
    EXPECT_EQ(page->format, PageFormat::json);
    EXPECT_EQ(page->api_version, "1.1");
    ASSERT_EQ(page->files.size(), 3u);
    const auto& w = page->files[0];
    EXPECT_EQ(w.url,
              "https://pypi.example/files/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
    EXPECT_EQ(w.sha256(), sha_a);
    EXPECT_EQ(w.hashes.at("blake2b_256"), "abcdef");
    EXPECT_EQ(w.requires_python, ">=3.10");
    EXPECT_TRUE(w.core_metadata.available);
    EXPECT_EQ(w.core_metadata.hashes.at("sha256"), sha_b);
    EXPECT_FALSE(w.yanked);
    EXPECT_EQ(w.size, 123456u);
    EXPECT_EQ(w.upload_time, "2024-08-18T17:03:21.123456Z");

    const auto& s = page->files[1];
    EXPECT_EQ(s.kind(), FileKind::sdist);
    EXPECT_TRUE(s.requires_python.empty());
    EXPECT_TRUE(s.core_metadata.available);  // the legacy key
    EXPECT_TRUE(s.yanked);
    EXPECT_EQ(s.yanked_reason, "broken ABI");
    EXPECT_EQ(s.size, std::nullopt);

    EXPECT_EQ(page->files[2].url, page_url + "numpy-1.0.0-py3-none-any.whl");
    EXPECT_TRUE(page->files[2].yanked);
    EXPECT_EQ(page->files[2].yanked_reason, "");
}

TEST(JsonPage, BadEntriesAreSkippedWithTheField) {
    auto doc = base_page();
    auto& files = doc["files"];
    files.push_back(42);
    files.push_back({{"url", "x.whl"}});
    files.push_back({{"filename", "numpy-1.0-py3-none-any.whl"}});
    files.push_back({{"filename", 7}, {"url", "x"}});
    files.push_back({{"filename", "numpy-1.1-py3-none-any.whl"},
                     {"url", "a.whl"},
                     {"hashes", {{"sha256", "xyz"}}}});
    files.push_back(
        {{"filename", "numpy-1.2-py3-none-any.whl"}, {"url", "a.whl"}, {"hashes", "sha256"}});
    files.push_back({{"filename", "numpy-1.3-py3-none-any.whl"}, {"url", "a.whl"}, {"size", -1}});
    files.push_back({{"filename", "numpy-1.4-py3-none-any.whl"}, {"url", "a.whl"}, {"yanked", 1}});
    files.push_back(
        {{"filename", "numpy-1.5-py3-none-any.whl"}, {"url", "a.whl"}, {"core-metadata", "yes"}});
    files.push_back(
        {{"filename", "numpy-1.6-py3-none-any.whl"}, {"url", "a.whl"}, {"requires-python", 3}});
    files.push_back({{"filename", "scipy-1.0-py3-none-any.whl"}, {"url", "a.whl"}});
    files.push_back(
        {{"filename", "numpy-1.7-py3-none-any.whl"}, {"url", "numpy-1.7-py3-none-any.whl"}});

    const auto page = parse_json_page(doc.dump(), page_url, "numpy");

    ASSERT_TRUE(page) << page.error().describe();
    ASSERT_EQ(page->files.size(), 1u);
    EXPECT_EQ(page->files[0].filename, "numpy-1.7-py3-none-any.whl");
    ASSERT_EQ(page->skipped.size(), 11u);
    const std::vector<std::string> reasons = {
        "files[0] is not an object",
        "files[1] has no filename",
        "files[2] has no url",
        "files[3].filename must be a string, not number",
        "files[4].hashes.sha256 is not a valid sha256 hex digest",
        "files[5].hashes must be an object, not string",
        "files[6].size must be a non-negative integer, not number",
        "files[7].yanked must be a boolean or a string, not number",
        "files[8].core-metadata must be a boolean or an object of hashes, not string",
        "files[9].requires-python must be a string, not number",
        "belongs to project 'scipy', not 'numpy'",
    };
    for (std::size_t i = 0; i < reasons.size(); ++i)
        EXPECT_EQ(page->skipped[i].reason, reasons[i]) << i;
}

TEST(JsonPage, PageLevelErrorsArePrecise) {
    auto check = [](const std::string& text, const std::string& message) {
        const auto page = parse_json_page(text, page_url, "numpy");
        EXPECT_FALSE(page) << text;
        if (!page) {
            EXPECT_THAT(page.error().message, HasSubstr(message)) << text;
        }
        return page ? PageError{} : page.error();
    };
    check("[]", "must be a JSON object, not array");
    check("{}", "no \"meta\" object");
    check(R"({"meta": {}})", "no meta.api-version string");
    check(R"({"meta": {"api-version": 1.0}})", "no meta.api-version string");
    check(R"({"meta": {"api-version": "one"}})", "'one' is not a version");
    check(R"({"meta": {"api-version": "2.0"}, "files": []})", "version '2.0' of the simple API");
    check(R"({"meta": {"api-version": "1.0"}})", "no \"files\" array");
    check(R"({"meta": {"api-version": "1.0"}, "files": {}})", "no \"files\" array");

    const auto syntax = check("{\n  \"meta\": {\"api-version\": \"1.0\"},\n  \"files\": [,]\n}",
                              "not valid JSON: parse error at line 3");
    EXPECT_EQ(syntax.line, 3u);
    EXPECT_EQ(syntax.column, 13u);

    const auto utf8 = check("{\"meta\": {\"api-version\": \"1.\xFF\"}}", "not valid JSON");
    EXPECT_THAT(utf8.message, HasSubstr("UTF-8"));
    check("", "not valid JSON");
    check("{\"meta\": ", "not valid JSON");
}

TEST(JsonPage, DeepNestingAndHugePagesAreRefusedUpFront) {
    const std::string deep =
        "{\"meta\": {\"api-version\": \"1.0\"}, \"x\": " + std::string(100'000, '[') +
        std::string(100'000, ']') + "}";
    const auto page = parse_json_page(deep, page_url, "numpy");
    ASSERT_FALSE(page);
    EXPECT_EQ(page.error().message, "the JSON nests deeper than 64 levels");
    EXPECT_EQ(page.error().offset, deep.find('[') + 63);

    // Brackets inside strings do not count.
    auto doc = base_page();
    doc["note"] = std::string(1000, '[') + "\\\"";
    EXPECT_TRUE(parse_json_page(doc.dump(), page_url, "numpy"));

    PageLimits small;
    small.max_bytes = 10;
    EXPECT_FALSE(parse_json_page(base_page().dump(), page_url, "numpy", small));
    PageLimits few;
    few.max_files = 1;
    auto two = base_page();
    two["files"] = {nlohmann::json::object(), nlohmann::json::object()};
    const auto too_many = parse_json_page(two.dump(), page_url, "numpy", few);
    ASSERT_FALSE(too_many);
    EXPECT_THAT(too_many.error().message, HasSubstr("lists 2 files, above the limit of 1"));
}

TEST(ProjectPage, DispatchesOnTheContentType) {
    auto doc = base_page();
    doc["files"].push_back(
        {{"filename", "numpy-1.0-py3-none-any.whl"}, {"url", "a/numpy-1.0-py3-none-any.whl"}});
    const std::string json = doc.dump();
    const std::string html = "<a href='numpy-1.0-py3-none-any.whl'>x</a>";

    EXPECT_EQ(
        parse_project_page(json, "application/vnd.pypi.simple.v1+json", page_url, "numpy")->format,
        PageFormat::json);
    EXPECT_EQ(parse_project_page(json, "application/vnd.pypi.simple.latest+json", page_url, "numpy")
                  ->format,
              PageFormat::json);
    EXPECT_EQ(
        parse_project_page(json, "application/json; charset=utf-8", page_url, "numpy")->format,
        PageFormat::json);
    EXPECT_EQ(parse_project_page(json, "", page_url, "numpy")->format, PageFormat::json);
    EXPECT_EQ(parse_project_page(html, "", page_url, "numpy")->format, PageFormat::html);
    EXPECT_EQ(parse_project_page(html, "text/html; charset=utf-8", page_url, "numpy")->format,
              PageFormat::html);
    EXPECT_EQ(
        parse_project_page(html, "application/vnd.pypi.simple.v1+html", page_url, "numpy")->format,
        PageFormat::html);
    const auto v2 =
        parse_project_page(json, "application/vnd.pypi.simple.v2+json", page_url, "numpy");
    ASSERT_FALSE(v2);
    EXPECT_THAT(v2.error().message, HasSubstr("does not read (it reads v1)"));
}

TEST(Distribution, RequiresPythonAndYankedHelpers) {
    const std::string html =
        "<a href='p-1.0-py3-none-any.whl' data-requires-python='&gt;=3.8'>1</a>"
        "<a href='p-2.0-py3-none-any.whl' data-requires-python='&gt;=3.13'>2</a>"
        "<a href='p-3.0-py3-none-any.whl' data-requires-python='&lt;3.12,&gt;=3.10'>3</a>"
        "<a href='p-4.0-py3-none-any.whl' data-requires-python='not a specifier'>4</a>"
        "<a href='p-5.0-py3-none-any.whl' data-yanked=''>5</a>";
    const auto page = parse_html_page(html, "http://h/simple/p/", "p");
    ASSERT_TRUE(page);
    const auto py312 = *aitk::pep::Version::parse("3.12.4");
    const auto py313 = *aitk::pep::Version::parse("3.13.0");
    auto versions = [](const std::vector<DistributionFile>& files) {
        std::vector<std::string> out;
        for (const auto& f : files)
            out.push_back(f.version().to_string());
        return out;
    };
    EXPECT_EQ(versions(filter_requires_python(page->files, py312)),
              (std::vector<std::string>{"1.0", "4.0", "5.0"}));
    EXPECT_EQ(versions(filter_requires_python(page->files, py313)),
              (std::vector<std::string>{"1.0", "2.0", "4.0", "5.0"}));
    EXPECT_EQ(versions(without_yanked(page->files)),
              (std::vector<std::string>{"1.0", "2.0", "3.0", "4.0"}));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
