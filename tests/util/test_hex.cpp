// The one copy of hex digits and percent-decoding every layer uses.
#include "aitk/util/hex.hpp"

#include <gtest/gtest.h>

#include <array>

namespace aitk::util {
namespace AITK_FILE_LOCAL {

TEST(Hex, DigitsAndValues) {
    EXPECT_EQ(hex_value('0'), 0);
    EXPECT_EQ(hex_value('f'), 15);
    EXPECT_EQ(hex_value('B'), 11);
    EXPECT_EQ(hex_value('g'), -1);
    EXPECT_EQ(hex_digit(10), 'a');
    EXPECT_EQ(hex_digit(0x1c, true), 'C');
    std::string out;
    append_hex_byte(out, 0x0f);
    append_hex_byte(out, 0xa0, true);
    EXPECT_EQ(out, "0fA0");
    const std::array<std::uint8_t, 3> bytes = {0x00, 0x7f, 0xff};
    EXPECT_EQ(to_hex(bytes.data(), bytes.size()), "007fff");
}

TEST(Hex, PercentEscapeIsUpperCase) {
    std::string out;
    append_percent_escaped(out, ' ');
    append_percent_escaped(out, 0xe9);
    EXPECT_EQ(out, "%20%E9");
}

TEST(Hex, PercentDecodeKeepsWhatIsNotAnEscape) {
    EXPECT_EQ(percent_decode("torch-2.9.0%2Bcu126"), "torch-2.9.0+cu126");
    EXPECT_EQ(percent_decode("a%2b%20b"), "a+ b");
    EXPECT_EQ(percent_decode("100%"), "100%");
    EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
    EXPECT_EQ(percent_decode("%"), "%");
}

TEST(Hex, StrictPercentDecodeRefusesABrokenEscape) {
    EXPECT_EQ(percent_decode_strict("a%25b%0A"), "a%b\n");
    EXPECT_EQ(percent_decode_strict("100%"), std::nullopt);
    EXPECT_EQ(percent_decode_strict("%4"), std::nullopt);
    EXPECT_EQ(percent_decode_strict("%zz"), std::nullopt);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::util
