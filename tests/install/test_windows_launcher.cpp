// Windows script launchers, tested on Linux as data: launcher.c is compiled with mingw-w64 (the
// tests that need it skip without x86_64-w64-mingw32-gcc), the payload is read back by
// read_launcher_trailer and by a real CPython, and install_wheel writes the .exe files into a
// Windows layout with their RECORD rows.
#include "aitk/install/windows_launcher.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/subprocess.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

const stdfs::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

stdfs::path launcher_source() {
    return stdfs::path(AITK_TEST_DATA_DIR).parent_path().parent_path() /
           "src/install/windows/launcher.c";
}

std::string trailer_of(std::string_view python) {
    std::string line = "#!" + std::string(python) + "\n";
    std::string size;
    for (int i = 0; i < 4; ++i)
        size.push_back(static_cast<char>((line.size() >> (8 * i)) & 0xff));
    return line + size + "AITKLNCH";
}

aitk::util::ProcessResult run(std::vector<std::string> argv,
                              aitk::util::EnvironmentChanges changes = {}) {
    aitk::util::ProcessRequest request;
    request.argv = std::move(argv);
    request.environment_changes = std::move(changes);
    auto result = aitk::util::run_process(request);
    if (!result) throw std::runtime_error(result.error().message);
    return *result;
}

// The two launcher images, compiled once for the whole executable; nullopt without mingw-w64.
struct Compiled {
    WindowsLaunchers images;
    std::string console_log;
    std::string gui_log;
};

const std::optional<Compiled>& compiled_launchers() {
    static const std::optional<Compiled> compiled = []() -> std::optional<Compiled> {
        auto gcc = aitk::util::find_program(
            "x86_64-w64-mingw32-gcc",
            aitk::util::environment_lookup(aitk::util::current_environment(), "PATH")
                .value_or("/usr/bin:/bin"));
        if (!gcc) return std::nullopt;
        aitk::fs::TempDir dir = aitk::fs::TempDir::create("launcher-build");
        Compiled out;
        auto build = [&](const std::string& name, std::vector<std::string> extra,
                         std::string& log) {
            std::vector<std::string> argv = {gcc->string(), "-Os",     "-s",     "-municode",
                                             "-Wall",       "-Wextra", "-Werror"};
            argv.insert(argv.end(), extra.begin(), extra.end());
            const stdfs::path exe = dir.path() / name;
            argv.insert(argv.end(), {"-o", exe.string(), launcher_source().string()});
            auto result = run(argv);
            log = result.err + result.out;
            if (!result.succeeded()) throw std::runtime_error("mingw build failed:\n" + log);
            return aitk::fs::read_file(exe);
        };
        out.images.console = build("console.exe", {}, out.console_log);
        out.images.gui = build("gui.exe", {"-DAITK_LAUNCHER_GUI", "-mwindows"}, out.gui_log);
        return out;
    }();
    return compiled;
}

#define REQUIRE_MINGW()                                        \
    if (!compiled_launchers())                                 \
    GTEST_SKIP() << "x86_64-w64-mingw32-gcc is not installed " \
                    "(Debian: gcc-mingw-w64-x86-64)"

std::uint32_t u32_at(const std::string& bytes, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes.at(at + i))) << (8 * i);
    }
    return v;
}

struct PeFacts {
    std::uint16_t machine = 0;
    std::uint16_t optional_magic = 0;
    std::uint16_t subsystem = 0;
};

// The PE/COFF fields that say what Windows does with the file: "MZ", e_lfanew at 0x3c, "PE\0\0",
// the COFF header (machine first), then the optional header (magic first, subsystem at 68).
std::optional<PeFacts> pe_facts(const std::string& image) {
    if (image.size() < 0x40 || image.compare(0, 2, "MZ") != 0) return std::nullopt;
    const std::size_t pe = u32_at(image, 0x3c);
    if (pe + 24 + 70 > image.size() || image.compare(pe, 4, std::string("PE\0\0", 4)) != 0) {
        return std::nullopt;
    }
    auto u16 = [&](std::size_t at) {
        return static_cast<std::uint16_t>(static_cast<unsigned char>(image[at]) |
                                          static_cast<unsigned char>(image[at + 1]) << 8);
    };
    return PeFacts{u16(pe + 4), u16(pe + 24), u16(pe + 24 + 68)};
}

