// PATH list edits of `self install` / `self uninstall`, Windows' spelling rules included (run on
// every host: the registry store itself is exercised by the Windows suite, SelfCli).
#include <gtest/gtest.h>

#include "aitk/platform/user_path.hpp"

namespace AITK_FILE_LOCAL {

using aitk::platform::path_list_has;
using aitk::platform::path_list_with;
using aitk::platform::path_list_without;
using aitk::platform::PathListStyle;

const aitk::util::Environment kWindowsEnv{{"LOCALAPPDATA", R"(C:\Users\Zoë\AppData\Local)"},
                                          {"USERPROFILE", R"(C:\Users\Zoë)"}};

TEST(UserPath, WindowsEntriesMatchWhateverTheirCaseQuotesSlashesOrVariables) {
    const std::string dir = R"(C:\Users\Zoë\AppData\Local\Programs\aitk-env\bin)";
    for (const char* spelling :
         {R"(c:\users\Zoë\appdata\local\programs\AITK-ENV\bin)",
          R"("C:\Users\Zoë\AppData\Local\Programs\aitk-env\bin")",
          R"(C:\Users\Zoë\AppData\Local\Programs\aitk-env\bin\)",
          R"(C:/Users/Zoë/AppData/Local/Programs/aitk-env/bin)",
          R"(%LOCALAPPDATA%\Programs\aitk-env\bin)", R"(%localappdata%\Programs\aitk-env\bin)"}) {
        const std::string list = std::string(R"(C:\tools;)") + spelling + ";D:\\x";
        EXPECT_TRUE(path_list_has(list, dir, PathListStyle::windows, kWindowsEnv)) << spelling;
    }
    EXPECT_FALSE(
        path_list_has(R"(C:\tools;%UNKNOWN%\bin)", dir, PathListStyle::windows, kWindowsEnv));
    EXPECT_FALSE(path_list_has(R"(C:\Users\Zoë\AppData\Local\Programs\aitk-env)", dir,
                               PathListStyle::windows, kWindowsEnv));
    // A drive root keeps its backslash: C:\ and C: are different folders.
    EXPECT_TRUE(path_list_has(R"(D:\)", R"(d:\)", PathListStyle::windows, kWindowsEnv));
}

TEST(UserPath, AddingPutsTheFolderFirstOnceAndKeepsTheRestAsWritten) {
    const std::string dir = R"(C:\aitk\bin)";
    EXPECT_EQ(path_list_with("", dir, PathListStyle::windows, kWindowsEnv), dir);
    EXPECT_EQ(
        path_list_with(R"(%USERPROFILE%\bin;;C:\tools)", dir, PathListStyle::windows, kWindowsEnv),
        R"(C:\aitk\bin;%USERPROFILE%\bin;C:\tools)");
    const std::string present = R"(C:\tools;c:\AITK\bin\)";
    EXPECT_EQ(path_list_with(present, dir, PathListStyle::windows, kWindowsEnv), present);
    EXPECT_EQ(path_list_with("/usr/bin:/bin", "/home/u/.local/bin", PathListStyle::posix, {}),
              "/home/u/.local/bin:/usr/bin:/bin");
}

TEST(UserPath, RemovingTakesEverySpellingOfTheFolderAndNothingElse) {
    const std::string dir = R"(C:\Users\Zoë\AppData\Local\Programs\aitk-env\bin)";
    const std::string list =
        R"(C:\aitk-env\bin;%LOCALAPPDATA%\Programs\aitk-env\bin;C:\tools;C:\USERS\ZOË\APPDATA\LOCAL\PROGRAMS\AITK-ENV\BIN)";
    // ASCII case folding only, as the comparison is: "ZOË" differs from "Zoë" in its last letter.
    EXPECT_EQ(path_list_without(list, dir, PathListStyle::windows, kWindowsEnv),
              R"(C:\aitk-env\bin;C:\tools;C:\USERS\ZOË\APPDATA\LOCAL\PROGRAMS\AITK-ENV\BIN)");
    EXPECT_EQ(path_list_without(dir, dir, PathListStyle::windows, kWindowsEnv), "");
    // POSIX names are exact: /Home is another folder.
    EXPECT_EQ(path_list_without("/home/u/.local/bin/:/usr/bin:/Home/u/.local/bin",
                                "/home/u/.local/bin", PathListStyle::posix, {}),
              "/usr/bin:/Home/u/.local/bin");
}

}  // namespace AITK_FILE_LOCAL
