#include "aitk/pep/wheel_filename.hpp"

#include <gtest/gtest.h>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::BuildTag;
using aitk::pep::TagParseOptions;
using aitk::pep::WheelFilename;

namespace {

std::vector<std::string> tag_strings(const WheelFilename& w) {
    std::vector<std::string> out;
    for (const auto& t : w.tags)
        out.push_back(t.to_string());
    return out;
}

}  // namespace

TEST(WheelFilenameConformance, AllCases) {
    auto cases = aitk::test::conformance("tags");
    ASSERT_FALSE(cases.empty());
    std::size_t valid = 0;
    std::size_t invalid = 0;
    for (const auto& c : cases) {
        std::string filename = c["filename"];
        SCOPED_TRACE(filename);
        auto parsed = WheelFilename::parse(filename);
        if (!c["valid"].get<bool>()) {
            EXPECT_FALSE(parsed);
            ++invalid;
            continue;
        }
        ASSERT_TRUE(parsed) << parsed.error().describe();
        EXPECT_EQ(parsed->name, c["name"].get<std::string>());
        EXPECT_EQ(parsed->version.to_string(), c["version"].get<std::string>());
        if (c["build"].is_null()) {
            EXPECT_FALSE(parsed->build);
        } else {
            ASSERT_TRUE(parsed->build);
            EXPECT_EQ(parsed->build->number, c["build"][0].get<std::uint64_t>());
            EXPECT_EQ(parsed->build->suffix, c["build"][1].get<std::string>());
        }
        EXPECT_EQ(tag_strings(*parsed), c["tags"].get<std::vector<std::string>>());

        // Composing and re-parsing gives the same value.
        auto again = WheelFilename::parse(parsed->to_string());
        ASSERT_TRUE(again) << parsed->to_string() << ": " << again.error().describe();
        EXPECT_EQ(*again, *parsed);
        ++valid;
    }
    EXPECT_EQ(valid + invalid, cases.size());
    EXPECT_GT(invalid, 0u);
}

TEST(WheelFilename, ParsesARealTorchWheel) {
    auto parsed = WheelFilename::parse("torch-2.5.1+cu121-cp312-cp312-linux_x86_64.whl");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->name, "torch");
    EXPECT_EQ(parsed->version.public_string(), "2.5.1");
    EXPECT_EQ(parsed->version.local(), "cu121");
    EXPECT_FALSE(parsed->build);
    ASSERT_EQ(parsed->tags.size(), 1u);
    EXPECT_EQ(parsed->tags[0].interpreter, "cp312");
    EXPECT_EQ(parsed->tags[0].abi, "cp312");
    EXPECT_EQ(parsed->tags[0].platform, "linux_x86_64");
}

TEST(WheelFilename, ComposesLikePackaging) {
    auto parsed = WheelFilename::parse(
        "numpy-1.23.3-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->to_string(),
              "numpy-1.23.3-cp310-cp310-manylinux2014_x86_64.manylinux_2_17_x86_64.whl");

    auto build = WheelFilename::parse("Foo.Bar-1.0-42abc-py3.py2-none-any.whl");
    ASSERT_TRUE(build);
    EXPECT_EQ(build->to_string(), "foo_bar-1.0-42abc-py2.py3-none-any.whl");
}

TEST(WheelFilename, BuildTagsOrderNumberFirst) {
    EXPECT_LT((BuildTag{2, "z"}), (BuildTag{10, "a"}));
    EXPECT_LT((BuildTag{1, ""}), (BuildTag{1, "a"}));
}