TEST(WindowsLauncherProgram, CompilesWithoutWarningsAsConsoleAndGuiPe) {
    REQUIRE_MINGW();
    const Compiled& c = *compiled_launchers();
    EXPECT_EQ(c.console_log, "");
    EXPECT_EQ(c.gui_log, "");
    auto console = pe_facts(c.images.console);
    auto gui = pe_facts(c.images.gui);
    ASSERT_TRUE(console);
    ASSERT_TRUE(gui);
    EXPECT_EQ(console->machine, 0x8664);        // x86-64
    EXPECT_EQ(console->optional_magic, 0x20b);  // PE32+
    EXPECT_EQ(console->subsystem, 3);           // IMAGE_SUBSYSTEM_WINDOWS_CUI
    EXPECT_EQ(gui->machine, 0x8664);
    EXPECT_EQ(gui->subsystem, 2);  // IMAGE_SUBSYSTEM_WINDOWS_GUI
    // Small enough to copy into every Scripts folder.
    EXPECT_LT(c.images.console.size(), 64u << 10);
    EXPECT_LT(c.images.gui.size(), 64u << 10);
}

TEST(WindowsLauncherScript, IsPipsWrapperForTheCall) {
    EXPECT_EQ(windows_launcher_script("pkg.cli", "App.run"),
              "# -*- coding: utf-8 -*-\n"
              "import re\n"
              "import sys\n"
              "from pkg.cli import App\n"
              "if __name__ == '__main__':\n"
              "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
              "    sys.exit(App.run())\n");
}

const std::string fake_image = "MZ" + std::string(3000, '\x90') + "end of image";

TEST(WindowsLauncherPayload, IsImageThenZipThenTrailerAndReadsBack) {
    std::string exe = windows_launcher_payload(fake_image, "python.exe", "pkg.cli", "main");
    ASSERT_GT(exe.size(), fake_image.size() + 100);
    EXPECT_EQ(exe.substr(0, fake_image.size()), fake_image);
    EXPECT_EQ(exe.substr(fake_image.size(), 4), "PK\x03\x04");  // the zip's first local header
    const std::string trailer = trailer_of("python.exe");
    EXPECT_EQ(exe.substr(exe.size() - trailer.size()), trailer);
    // The trailer is the comment of the end-of-central-directory record just before it.
    const std::size_t eocd = exe.size() - trailer.size() - 22;
    EXPECT_EQ(exe.substr(eocd, 4), "PK\x05\x06");
    EXPECT_EQ(u32_at(exe, eocd + 20) & 0xffff, trailer.size());

    auto read = read_launcher_trailer(exe);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read->image_size, fake_image.size());
    EXPECT_EQ(read->python, "python.exe");
    EXPECT_EQ(read->script, windows_launcher_script("pkg.cli", "main"));
}

TEST(WindowsLauncherPayload, RecordsAbsoluteAndNonAsciiPathsVerbatim) {
    const std::string python = "C:\\Program Files\\Envs\\caf\xc3\xa9\\Scripts\\python.exe";
    std::string exe = windows_launcher_payload(fake_image, python, "m", "f");
    auto read = read_launcher_trailer(exe);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read->python, python);
    EXPECT_TRUE(exe.ends_with(trailer_of(python)));
}

TEST(WindowsLauncherPayload, RefusesPathsTheLauncherCannotRead) {
    for (std::string bad : {std::string(), std::string("py\nthon.exe"), std::string("a\rb"),
                            std::string("a\0b", 3), std::string(3 * 32767 + 1, 'p')}) {
        EXPECT_THROW((void)windows_launcher_payload(fake_image, bad, "m", "f"), aitk::util::Error)
            << bad.size();
    }
    EXPECT_THROW((void)windows_launcher_payload("", "python.exe", "m", "f"), aitk::util::Error);
}

TEST(WindowsLauncherTrailer, RefusesWhatIsNotALauncher) {
    const std::string good = windows_launcher_payload(fake_image, "python.exe", "m", "f");
    auto error_of = [](std::string_view bytes) {
        auto read = read_launcher_trailer(bytes);
        return read ? std::string("accepted") : read.error();
    };
    EXPECT_EQ(error_of(fake_image), "no launcher trailer: the file does not end with AITKLNCH");
    EXPECT_EQ(error_of("AITKLNCH"), "no launcher trailer: the file does not end with AITKLNCH");

    std::string huge = good;
    huge[huge.size() - 10] = '\x7f';  // the line size's third byte
    EXPECT_EQ(error_of(huge), "the trailer's \"#!\" line size 8323085 does not fit the file");

    std::string no_hash = good;
    no_hash[no_hash.size() - trailer_of("python.exe").size()] = 'x';
    EXPECT_EQ(error_of(no_hash), "the trailer's line is not \"#!<python>\\n\"");

    // A trailer glued to something that is no zip.
    EXPECT_EQ(error_of(fake_image + trailer_of("python.exe")),
              "no zip end-of-central-directory record before the trailer");

    std::string short_comment = good;
    short_comment[good.size() - trailer_of("python.exe").size() - 2] = 5;
    EXPECT_EQ(error_of(short_comment), "the zip comment does not cover the trailer");
}

