// install_wheel into a venv layout (no interpreter needed here; test_pip_interop runs one):
// where every file lands, what RECORD says, the script wrappers, and how files are linked.
#include "aitk/install/wheel_install.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/record.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

WheelSpec datapkg() {
    WheelSpec w;
    w.name = "datapkg";
    w.version = "1.0.0";
    w.files = {{"datapkg/__init__.py", "def main():\n    print('datapkg')\n"}};
    w.data["scripts"] = {{"datapkg-tool", "#!python\nimport datapkg\ndatapkg.main()\n", true}};
    w.data["purelib"] = {{"datapkg_extra/__init__.py", "EXTRA = True\n"}};
    w.data["platlib"] = {{"datapkg_native/__init__.py", "NATIVE = True\n"}};
    w.data["data"] = {{"share/datapkg/config.toml", "answer = 42\n"}};
    w.data["headers"] = {{"datapkg.h", "#define DATAPKG 1\n"}};
    w.console_scripts = {"datapkg = datapkg:main"};
    w.gui_scripts = {"datapkg-gui = datapkg:main"};
    return w;
}

struct stat stat_of(const stdfs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st;
}

class WheelInstall : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("wheel-install-test");
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12.1", false);
    stdfs::path site = prefix / "lib/python3.12/site-packages";

    // Builds the wheel and unpacks it as the cache would.
    stdfs::path unpacked(const WheelSpec& spec) {
        auto built = aitk::test::build_wheel(spec, dir.path() / "wheels");
        stdfs::path tree = dir.path() / "cache" / built.filename;
        unpack_wheel(built.path, tree);
        return tree;
    }

    WheelInstallRequest request(const WheelSpec& spec, LinkMode mode = LinkMode::automatic) {
        WheelInstallRequest r;
        r.unpacked = unpacked(spec);
        r.name = spec.name;
        r.version = spec.version;
        r.link_mode = mode;
        return r;
    }

    std::string refusal(const WheelInstallRequest& r) {
        try {
            install_wheel(layout, r);
        } catch (const WheelError& e) {
            EXPECT_FALSE(stdfs::exists(prefix)) << "a refused wheel wrote into the prefix";
            return e.what();
        }
        ADD_FAILURE() << "install_wheel accepted " << r.name;
        return {};
    }
};

}  // namespace

