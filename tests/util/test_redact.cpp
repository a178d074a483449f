#include "aitk/util/redact.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

using namespace aitk::util;

TEST(Redact, ShownUrlsHideTheWholeUserinfo) {
    EXPECT_EQ(redact_url("https://user:secret@host.example/simple/"),
              "https://***@host.example/simple/");
    EXPECT_EQ(redact_url("https://TOKEN@host/x"), "https://***@host/x");
    EXPECT_EQ(redact_url("https://host/x"), "https://host/x");
    EXPECT_TRUE(has_credentials("https://u@h/"));
    EXPECT_FALSE(has_credentials("https://h/p@x"));
}

TEST(Redact, StoredUrlsDropCredentials) {
    EXPECT_EQ(strip_credentials("https://user:secret@host.example/simple/"),
              "https://host.example/simple/");
    EXPECT_EQ(strip_credentials("https://token@host/x?q=a@b"), "https://host/x?q=a@b");
    EXPECT_EQ(strip_credentials("https://host/path@x"), "https://host/path@x");
    EXPECT_EQ(strip_credentials("https://u:p@w@host"), "https://host");
    EXPECT_EQ(strip_credentials("file:///tmp/x"), "file:///tmp/x");
    EXPECT_EQ(strip_credentials("not a url"), "not a url");
}

TEST(Redact, ConcealShowsTheVariableInsteadOfItsValue) {
    const std::vector<Concealed> values = {
        {"hunter2secret", "${SECRET_TOKEN}"}, {"hunter2", "${SHORTER}"}, {"ab", "${TOO_SHORT}"}};
    EXPECT_EQ(conceal("invalid requirement 'victim==hunter2secret': no version", values),
              "invalid requirement 'victim==${SECRET_TOKEN}': no version");
    EXPECT_EQ(conceal("hunter2 and hunter2secret", values), "${SHORTER} and ${SECRET_TOKEN}");
    EXPECT_EQ(conceal("ab stays", values), "ab stays");
    EXPECT_EQ(conceal("nothing secret", {}), "nothing secret");
    // What stands for a value is not searched again.
    EXPECT_EQ(conceal("SECRET", {{"SECRET", "${SECRET}"}}), "${SECRET}");
}

}  // namespace AITK_FILE_LOCAL
