// An editable git requirement ("-e git+...@commit#egg=name") as pip installs it: a real clone in
// <prefix>/src/<name> at the locked commit, built with build_editable and imported from there
// (an edit shows without reinstalling); a second build leaves the clone and its edits alone,
// and a clone with changes is not moved to another locked commit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "aitk/app/source_builds.hpp"
#include "aitk/build/error.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/util/error.hpp"
#include "app_calls.hpp"
#include "source_test_support.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using source_test::SourceProject;

// build_editable of this backend makes the wheel pip's editable installs amount to: a .pth
// naming the project folder the hook ran in, so the package imports from the source tree.
const char* const editable_hook = R"PY(

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _mark("build_editable")
    files = {
        "__editable__." + NAME + ".pth": os.path.abspath(".") + "\n",
        DIST_INFO + "/METADATA": METADATA,
        DIST_INFO + "/WHEEL": "Wheel-Version: 1.0\nGenerator: test-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    filename = NAME + "-" + VERSION + "-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as wheel:
        for path, text in files.items():
            data = text.encode()
            wheel.writestr(path, data)
            record.append(_record_line(path, data))
        record.append(DIST_INFO + "/RECORD,,")
        wheel.writestr(DIST_INFO + "/RECORD", "\n".join(record) + "\n")
    return filename
)PY";

class EditableVcsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repo = work.path() / "repo";
        prefix = work.path() / "prefix";
        marker = work.path() / "git-demo.marker";
        project.backend.name = "git_demo";
        project.backend.version = "1.2.3";
        project.backend.marker = marker;
        stdfs::create_directories(repo);
        build::test::git(repo, {"init", "-q", "-b", "main"});
        write_files("one");
        build::test::git(repo, {"add", "-A"});
        build::test::git(repo, {"commit", "-q", "-m", "first"});
        commit = build::test::git(repo, {"rev-parse", "HEAD"});
    }

    void write_files(const std::string& value) {
        source_test::write_project(repo, project);
        build::test::write_file(repo / "backend" / "testbackend.py",
                                source_test::backend_text(project) + editable_hook);
        build::test::write_file(repo / "git_demo" / "__init__.py", "VALUE = '" + value + "'\n");
    }

    std::string commit_again(const std::string& value) {
        write_files(value);
        build::test::git(repo, {"add", "-A"});
        build::test::git(repo, {"commit", "-q", "-m", "again"});
        return build::test::git(repo, {"rev-parse", "HEAD"});
    }

    lock::LockedPackage package(const std::string& at) const {
        lock::LockedPackage p;
        p.name = "git-demo";
        p.version = "1.2.3";
        p.requested = true;
        p.source = lock::LockedSource{};
        p.source->kind = lock::SourceKind::vcs;
        p.source->url = "git+" + build::test::file_url(repo);
        p.source->commit = at;
        p.source->editable = true;
        return p;
    }

    std::vector<BuiltSource> build(const lock::LockedPackage& p) {
        test::SourceBuildCall r;
        r.sources = {&p};
        r.interpreter = build::test::interpreter();
        r.cache_root = work.path() / "cache";
        r.output_dir = work.path() / "wheels";
        r.prefix = prefix;
        r.provider = &provider;
        return build_source_packages(r);
    }

    // Installs the wheel into the prefix's site-packages and imports the package from a fresh
    // interpreter that reads the .pth files there as site-packages would.
    std::string install_and_import(const BuiltSource& b) {
        cache::Cache cache(work.path() / "cache");
        auto layout = install::PrefixLayout::for_venv(prefix, "3.12", false);
        auto tree = cache.ensure_unpacked(
            b.wheel_sha256, [&](const stdfs::path& dest) { install::unpack_wheel(b.wheel, dest); });
        install::WheelInstallRequest r;
        r.unpacked = tree.path();
        r.name = b.name;
        r.version = b.version;
        r.direct_url = b.direct_url;
        dist_info = install::install_wheel(layout, r).dist_info;
        purelib = layout.purelib;
        return import_value();
    }

    std::string import_value() const {
        util::ProcessRequest run;
        run.argv = {build::test::python312.string(), "-c",
                    "import site, sys; site.addsitedir(sys.argv[1]); import git_demo; "
                    "print(git_demo.VALUE, git_demo.__file__)",
                    purelib.string()};
        auto ran = util::run_process(run);
        EXPECT_TRUE(ran && ran->succeeded()) << (ran ? ran->err : ran.error().message);
        return ran ? ran->out : std::string();
    }

    fs::TempDir work = fs::TempDir::create("aitk-editable-vcs");
    SourceProject project;
    build::test::RecordingProvider provider;
    stdfs::path repo;
    stdfs::path prefix;
    stdfs::path marker;
    stdfs::path dist_info;
    stdfs::path purelib;
    std::string commit;
};

