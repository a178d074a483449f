// The prefix's skeleton is aitk-env's: through the real binary, a release of the victim whose
// files would land on pyvenv.cfg, the interpreter, the activation scripts and shims, or anything
// under .aitk-env/ (as a .data/ member or as a console/GUI script's name) is refused by `sync`
// with exit 1, naming the wheel, the member and the file, before anything in the prefix changes.
// A RECORD that lists such a file (a prefix pip or an older aitk-env filled) is drift for
// `verify`, and removing its distribution leaves the file where it is. A POSIX prefix (bin/,
// lib/python3.11): the rule itself is tested for both layouts in install/test_prefix_skeleton.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileSkeleton : public VictimWorldTest {
  protected:
    static stdfs::path prefix() { return world->path("prefix"); }
    static stdfs::path site_packages() { return prefix() / "lib/python3.11/site-packages"; }

    static BuiltArtifact release(const std::string& tag, const WheelSpec& spec,
                                 const std::string& version = "2.0") {
        return victim_release(
            *world, tag, spec, [](auto&) {}, version);
    }

    static CliResult sync(const stdfs::path& lock) {
        return world->cli_with_index({"sync", "-l", lock.string(), "-p", prefix().string()}, "");
    }

    // `sync` with `wheel` in the lock exits 1 with every one of `parts` (and the hint) in its
    // error, and changes nothing but the cache's verified download and its unpacked tree (a
    // well-formed wheel, refused only for where it would write).
    static void expect_refused(const BuiltArtifact& wheel, const std::vector<std::string>& parts) {
        const auto lock = victim_lock_for(*world, wheel, "2.0");
        ASSERT_FALSE(lock.empty()) << "the lock no longer has the expected shape";
        const auto before = world->state();
        auto r = sync(lock);
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err;
        EXPECT_NE(r.err.find("hint: no package may install over a prefix's pyvenv.cfg"),
                  std::string::npos)
            << r.err;
        auto after = world->state();
        std::erase_if(after.cache, [&](const auto& item) {
            return item.first.starts_with("v1/unpacked") && !before.cache.count(item.first);
        });
        EXPECT_EQ(VictimWorld::changes(before, after, wheel.sha256), "");
        stdfs::remove(lock);
    }
};

const std::string wheel_name = "wheel victim-2.0-py3-none-any.whl";

TEST_F(HostileSkeleton, PipsOwnScriptsAndOrdinaryDataStillInstall) {
    WheelSpec spec;
    spec.console_scripts = {"pip = victim:main", "victim-tool = victim:main"};
    spec.data["scripts"] = {{"victim-data-tool", "#!python\nprint('ok')\n", true}};
    spec.data["data"] = {{"share/victim/pyvenv.cfg", "not the prefix's\n"}};
    const auto lock = victim_lock_for(*world, release("fine", spec, "1.5"), "1.5");
    ASSERT_FALSE(lock.empty());
    auto r = sync(lock);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* file : {"bin/pip", "bin/pip3", "bin/pip3.11", "bin/victim-tool",
                             "bin/victim-data-tool", "share/victim/pyvenv.cfg"}) {
        EXPECT_TRUE(stdfs::exists(prefix() / file)) << file;
    }
    // Back to victim 1.0 for the other tests.
    r = sync(world->path("env.lock.yml"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(prefix() / "bin/pip"));
    stdfs::remove(lock);
}

TEST_F(HostileSkeleton, ADataFileOverPyvenvCfgIsRefused) {
    WheelSpec spec;
    spec.data["data"] = {{"pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n"}};
    expect_refused(release("pyvenv", spec),
                   {wheel_name, "member 'victim-2.0.data/data/pyvenv.cfg'",
                    "would replace the prefix's pyvenv.cfg; aitk-env owns it"});
}

TEST_F(HostileSkeleton, FilesOverTheInterpreterAreRefused) {
    WheelSpec scripts;
    scripts.data["scripts"] = {{"python3", "#!/bin/sh\necho pwned\n", true}};
    expect_refused(release("interp-scripts", scripts),
                   {wheel_name, "member 'victim-2.0.data/scripts/python3'",
                    "would replace the prefix's interpreter bin/python3; aitk-env owns it"});
    WheelSpec data;
    data.data["data"] = {{"bin/python", "#!/bin/sh\necho pwned\n", true}};
    expect_refused(release("interp-data", data),
                   {wheel_name, "member 'victim-2.0.data/data/bin/python'",
                    "would replace the prefix's interpreter bin/python; aitk-env owns it"});
    WheelSpec versioned;
    versioned.data["scripts"] = {{"python3.11", "#!/bin/sh\necho pwned\n", true}};
    expect_refused(
        release("interp-versioned", versioned),
        {wheel_name, "member 'victim-2.0.data/scripts/python3.11'", "interpreter bin/python3.11"});
}

TEST_F(HostileSkeleton, ScriptsNamedLikeTheInterpreterOrAShimAreRefused) {
    WheelSpec console;
    console.console_scripts = {"python3 = victim:main"};
    expect_refused(release("console-python3", console),
                   {wheel_name, "member 'victim-2.0.dist-info/entry_points.txt'",
                    "console_scripts 'python3' would replace the prefix's interpreter "
                    "bin/python3; aitk-env owns it"});
    WheelSpec gui;
    gui.gui_scripts = {"activate = victim:main"};
    expect_refused(release("gui-activate", gui),
                   {wheel_name, "member 'victim-2.0.dist-info/entry_points.txt'",
                    "gui_scripts 'activate' would replace the prefix's activation script "
                    "bin/activate"});
}