TEST_F(WheelInstall, SpreadsDataFoldersRewritesShebangsAndWritesWrappers) {
    auto r = request(datapkg());
    r.requested = true;
    r.direct_url =
        R"({"url": "file:///wheels/datapkg-1.0.0-py3-none-any.whl", "archive_info": {}})";
    auto result = install_wheel(layout, r);
    const std::string python = stdfs::absolute(layout.python).string();

    EXPECT_EQ(result.dist_info, site / "datapkg-1.0.0.dist-info");
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg_extra/__init__.py"), "EXTRA = True\n");
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg_native/__init__.py"), "NATIVE = True\n");
    EXPECT_EQ(aitk::fs::read_file(prefix / "share/datapkg/config.toml"), "answer = 42\n");
    EXPECT_EQ(aitk::fs::read_file(prefix / "include/site/python3.12/datapkg/datapkg.h"),
              "#define DATAPKG 1\n");
    EXPECT_EQ(aitk::fs::read_file(prefix / "bin/datapkg-tool"),
              "#!" + python + "\nimport datapkg\ndatapkg.main()\n");
    EXPECT_EQ(aitk::fs::read_file(prefix / "bin/datapkg"),
              posix_script_text(python, "datapkg", "main"));
    EXPECT_EQ(aitk::fs::read_file(prefix / "bin/datapkg-gui"),
              posix_script_text(python, "datapkg", "main"));
    for (const char* script : {"bin/datapkg-tool", "bin/datapkg", "bin/datapkg-gui"}) {
        EXPECT_EQ(stat_of(prefix / script).st_mode & 0111, 0111u) << script;
    }
    EXPECT_FALSE(stdfs::exists(site / "datapkg-1.0.0.data"));
    EXPECT_EQ(aitk::fs::read_file(result.dist_info / "INSTALLER"), "aitk-env\n");
    EXPECT_EQ(aitk::fs::read_file(result.dist_info / "REQUESTED"), "");
    EXPECT_EQ(aitk::fs::read_file(result.dist_info / "direct_url.json"), *r.direct_url);

    // RECORD lists what is on disk now, relative to site-packages, and equals the result.
    auto record = parse_record(aitk::fs::read_file(result.dist_info / "RECORD"));
    ASSERT_TRUE(record.has_value()) << record.error();
    std::map<std::string, InstalledFile> rows;
    for (const auto& f : *record)
        rows[f.path] = f;
    ASSERT_EQ(record->size(), result.files.size());
    for (std::size_t i = 0; i < record->size(); ++i) {
        EXPECT_EQ((*record)[i].path, result.files[i].path);
        EXPECT_EQ((*record)[i].hash, result.files[i].hash);
        EXPECT_EQ((*record)[i].size, result.files[i].size);
    }
    std::vector<std::string> paths;
    for (const auto& [path, row] : rows)
        paths.push_back(path);
    EXPECT_EQ(paths, (std::vector<std::string>{
                         "../../../bin/datapkg",
                         "../../../bin/datapkg-gui",
                         "../../../bin/datapkg-tool",
                         "../../../include/site/python3.12/datapkg/datapkg.h",
                         "../../../share/datapkg/config.toml",
                         "datapkg-1.0.0.dist-info/INSTALLER",
                         "datapkg-1.0.0.dist-info/METADATA",
                         "datapkg-1.0.0.dist-info/RECORD",
                         "datapkg-1.0.0.dist-info/REQUESTED",
                         "datapkg-1.0.0.dist-info/WHEEL",
                         "datapkg-1.0.0.dist-info/direct_url.json",
                         "datapkg-1.0.0.dist-info/entry_points.txt",
                         "datapkg/__init__.py",
                         "datapkg_extra/__init__.py",
                         "datapkg_native/__init__.py",
                     }));
    EXPECT_EQ(rows["datapkg-1.0.0.dist-info/RECORD"].hash, "");
    const std::string tool = "#!" + python + "\nimport datapkg\ndatapkg.main()\n";
    EXPECT_EQ(rows["../../../bin/datapkg-tool"].hash, record_hash_of(tool));
    EXPECT_EQ(rows["../../../bin/datapkg-tool"].size, tool.size());
    EXPECT_EQ(rows["../../../share/datapkg/config.toml"].hash, record_hash_of("answer = 42\n"));
    EXPECT_EQ(rows["../../../share/datapkg/config.toml"].size, 12u);
    EXPECT_EQ(rows["datapkg-1.0.0.dist-info/INSTALLER"].hash, record_hash_of("aitk-env\n"));

    // Every hash in RECORD matches the disk, and nothing in site-packages is unlisted.
    auto dists = installed_distributions(layout);
    EXPECT_TRUE(verify_records(layout, dists).empty());
    EXPECT_TRUE(unowned_files(layout, dists).empty());
}

TEST_F(WheelInstall, ScriptWrapperIsWhatPipWrites) {
    EXPECT_EQ(posix_script_text("/envs/a/bin/python", "pkg.cli", "App.run"),
              "#!/envs/a/bin/python\n"
              "# -*- coding: utf-8 -*-\n"
              "import re\n"
              "import sys\n"
              "from pkg.cli import App\n"
              "if __name__ == '__main__':\n"
              "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
              "    sys.exit(App.run())\n");
    // A path with a space, or past the kernel's 127-byte shebang limit: the /bin/sh trampoline,
    // the path single-quoted (test_script_trampoline.cpp runs hostile ones).
    EXPECT_TRUE(posix_script_text("/my envs/bin/python", "m", "f")
                    .starts_with("#!/bin/sh\n'''exec' '/my envs/bin/python' \"$0\" \"$@\"\n' '''\n"
                                 "# -*- coding: utf-8 -*-\n"));
    const std::string deep = "/" + std::string(130, 'd') + "/bin/python";
    EXPECT_TRUE(posix_script_text(deep, "m", "f")
                    .starts_with("#!/bin/sh\n'''exec' '" + deep + "' \"$0\" \"$@\"\n' '''\n"));
}

