#include "aitk/build/build.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/build/error.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/pep/metadata.hpp"
#include "build_test_support.hpp"
#include "wheel_builder.hpp"

namespace aitk::build {
namespace AITK_FILE_LOCAL {

using test::read_file;
using test::read_file_or_empty;
using test::write_file;

class BuildTest : public ::testing::Test {
  protected:
    test::TempDir dir;
    std::filesystem::path marker = dir.path / "marker.log";
    cache::Cache store{dir.path / "cache"};
    BuiltWheelCache wheels{store};
    test::RecordingProvider provider;

    BuildOptions options(bool cached = true) {
        BuildOptions o;
        o.work_dir = dir.path / "work";
        std::filesystem::create_directories(o.work_dir);
        o.output_dir = dir.path / "dist";
        o.cache = cached ? &wheels : nullptr;
        o.timeout = std::chrono::seconds(60);
        return o;
    }
    test::BackendSpec spec() {
        test::BackendSpec s;
        s.marker = marker;
        return s;
    }
    std::vector<std::string> hooks_run() {
        std::vector<std::string> out;
        for (const auto& line : test::lines_of(read_file_or_empty(marker))) {
            out.push_back(line.substr(0, line.find(' ')));
        }
        return out;
    }
    // The work folder is empty again after a successful build.
    std::size_t leftovers() {
        std::size_t n = 0;
        for ([[maybe_unused]] const auto& e :
             std::filesystem::directory_iterator(dir.path / "work"))
            ++n;
        return n;
    }
};

// A git repository holding the backend project at the root and another one in "sub/".
struct GitProject {
    std::filesystem::path path;
    std::string commit;
    GitProject(const std::filesystem::path& where, const test::BackendSpec& spec) : path(where) {
        test::run({"git", "init", "--quiet", "-b", "main", path.string()});
        test::write_backend_project(path, spec);
        test::BackendSpec sub = spec;
        sub.name = "sub_pkg";
        sub.version = "0.1";
        test::write_backend_project(path / "sub", sub);
        test::git(path, {"add", "-A"});
        test::git(path, {"commit", "--quiet", "-m", "project"});
        commit = test::git(path, {"rev-parse", "HEAD"});
    }
};

TEST_F(BuildTest, GitSourceBuildsAWheelWithRightNameAndMetadata) {
    auto s = spec();
    GitProject project(dir.path / "repo", s);
    GitCache git(store);
    auto url = *parse_git_url("git+" + test::file_url(project.path) + "@main");
    const std::string commit = git.resolve(url);
    EXPECT_EQ(commit, project.commit);

    auto built =
        build_wheel(BuildSource::git(git, url, commit), provider, test::interpreter(), options());
    EXPECT_FALSE(built.from_cache);
    EXPECT_EQ(built.path.filename(), "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_TRUE(built.path.string().starts_with((store.base() / "built-wheels").string()));
    auto metadata = archive::read_wheel_metadata(built.path);
    EXPECT_EQ(metadata.path, "demo_pkg-1.2.3.dist-info/METADATA");
    EXPECT_EQ(metadata.content, test::expected_metadata(s));
    EXPECT_EQ(aitk::test::check_wheel_record(built.path), std::vector<std::string>{});
    EXPECT_EQ(archive::read_member(built.path, "demo_pkg/__init__.py"), "VALUE = 42\n");

    // One environment (no build requirements, none added), no PYTHONPATH, clean variables.
    EXPECT_EQ(provider.calls, (std::vector<std::vector<std::string>>{{}}));
    EXPECT_EQ(provider.purposes,
              (std::vector<std::string>{"build requirements of git+" +
                                        test::file_url(project.path) + "@" + commit}));
    auto lines = test::lines_of(read_file_or_empty(marker));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_TRUE(
        lines[0].starts_with("get_requires_for_build_wheel PYTHONPATH=- NOUSERSITE=1 PIP=- cwd="))
        << lines[0];
    EXPECT_TRUE(lines[1].starts_with("build_wheel PYTHONPATH=- NOUSERSITE=1 PIP=- cwd="))
        << lines[1];
    // The backend ran in a copy, never in the shared checkout.
    auto checkout = git.checkout_dir(url.repository, commit);
    EXPECT_EQ(lines[1].find(checkout.string()), std::string::npos) << lines[1];
    EXPECT_EQ(leftovers(), 0u);
}

TEST_F(BuildTest, SecondBuildIsACacheHitWithoutBackend) {
    GitProject project(dir.path / "repo", spec());
    GitCache git(store);
    auto url = *parse_git_url("git+" + test::file_url(project.path));
    auto source = BuildSource::git(git, url, project.commit);
    auto first = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_EQ(hooks_run(),
              (std::vector<std::string>{"get_requires_for_build_wheel", "build_wheel"}));

    // Not even the checkout is needed for a hit.
    std::filesystem::remove_all(git.root() / "checkouts");
    std::filesystem::rename(project.path, dir.path / "gone");
    auto second = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.path, first.path);
    EXPECT_EQ(hooks_run().size(), 2u);
    EXPECT_EQ(provider.calls.size(), 1u);

    // Another interpreter is another entry.
    auto other = test::interpreter("/root/.pyenv/versions/3.11.7/bin/python3.11", "3.11.7");
    EXPECT_FALSE(wheels.find(WheelCacheKey::for_interpreter(source.id(), other)));
    EXPECT_TRUE(wheels.find(WheelCacheKey::for_interpreter(source.id(), test::interpreter())));
}

TEST_F(BuildTest, TwoBuildsAtOnceRunTheBackendOnce) {
    GitProject project(dir.path / "repo", spec());
    GitCache git(store);
    auto source = BuildSource::git(git, *parse_git_url("git+" + test::file_url(project.path)),
                                   project.commit);
    BuiltWheel results[2];
    std::string errors[2];
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i]() {
            try {
                test::RecordingProvider own;
                results[i] = build_wheel(source, own, test::interpreter(), options());
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(errors[0], "");
    EXPECT_EQ(errors[1], "");
    EXPECT_EQ(results[0].path, results[1].path);
    EXPECT_NE(results[0].from_cache, results[1].from_cache);
    EXPECT_EQ(hooks_run(),
              (std::vector<std::string>{"get_requires_for_build_wheel", "build_wheel"}));
}

TEST_F(BuildTest, ConfigSettingsReachTheBackendAndTheCacheKey) {
    GitProject project(dir.path / "repo", spec());
    GitCache git(store);
    auto source = BuildSource::git(git, *parse_git_url("git+" + test::file_url(project.path)),
                                   project.commit);
    auto plain = build_wheel(source, provider, test::interpreter(), options());
    auto o = options();
    o.config_settings = {{"value", "7"}};
    auto configured = build_wheel(source, provider, test::interpreter(), o);
    EXPECT_FALSE(configured.from_cache);
    EXPECT_NE(configured.path, plain.path);
    EXPECT_EQ(archive::read_member(configured.path, "demo_pkg/__init__.py"), "VALUE = '7'\n");
}

TEST_F(BuildTest, SubdirectoryProjectIsBuilt) {
    GitProject project(dir.path / "repo", spec());
    GitCache git(store);
    auto url = *parse_git_url("git+" + test::file_url(project.path) + "#subdirectory=sub");
    auto source = BuildSource::git(git, url, project.commit);
    EXPECT_EQ(source.id(),
              "git+" + test::file_url(project.path) + "@" + project.commit + "#subdirectory=sub");
    auto built = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_EQ(built.path.filename(), "sub_pkg-0.1-py3-none-any.whl");
    auto lines = test::lines_of(read_file_or_empty(marker));
    ASSERT_FALSE(lines.empty());
    EXPECT_TRUE(lines.back().ends_with("/checkout/sub")) << lines.back();
}

TEST_F(BuildTest, PrepareMetadataThroughTheHook) {
    auto s = spec();
    test::write_backend_project(dir.path / "project", s);
    auto prepared = prepare_metadata(BuildSource::directory(dir.path / "project"), provider,
                                     test::interpreter(), options());
    EXPECT_EQ(prepared.metadata, test::expected_metadata(s));
    EXPECT_TRUE(prepared.from_hook);
    EXPECT_FALSE(prepared.wheel);
    EXPECT_EQ(hooks_run(), (std::vector<std::string>{"get_requires_for_build_wheel",
                                                     "prepare_metadata_for_build_wheel"}));
    EXPECT_EQ(leftovers(), 0u);
}

TEST_F(BuildTest, PrepareMetadataFallbackBuildsAndCachesTheWheel) {
    auto s = spec();
    s.prepare_metadata_hook = false;
    GitProject project(dir.path / "repo", s);
    GitCache git(store);
    auto source = BuildSource::git(git, *parse_git_url("git+" + test::file_url(project.path)),
                                   project.commit);
    auto prepared = prepare_metadata(source, provider, test::interpreter(), options());
    EXPECT_EQ(prepared.metadata, test::expected_metadata(s));
    EXPECT_FALSE(prepared.from_hook);
    ASSERT_TRUE(prepared.wheel);
    EXPECT_EQ(prepared.wheel->filename(), "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_EQ(hooks_run(),
              (std::vector<std::string>{"get_requires_for_build_wheel", "build_wheel"}));

    // The wheel built on the way answers the build, and the metadata again.
    auto built = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_TRUE(built.from_cache);
    EXPECT_EQ(built.path, *prepared.wheel);
    auto again = prepare_metadata(source, provider, test::interpreter(), options());
    EXPECT_EQ(again.metadata, test::expected_metadata(s));
    EXPECT_EQ(hooks_run().size(), 2u);
}

TEST_F(BuildTest, ExtraRequirementsFromTheBackendGetASecondEnvironment) {
    auto s = spec();
    s.extra_requires = {"cython>=3.0", "flit_core"};
    test::write_backend_project(dir.path / "project", s, "[\"flit_core\", \"wheel\"]");
    test::RecordingProvider with_env(
        BuildEnvironment{{dir.path / "env-site"}, {dir.path / "env-bin"}});
    std::filesystem::create_directories(dir.path / "env-site");
    auto built = build_wheel(BuildSource::directory(dir.path / "project"), with_env,
                             test::interpreter(), options(false));
    EXPECT_EQ(built.path, dir.path / "dist" / "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_TRUE(std::filesystem::exists(built.path));
    EXPECT_EQ(with_env.calls, (std::vector<std::vector<std::string>>{
                                  {"flit_core", "wheel"}, {"flit_core", "wheel", "cython>=3.0"}}));
    auto lines = test::lines_of(read_file_or_empty(marker));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_TRUE(lines[1].starts_with("build_wheel PYTHONPATH=" + (dir.path / "env-site").string() +
                                     " NOUSERSITE=1"))
        << lines[1];
}

TEST_F(BuildTest, FailingBackendKeepsItsFilesForTheReproduceCommand) {
    auto s = spec();
    s.before_build = "raise ValueError('no compiler found')";
    test::write_backend_project(dir.path / "project", s);
    try {
        build_wheel(BuildSource::directory(dir.path / "project"), provider, test::interpreter(),
                    options());
        FAIL() << "built";
    } catch (const BuildError& e) {
        std::string what = e.what();
        EXPECT_TRUE(what.starts_with("building " + (dir.path / "project").string() +
                                     ": build_wheel raised ValueError: no compiler found\n"))
            << what;
        EXPECT_NE(e.output_tail().find("Traceback (most recent call last):"), std::string::npos);
        EXPECT_NE(e.output_tail().find("ValueError: no compiler found"), std::string::npos);
        util::ProcessRequest rerun;
        rerun.argv = {"/bin/sh", "-c", e.reproduce_command()};
        auto again = util::run_process(rerun);
        ASSERT_TRUE(again);
        EXPECT_EQ(again->exit_code, 1);
        EXPECT_NE(again->err.find("ValueError: no compiler found"), std::string::npos);
    }
    EXPECT_EQ(leftovers(), 1u);
    EXPECT_FALSE(std::filesystem::exists(dir.path / "dist"));
}

TEST_F(BuildTest, BadPyprojectIsABuildErrorWithItsLocation) {
    write_file(dir.path / "project" / "pyproject.toml", "[build-system\nrequires = []\n");
    try {
        build_wheel(BuildSource::directory(dir.path / "project"), provider, test::interpreter(),
                    options());
        FAIL() << "built";
    } catch (const BuildError& e) {
        EXPECT_TRUE(std::string(e.what()).starts_with(
            "building " + (dir.path / "project").string() + ": " +
            (dir.path / "project" / "pyproject.toml").string() + ":1:"))
            << e.what();
    }
    EXPECT_TRUE(provider.calls.empty());
}

TEST_F(BuildTest, SdistIsBuiltFromAnUnpackedCopyAndCachedBySha256) {
    auto s = spec();
    std::vector<archive::WriteEntry> entries = {
        archive::WriteEntry::file("demo_pkg-1.2.3/PKG-INFO", test::expected_metadata(s)),
        archive::WriteEntry::file("demo_pkg-1.2.3/pyproject.toml",
                                  "[build-system]\nrequires = []\nbuild-backend = \"testbackend\"\n"
                                  "backend-path = [\"backend\"]\n"),
        archive::WriteEntry::file("demo_pkg-1.2.3/backend/testbackend.py", test::backend_source(s)),
    };
    auto sdist = dir.path / "demo_pkg-1.2.3.tar.gz";
    archive::write_archive(sdist, archive::Format::tar_gz, entries);
    auto sha = fs::sha256_file_hex(sdist);
    auto source = BuildSource::sdist(sdist, sha);
    EXPECT_EQ(source.id(), "sha256:" + sha);
    EXPECT_EQ(source.label(), "demo_pkg-1.2.3.tar.gz");

    auto built = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_EQ(built.path.filename(), "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_EQ(archive::read_wheel_metadata(built.path).content, test::expected_metadata(s));
    auto again = build_wheel(source, provider, test::interpreter(), options());
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(hooks_run(),
              (std::vector<std::string>{"get_requires_for_build_wheel", "build_wheel"}));
    EXPECT_EQ(read_file(wheels.entry_dir(
                            WheelCacheKey::for_interpreter(source.id(), test::interpreter())) /
                        "source.txt"),
              "sha256:" + sha + "\n");
    EXPECT_EQ(leftovers(), 0u);
}

TEST_F(BuildTest, NotIsolatedBuildsAreNotCached) {
    GitProject project(dir.path / "repo", spec());
    GitCache git(store);
    auto source = BuildSource::git(git, *parse_git_url("git+" + test::file_url(project.path)),
                                   project.commit);
    auto o = options();
    o.isolated = false;
    auto built = build_wheel(source, provider, test::interpreter(), o);
    EXPECT_EQ(built.path, dir.path / "dist" / "demo_pkg-1.2.3-py3-none-any.whl");
    EXPECT_FALSE(wheels.find(WheelCacheKey::for_interpreter(source.id(), test::interpreter())));
}

TEST_F(BuildTest, EditableWheel) {
    test::write_file(
        dir.path / "project" / "pyproject.toml",
        "[build-system]\nrequires = []\nbuild-backend = \"eb\"\nbackend-path = [\".\"]\n");
    test::write_file(
        dir.path / "project" / "eb.py",
        "import os, zipfile\n"
        "def get_requires_for_build_editable(config_settings=None):\n"
        "    return ['editables>=0.3']\n"
        "def build_editable(wheel_directory, config_settings=None, metadata_directory=None):\n"
        "    name = 'ed-1.0-py3-none-any.whl'\n"
        "    with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w') as z:\n"
        "        z.writestr('ed.pth', os.getcwd() + '\\n')\n"
        "    return name\n");
    auto built = build_editable(dir.path / "project", provider, test::interpreter(), options());
    EXPECT_EQ(built.path, dir.path / "dist" / "ed-1.0-py3-none-any.whl");
    EXPECT_EQ(archive::read_member(built.path, "ed.pth"), (dir.path / "project").string() + "\n");
    EXPECT_EQ(provider.calls, (std::vector<std::vector<std::string>>{{}, {"editables>=0.3"}}));
}

TEST(WheelCacheKey, TagsFromTheInterpreter) {
    auto cp = test::interpreter();
    EXPECT_EQ(interpreter_tag(cp), "cp312");
    EXPECT_EQ(platform_key(cp), "linux_x86_64");
    cp.free_threaded = true;
    cp.version = "3.13.0";
    EXPECT_EQ(interpreter_tag(cp), "cp313t");
    python::Interpreter pypy = cp;
    pypy.implementation = "PyPy";
    pypy.version = "3.10.14";
    pypy.free_threaded = false;
    pypy.sys_platform = "win32";
    pypy.machine = "AMD64";
    EXPECT_EQ(interpreter_tag(pypy), "pp310");
    EXPECT_EQ(platform_key(pypy), "win_amd64");
}

TEST(BuiltWheelCache, TagsCannotNameOtherFolders) {
    test::TempDir dir;
    BuiltWheelCache wheels{cache::Cache(dir.path)};
    WheelCacheKey key{"sha256:ab", "../../x", "linux_x86_64", {}};
    EXPECT_THROW(wheels.entry_dir(key), util::Error);
    EXPECT_THROW(wheels.lock(key), util::Error);
    key.interpreter = "cp312";
    key.source_id.clear();
    EXPECT_THROW(wheels.find(key), util::Error);
}

// A real backend: Debian's setuptools and wheel wheels, installed by the install layer into a
// venv-like prefix (pkg_resources looks for installed .dist-info folders, which a .whl on
// PYTHONPATH does not provide).
TEST_F(BuildTest, SetuptoolsProject) {
    std::filesystem::path setuptools, wheel;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/share/python-wheels", ec)) {
        auto name = e.path().filename().string();
        if (name.starts_with("setuptools-") && name.ends_with(".whl")) setuptools = e.path();
        if (name.starts_with("wheel-") && name.ends_with(".whl")) wheel = e.path();
    }
    if (setuptools.empty() || wheel.empty())
        GTEST_SKIP() << "Debian's setuptools/wheel wheels are absent";
    // Debian patches these wheels for its own Python (install_layout), so they run with it.
    const std::filesystem::path python = "/usr/bin/python3.11";
    if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";

    auto project = dir.path / "tiny";
    write_file(project / "pyproject.toml",
               "[build-system]\nrequires = [\"setuptools>=40.8.0\", \"wheel\"]\n"
               "build-backend = \"setuptools.build_meta\"\n");
    write_file(project / "setup.cfg",
               "[metadata]\nname = tiny-thing\nversion = 0.4.2\n\n"
               "[options]\npackages = tiny_thing\ninstall_requires =\n    six>=1.16\n");
    write_file(project / "tiny_thing" / "__init__.py", "ANSWER = 42\n");
    auto layout = install::PrefixLayout::for_venv(dir.path / "buildenv", "3.11", false);
    for (const auto& w : {setuptools, wheel}) {
        auto unpacked = dir.path / "unpacked" / w.filename();
        install::unpack_wheel(w, unpacked);
        auto name = w.filename().string();
        install::WheelInstallRequest request;
        request.unpacked = unpacked;
        request.name = name.substr(0, name.find('-'));
        request.version = name.substr(name.find('-') + 1,
                                      name.find('-', name.find('-') + 1) - name.find('-') - 1);
        request.link_mode = install::LinkMode::copy;
        install::install_wheel(layout, request);
    }
    test::RecordingProvider real(BuildEnvironment{{layout.purelib}, {layout.scripts}});
    auto built = build_wheel(BuildSource::directory(project), real,
                             test::interpreter(python, "3.11.2"), options());
    EXPECT_EQ(built.path.filename(), "tiny_thing-0.4.2-py3-none-any.whl");
    auto metadata = archive::read_wheel_metadata(built.path);
    EXPECT_EQ(metadata.path, "tiny_thing-0.4.2.dist-info/METADATA");
    auto parsed = pep::CoreMetadata::parse(metadata.content);
    ASSERT_TRUE(parsed) << metadata.content;
    EXPECT_EQ(parsed->name, "tiny-thing");
    EXPECT_EQ(parsed->version_text, "0.4.2");
    ASSERT_EQ(parsed->requires_dist.size(), 1u) << metadata.content;
    // Old setuptools writes "six (>=1.16)"; the requirement is what matters.
    EXPECT_EQ(pep::Requirement::parse(parsed->requires_dist[0])->to_string(), "six>=1.16");
    EXPECT_EQ(archive::read_member(built.path, "tiny_thing/__init__.py"), "ANSWER = 42\n");
    EXPECT_EQ(aitk::test::check_wheel_record(built.path), std::vector<std::string>{});
    EXPECT_EQ(real.calls.front(), (std::vector<std::string>{"setuptools>=40.8.0", "wheel"}));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::build
