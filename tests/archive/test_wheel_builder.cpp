// The fixture builder's wheels must be real: RECORD right for every member, metadata that our
// parser and pip accept, and pip must install them.
#include "wheel_builder.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/wheel_filename.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::test;

namespace {

WheelSpec rich_spec() {
    WheelSpec w;
    w.name = "Data.Pkg";
    w.version = "1.2.0+local.7";
    w.requires_python = ">=3.8,<4";
    w.provides_extra = {"fast"};
    w.requires_dist = {"six>=1.16", "numpy>=1.24; extra == \"fast\"",
                       "pywin32; sys_platform == \"win32\""};
    w.files = {{"data_pkg/__init__.py", "def main():\n    print('hello from data_pkg')\n"},
               {"data_pkg/sub/mod.py", "VALUE = 1\n"}};
    w.data["scripts"] = {{"data-pkg-tool", "#!python\nimport data_pkg\ndata_pkg.main()\n", true}};
    w.data["purelib"] = {{"data_pkg_pure/__init__.py", "PURE = True\n"}};
    w.data["platlib"] = {{"data_pkg_plat/__init__.py", "PLAT = True\n"}};
    w.data["data"] = {{"share/data_pkg/config.toml", "answer = 42\n"}};
    w.data["headers"] = {{"data_pkg.h", "#define DATA_PKG 1\n"}};
    w.console_scripts = {"data-pkg = data_pkg:main"};
    w.gui_scripts = {"data-pkg-gui = data_pkg:main"};
    w.native_libraries = {"data_pkg/_native.so", "data_pkg/lib/helper.dll",
                          "data_pkg/lib/libx.so.12", "data_pkg/lib/libm.dylib"};
    return w;
}

int run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str());
}

}  // namespace

TEST(WheelBuilder, RecordHashesAndSizesMatchEveryMember) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    BuiltArtifact w = build_wheel(rich_spec(), dir.path());
    EXPECT_EQ(w.filename, "data_pkg-1.2.0+local.7-py3-none-any.whl");
    EXPECT_EQ(w.path, dir.path() / w.filename);
    EXPECT_EQ(w.sha256, aitk::fs::sha256_file_hex(w.path));
    EXPECT_EQ(w.size, fs::file_size(w.path));
    EXPECT_TRUE(w.is_wheel);
    EXPECT_EQ(check_wheel_record(w.path), std::vector<std::string>{});

    auto entries = aitk::archive::list_entries(w.path);
    ASSERT_FALSE(entries.empty());
    EXPECT_EQ(entries.back().path, "data_pkg-1.2.0+local.7.dist-info/RECORD");  // RECORD last
    std::string record =
        *aitk::archive::read_member(w.path, "data_pkg-1.2.0+local.7.dist-info/RECORD");
    EXPECT_NE(record.find("data_pkg-1.2.0+local.7.dist-info/RECORD,,\n"), std::string::npos);
    std::string init = "def main():\n    print('hello from data_pkg')\n";
    auto digest = [&] {
        aitk::fs::Sha256 h;
        h.update(init);
        return h.finish();
    }();
    EXPECT_NE(record.find("data_pkg/__init__.py,sha256=" +
                          aitk::fs::base64url_nopad(digest.data(), digest.size()) + "," +
                          std::to_string(init.size())),
              std::string::npos)
        << record;
    EXPECT_NE(record.find("data_pkg-1.2.0+local.7.data/scripts/data-pkg-tool,"), std::string::npos);
}

