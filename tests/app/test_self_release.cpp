// What `self update` reads of a release folder's SHA256SUMS and which archive it takes.
#include <gtest/gtest.h>

#include "aitk/app/self.hpp"

namespace AITK_FILE_LOCAL {

using aitk::app::choose_release;
using aitk::app::parse_release_sums;

const std::string kA(64, 'a');
const std::string kB(64, 'b');
const std::string kC(64, 'c');

TEST(SelfRelease, SumsListTheArchivesInEitherSha256sumModeAndSkipOtherFiles) {
    const std::string text = kA + "  aitk-env-0.2.0-linux-x86_64.tar.gz\n" + std::string(64, 'B') +
                             " *aitk-env-0.2.0-windows-x86_64.zip\r\n" + kC + "  README.md\n\n" +
                             kC + "  aitk-env-0.2.0-windows-x86_64.tar.gz\n" + kC +
                             "  aitk-env-notaversion-linux-x86_64.tar.gz\n" + kC +
                             "  aitk-env-1.0-linux-x86_64/../../x.tar.gz\n";
    auto archives = parse_release_sums(text, "SHA256SUMS");
    ASSERT_TRUE(archives) << archives.error();
    ASSERT_EQ(archives->size(), 2u);
    EXPECT_EQ((*archives)[0].version, "0.2.0");
    EXPECT_EQ((*archives)[0].target, "linux-x86_64");
    EXPECT_EQ((*archives)[0].sha256, kA);
    EXPECT_EQ((*archives)[1].name, "aitk-env-0.2.0-windows-x86_64.zip");
    EXPECT_EQ((*archives)[1].sha256, kB);  // lower-cased
}

TEST(SelfRelease, AMalformedLineIsAnErrorNamingItsLine) {
    auto bad =
        parse_release_sums(kA + "  aitk-env-0.2.0-linux-x86_64.tar.gz\n<html>Not Found</html>\n",
                           "http://mirror/SHA256SUMS");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find("http://mirror/SHA256SUMS line 2"), std::string::npos)
        << bad.error();
    EXPECT_NE(bad.error().find("<html>Not Found</html>"), std::string::npos) << bad.error();
    EXPECT_FALSE(
        parse_release_sums(std::string(63, 'a') + "   aitk-env-0.2.0-linux-x86_64.tar.gz", "S"));
}

TEST(SelfRelease, TheNewestVersionInPep440OrderOrExactlyTheOneAskedFor) {
    auto archives = parse_release_sums(kA + "  aitk-env-0.9.0-linux-x86_64.tar.gz\n" + kB +
                                           "  aitk-env-0.10.0-linux-x86_64.tar.gz\n" + kC +
                                           "  aitk-env-0.11.0rc1-windows-x86_64.zip\n" + kC +
                                           "  aitk-env-1.0.0-linux-aarch64.tar.gz\n",
                                       "S");
    ASSERT_TRUE(archives);
    auto newest = choose_release(*archives, "linux-x86_64", std::nullopt);
    ASSERT_TRUE(newest);
    EXPECT_EQ(newest->version, "0.10.0");
    EXPECT_EQ(newest->sha256, kB);
    auto older = choose_release(*archives, "linux-x86_64", std::string("0.9"));
    ASSERT_TRUE(older);
    EXPECT_EQ(older->name, "aitk-env-0.9.0-linux-x86_64.tar.gz");
    EXPECT_FALSE(choose_release(*archives, "linux-x86_64", std::string("0.11.0rc1")));
    EXPECT_FALSE(choose_release(*archives, "macos-arm64", std::nullopt));
}

}  // namespace AITK_FILE_LOCAL
