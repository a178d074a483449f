// `py -0p` output of the Windows launcher, old and new formats, as data.
#include "aitk/python/py_launcher.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using aitk::python::parse_py_launcher_list;
using aitk::python::PyLauncherEntry;

TEST(PyLauncher, ParsesTheLauncherOfPython311AndLater) {
    auto entries = parse_py_launcher_list(
        " -V:3.12 *        C:\\Users\\Ana Lee\\AppData\\Local\\Programs\\Python\\Python312\\"
        "python.exe\r\n"
        " -V:3.11          C:\\Python311\\python.exe\r\n"
        " -V:Astral/CPython3.13.0 C:\\Users\\a\\AppData\\Roaming\\uv\\python\\cpython-3.13.0\\"
        "python.exe\r\n"
        " -V:ContinuumAnalytics/Anaconda39-64\r\n");
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0],
              (PyLauncherEntry{"3.12",
                               "C:\\Users\\Ana Lee\\AppData\\Local\\Programs\\Python\\Python312\\"
                               "python.exe",
                               true}));
    EXPECT_EQ(entries[1], (PyLauncherEntry{"3.11", "C:\\Python311\\python.exe", false}));
    EXPECT_EQ(entries[2].tag, "Astral/CPython3.13.0");
}

TEST(PyLauncher, ParsesTheOlderFormatAndSkipsOtherLines) {
    auto entries = parse_py_launcher_list(
        "Installed Pythons found by py Launcher for Windows\n"
        " -3.9-64 *      C:\\Python39\\python.exe\n"
        " -3.8-32        \\\\server\\share\\Python38-32\\python.exe\n"
        " -2.7-64        relative\\python.exe\n");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0], (PyLauncherEntry{"3.9-64", "C:\\Python39\\python.exe", true}));
    EXPECT_EQ(entries[1],
              (PyLauncherEntry{"3.8-32", "\\\\server\\share\\Python38-32\\python.exe", false}));
    EXPECT_TRUE(parse_py_launcher_list("No Installed Pythons Found!\n").empty());
    EXPECT_TRUE(parse_py_launcher_list("").empty());
    EXPECT_TRUE(parse_py_launcher_list("-\n - *\n -V: C:\\x.exe\n").empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
