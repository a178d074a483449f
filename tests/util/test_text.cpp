#include "aitk/util/text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace aitk::util {
namespace AITK_FILE_LOCAL {

std::string where(const std::optional<InputProblem>& problem) {
    if (!problem) return "ok";
    return std::to_string(problem->where.line) + ":" + std::to_string(problem->where.column) + " " +
           problem->message;
}

TEST(CheckText, AcceptsUtf8TextWithTabsAndCrLf) {
    EXPECT_EQ(where(check_text(
                  "torch==2.9.0\t# ok\r\nnumpy  # \xc3\xa9t\xc3\xa9 \xf0\x9f\x94\xa5\n", "r.txt")),
              "ok");
    EXPECT_EQ(where(check_text("", "r.txt")), "ok");
}

TEST(CheckText, NamesTheFirstBadByteByLineAndColumn) {
    EXPECT_EQ(where(check_text(std::string_view("a\nbc\0d\n", 7), "f")),
              "2:3 NUL byte (the file looks binary)");
    EXPECT_EQ(where(check_text("a\nb\x1b[31m\n", "f")), "2:2 control character 0x1b");
    EXPECT_EQ(where(check_text("ok\n\xc3\x28\n", "f")), "2:1 invalid UTF-8 (byte 0xc3)");
    EXPECT_EQ(where(check_text("\xed\xa0\x80", "f")),
              "1:1 invalid UTF-8 (byte 0xed)");  // surrogate
    EXPECT_EQ(where(check_text("\xe0\x80\xaf", "f")), "1:1 invalid UTF-8 (byte 0xe0)");  // overlong
    auto problem = check_text("x\x7f", "req.txt");
    ASSERT_TRUE(problem);
    EXPECT_EQ(problem->where.file, "req.txt");
    EXPECT_EQ(problem->hint, "is this the right file? save it as UTF-8 text");
}

TEST(CheckText, LongLinesStopAtTheLimitWithoutReadingOn) {
    TextRules rules;
    rules.max_line_bytes = 8;
    EXPECT_EQ(where(check_text("12345678\n", "f", rules)), "ok");
    EXPECT_EQ(where(check_text("ok\n123456789\n", "f", rules)),
              "2:1 line 2 is longer than 8 bytes");
}

TEST(CheckText, RulesForTextAitkEnvWrote) {
    TextRules lockfile;
    lockfile.require_utf8 = false;           // checked per scalar by the YAML reader
    lockfile.allow_line_separators = false;  // never written
    lockfile.hint = "run lock again";
    EXPECT_EQ(where(check_text("a: \xff\n", "l", lockfile)), "ok");
    EXPECT_EQ(where(check_text("a\fb", "l", lockfile)), "1:2 control character 0x0c");
    EXPECT_EQ(where(check_text("a\fb", "l")), "ok");  // pip splits lines on \f
    EXPECT_EQ(check_text("\x01", "l", lockfile)->hint, "run lock again");
}

TEST(Utf8Sequence, LengthAndCodePoint) {
    std::uint32_t cp = 0;
    EXPECT_EQ(utf8_sequence("A", cp), 1u);
    EXPECT_EQ(cp, 0x41u);
    EXPECT_EQ(utf8_sequence("\xe2\x82\xac", cp), 3u);
    EXPECT_EQ(cp, 0x20acu);
    EXPECT_EQ(utf8_sequence("\xf4\x90\x80\x80", cp), 0u);  // past U+10FFFF
    EXPECT_EQ(utf8_sequence("\xe2\x82", cp), 0u);          // cut short
    EXPECT_EQ(utf8_sequence("", cp), 0u);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::util