TEST_F(WheelInstall, LongPrefixGetsTheTrampolineInRewrittenScriptsToo) {
    prefix = dir.path() / std::string(120, 'p') / "venv";
    layout = PrefixLayout::for_venv(prefix, "3.12", false);
    install_wheel(layout, request(datapkg()));
    const std::string python = stdfs::absolute(layout.python).string();
    EXPECT_EQ(aitk::fs::read_file(prefix / "bin/datapkg-tool"),
              "#!/bin/sh\n'''exec' '" + python +
                  "' \"$0\" \"$@\"\n' '''\nimport datapkg\n"
                  "datapkg.main()\n");
}

TEST_F(WheelInstall, HardlinkModeSharesInodesWithTheCacheButNeverForRewrittenFiles) {
    auto r = request(datapkg(), LinkMode::hardlink);
    auto result = install_wheel(layout, r);
    EXPECT_EQ(result.used, LinkMode::hardlink);
    auto cached = stat_of(r.unpacked / "datapkg/__init__.py");
    auto installed = stat_of(site / "datapkg/__init__.py");
    EXPECT_EQ(installed.st_ino, cached.st_ino);
    EXPECT_GT(installed.st_nlink, 1u);
    auto data_file = stat_of(prefix / "share/datapkg/config.toml");
    EXPECT_EQ(data_file.st_ino,
              stat_of(r.unpacked / "datapkg-1.0.0.data/data/share/datapkg/config.toml").st_ino);

    // Files the installer rewrites are new files, never links into the cache.
    auto tool = stat_of(prefix / "bin/datapkg-tool");
    EXPECT_EQ(tool.st_nlink, 1u);
    EXPECT_NE(tool.st_ino, stat_of(r.unpacked / "datapkg-1.0.0.data/scripts/datapkg-tool").st_ino);
    EXPECT_EQ(aitk::fs::read_file(r.unpacked / "datapkg-1.0.0.data/scripts/datapkg-tool"),
              "#!python\nimport datapkg\ndatapkg.main()\n");
    for (const char* f : {"RECORD", "INSTALLER"}) {
        EXPECT_EQ(stat_of(result.dist_info / f).st_nlink, 1u) << f;
    }
    EXPECT_EQ(aitk::fs::read_file(r.unpacked / "datapkg-1.0.0.dist-info/RECORD").find("INSTALLER"),
              std::string::npos);
}

TEST_F(WheelInstall, CopyModeMakesIndependentFiles) {
    auto r = request(datapkg(), LinkMode::copy);
    auto result = install_wheel(layout, r);
    EXPECT_EQ(result.used, LinkMode::copy);
    auto installed = stat_of(site / "datapkg/__init__.py");
    EXPECT_NE(installed.st_ino, stat_of(r.unpacked / "datapkg/__init__.py").st_ino);
    EXPECT_EQ(installed.st_nlink, 1u);
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
}

TEST_F(WheelInstall, AutomaticModeSettlesOnALinkOnOneFilesystem) {
    auto r = request(datapkg());
    auto result = install_wheel(layout, r);
    // tmpfs and ext4 have no reflinks (hardlink), btrfs and XFS do (reflink).
    EXPECT_TRUE(result.used == LinkMode::hardlink || result.used == LinkMode::reflink);
    if (result.used == LinkMode::hardlink) {
        EXPECT_EQ(stat_of(site / "datapkg/__init__.py").st_ino,
                  stat_of(r.unpacked / "datapkg/__init__.py").st_ino);
    }
}

TEST_F(WheelInstall, ReflinkModeClonesOrFallsBackToCopy) {
    auto r = request(datapkg(), LinkMode::reflink);
    auto result = install_wheel(layout, r);
    // Clones need btrfs or XFS; elsewhere the files are copied, never hardlinked.
    EXPECT_TRUE(result.used == LinkMode::reflink || result.used == LinkMode::copy);
    auto installed = stat_of(site / "datapkg/__init__.py");
    EXPECT_NE(installed.st_ino, stat_of(r.unpacked / "datapkg/__init__.py").st_ino);
    EXPECT_EQ(installed.st_nlink, 1u);
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
}