TEST(WindowsLauncherPayload, PythonReadsAndRunsTheAppendedZip) {
    REQUIRE_MINGW();
    if (!stdfs::exists(python312)) GTEST_SKIP() << python312 << " is not installed";
    auto dir = aitk::fs::TempDir::create("launcher-python");
    const stdfs::path exe = dir.path() / "greet.exe";
    aitk::fs::write_file_atomic(exe, windows_launcher_payload(compiled_launchers()->images.console,
                                                              "python.exe", "greet_cli", "main"));
    stdfs::create_directories(dir.path() / "lib");
    aitk::fs::write_file_atomic(dir.path() / "lib" / "greet_cli.py",
                                "import sys\n"
                                "def main():\n"
                                "    print(repr(sys.argv))\n"
                                "    return 7\n");

    auto listed = run({python312.string(), "-c",
                       "import sys, zipfile\n"
                       "z = zipfile.ZipFile(sys.argv[1])\n"
                       "print(z.namelist())\n"
                       "sys.stdout.write(z.read('__main__.py').decode())\n",
                       exe.string()});
    ASSERT_TRUE(listed.succeeded()) << listed.err;
    EXPECT_EQ(listed.out, "['__main__.py']\n" + windows_launcher_script("greet_cli", "main"));

    // What the launcher runs on Windows: python <launcher> <arguments>.
    auto ran = run({python312.string(), exe.string(), "one", "two words"},
                   {{"PYTHONPATH", (dir.path() / "lib").string()}});
    EXPECT_EQ(ran.exit_code, 7) << ran.err;
    EXPECT_EQ(ran.out, "['" + (dir.path() / "greet").string() + "', 'one', 'two words']\n");
}

WheelSpec tools_wheel() {
    WheelSpec w;
    w.name = "tools";
    w.version = "2.0";
    w.files = {{"tools/__init__.py", "def main():\n    return 0\n"}};
    w.console_scripts = {"tool = tools:main", "pip = tools:main"};
    w.gui_scripts = {"tool-gui = tools.app:App.run"};
    return w;
}

class WindowsLauncherInstall : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("launcher-install");
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12.1", true);

    WheelInstallRequest request(const WindowsLaunchers* launchers) {
        auto built = aitk::test::build_wheel(tools_wheel(), dir.path() / "wheels");
        WheelInstallRequest r;
        r.unpacked = dir.path() / "cache" / built.filename;
        unpack_wheel(built.path, r.unpacked);
        r.name = "tools";
        r.version = "2.0";
        r.windows_launchers = launchers;
        return r;
    }

    std::vector<InstalledFile> record(const WheelInstallResult& result) {
        auto rows = parse_record(aitk::fs::read_file(result.dist_info / "RECORD"));
        EXPECT_TRUE(rows) << rows.error();
        return rows ? *rows : std::vector<InstalledFile>{};
    }

    static const InstalledFile* row(const std::vector<InstalledFile>& rows, std::string_view path) {
        for (const auto& r : rows) {
            if (r.path == path) return &r;
        }
        return nullptr;
    }
};

