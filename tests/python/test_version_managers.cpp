// Version managers' shim folders on PATH: never run, the interpreters behind them found from the
// managers' own files (pyenv's version files, asdf's .tool-versions, conda's condabin), and asked
// once thanks to the answers cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "aitk/python/discovery.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
namespace fs = std::filesystem;

// A shim that leaves a mark when anything runs it.
void fake_shim(const fs::path& p, const fs::path& marker) {
    write_file(p, "#!/bin/sh\necho ran >> " + marker.string() + "\nexit 1\n");
    fs::permissions(p, fs::perms::owner_all);
}

std::size_t lines_in(const fs::path& p) {
    auto text = read_file(p);
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A pyenv root under `t` with shims for python, python3 and python3.X of each version.
struct FakePyenv {
    fs::path root, shims, marker;
    explicit FakePyenv(const TempDir& t) {
        root = t.path / "pyenv";
        shims = root / "shims";
        marker = t.path / "shim-ran";
        fake_shim(shims / "python", marker);
        fake_shim(shims / "python3", marker);
        write_file(root / "libexec/pyenv", "#!/bin/sh\n");
    }
    fs::path bin(const std::string& version) const { return root / "versions" / version / "bin"; }
    // versions/<version>/bin/python3.X answering as itself and counting its runs in `runs`.
    void install(const std::string& version, const fs::path& runs) const {
        auto mm = version.substr(0, version.rfind('.'));
        fake_python(bin(version) / ("python" + mm), version, "$0",
                    "echo run >> " + runs.string() + "\n");
        fs::create_symlink("python" + mm, bin(version) / "python3");
        fake_shim(shims / ("python" + mm), marker);
    }
    DiscoveryOptions options(const TempDir& t) const {
        DiscoveryOptions o;
        o.path_value = shims.string() + ":/nonexistent";
        o.pyenv_root = root;
        o.cwd = t.path / "work";
        o.system_dirs = std::vector<fs::path>{};
        o.environment = {{"PATH", "/usr/bin:/bin"}};
        o.cache_file = default_interpreter_cache_file(t.path / "cache");
        return o;
    }
};

TEST(Shims, APyenvShimIsNeverRunAndARealInterpreterIsAskedOnce) {
    const fs::path real = pyenv_versions / "3.12.1/bin/python3.12";
    if (!fs::exists(real)) GTEST_SKIP() << "no pyenv 3.12.1 here";
    TempDir t;
    FakePyenv pyenv(t);
    fake_shim(pyenv.shims / "python3.12", pyenv.marker);
    fs::create_directories(pyenv.bin("3.12.1"));
    fs::create_symlink(real, pyenv.bin("3.12.1") / "python3.12");
    write_file(pyenv.root / "version", "3.12.1\n");
    auto o = pyenv.options(t);
    o.timeout = std::chrono::seconds(20);

    auto first = discover_interpreters(o);
    EXPECT_FALSE(fs::exists(pyenv.marker));
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].version, "3.12.1");
    EXPECT_EQ(first[0].path, pyenv.bin("3.12.1") / "python3.12");
    EXPECT_EQ(first[0].executable, fs::canonical(real));
    ASSERT_TRUE(fs::exists(o.cache_file));

    // The second discovery reads the answer: nothing is asked, so nothing is saved either.
    auto saved = fs::last_write_time(o.cache_file);
    fs::last_write_time(o.cache_file, saved - std::chrono::hours(1));
    auto second = discover_interpreters(o);
    EXPECT_EQ(second, first);
    EXPECT_EQ(fs::last_write_time(o.cache_file), saved - std::chrono::hours(1));
    EXPECT_FALSE(fs::exists(pyenv.marker));
}

TEST(Shims, TheSecondDiscoveryRunsNoProcess) {
    TempDir t;
    FakePyenv pyenv(t);
    const fs::path runs = t.path / "runs";
    pyenv.install("3.12.1", runs);
    pyenv.install("3.11.7", runs);
    write_file(pyenv.root / "version", "3.11.7\n");
    auto o = pyenv.options(t);

    auto first = discover_interpreters(o);
    ASSERT_EQ(first.size(), 2u);
    // The selected version first, where the shims were on PATH; then every version, newest first.
    EXPECT_EQ(first[0].version, "3.11.7");
    EXPECT_EQ(first[0].path, pyenv.bin("3.11.7") / "python3.11");
    EXPECT_EQ(first[1].version, "3.12.1");
    EXPECT_EQ(lines_in(runs), 2u);
    EXPECT_EQ(discover_interpreters(o), first);
    EXPECT_EQ(lines_in(runs), 2u);
    EXPECT_FALSE(fs::exists(pyenv.marker));

    // --refresh asks again.
    o.refresh = true;
    EXPECT_EQ(discover_interpreters(o), first);
    EXPECT_EQ(lines_in(runs), 4u);
}

