// Source builds through the real binary (issue 7's "done when"): a manifest whose requirements
// are a git commit of a project with an in-tree PEP 517 backend and an sdist-only package on
// the local mirror sets up from nothing, pip sees what it installed, and a second setup with
// the same cache runs no backend (offline, the repository gone). Also: a branch pinned at lock
// time and moved only by --upgrade-package, a build that fails on purpose, --no-build, an
// editable git requirement, and a branch that a --no-build lock left unpinned.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "../app/source_test_support.hpp"
#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using app::source_test::SourceProject;

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// A project built by the test backend: it depends on dep-pkg and imports build-helper, which
// must come from the build environment aitk-env installs from the mirror.
SourceProject project(const std::string& name, const std::string& version,
                      const stdfs::path& marker) {
    SourceProject p;
    p.backend.name = name;
    p.backend.version = version;
    p.backend.marker = marker;
    p.requires_dist = {"dep-pkg>=1.0"};
    p.build_requires = "[\"build-helper\"]";
    p.import_module = "build_helper";
    p.editable_hook = true;  // used only by the `-e git+` test
    return p;
}

// Every path under `root` with its type, size and modification time.
std::map<std::string, std::string> snapshot(const stdfs::path& root) {
    std::map<std::string, std::string> files;
    for (auto it = stdfs::recursive_directory_iterator(root);
         it != stdfs::recursive_directory_iterator(); ++it) {
        auto status = it->symlink_status();
        std::string what = std::to_string(static_cast<int>(status.type()));
        if (status.type() == stdfs::file_type::regular) {
            what += " " + std::to_string(it->file_size()) + " " +
                    std::to_string(it->last_write_time().time_since_epoch().count());
        }
        files[stdfs::relative(it->path(), root).string()] = what;
    }
    return files;
}

// The paths whose entries differ between two snapshots, one a line.
std::string changed(const std::map<std::string, std::string>& before,
                    const std::map<std::string, std::string>& after) {
    std::string out;
    for (const auto& [path, what] : before) {
        auto it = after.find(path);
        if (it == after.end()) {
            out += "removed " + path + "\n";
        } else if (it->second != what) {
            out += "changed " + path + "\n";
        }
    }
    for (const auto& [path, what] : after) {
        if (!before.count(path)) out += "added " + path + "\n";
    }
    return out;
}

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