TEST_F(WheelInstall, ReplacingAHardlinkedFileNeverWritesIntoTheCache) {
    auto r = request(datapkg(), LinkMode::hardlink);
    install_wheel(layout, r);
    ASSERT_GT(stat_of(r.unpacked / "datapkg/__init__.py").st_nlink, 1u);
    // Reinstalling by copy replaces the links with new files; the cache keeps its bytes.
    r.link_mode = LinkMode::copy;
    install_wheel(layout, r);
    EXPECT_EQ(stat_of(r.unpacked / "datapkg/__init__.py").st_nlink, 1u);
    EXPECT_EQ(aitk::fs::read_file(r.unpacked / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
}

TEST_F(WheelInstall, ReplacesFilesAlreadyPresent) {
    stdfs::create_directories(site / "datapkg");
    aitk::fs::write_file_atomic(site / "datapkg/__init__.py", "stale\n");
    stdfs::create_directories(prefix / "bin");
    aitk::fs::write_file_atomic(prefix / "bin/datapkg", "stale\n");
    install_wheel(layout, request(datapkg()));
    EXPECT_EQ(aitk::fs::read_file(site / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
    EXPECT_NE(aitk::fs::read_file(prefix / "bin/datapkg"), "stale\n");
}

TEST_F(WheelInstall, PipAndEasyInstallGetNamesForThisPython) {
    WheelSpec w;
    w.name = "fakepip";
    w.version = "1.0";
    w.console_scripts = {"pip = fakepip:main",
                         "pip3 = fakepip:main",
                         "pip3.8 = fakepip:main",
                         "easy_install = fakepip:main",
                         "easy_install-3.8 = fakepip:main",
                         "other = fakepip:main"};
    install_wheel(layout, request(w));
    std::vector<std::string> scripts;
    for (const auto& e : stdfs::directory_iterator(prefix / "bin"))
        scripts.push_back(e.path().filename().string());
    std::sort(scripts.begin(), scripts.end());
    EXPECT_EQ(scripts, (std::vector<std::string>{"easy_install", "easy_install-3.12", "other",
                                                 "pip", "pip3", "pip3.12"}));
}

TEST_F(WheelInstall, RefusesADistInfoOtherThanTheRequestedOne) {
    auto r = request(datapkg());
    r.name = "otherpkg";
    EXPECT_EQ(refusal(r),
              "wheel otherpkg-1.0.0: its folder 'datapkg-1.0.0.dist-info' does not match the "
              "requested otherpkg 1.0.0");
    r.name = "datapkg";
    r.version = "2.0";
    r.label = "datapkg-2.0-py3-none-any.whl";
    EXPECT_EQ(refusal(r),
              "wheel datapkg-2.0-py3-none-any.whl: its folder 'datapkg-1.0.0.dist-info' does not "
              "match the requested datapkg 2.0");
}

TEST_F(WheelInstall, RefusesBadEntryPointsBeforeWritingAnything) {
    WheelSpec w;
    w.name = "badep";
    w.version = "1.0";
    w.console_scripts = {"badep = badep"};
    EXPECT_EQ(refusal(request(w)),
              "wheel badep-1.0, member 'badep-1.0.dist-info/entry_points.txt': line 2: "
              "console_scripts 'badep': 'badep' names no callable: write 'module:function'");
    stdfs::remove_all(dir.path() / "cache");
    w.console_scripts = {"../../../../tmp/evil = badep:main"};
    EXPECT_EQ(refusal(request(w)),
              "wheel badep-1.0, member 'badep-1.0.dist-info/entry_points.txt': line 2: script "
              "name '../../../../tmp/evil' cannot be a file name");
}

TEST_F(WheelInstall, RefusesAnUnknownDataFolder) {
    WheelSpec w;
    w.name = "oddpkg";
    w.version = "1.0";
    w.data["etc"] = {{"oddpkg.conf", "x = 1\n"}};
    EXPECT_EQ(refusal(request(w)),
              "wheel oddpkg-1.0, member 'oddpkg-1.0.data/etc/oddpkg.conf': is in an unknown folder "
              "'oddpkg-1.0.data/etc' (expected purelib, platlib, scripts, headers or data)");
}

TEST(LinkMode, ParsesTheFlagValues) {
    EXPECT_EQ(parse_link_mode("auto"), LinkMode::automatic);
    EXPECT_EQ(parse_link_mode("reflink"), LinkMode::reflink);
    EXPECT_EQ(parse_link_mode("hardlink"), LinkMode::hardlink);
    EXPECT_EQ(parse_link_mode("copy"), LinkMode::copy);
    EXPECT_EQ(parse_link_mode("symlink"), std::nullopt);
    EXPECT_EQ(parse_link_mode(""), std::nullopt);
}

}  // namespace AITK_FILE_LOCAL
