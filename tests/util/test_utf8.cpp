// util/utf8: the one conversion between UTF-8 text and paths, and what Windows' limits count.
#include "aitk/util/utf8.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using aitk::util::generic_utf8_of;
using aitk::util::path_from_utf8;
using aitk::util::utf8_of;
using aitk::util::wide_length_of_utf8;

TEST(Utf8, PathsRoundTripNonAsciiNames) {
    const std::string name = "Zo\xC3\xAB \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80";  // Zoë 日本 😀
    const auto path = path_from_utf8(name);
    EXPECT_EQ(utf8_of(path), name);
    EXPECT_EQ(utf8_of(path.filename()), name);
    EXPECT_EQ(generic_utf8_of(path_from_utf8("a/" + name)), "a/" + name);
}

TEST(Utf8, WideLengthCountsUtf16Units) {
    EXPECT_EQ(wide_length_of_utf8(""), 0u);
    EXPECT_EQ(wide_length_of_utf8("abc"), 3u);
    EXPECT_EQ(wide_length_of_utf8("Zo\xC3\xAB"), 3u);                // ë: one unit
    EXPECT_EQ(wide_length_of_utf8("\xE6\x97\xA5\xE6\x9C\xAC"), 2u);  // 日本
    EXPECT_EQ(wide_length_of_utf8("\xF0\x9F\x98\x80"), 2u);          // 😀: a surrogate pair
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