class SetupSourcesCli : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        suite = new fs::TempDir(fs::TempDir::create("aitk-setup-sources"));
        MirrorBuilder m(suite->path() / "mirror");
        m.add_index("simple");
        for (const std::string name : {"dep-pkg", "build-helper"}) {
            WheelSpec w;
            w.name = name;
            w.version = "1.0";
            m.add_wheel("simple", w);
        }
        // Published only as an sdist whose PKG-INFO (2.1) does not make its dependencies
        // static: the lock asks its backend.
        m.add_file("simple",
                   app::source_test::write_sdist(
                       suite->path() / "out", project("sdist_demo", "0.5", sdist_marker()),
                       app::source_test::pkg_info("2.1", "sdist-demo", "0.5", {"dep-pkg>=1.0"})));
        m.write();
    }
    static void TearDownTestSuite() { delete suite; }
    static stdfs::path sdist_marker() { return suite->path() / "sdist-demo.marker"; }

    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        server.serve_directory(suite->path() / "mirror");
        repo = work.path() / "repo";
        marker = work.path() / "git-demo.marker";
        commit = app::source_test::make_repository(repo, project("git_demo", "1.2.3", marker));
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    std::string git_requirement(const std::string& revision) const {
        return "git-demo @ git+" + build::test::file_url(repo) + "@" + revision;
    }

    void write_manifest(const std::string& revision) const {
        fs::write_file_atomic(work.path() / "manifest.yaml",
                              "format: 1\n"
                              "name: sources-demo\n"
                              "python:\n"
                              "  preferred: \"3.12.1\"\n"
                              "requirements:\n"
                              "  - \"" +
                                  git_requirement(revision) +
                                  "\"\n"
                                  "  - \"sdist-demo\"\n");
    }

    // The binary run in the work folder (setup writes lockfiles/ there), on a machine without
    // a GPU, with CPython 3.12.1 and git on PATH, no proxy and a private cache.
    Outcome aitk(std::vector<std::string> args, const std::string& cache = "cache") const {
        util::ProcessRequest request;
        request.argv = {AITK_ENV_EXE, "--index-url", server.url("/simple/"), "--no-progress"};
        request.argv.insert(request.argv.end(), args.begin(), args.end());
        request.environment = util::Environment{{"PATH", python_bin + ":/usr/bin:/bin"},
                                                {"HOME", work.path().string()},
                                                {"PYENV_ROOT", "/nonexistent"},
                                                {"AITK_ENV_CACHE_DIR", path(cache)},
                                                {"AITK_ENV_NO_GPU", "1"},
                                                {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
                                                {"AITK_ENV_NVIDIA_SMI", "/nonexistent"}};
        request.working_directory = work.path();
        request.timeout = std::chrono::minutes(3);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err};
    }

    // A program run with a clean environment (no PYTHONPATH, no PIP_*).
    static Outcome run(std::vector<std::string> argv) {
        util::ProcessRequest request;
        request.argv = std::move(argv);
        request.environment = util::Environment{{"PATH", "/usr/bin:/bin"},
                                                {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
                                                {"PIP_NO_INPUT", "1"}};
        request.timeout = std::chrono::minutes(1);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {result->end == util::ProcessEnd::exited ? result->exit_code : -1, result->out,
                result->err};
    }

    stdfs::path site(const std::string& prefix) const {
        return work.path() / prefix / "lib" / "python3.12" / "site-packages";
    }

    // The prefix's own interpreter imports both source packages.
    void expect_imports(const std::string& prefix) const {
        auto ran = run({path(prefix) + "/bin/python", "-c",
                        "import git_demo, sdist_demo, dep_pkg; "
                        "print(git_demo.VALUE, sdist_demo.VALUE)"});
        EXPECT_EQ(ran.exit_code, 0) << ran.err;
        EXPECT_EQ(ran.out, "42 42\n");
    }

    nlohmann::json git_direct_url(const std::string& prefix) const {
        auto file = site(prefix) / "git_demo-1.2.3.dist-info" / "direct_url.json";
        if (!stdfs::exists(file)) return nullptr;
        return nlohmann::json::parse(fs::read_file(file));
    }

    // Every hook call of both backends (each appends a line to its marker).
    std::size_t hook_calls() const {
        return app::source_test::count_lines_starting(marker, "") +
               app::source_test::count_lines_starting(sdist_marker(), "");
    }

    std::size_t git_wheel_builds() const {
        return app::source_test::count_lines_starting(marker, "build_wheel");
    }
    static std::size_t sdist_wheel_builds() {
        return app::source_test::count_lines_starting(sdist_marker(), "build_wheel");
    }

    static inline fs::TempDir* suite = nullptr;
    ClearProxyEnvironment no_proxy;
    HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-setup-sources-work");
    stdfs::path repo;
    stdfs::path marker;
    std::string commit;
};