TEST_F(HostileSkeleton, FilesOverTheShimsAreRefused) {
    WheelSpec run;
    run.data["data"] = {{"bin/aitk-run", "#!/bin/sh\necho pwned\n", true}};
    expect_refused(release("shim-run", run),
                   {wheel_name, "member 'victim-2.0.data/data/bin/aitk-run'",
                    "would replace the prefix's launcher bin/aitk-run"});
    WheelSpec fish;
    fish.data["scripts"] = {{"activate.fish", "echo pwned\n"}};
    expect_refused(release("shim-fish", fish),
                   {wheel_name, "member 'victim-2.0.data/scripts/activate.fish'",
                    "would replace the prefix's activation script bin/activate.fish"});
}

TEST_F(HostileSkeleton, FilesUnderTheStateFolderAreRefused) {
    WheelSpec receipt;
    receipt.data["data"] = {{".aitk-env/receipt.json", "{}\n"}};
    expect_refused(release("state-receipt", receipt),
                   {wheel_name, "member 'victim-2.0.data/data/.aitk-env/receipt.json'",
                    "would replace the prefix's state file .aitk-env/receipt.json"});
    WheelSpec lock;
    lock.data["data"] = {{".aitk-env/lock.yml", "version: 1\n"}};
    expect_refused(release("state-lock", lock),
                   {wheel_name, "member 'victim-2.0.data/data/.aitk-env/lock.yml'",
                    "state file .aitk-env/lock.yml"});
}

// A RECORD that claims the prefix's pyvenv.cfg, as pip leaves one after installing such a wheel
// (the file then holds the wheel's bytes and matches its RECORD hash).
class ClaimedSkeleton {
  public:
    explicit ClaimedSkeleton(const stdfs::path& prefix, const stdfs::path& record)
        : prefix_(prefix),
          record_(record),
          cfg_(fs::read_file(prefix / "pyvenv.cfg")),
          rows_(fs::read_file(record)) {}
    ~ClaimedSkeleton() {
        fs::write_file_atomic(prefix_ / "pyvenv.cfg", cfg_);
        if (stdfs::exists(record_.parent_path())) fs::write_file_atomic(record_, rows_);
    }
    const std::string& original_cfg() const { return cfg_; }
    void claim(const std::string& relative, const std::string& content) {
        fs::write_file_atomic(record_, fs::read_file(record_) + record_line(relative, content));
    }

  private:
    stdfs::path prefix_;
    stdfs::path record_;
    std::string cfg_;
    std::string rows_;
};

TEST_F(HostileSkeleton, VerifyReportsARecordThatClaimsThePrefixsOwnFiles) {
    const auto record = site_packages() / "victim-1.0.dist-info/RECORD";
    ClaimedSkeleton claimed(prefix(), record);
    std::string cfg = claimed.original_cfg();
    cfg.replace(cfg.find("include-system-site-packages = false"), 36,
                "include-system-site-packages = true");
    fs::write_file_atomic(prefix() / "pyvenv.cfg", cfg);
    claimed.claim("../../../pyvenv.cfg", cfg);

    auto r = world->cli_with_index({"verify", "-p", prefix().string()}, "");
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    EXPECT_NE(r.out.find("skeleton victim: ../../../pyvenv.cfg (the prefix's pyvenv.cfg; "
                         "aitk-env owns it, no distribution may)"),
              std::string::npos)
        << r.out;
    auto json = world->cli_with_index({"verify", "-p", prefix().string(), "--json"}, "");
    EXPECT_EQ(json.exit_code, 4);
    EXPECT_NE(json.out.find("\"problem\": \"skeleton\""), std::string::npos) << json.out;
}

// victim 1.5 replaces 1.0: every file 1.0's RECORD lists goes, but never the prefix's own.
TEST_F(HostileSkeleton, RemovingADistributionThatClaimsPyvenvCfgKeepsIt) {
    const auto record = site_packages() / "victim-1.0.dist-info/RECORD";
    ClaimedSkeleton claimed(prefix(), record);
    claimed.claim("../../../pyvenv.cfg", claimed.original_cfg());
    const auto lock = victim_lock_for(*world, release("plain-1.5", WheelSpec{}, "1.5"), "1.5");
    ASSERT_FALSE(lock.empty());
    auto r = sync(lock);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(site_packages() / "victim-1.0.dist-info"));
    ASSERT_TRUE(stdfs::exists(prefix() / "pyvenv.cfg"));
    EXPECT_EQ(fs::read_file(prefix() / "pyvenv.cfg"), claimed.original_cfg());
    r = sync(world->path("env.lock.yml"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    stdfs::remove(lock);
}

TEST_F(HostileSkeleton, RemovingADistributionThatClaimsAStateFileKeepsIt) {
    const auto record = site_packages() / "victim-1.0.dist-info/RECORD";
    ClaimedSkeleton claimed(prefix(), record);
    const std::string receipt = fs::read_file(prefix() / ".aitk-env/receipt.json");
    claimed.claim("../../../.aitk-env/receipt.json", receipt);
    const auto lock = victim_lock_for(*world, release("plain-1.5", WheelSpec{}, "1.5"), "1.5");
    ASSERT_FALSE(lock.empty());
    auto r = sync(lock);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(site_packages() / "victim-1.0.dist-info"));
    EXPECT_TRUE(stdfs::exists(prefix() / ".aitk-env/receipt.json"));
    r = sync(world->path("env.lock.yml"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    stdfs::remove(lock);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