TEST(WheelBuilder, MetadataWheelAndEntryPointsSayWhatTheSpecSays) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    WheelSpec spec = rich_spec();
    spec.tag = "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64";
    spec.build_tag = "1";
    BuiltArtifact w = build_wheel(spec, dir.path());
    EXPECT_EQ(
        w.filename,
        "data_pkg-1.2.0+local.7-1-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    auto name = aitk::pep::WheelFilename::parse(w.filename);
    ASSERT_TRUE(name.has_value());
    EXPECT_EQ(name->name, "data-pkg");
    EXPECT_EQ(name->tags.size(), 2u);

    auto meta = aitk::archive::read_wheel_metadata(w.path);
    EXPECT_EQ(meta.path, "data_pkg-1.2.0+local.7.dist-info/METADATA");
    EXPECT_EQ(meta.content, w.metadata);
    auto parsed = aitk::pep::CoreMetadata::parse(meta.content);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->name, "Data.Pkg");
    EXPECT_EQ(parsed->version_text, "1.2.0+local.7");
    EXPECT_EQ(parsed->requires_python, ">=3.8,<4");
    EXPECT_EQ(parsed->requires_dist, spec.requires_dist);
    EXPECT_EQ(parsed->provides_extra, std::vector<std::string>{"fast"});

    std::string wheel =
        *aitk::archive::read_member(w.path, "data_pkg-1.2.0+local.7.dist-info/WHEEL");
    EXPECT_NE(wheel.find("Root-Is-Purelib: false\n"), std::string::npos);
    EXPECT_NE(wheel.find("Tag: cp312-cp312-manylinux_2_17_x86_64\n"), std::string::npos);
    EXPECT_NE(wheel.find("Tag: cp312-cp312-manylinux2014_x86_64\n"), std::string::npos);
    EXPECT_NE(wheel.find("Build: 1\n"), std::string::npos);
    std::string ep =
        *aitk::archive::read_member(w.path, "data_pkg-1.2.0+local.7.dist-info/entry_points.txt");
    EXPECT_EQ(ep,
              "[console_scripts]\ndata-pkg = data_pkg:main\n\n[gui_scripts]\n"
              "data-pkg-gui = data_pkg:main\n");

    std::string so = *aitk::archive::read_member(w.path, "data_pkg/_native.so");
    EXPECT_EQ(so.substr(0, 4),
              "\x7f"
              "ELF");
    std::string dll = *aitk::archive::read_member(w.path, "data_pkg/lib/helper.dll");
    EXPECT_EQ(dll.substr(0, 2), "MZ");
    EXPECT_EQ(dll.substr(0x80, 4), std::string("PE\0\0", 4));
    EXPECT_EQ(aitk::archive::read_member(w.path, "data_pkg/lib/libm.dylib")->substr(0, 4),
              "\xcf\xfa\xed\xfe");
}

TEST(WheelBuilder, SameSpecSameBytes) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    BuiltArtifact a = build_wheel(rich_spec(), dir.path() / "a");
    BuiltArtifact b = build_wheel(rich_spec(), dir.path() / "b");
    EXPECT_EQ(a.sha256, b.sha256);
}

TEST(WheelBuilder, PaddingMakesBigStoredWheelsQuickly) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    WheelSpec spec;
    spec.name = "bigpkg";
    spec.version = "1.0";
    spec.padding_bytes = 8u << 20;
    auto start = std::chrono::steady_clock::now();
    BuiltArtifact w = build_wheel(spec, dir.path());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_GT(w.size, 8u << 20);
    EXPECT_LT(w.size, (8u << 20) + 4096);  // stored, not deflated, and little else
    EXPECT_EQ(check_wheel_record(w.path), std::vector<std::string>{});
}

TEST(WheelBuilder, DefaultWheelIsSmallAndFastToBuild) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 50; ++i) {
        WheelSpec spec;
        spec.name = "pkg" + std::to_string(i);
        spec.version = "1.0";
        BuiltArtifact w = build_wheel(spec, dir.path());
        EXPECT_LT(w.size, 2048u);
        EXPECT_TRUE(aitk::archive::read_member(w.path, "pkg" + std::to_string(i) + "/__init__.py")
                        .has_value());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(WheelBuilder, RecordCheckCatchesTampering) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    fs::path bad = dir.path() / "bad-1.0-py3-none-any.whl";
    aitk::archive::write_archive(
        bad, aitk::archive::Format::zip,
        {aitk::archive::WriteEntry::file("bad/__init__.py", "changed\n"),
         aitk::archive::WriteEntry::file("bad/extra.py", ""),
         aitk::archive::WriteEntry::file("bad-1.0.dist-info/RECORD",
                                         "bad/__init__.py,sha256=AAAA,8\nbad/gone.py,,\n"
                                         "bad-1.0.dist-info/RECORD,,\n")});
    auto problems = check_wheel_record(bad);
    ASSERT_EQ(problems.size(), 3u);
    EXPECT_NE(problems[0].find("bad/__init__.py: RECORD says sha256=AAAA"), std::string::npos);
    EXPECT_NE(problems[1].find("bad/gone.py, which is not in the wheel"), std::string::npos);
    EXPECT_NE(problems[2].find("bad/extra.py is not listed"), std::string::npos);
}

