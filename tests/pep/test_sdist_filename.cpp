#include "aitk/pep/sdist_filename.hpp"

#include <gtest/gtest.h>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::SdistFilename;
using aitk::pep::SdistFormat;

TEST(SdistFilenameConformance, AllCases) {
    auto cases = aitk::test::conformance("sdist_filenames");
    ASSERT_FALSE(cases.empty());
    std::size_t checked = 0;
    for (const auto& c : cases) {
        std::string filename = c["filename"];
        SCOPED_TRACE(filename);
        auto parsed = SdistFilename::parse(filename);
        if (c["valid"].get<bool>()) {
            ASSERT_TRUE(parsed) << parsed.error().describe();
            EXPECT_EQ(parsed->name, c["name"].get<std::string>());
            EXPECT_EQ(parsed->version.to_string(), c["version"].get<std::string>());
        } else {
            EXPECT_FALSE(parsed);
        }
        ++checked;
    }
    EXPECT_EQ(checked, cases.size());
}

TEST(SdistFilename, SplitsAtTheLastDashAndNormalises) {
    auto parsed = SdistFilename::parse("Foo_Bar-baz-1.0RC1.zip");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->name, "foo-bar-baz");
    EXPECT_EQ(parsed->version.to_string(), "1.0rc1");
    EXPECT_EQ(parsed->format, SdistFormat::zip);

    auto torch = SdistFilename::parse("torch-2.5.1+cu121.tar.gz");
    ASSERT_TRUE(torch);
    EXPECT_EQ(torch->version.local(), "cu121");
    EXPECT_EQ(torch->format, SdistFormat::tar_gz);
}

TEST(SdistFilename, RoundTrip) {
    for (const char* name :
         {"foo-1.0.tar.gz", "zope.interface-7.1.1.tar.gz", "A_b-1!2.0.post1.zip"}) {
        SCOPED_TRACE(name);
        auto parsed = SdistFilename::parse(name);
        ASSERT_TRUE(parsed);
        auto again = SdistFilename::parse(parsed->to_string());
        ASSERT_TRUE(again) << parsed->to_string();
        EXPECT_EQ(*again, *parsed);
    }
    auto zope = SdistFilename::parse("zope.interface-7.1.1.tar.gz");
    ASSERT_TRUE(zope);
    EXPECT_EQ(zope->to_string(), "zope_interface-7.1.1.tar.gz");
}

TEST(SdistFilename, ErrorMessages) {
    auto ext = SdistFilename::parse("foo-1.0.tar.bz2");
    ASSERT_FALSE(ext);
    EXPECT_EQ(ext.error().message,
              "sdist filename 'foo-1.0.tar.bz2' must end in '.tar.gz' or '.zip'");

    auto dash = SdistFilename::parse("foo1.0.tar.gz");
    ASSERT_FALSE(dash);
    EXPECT_NE(dash.error().message.find("no '-' between the name and the version"),
              std::string::npos);

    auto version = SdistFilename::parse("foo-1.x.tar.gz");
    ASSERT_FALSE(version);
    EXPECT_EQ(version.error().message.rfind("invalid version '1.x' in sdist filename: ", 0), 0u)
        << version.error().message;
    EXPECT_GE(version.error().position, 4u);

    auto empty = SdistFilename::parse("-1.0.tar.gz");
    ASSERT_FALSE(empty);
    EXPECT_NE(empty.error().message.find("empty project name"), std::string::npos);

    EXPECT_FALSE(SdistFilename::parse(""));
    EXPECT_FALSE(SdistFilename::parse(".tar.gz"));
    EXPECT_FALSE(SdistFilename::parse("foo-.zip"));
    EXPECT_FALSE(SdistFilename::parse("foo-1.0.TAR.GZ"));
}

}  // namespace AITK_FILE_LOCAL
