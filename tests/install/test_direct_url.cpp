// PEP 610 direct_url.json: the one writer and the one reader agree, read what pip writes, and
// say what is wrong with what they cannot read.
#include "aitk/install/direct_url.hpp"

#include <gtest/gtest.h>

namespace aitk::install {
namespace AITK_FILE_LOCAL {

const std::string sha(64, 'a');

TEST(DirectUrl, WritesEachKindAsPipDoes) {
    EXPECT_EQ(write_direct_url({"https://h/a-1.0-py3-none-any.whl", "", DirectUrl::Archive{sha}}),
              R"({"archive_info":{"hash":"sha256=)" + sha + R"(","hashes":{"sha256":")" + sha +
                  R"("}},"url":"https://h/a-1.0-py3-none-any.whl"})");
    EXPECT_EQ(write_direct_url({"https://h/b.tar.gz", "pkg", DirectUrl::Archive{}}),
              R"({"archive_info":{},"subdirectory":"pkg","url":"https://h/b.tar.gz"})");
    EXPECT_EQ(
        write_direct_url({"https://h/r.git", "", DirectUrl::Vcs{"git", "abc", "main"}}),
        R"({"url":"https://h/r.git","vcs_info":{"commit_id":"abc","requested_revision":"main","vcs":"git"}})");
    EXPECT_EQ(write_direct_url({"file:///src/d", "", DirectUrl::Directory{true}}),
              R"({"dir_info":{"editable":true},"url":"file:///src/d"})");
    EXPECT_EQ(write_direct_url({"file:///src/d", "", DirectUrl::Directory{false}}),
              R"({"dir_info":{},"url":"file:///src/d"})");
}

TEST(DirectUrl, ReadsBackWhatItWrites) {
    for (const DirectUrl& direct :
         {DirectUrl{"https://h/a.whl", "", DirectUrl::Archive{sha}},
          DirectUrl{"https://h/r.git", "sub", DirectUrl::Vcs{"git", "abc", std::nullopt}},
          DirectUrl{"file:///src/d", "", DirectUrl::Directory{true}}}) {
        auto read = read_direct_url(write_direct_url(direct));
        ASSERT_TRUE(read) << read.error();
        EXPECT_EQ(write_direct_url(*read), write_direct_url(direct));
    }
}

TEST(DirectUrl, ReadsTheOlderHashKeyAndLowerCasesIt) {
    auto read =
        read_direct_url(R"({"url": "https://h/a.whl", "archive_info": {"hash": "sha256=AB"}})");
    ASSERT_TRUE(read);
    EXPECT_EQ(std::get<DirectUrl::Archive>(read->info).sha256, "ab");
    auto md5 = read_direct_url(R"({"url": "https://h/a.whl", "archive_info": {"hash": "md5=00"}})");
    ASSERT_TRUE(md5);
    EXPECT_EQ(std::get<DirectUrl::Archive>(md5->info).sha256, "");
}

TEST(DirectUrl, SaysWhatIsWrong) {
    EXPECT_EQ(read_direct_url("[]").error(), "not a JSON object");
    EXPECT_EQ(read_direct_url(R"({"archive_info": {}})").error(), "no \"url\"");
    EXPECT_EQ(read_direct_url(R"({"url": "u", "vcs_info": {"commit_id": "c"}})").error(),
              "vcs_info without \"vcs\"");
    EXPECT_EQ(read_direct_url(R"({"url": "u", "vcs_info": {"vcs": "git"}})").error(),
              "vcs_info without \"commit_id\"");
    EXPECT_EQ(read_direct_url(R"({"url": "u"})").error(),
              "none of archive_info, vcs_info or dir_info");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