TEST_F(EditableVcsTest, ClonesIntoPrefixSrcAndImportsFromThere) {
    const auto p = package(commit);
    auto built = build(p);
    ASSERT_EQ(built.size(), 1u);
    const stdfs::path src = prefix / "src" / "git-demo";
    EXPECT_EQ(editable_vcs_dir(p, prefix), src);
    EXPECT_TRUE(built[0].editable);
    EXPECT_FALSE(built[0].from_cache);
    EXPECT_EQ(built[0].wheel.parent_path(), work.path() / "wheels");  // never cached
    EXPECT_EQ(source_test::count_lines_starting(marker, "build_editable"), 1u);
    EXPECT_NE(build::test::read_file_or_empty(marker).find("cwd=" + src.string()),
              std::string::npos)
        << build::test::read_file_or_empty(marker);

    // A real clone at the locked commit whose origin is the repository.
    EXPECT_EQ(build::test::git(src, {"rev-parse", "HEAD"}), commit);
    EXPECT_EQ(build::test::git(src, {"rev-parse", "--show-toplevel"}), src.string());
    EXPECT_EQ(build::test::git(src, {"remote", "get-url", "origin"}), build::test::file_url(repo));
    EXPECT_EQ(build::test::git(src, {"status", "--porcelain"}), "");

    ASSERT_TRUE(built[0].direct_url);
    EXPECT_EQ(nlohmann::json::parse(*built[0].direct_url),
              nlohmann::json(
                  {{"url", "file://" + src.generic_string()}, {"dir_info", {{"editable", true}}}}));

    EXPECT_EQ(install_and_import(built[0]),
              "one " + (src / "git_demo" / "__init__.py").string() + "\n");
    EXPECT_EQ(build::test::read_file(dist_info / "direct_url.json"), *built[0].direct_url);
    // An edit in the clone shows without reinstalling.
    build::test::write_file(src / "git_demo" / "__init__.py", "VALUE = 'edited'\n");
    EXPECT_EQ(import_value(), "edited " + (src / "git_demo" / "__init__.py").string() + "\n");
}

TEST_F(EditableVcsTest, ASecondBuildLeavesTheCloneAndItsEditsAlone) {
    const auto p = package(commit);
    build(p);
    const stdfs::path src = prefix / "src" / "git-demo";
    build::test::write_file(src / "git_demo" / "__init__.py", "VALUE = 'edited'\n");
    build::test::write_file(src / "notes.txt", "mine\n");

    auto again = build(p);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_TRUE(again[0].editable);
    EXPECT_EQ(build::test::git(src, {"rev-parse", "HEAD"}), commit);
    EXPECT_EQ(build::test::read_file(src / "git_demo" / "__init__.py"), "VALUE = 'edited'\n");
    EXPECT_EQ(build::test::read_file(src / "notes.txt"), "mine\n");
    EXPECT_EQ(install_and_import(again[0]),
              "edited " + (src / "git_demo" / "__init__.py").string() + "\n");
}

TEST_F(EditableVcsTest, ACleanCloneMovesToANewlyLockedCommit) {
    build(package(commit));
    const stdfs::path src = prefix / "src" / "git-demo";
    build::test::write_file(src / "notes.txt", "untracked survive\n");
    const std::string second = commit_again("two");

    auto built = build(package(second));
    ASSERT_EQ(built.size(), 1u);
    EXPECT_EQ(build::test::git(src, {"rev-parse", "HEAD"}), second);
    EXPECT_EQ(build::test::read_file(src / "notes.txt"), "untracked survive\n");
    EXPECT_EQ(install_and_import(built[0]),
              "two " + (src / "git_demo" / "__init__.py").string() + "\n");
}

TEST_F(EditableVcsTest, ACloneWithChangesIsNotMovedToAnotherCommit) {
    build(package(commit));
    const stdfs::path src = prefix / "src" / "git-demo";
    build::test::write_file(src / "git_demo" / "__init__.py", "VALUE = 'edited'\n");
    const std::string second = commit_again("two");

    try {
        build(package(second));
        FAIL() << "a clone with changes was moved";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()), src.string() + " has local changes and is at commit " +
                                             commit + ", but the lock says git-demo 1.2.3 is at " +
                                             second);
        EXPECT_EQ(e.hint(), "commit or discard the changes in " + src.string() +
                                " (or move the folder away), then sync again; to keep working "
                                "on them, lock the commit you want instead");
    }
    EXPECT_EQ(build::test::git(src, {"rev-parse", "HEAD"}), commit);
    EXPECT_EQ(build::test::read_file(src / "git_demo" / "__init__.py"), "VALUE = 'edited'\n");
    EXPECT_EQ(source_test::count_lines_starting(marker, "build_editable"), 1u);
}

TEST_F(EditableVcsTest, AFolderThatIsNotAGitCheckoutIsRefused) {
    const stdfs::path src = prefix / "src" / "git-demo";
    build::test::write_file(src / "setup.py", "# someone else's\n");
    try {
        build(package(commit));
        FAIL() << "a foreign folder was used";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()), src.string() +
                                             " exists and is not a git checkout, so the editable "
                                             "git-demo 1.2.3 cannot be checked out there");
        EXPECT_EQ(e.hint(), "move or remove " + src.string() + ", then sync again");
    }
    EXPECT_EQ(build::test::read_file(src / "setup.py"), "# someone else's\n");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