TEST_F(SetupSourcesCli, AGitCommitAndAnSdistSetUpFromNothingAndAgainFromTheCache) {
    write_manifest(commit);
    const auto sdist_builds = sdist_wheel_builds();
    auto first = aitk({"setup", "-m", "manifest.yaml", "-p", "first"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(git_wheel_builds(), 1u);
    EXPECT_EQ(sdist_wheel_builds(), sdist_builds + 1);
    expect_imports("first");

    // PEP 610: the git package says where it came from; the one from the index does not.
    EXPECT_EQ(git_direct_url("first"),
              nlohmann::json(
                  {{"url", build::test::file_url(repo)},
                   {"vcs_info",
                    {{"vcs", "git"}, {"commit_id", commit}, {"requested_revision", commit}}}}));
    EXPECT_FALSE(stdfs::exists(site("first") / "sdist_demo-0.5.dist-info" / "direct_url.json"));
    for (const std::string dist : {"git_demo-1.2.3", "sdist_demo-0.5", "dep_pkg-1.0"}) {
        EXPECT_EQ(fs::read_file(site("first") / (dist + ".dist-info") / "INSTALLER"), "aitk-env\n")
            << dist;
    }
    // pip reads the same: the commit in `pip freeze`, the installer in `pip list -v`.
    const std::string pip = python_bin + "/python3.12";
    auto freeze = run({pip, "-m", "pip", "freeze", "--path", site("first").string()});
    ASSERT_EQ(freeze.exit_code, 0) << freeze.err;
    // (The test backend writes the names as "git_demo", and pip prints them as written.)
    EXPECT_TRUE(
        has_line(freeze.out, "git_demo @ git+" + build::test::file_url(repo) + "@" + commit))
        << freeze.out;
    EXPECT_TRUE(has_line(freeze.out, "sdist_demo==0.5")) << freeze.out;
    EXPECT_TRUE(has_line(freeze.out, "dep-pkg==1.0")) << freeze.out;
    auto list =
        run({pip, "-m", "pip", "list", "-v", "--format", "json", "--path", site("first").string()});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    std::map<std::string, std::string> installers;
    for (const auto& d : nlohmann::json::parse(list.out))
        installers[d["name"]] = d.value("installer", "");
    EXPECT_EQ(installers["git_demo"], "aitk-env") << list.out;
    EXPECT_EQ(installers["sdist_demo"], "aitk-env") << list.out;

    auto verify = aitk({"verify", "-p", "first"});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;

    // A new prefix, the same cache: the metadata and the wheels come from the cache, and no
    // backend runs. Offline, without the lockfile and with the repository gone: nothing but
    // the cache is needed.
    const auto calls = hook_calls();
    const auto requests = server.requests().size();
    stdfs::remove_all(work.path() / "lockfiles");
    stdfs::rename(repo, work.path() / "repo-moved");
    auto second = aitk({"--offline", "setup", "-m", "manifest.yaml", "-p", "second"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.err.find("changes  3 installed, 0 reinstalled, 0 removed, 0 unchanged\n"),
              std::string::npos)
        << second.err;
    EXPECT_EQ(hook_calls(), calls);
    EXPECT_EQ(server.requests().size(), requests);
    expect_imports("second");
    EXPECT_EQ(git_direct_url("second"), git_direct_url("first"));
    EXPECT_EQ(aitk({"verify", "-p", "second"}).exit_code, 0);
}

// The lock's `commit:` line for `commit`: plain, or double-quoted when the hash could read as a
// number under some YAML resolver ("0b6f…", "1e40…"; lock/yaml_scalar.hpp errs on quoting), which
// depends on the commit's random bytes.
bool locks_commit(const std::string& lock_text, const std::string& commit) {
    return lock_text.find("commit: " + commit + "\n") != std::string::npos ||
           lock_text.find("commit: \"" + commit + "\"\n") != std::string::npos;
}

TEST_F(SetupSourcesCli, ALockPinsTheBranchAndOnlyUpgradePackageMovesIt) {
    write_manifest("main");
    auto locked = aitk({"lock", "-m", "manifest.yaml", "-o", "env.lock.yml"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto text = fs::read_file(work.path() / "env.lock.yml");
    EXPECT_TRUE(locks_commit(text, commit)) << text;
    EXPECT_NE(text.find("revision: main"), std::string::npos) << text;
    auto setup = aitk({"setup", "-l", "env.lock.yml", "-p", "prefix"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    ASSERT_EQ(git_wheel_builds(), 1u);

    // A new commit on main (same version): locking again keeps the pinned commit.
    build::test::write_file(repo / "CHANGES", "second commit\n");
    build::test::git(repo, {"add", "-A"});
    build::test::git(repo, {"commit", "-q", "-m", "second"});
    const auto newer = build::test::git(repo, {"rev-parse", "HEAD"});
    ASSERT_NE(newer, commit);
    auto again = aitk({"lock", "-m", "manifest.yaml", "-o", "env.lock.yml"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(fs::read_file(work.path() / "env.lock.yml"), text);

    auto upgraded = aitk(
        {"lock", "-m", "manifest.yaml", "-o", "env.lock.yml", "--upgrade-package", "git-demo"});
    ASSERT_EQ(upgraded.exit_code, 0) << upgraded.err;
    auto moved = fs::read_file(work.path() / "env.lock.yml");
    EXPECT_TRUE(locks_commit(moved, newer)) << moved;
    EXPECT_EQ(moved.find(commit), std::string::npos) << moved;

    // sync rebuilds and reinstalls that package only.
    auto plan = aitk({"sync", "-l", "env.lock.yml", "-p", "prefix", "--dry-run"});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_EQ(plan.out, "reinstall  git-demo 1.2.3\n2 unchanged\n");
    const auto sdist_builds = sdist_wheel_builds();
    auto sync = aitk({"sync", "-l", "env.lock.yml", "-p", "prefix"});
    ASSERT_EQ(sync.exit_code, 0) << sync.err;
    EXPECT_EQ(git_wheel_builds(), 2u);
    EXPECT_EQ(sdist_wheel_builds(), sdist_builds);
    EXPECT_EQ(
        git_direct_url("prefix")["vcs_info"],
        nlohmann::json({{"vcs", "git"}, {"commit_id", newer}, {"requested_revision", "main"}}));
    expect_imports("prefix");
    auto verify = aitk({"verify", "-p", "prefix", "-l", "env.lock.yml"});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    auto noop = aitk({"sync", "-l", "env.lock.yml", "-p", "prefix", "--dry-run"});
    EXPECT_EQ(noop.out, "3 unchanged\n");
}

TEST_F(SetupSourcesCli, ABuildThatFailsExitsOneShowsWhyAndLeavesThePrefixAsItWas) {
    write_manifest(commit);
    auto good = aitk({"setup", "-m", "manifest.yaml", "-p", "prefix"});
    ASSERT_EQ(good.exit_code, 0) << good.err;
    const auto before = snapshot(work.path() / "prefix");

    auto broken = project("git_demo", "1.2.3", marker);
    broken.backend.before_build = "raise RuntimeError('boom: no compiler here')";
    const auto bad = app::source_test::commit_again(repo, broken);
    write_manifest(bad);
    auto failed = aitk({"setup", "-m", "manifest.yaml", "-p", "prefix"});
    EXPECT_EQ(failed.exit_code, 1) << failed.err;
    EXPECT_NE(failed.err.find("RuntimeError: boom: no compiler here"), std::string::npos)
        << failed.err;
    EXPECT_NE(failed.err.find("--- to rerun the build_wheel hook ---"), std::string::npos)
        << failed.err;
    EXPECT_NE(failed.err.find("pep517_driver.py build_wheel "), std::string::npos) << failed.err;

    EXPECT_EQ(changed(before, snapshot(work.path() / "prefix")), "");
    auto verify = aitk({"verify", "-p", "prefix"});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_EQ(git_direct_url("prefix")["vcs_info"]["commit_id"], commit);
    expect_imports("prefix");

    // A new prefix gets nothing half-installed either.
    auto fresh = aitk({"setup", "-m", "manifest.yaml", "-p", "fresh"});
    EXPECT_EQ(fresh.exit_code, 1) << fresh.err;
    std::error_code ec;
    EXPECT_FALSE(stdfs::exists(site("fresh") / "dep_pkg", ec));
    EXPECT_FALSE(stdfs::exists(site("fresh") / "sdist_demo", ec));
}

TEST_F(SetupSourcesCli, NoBuildSkipsTheSourcePackagesWithANote) {
    write_manifest(commit);
    const auto calls = hook_calls();
    auto setup = aitk({"setup", "-m", "manifest.yaml", "-p", "prefix", "--no-build"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_EQ(hook_calls(), calls);
    EXPECT_NE(setup.err.find("note     git-demo is not installed: it comes from git+" +
                             build::test::file_url(repo)),
              std::string::npos)
        << setup.err;
    EXPECT_NE(setup.err.find("note     sdist-demo is not installed"), std::string::npos)
        << setup.err;
    EXPECT_NE(setup.err.find("--no-build is set"), std::string::npos) << setup.err;
    EXPECT_FALSE(stdfs::exists(site("prefix") / "git_demo"));
    EXPECT_FALSE(stdfs::exists(site("prefix") / "sdist_demo"));
    EXPECT_EQ(aitk({"verify", "-p", "prefix"}).exit_code, 0);
}

TEST_F(SetupSourcesCli, AnEditableGitRequirementIsClonedIntoPrefixSrcAndInstalledEditable) {
    fs::write_file_atomic(
        work.path() / "requirements.txt",
        "-e git+" + build::test::file_url(repo) + "@" + commit + "#egg=git-demo\n");
    auto setup = aitk({"setup", "-r", "requirements.txt", "-p", "prefix"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_EQ(setup.err.find("-e is not supported"), std::string::npos) << setup.err;
    const auto clone = work.path() / "prefix" / "src" / "git-demo";
    auto head = run({"git", "-C", clone.string(), "rev-parse", "HEAD"});
    EXPECT_EQ(head.out, commit + "\n") << head.err;
    EXPECT_EQ(git_direct_url("prefix"), nlohmann::json({{"url", "file://" + clone.generic_string()},
                                                        {"dir_info", {{"editable", true}}}}));
}

TEST_F(SetupSourcesCli, ABranchThatNoLockPinnedIsSkippedWithTheWayToPinIt) {
    write_manifest("main");
    auto locked = aitk({"lock", "-m", "manifest.yaml", "-o", "env.lock.yml", "--no-build"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto setup = aitk({"setup", "-l", "env.lock.yml", "-p", "prefix"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_NE(setup.err.find("note     git-demo is not installed: it comes from git+" +
                             build::test::file_url(repo) +
                             "@main, which the lock does not pin to a commit; lock again "
                             "without --no-build to pin one\n"),
              std::string::npos)
        << setup.err;
    EXPECT_EQ(git_wheel_builds(), 0u);
    // The sdist needs no pin: it is built.
    EXPECT_TRUE(stdfs::exists(site("prefix") / "sdist_demo" / "__init__.py"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