TEST(WheelFilename, ErrorMessages) {
    auto ext = WheelFilename::parse("foo-1.0-py3-none-any.wheel");
    ASSERT_FALSE(ext);
    EXPECT_EQ(ext.error().message,
              "wheel filename 'foo-1.0-py3-none-any.wheel' must end in '.whl'");

    auto parts = WheelFilename::parse("foo-1.0.whl");
    ASSERT_FALSE(parts);
    EXPECT_EQ(parts.error().message,
              "wheel filename 'foo-1.0.whl' has 2 '-'-separated parts, expected 5 or 6 "
              "(name-version[-build]-python-abi-platform.whl)");

    auto junk = WheelFilename::parse("foo-1.0-200-py3-none-any-junk.whl");
    ASSERT_FALSE(junk);
    EXPECT_NE(junk.error().message.find("has 7 '-'-separated parts"), std::string::npos);

    auto dunder = WheelFilename::parse("foo__bar-1.0-py3-none-any.whl");
    ASSERT_FALSE(dunder);
    EXPECT_NE(dunder.error().message.find("'__' is not allowed"), std::string::npos);
    EXPECT_EQ(dunder.error().position, 3u);

    auto hash = WheelFilename::parse("foo#bar-1.0-py3-none-any.whl");
    ASSERT_FALSE(hash);
    EXPECT_EQ(hash.error().message,
              "invalid project name 'foo#bar' in wheel filename: '#' is not allowed (letters, "
              "digits, '_' and '.' only)");
    EXPECT_EQ(hash.error().position, 3u);

    auto space = WheelFilename::parse("num py-2.1.3-py3-none-any.whl");
    ASSERT_FALSE(space);
    EXPECT_NE(space.error().message.find("a control or space character is not allowed"),
              std::string::npos);

    auto version = WheelFilename::parse("foobar-1.x-py3-none-any.whl");
    ASSERT_FALSE(version);
    EXPECT_EQ(version.error().message.rfind("invalid version '1.x' in wheel filename: ", 0), 0u)
        << version.error().message;
    EXPECT_GE(version.error().position, 7u);

    auto build = WheelFilename::parse("foo-1.0-abc-py3-none-any.whl");
    ASSERT_FALSE(build);
    EXPECT_EQ(build.error().message, "build tag 'abc' in wheel filename must start with a digit");
    EXPECT_EQ(build.error().position, 8u);

    auto huge = WheelFilename::parse("foo-1.0-99999999999999999999999-py3-none-any.whl");
    ASSERT_FALSE(huge);
    EXPECT_NE(huge.error().message.find("too large"), std::string::npos);

    auto tag = WheelFilename::parse("foo-1.0-py3-none-.whl");
    ASSERT_FALSE(tag);
    EXPECT_EQ(tag.error().message,
              "empty platform in tag 'py3-none-' in wheel filename 'foo-1.0-py3-none-.whl'");
    EXPECT_EQ(tag.error().position, 17u);

    auto empty = WheelFilename::parse("-1.0-py3-none-any.whl");
    ASSERT_FALSE(empty);
    EXPECT_NE(empty.error().message.find("empty project name"), std::string::npos);
}

TEST(WheelFilename, NonAsciiWordCharactersAreAllowedInTheName) {
    auto ok = WheelFilename::parse("caf\xC3\xA9_\xE6\x97\xA5\xE6\x9C\xAC-1.0-py3-none-any.whl");
    ASSERT_TRUE(ok) << ok.error().describe();
    EXPECT_EQ(ok->name, "caf\xC3\xA9-\xE6\x97\xA5\xE6\x9C\xAC");
    // Malformed UTF-8 and non-word characters are refused.
    EXPECT_FALSE(WheelFilename::parse("caf\xC3-1.0-py3-none-any.whl"));
    EXPECT_FALSE(
        WheelFilename::parse("a\xE2\x80\x94"
                             "b-1.0-py3-none-any.whl"));  // em dash
    EXPECT_FALSE(
        WheelFilename::parse("a\xC3\x97"
                             "b-1.0-py3-none-any.whl"));  // multiplication sign
}

TEST(WheelFilename, OrderValidationIsPassedToTheTagParser) {
    TagParseOptions strict;
    strict.validate_order = true;
    const char* unsorted = "foo-1.0-py3.py2-none-any.whl";
    EXPECT_TRUE(WheelFilename::parse(unsorted));
    EXPECT_FALSE(WheelFilename::parse(unsorted, strict));
}

TEST(WheelFilename, RejectsOddInput) {
    for (const char* s :
         {"", ".whl", "-.whl", "----.whl", "-----.whl", "a-b-c-d-e.whl", "a-1-x2-c-d-e.whl",
          "a-1-c-d-.whl", "a-1-.-d-e.whl", "\xFF-1-a-b-c.whl"}) {
        SCOPED_TRACE(s);
        EXPECT_FALSE(WheelFilename::parse(s));
    }
    auto minimal = WheelFilename::parse("a-1-2-c-d-e.whl");
    ASSERT_TRUE(minimal);
    EXPECT_EQ(minimal->build, (BuildTag{2, ""}));
    EXPECT_EQ(minimal->tags[0].to_string(), "c-d-e");
}

}  // namespace AITK_FILE_LOCAL
