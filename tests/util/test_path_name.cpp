// The one rule for names from inputs that become a path component (util/path_name.hpp).
#include "aitk/util/path_name.hpp"

#include <string>

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

using namespace aitk::util;

namespace {

std::string problem(std::string_view name) {
    return path_name_problem(name).value_or("");
}

}  // namespace

TEST(PathName, PlainNamesPass) {
    for (const char* name : {"myenv", "ai-toolkit", "env_1.2", "linux-x86_64-cu130",
                             "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", "a", "conda",
                             "console", "com10", "lpt", "nul-1", "aux_x", ".hidden"}) {
        EXPECT_EQ(path_name_problem(name), std::nullopt) << name;
    }
    EXPECT_EQ(path_name_problem(std::string(255, 'x')), std::nullopt);
}

TEST(PathName, SeparatorsAndFolderNamesAreRefused) {
    EXPECT_EQ(problem(""), "it is empty");
    EXPECT_EQ(problem("."), "'.' names a folder");
    EXPECT_EQ(problem(".."), "'..' names a folder");
    EXPECT_EQ(problem("../../x"), "it contains a path separator '/'");
    EXPECT_EQ(problem("/abs"), "it contains a path separator '/'");
    EXPECT_EQ(problem("..\\x"), "it contains a path separator '\\'");
    EXPECT_EQ(problem("C:x"), "it contains ':' (a drive letter or stream on Windows)");
    EXPECT_EQ(problem("x:stream"), "it contains ':' (a drive letter or stream on Windows)");
    EXPECT_EQ(problem(std::string(256, 'x')), "it is longer than 255 bytes");
}

TEST(PathName, ControlCharactersAreRefused) {
    EXPECT_EQ(problem(std::string("a\0b", 3)), "it contains a NUL byte");
    EXPECT_EQ(problem("a\nb"), "it contains a control character");
    EXPECT_EQ(problem("a\x7f"), "it contains a control character");
    EXPECT_EQ(problem("a\x1b[31m"), "it contains a control character");
}

TEST(PathName, NamesWindowsCannotCreateAreRefused) {
    EXPECT_EQ(problem("a?b"), "it contains '?', which Windows does not allow in a file name");
    for (const char* name : {"a<b", "a>b", "a\"b", "a|b", "a*b"})
        EXPECT_NE(problem(name), "") << name;
    EXPECT_EQ(problem("env."), "it ends with a dot, which Windows drops from a file name");
    EXPECT_EQ(problem("env "), "it ends with a space, which Windows drops from a file name");
    EXPECT_EQ(problem("CON"), "'CON' is a device name on Windows, not a file");
    EXPECT_EQ(problem("nul.lock.yml"), "'nul' is a device name on Windows, not a file");
    for (const char* name : {"con", "Prn", "aux", "NUL", "com1", "COM9", "lpt0", "LPT5", "conin$",
                             "CONOUT$", "aux .txt", "com\xc2\xb9"}) {
        EXPECT_NE(problem(name), "") << name;
    }
}

}  // namespace AITK_FILE_LOCAL