TEST_F(WindowsLauncherInstall, WritesExeLaunchersListedInRecord) {
    REQUIRE_MINGW();
    const WindowsLaunchers& images = compiled_launchers()->images;
    auto result = install_wheel(layout, request(&images));
    EXPECT_TRUE(result.notes.empty());
    auto rows = record(result);

    struct Want {
        std::string name;
        const std::string* image;
        std::string python;
        std::string module;
        std::string function;
    };
    // pip's versioned names for "pip" use the layout's Python, as on POSIX.
    for (const Want& e : {Want{"tool", &images.console, "python.exe", "tools", "main"},
                          Want{"pip", &images.console, "python.exe", "tools", "main"},
                          Want{"pip3", &images.console, "python.exe", "tools", "main"},
                          Want{"pip3.12", &images.console, "python.exe", "tools", "main"},
                          Want{"tool-gui", &images.gui, "pythonw.exe", "tools.app", "App.run"}}) {
        SCOPED_TRACE(e.name);
        const stdfs::path exe = layout.scripts / (e.name + ".exe");
        ASSERT_TRUE(stdfs::is_regular_file(exe));
        EXPECT_FALSE(stdfs::exists(layout.scripts / e.name));  // no POSIX wrapper beside it
        const std::string bytes = aitk::fs::read_file(exe);
        EXPECT_EQ(bytes, windows_launcher_payload(*e.image, e.python, e.module, e.function));
        auto read = read_launcher_trailer(bytes);
        ASSERT_TRUE(read) << read.error();
        EXPECT_EQ(read->image_size, e.image->size());
        EXPECT_EQ(read->python, e.python);
        EXPECT_EQ(read->script, windows_launcher_script(e.module, e.function));

        const InstalledFile* listed = row(rows, "../../Scripts/" + e.name + ".exe");
        ASSERT_NE(listed, nullptr);
        EXPECT_EQ(listed->hash, record_hash_of(bytes));
        EXPECT_EQ(listed->size, bytes.size());
    }
    // The returned rows are what RECORD says.
    const InstalledFile* returned = nullptr;
    for (const auto& f : result.files) {
        if (f.path == "../../Scripts/tool.exe") returned = &f;
    }
    ASSERT_NE(returned, nullptr);
    EXPECT_EQ(returned->hash, row(rows, "../../Scripts/tool.exe")->hash);
}

TEST_F(WindowsLauncherInstall, RecordsAnInterpreterOutsideThePrefixAbsolutely) {
    REQUIRE_MINGW();
    layout.python = "/opt/python/python.exe";
    auto result = install_wheel(layout, request(&compiled_launchers()->images));
    auto read = read_launcher_trailer(aitk::fs::read_file(layout.scripts / "tool.exe"));
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read->python, "\\opt\\python\\python.exe");
    read = read_launcher_trailer(aitk::fs::read_file(layout.scripts / "tool-gui.exe"));
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read->python, "\\opt\\python\\pythonw.exe");
}

TEST_F(WindowsLauncherInstall, WithoutImagesWritesNoExeAndSaysSo) {
    auto result = install_wheel(layout, request(nullptr));
    for (const char* name : {"tool", "pip", "pip3", "pip3.12", "tool-gui"}) {
        EXPECT_FALSE(stdfs::exists(layout.scripts / (std::string(name) + ".exe"))) << name;
        EXPECT_FALSE(stdfs::exists(layout.scripts / name)) << name;
    }
    for (const auto& r : record(result))
        EXPECT_FALSE(r.path.ends_with(".exe")) << r.path;
    const std::string tail =
        " was not written: this aitk-env carries no Windows launcher programs (Windows builds "
        "of aitk-env embed them)";
    EXPECT_EQ(result.notes,
              (std::vector<std::string>{
                  "wheel tools-2.0: console script tool.exe (tools:main)" + tail,
                  "wheel tools-2.0: console script pip.exe (tools:main)" + tail,
                  "wheel tools-2.0: console script pip3.exe (tools:main)" + tail,
                  "wheel tools-2.0: console script pip3.12.exe (tools:main)" + tail,
                  "wheel tools-2.0: GUI script tool-gui.exe (tools.app:App.run)" + tail,
              }));
    // The package itself is installed.
    EXPECT_TRUE(stdfs::exists(layout.purelib / "tools" / "__init__.py"));
}

TEST_F(WindowsLauncherInstall, AMissingGuiImageSkipsOnlyGuiScripts) {
    WindowsLaunchers console_only{fake_image, ""};
    auto result = install_wheel(layout, request(&console_only));
    EXPECT_TRUE(stdfs::exists(layout.scripts / "tool.exe"));
    EXPECT_FALSE(stdfs::exists(layout.scripts / "tool-gui.exe"));
    ASSERT_EQ(result.notes.size(), 1u);
    EXPECT_TRUE(result.notes[0].starts_with("wheel tools-2.0: GUI script tool-gui.exe"))
        << result.notes[0];
}

TEST(WindowsLauncherDefaults, RequestCarriesTheBuiltInImages) {
    WheelInstallRequest r;
    EXPECT_EQ(r.windows_launchers, embedded_windows_launchers());
#ifndef _WIN32
    EXPECT_EQ(embedded_windows_launchers(), nullptr);
#endif
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
