// PEP 751 pylock.toml packages that are not wheels, through the real binary: an sdist from an
// index, an archive by URL, a git commit (vcs) and a directory next to the file, each built
// by the build layer's test backend, set up from the file alone; then the file converted with
// `lock --from`, exported again with `export --format pylock` and set up from that export: the
// same distributions at the same versions and origins.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "../app/source_test_support.hpp"
#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
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

// A project built by the test backend; it depends on dep-pkg, and its backend imports
// build-helper, which must come from the build environment aitk-env makes from the index.
SourceProject project(const std::string& name, const std::string& version,
                      const stdfs::path& marker) {
    SourceProject p;
    p.backend.name = name;
    p.backend.version = version;
    p.backend.marker = marker;
    p.requires_dist = {"dep-pkg>=1.0"};
    p.build_requires = "[\"build-helper\"]";
    p.import_module = "build_helper";
    return p;
}

std::string file_entry(const std::string& url, const stdfs::path& file) {
    return "{url = \"" + url + "\", size = " + std::to_string(stdfs::file_size(file)) +
           ", hashes = {sha256 = \"" + fs::sha256_file_hex(file) + "\"}}";
}

class PylockSourcesCli : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!stdfs::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no CPython 3.12.1";
        MirrorBuilder m(path("mirror"));
        m.add_index("simple");
        for (const std::string name : {"dep-pkg", "build-helper"}) {
            WheelSpec w;
            w.name = name;
            w.version = "1.0";
            const auto& published = m.add_wheel("simple", w);
            if (name == "dep-pkg") dep_wheel = published;
        }
        sdist = m.add_file("simple", app::source_test::write_sdist(
                                         path("out"), project("sdist_demo", "0.5", marker()),
                                         app::source_test::pkg_info("2.1", "sdist-demo", "0.5",
                                                                    {"dep-pkg>=1.0"})));
        m.write();
        // An archive that no index lists, by its URL.
        archive = app::source_test::write_sdist(
            path("mirror") / "archives", project("archive_demo", "0.3", marker()),
            app::source_test::pkg_info("2.1", "archive-demo", "0.3", {"dep-pkg>=1.0"}));
        server.serve_directory(path("mirror"));
        commit =
            app::source_test::make_repository(path("repo"), project("git_demo", "1.2.3", marker()));
        app::source_test::write_project(path("project") / "dir-demo",
                                        project("dir_demo", "2.0", marker()));
    }

    stdfs::path path(const std::string& name) const { return work.path() / name; }
    std::string p(const std::string& name) const { return path(name).string(); }
    stdfs::path marker() const { return path("backend.marker"); }

    // The project's pylock.toml, in path("project"): its directory package is "dir-demo",
    // relative to the file, as PEP 751 allows.
    std::string pylock() const {
        const std::string index = server.url("/simple/");
        return "lock-version = \"1.0\"\ncreated-by = \"hand\"\n"
               "\n[[packages]]\nname = \"dep-pkg\"\nversion = \"1.0\"\nindex = \"" +
               index + "\"\nwheels = [" +
               file_entry(server.url(dep_wheel.url_path), dep_wheel.artifact.path) +
               "]\n"
               "\n[[packages]]\nname = \"sdist-demo\"\nversion = \"0.5\"\nindex = \"" +
               index + "\"\ndependencies = [{name = \"dep-pkg\"}]\nsdist = " +
               file_entry(server.url(sdist.url_path), sdist.artifact.path) +
               "\n"
               "\n[[packages]]\nname = \"archive-demo\"\nversion = \"0.3\"\narchive = " +
               file_entry(server.url("/archives/archive_demo-0.3.tar.gz"), archive) +
               "\n"
               "\n[[packages]]\nname = \"git-demo\"\nvcs = {type = \"git\", url = \"" +
               build::test::file_url(path("repo")) +
               "\", requested-revision = \"main\", commit-id = \"" + commit +
               "\"}\n"
               "\n[[packages]]\nname = \"dir-demo\"\ndirectory = {path = \"dir-demo\"}\n";
    }

    // The binary on a machine without a GPU, with CPython 3.12.1 and git on PATH, no proxy and
    // a private cache; --index-url is where build requirements come from.
    Outcome aitk(std::vector<std::string> args) const {
        util::ProcessRequest request;
        request.argv = {AITK_ENV_EXE, "--index-url", server.url("/simple/"), "--no-progress"};
        request.argv.insert(request.argv.end(), args.begin(), args.end());
        request.environment = util::Environment{{"PATH", python_bin + ":/usr/bin:/bin"},
                                                {"HOME", work.path().string()},
                                                {"PYENV_ROOT", "/nonexistent"},
                                                {"AITK_ENV_CACHE_DIR", p("cache")},
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

    stdfs::path site(const std::string& prefix) const {
        return path(prefix) / "lib" / "python3.12" / "site-packages";
    }

    // name → version, and the origin (direct_url.json) of each, of what a prefix holds.
    std::map<std::string, std::string> installed(const std::string& prefix) const {
        auto listed = aitk({"--json", "list", "-p", p(prefix)});
        EXPECT_EQ(listed.exit_code, 0) << listed.err;
        std::map<std::string, std::string> out;
        for (const auto& item : nlohmann::json::parse(listed.out)) {
            out[item.at("name").get<std::string>()] = item.at("version").get<std::string>();
        }
        return out;
    }

    std::string origin(const std::string& prefix, const std::string& dist) const {
        auto file = site(prefix) / (dist + ".dist-info") / "direct_url.json";
        if (!stdfs::exists(file)) return "index";
        auto json = nlohmann::json::parse(fs::read_file(file));
        if (json.contains("vcs_info")) return "vcs " + json["vcs_info"]["commit_id"].dump();
        if (json.contains("dir_info")) return "directory " + json["url"].dump();
        return "archive " + json["url"].dump();
    }

    void expect_imports(const std::string& prefix) const {
        util::ProcessRequest request;
        request.argv = {p(prefix) + "/bin/python", "-c",
                        "import sdist_demo, archive_demo, git_demo, dir_demo, dep_pkg; "
                        "print(sdist_demo.VALUE, archive_demo.VALUE, git_demo.VALUE, "
                        "dir_demo.VALUE)"};
        request.environment = util::Environment{{"PATH", "/usr/bin:/bin"}};
        request.timeout = std::chrono::minutes(1);
        auto ran = util::run_process(request);
        ASSERT_TRUE(ran);
        EXPECT_EQ(ran->exit_code, 0) << ran->err;
        EXPECT_EQ(ran->out, "42 42 42 42\n");
    }

    ClearProxyEnvironment no_proxy;
    fs::TempDir work = fs::TempDir::create("aitk-pylock-sources");
    HttpServer server;
    PublishedFile dep_wheel;
    PublishedFile sdist;
    stdfs::path archive;
    std::string commit;
};

TEST_F(PylockSourcesCli, SdistArchiveVcsAndDirectoryPackagesSetUpAndRoundTrip) {
    fs::write_file_atomic(path("project") / "pylock.toml", pylock());
    auto setup = aitk({"setup", "-l", p("project/pylock.toml"), "-p", p("first"), "--python",
                       python_bin + "/python3.12", "--no-smoke-test"});
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    expect_imports("first");
    const std::map<std::string, std::string> expected = {
        {"archive-demo", "0.3"}, {"dep-pkg", "1.0"},    {"dir-demo", "2.0"},
        {"git-demo", "1.2.3"},   {"sdist-demo", "0.5"},
    };
    EXPECT_EQ(installed("first"), expected);
    EXPECT_EQ(origin("first", "git_demo-1.2.3"), "vcs \"" + commit + "\"");
    EXPECT_EQ(origin("first", "dir_demo-2.0"),
              "directory \"" + build::test::file_url(path("project") / "dir-demo") + "\"");
    EXPECT_EQ(origin("first", "archive_demo-0.3"),
              "archive \"" + server.url("/archives/archive_demo-0.3.tar.gz") + "\"");
    EXPECT_EQ(origin("first", "sdist_demo-0.5"), "index");
    auto verify = aitk({"verify", "-p", p("first")});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;

    // pylock.toml → our lockfile → our pylock.toml → a second prefix: the same set, the same
    // origins. The export names the directory by its absolute path, outside the export's own
    // folder, so the user vouches for that folder (issue 33's rule for a handed-over lock).
    auto locked = aitk({"lock", "--from", p("project/pylock.toml"), "-o", p("env.lock.yml"),
                        "--python", "3.12.1"});
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    auto exported =
        aitk({"export", "-l", p("env.lock.yml"), "--format", "pylock", "-o", p("out/pylock.toml")});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    auto second = aitk({"setup", "-l", p("out/pylock.toml"), "-p", p("second"), "--python",
                        python_bin + "/python3.12", "--no-smoke-test"});
    EXPECT_EQ(second.exit_code, 2) << second.err;
    EXPECT_NE(second.err.find("--find-links DIR"), std::string::npos) << second.err;
    EXPECT_FALSE(stdfs::exists(path("second")));
    second = aitk({"--find-links", p("project"), "setup", "-l", p("out/pylock.toml"), "-p",
                   p("second"), "--python", python_bin + "/python3.12", "--no-smoke-test"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    expect_imports("second");
    EXPECT_EQ(installed("second"), expected);
    for (const std::string dist :
         {"git_demo-1.2.3", "dir_demo-2.0", "archive_demo-0.3", "sdist_demo-0.5"}) {
        EXPECT_EQ(origin("second", dist), origin("first", dist)) << dist;
    }
    EXPECT_EQ(aitk({"verify", "-p", p("second")}).exit_code, 0);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
