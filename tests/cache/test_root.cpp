#include "aitk/cache/root.hpp"

#include <gtest/gtest.h>

#include "aitk/util/error.hpp"

namespace AITK_FILE_LOCAL {

using aitk::cache::default_cache_root;
using aitk::cache::Environment;
using aitk::cache::HostStyle;

TEST(CacheRoot, ExplicitVariableWinsEverywhere) {
    Environment env{{"AITK_ENV_CACHE_DIR", "/data/cache"},
                    {"HOME", "/home/u"},
                    {"XDG_CACHE_HOME", "/xdg"},
                    {"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}};
    EXPECT_EQ(default_cache_root(env, HostStyle::posix), "/data/cache");
    EXPECT_EQ(default_cache_root(env, HostStyle::windows), "/data/cache");
}

TEST(CacheRoot, PosixUsesXdgThenHome) {
    EXPECT_EQ(
        default_cache_root({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}}, HostStyle::posix),
        "/xdg/aitk-env");
    EXPECT_EQ(default_cache_root({{"XDG_CACHE_HOME", "/xdg/"}}, HostStyle::posix), "/xdg/aitk-env");
    EXPECT_EQ(default_cache_root({{"HOME", "/home/u"}}, HostStyle::posix),
              "/home/u/.cache/aitk-env");
    // Empty or relative XDG values are ignored, as the XDG spec says.
    EXPECT_EQ(default_cache_root({{"XDG_CACHE_HOME", ""}, {"HOME", "/home/u"}}, HostStyle::posix),
              "/home/u/.cache/aitk-env");
    EXPECT_EQ(
        default_cache_root({{"XDG_CACHE_HOME", "rel/dir"}, {"HOME", "/home/u"}}, HostStyle::posix),
        "/home/u/.cache/aitk-env");
    EXPECT_EQ(default_cache_root({{"AITK_ENV_CACHE_DIR", ""}, {"HOME", "/h"}}, HostStyle::posix),
              "/h/.cache/aitk-env");
}

TEST(CacheRoot, WindowsUsesLocalAppData) {
    EXPECT_EQ(
        default_cache_root({{"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}, HostStyle::windows)
            .string(),
        "C:\\Users\\u\\AppData\\Local\\aitk-env\\cache");
    EXPECT_EQ(default_cache_root({{"LocalAppData", "D:\\L"}}, HostStyle::windows).string(),
              "D:\\L\\aitk-env\\cache");  // names ignore case on Windows
    EXPECT_EQ(default_cache_root({{"USERPROFILE", "C:\\Users\\u"}}, HostStyle::windows).string(),
              "C:\\Users\\u\\AppData\\Local\\aitk-env\\cache");
    // HOME and XDG mean nothing there.
    EXPECT_THROW(default_cache_root({{"HOME", "/home/u"}}, HostStyle::windows),
                 aitk::util::InputError);
}

TEST(CacheRoot, NothingUsableSaysWhatToSet) {
    try {
        default_cache_root({}, HostStyle::posix);
        FAIL();
    } catch (const aitk::util::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("HOME"), std::string::npos);
        EXPECT_NE(e.hint().find("--cache-dir"), std::string::npos);
        EXPECT_EQ(e.code(), aitk::util::ExitCode::bad_input);
    }
}

}  // namespace AITK_FILE_LOCAL