TEST(Shims, AShimNamedAsTheInterpreterIsAnsweredByTheFileItWouldRun) {
    TempDir t;
    FakePyenv pyenv(t);
    const fs::path runs = t.path / "runs";
    pyenv.install("3.12.1", runs);
    write_file(pyenv.root / "version", "3.12.1\n");
    auto o = pyenv.options(t);
    auto i = probe_interpreter(pyenv.shims / "python3", o);
    ASSERT_TRUE(i) << i.error();
    EXPECT_EQ(i->version, "3.12.1");
    EXPECT_EQ(i->path, pyenv.shims / "python3");
    EXPECT_EQ(i->executable, pyenv.bin("3.12.1") / "python3.12");
    EXPECT_TRUE(probe_interpreter(pyenv.shims / "python3", o));
    EXPECT_EQ(lines_in(runs), 1u);
    EXPECT_FALSE(fs::exists(pyenv.marker));
    // "system": the shim's name on PATH without the shim folders.
    fake_python(t.path / "usr/bin/python3", "3.11.2", "$0");
    write_file(pyenv.root / "version", "system\n");
    o.path_value = pyenv.shims.string() + ":" + (t.path / "usr/bin").string();
    i = probe_interpreter(pyenv.shims / "python3", o);
    ASSERT_TRUE(i) << i.error();
    EXPECT_EQ(i->version, "3.11.2");
    EXPECT_FALSE(fs::exists(pyenv.marker));
}

TEST(Shims, VersionSelectionFollowsPyenv) {
    TempDir t;
    FakePyenv pyenv(t);
    const fs::path runs = t.path / "runs";
    for (const char* v : {"3.11.7", "3.11.9", "3.12.1", "3.13.0"})
        pyenv.install(v, runs);
    for (const char* v : {"3.11.10rc1", "3.11-dev", "3.13.0t"})
        fs::create_directories(pyenv.bin(v));
    fake_python(pyenv.bin("3.13.0t") / "python3", "3.13.0", "$0");
    fake_python(t.path / "usr/bin/python3", "3.11.2", "$0");
    auto o = pyenv.options(t);
    o.path_value = pyenv.shims.string() + ":" + (t.path / "usr/bin").string();
    o.max_candidates = 2;  // the part PATH decides
    auto first_two = [&] { return interpreter_candidates(o); };

    // No version file at all: "system", the interpreters on PATH without the shims.
    EXPECT_EQ(first_two()[0], t.path / "usr/bin/python3");
    // The global file; comments, blank lines and unsafe names are skipped; "3.11" is the newest
    // 3.11 release (no pre-release, no dev build).
    write_file(pyenv.root / "version", "# global\n\n../../etc 3.13.0\n  3.11 extra\nsystem\n");
    EXPECT_EQ(first_two(), (std::vector<fs::path>{pyenv.bin("3.11.9") / "python3.11",
                                                  t.path / "usr/bin/python3"}));
    // A .python-version in the working folder or above wins over the global file.
    write_file(t.path / ".python-version", "python-3.12.1\n3.10\n3.13t\n");
    fs::create_directories(o.cwd);
    EXPECT_EQ(first_two(), (std::vector<fs::path>{pyenv.bin("3.12.1") / "python3.12",
                                                  pyenv.bin("3.13.0t") / "python3"}));
    // PYENV_VERSION wins over both.
    o.environment["PYENV_VERSION"] = "3.13:3.11.7";
    EXPECT_EQ(first_two(), (std::vector<fs::path>{pyenv.bin("3.13.0") / "python3.13",
                                                  pyenv.bin("3.11.7") / "python3.11"}));
    EXPECT_FALSE(fs::exists(pyenv.marker));
}

TEST(Shims, OtherManagersAndLinksToShims) {
    TempDir t;
    const fs::path marker = t.path / "shim-ran";
    auto home = t.path / "home";
    // asdf: shims, installs, a .tool-versions in home.
    auto asdf = home / ".asdf";
    fake_shim(asdf / "shims/python3", marker);
    fake_python(asdf / "installs/python/3.10.4/bin/python3", "3.10.4", "$0");
    fake_python(asdf / "installs/python/3.12.2/bin/python3", "3.12.2", "$0");
    write_file(home / ".tool-versions", "nodejs 20.0.0\npython 3.10.4 # pinned\n");
    // conda's condabin holds `conda` only; the base interpreter is <root>/bin.
    auto conda = t.path / "opt/conda";
    fs::create_directories(conda / "conda-meta");
    fake_shim(conda / "condabin/conda", marker);
    fake_python(conda / "bin/python3.11", "3.11.5", "$0");
    // pyenv-virtualenv's shims (activate, deactivate) and a link to a pyenv shim.
    auto pyenv = home / ".pyenv";
    fake_shim(pyenv / "plugins/pyenv-virtualenv/shims/python3", marker);
    fake_shim(pyenv / "shims/python3", marker);
    fs::create_directories(t.path / "local");
    fs::create_symlink(pyenv / "shims/python3", t.path / "local/python3");
    // A folder merely named "shims" is an ordinary PATH entry.
    fake_python(t.path / "tools/shims/python3", "3.9.1", "$0");

    DiscoveryOptions o;
    o.home = home;
    o.cwd = t.path;
    o.system_dirs = std::vector<fs::path>{};
    o.path_value = (pyenv / "plugins/pyenv-virtualenv/shims").string() + ":" +
                   (asdf / "shims").string() + ":" + (conda / "condabin").string() + ":" +
                   (t.path / "local").string() + ":" + (t.path / "tools/shims").string();
    o.extra_candidates = {pyenv / "shims/python3"};
    auto c = interpreter_candidates(o);
    std::vector<fs::path> expected{asdf / "installs/python/3.10.4/bin/python3",
                                   conda / "bin/python3.11", t.path / "tools/shims/python3",
                                   asdf / "installs/python/3.12.2/bin/python3"};
    EXPECT_EQ(c, expected);
    EXPECT_EQ(discover_interpreters(o).size(), 4u);
    EXPECT_FALSE(fs::exists(marker));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