TEST(WheelBuilder, PipInstallsTheWheelWithItsDataAndScripts) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    BuiltArtifact w = build_wheel(rich_spec(), dir.path());
    fs::path target = dir.path() / "target";
    ASSERT_EQ(run("python3 -m pip install --no-index --no-deps --disable-pip-version-check "
                  "--target " +
                  target.string() + " " + w.path.string()),
              0);
    EXPECT_TRUE(fs::exists(target / "data_pkg" / "__init__.py"));
    EXPECT_TRUE(fs::exists(target / "data_pkg" / "sub" / "mod.py"));
    EXPECT_TRUE(fs::exists(target / "data_pkg" / "_native.so"));
    EXPECT_TRUE(fs::exists(target / "data_pkg_pure" / "__init__.py"));
    EXPECT_TRUE(fs::exists(target / "data_pkg_plat" / "__init__.py"));
    EXPECT_TRUE(fs::exists(target / "bin" / "data-pkg-tool"));
    EXPECT_TRUE(fs::exists(target / "bin" / "data-pkg"));
    EXPECT_TRUE(fs::exists(target / "data_pkg-1.2.0+local.7.dist-info" / "RECORD"));
    EXPECT_EQ(run("cd " + target.string() + " && python3 -c 'import data_pkg, data_pkg_pure'"), 0);
}

TEST(WheelBuilder, SdistHasPkgInfoAndPyproject) {
    auto dir = aitk::fs::TempDir::create("wheel-builder");
    SdistSpec spec;
    spec.name = "Sdist.Only-Pkg";
    spec.version = "0.3.1";
    spec.requires_python = ">=3.9";
    spec.provides_extra = {"cli"};
    spec.requires_dist = {"six>=1.16", "click>=8; extra == \"cli\"",
                          "colorama; sys_platform == \"win32\""};
    BuiltArtifact s = build_sdist(spec, dir.path());
    EXPECT_EQ(s.filename, "sdist_only_pkg-0.3.1.tar.gz");
    EXPECT_FALSE(s.is_wheel);
    auto entries = aitk::archive::list_entries(s.path);
    ASSERT_EQ(entries.size(), 3u);
    std::string pkg_info = *aitk::archive::read_member(s.path, "sdist_only_pkg-0.3.1/PKG-INFO");
    EXPECT_EQ(pkg_info, s.metadata);
    auto parsed = aitk::pep::CoreMetadata::parse(pkg_info);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->requires_dist, spec.requires_dist);
    std::string pyproject =
        *aitk::archive::read_member(s.path, "sdist_only_pkg-0.3.1/pyproject.toml");
    EXPECT_NE(pyproject.find("dependencies = [\"six>=1.16\", \"colorama; sys_platform == "
                             "\\\"win32\\\"\"]"),
              std::string::npos)
        << pyproject;
    EXPECT_NE(pyproject.find("cli = [\"click>=8\"]"), std::string::npos) << pyproject;
    EXPECT_TRUE(
        aitk::archive::read_member(s.path, "sdist_only_pkg-0.3.1/src/sdist_only_pkg/__init__.py")
            .has_value());
    // Python's tomllib reads the pyproject.
    aitk::fs::write_file_atomic(dir.path() / "pyproject.toml", pyproject);
    EXPECT_EQ(run("python3 -c \"import tomllib; d = tomllib.load(open('" +
                  (dir.path() / "pyproject.toml").string() +
                  "', 'rb')); assert d['project']['optional-dependencies']['cli'] == "
                  "['click>=8']\""),
              0);
}

}  // namespace AITK_FILE_LOCAL
