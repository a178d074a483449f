// Interpreter discovery: candidate order and dedupe on fake folders, the probe's output format,
// fake interpreters (including one that hangs) and the real interpreters of this machine.
#include "aitk/python/discovery.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace {

using namespace aitk::python;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir() {
        static int n = 0;
        path = fs::temp_directory_path() /
               ("aitk-python-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// A fake interpreter: a script that answers the probe as the given Python would.
void fake_python(const fs::path& p, const std::string& version, const std::string& executable,
                 const std::string& extra = "") {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\n"
                     << extra << "echo aitk-python-probe\necho CPython\necho " << version
                     << "\necho " << executable << "\n";
    fs::permissions(p, fs::perms::owner_all);
}

TEST(ProbeOutput, Parses) {
    auto i = parse_probe_output("aitk-python-probe\nCPython\n3.12.1\n/usr/bin/python3.12\n");
    ASSERT_TRUE(i);
    EXPECT_EQ(i->implementation, "CPython");
    EXPECT_EQ(i->version, "3.12.1");
    EXPECT_EQ(i->executable, "/usr/bin/python3.12");
    EXPECT_TRUE(parse_probe_output("aitk-python-probe\r\nPyPy\r\n3.10.14\r\n\r\n"));
    auto e = parse_probe_output("Python 3.12.1\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "not the interpreter probe's output");
    e = parse_probe_output("aitk-python-probe\nCPython\n3.12\n/x\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the interpreter's version \"3.12\" is not X.Y.Z");
    EXPECT_FALSE(parse_probe_output("aitk-python-probe\n\n3.12.1\n/x\n"));
}

TEST(Candidates, PathOrderNamesAndPyenvVersions) {
    TempDir t;
    auto bin = t.path / "bin";
    fake_python(bin / "python3.9", "3.9.18", "/x");
    fake_python(bin / "python3.12", "3.12.1", "/x");
    fake_python(bin / "python", "3.12.1", "/x");
    fake_python(bin / "python3-config", "", "");
    fake_python(bin / "python3.12-config", "", "");
    fs::create_symlink("python3.12", bin / "python3");  // same file as python3.12: deduplicated
    std::ofstream(bin / "python3.11") << "not executable";
    fake_python(t.path / "pyenv/versions/3.9.18/bin/python3", "3.9.18", "/p9");
    fake_python(t.path / "pyenv/versions/3.13.0/bin/python3", "3.13.0", "/p13");
    fake_python(t.path / "pyenv/versions/2.7.18/bin/python", "2.7.18", "/p2");

    DiscoveryOptions o;
    o.path_value = "/nonexistent:" + bin.string();
    o.pyenv_root = t.path / "pyenv";
    auto c = interpreter_candidates(o);
    std::vector<fs::path> expected{bin / "python3.12",
                                   bin / "python3.9",
                                   bin / "python",
                                   t.path / "pyenv/versions/3.13.0/bin/python3",
                                   t.path / "pyenv/versions/3.9.18/bin/python3",
                                   t.path / "pyenv/versions/2.7.18/bin/python"};
    EXPECT_EQ(c, expected);

    o.pyenv_root.clear();
    o.home = t.path / "home";
    fake_python(t.path / "home/.pyenv/versions/3.11.7/bin/python3", "3.11.7", "/p11");
    c = interpreter_candidates(o);
    EXPECT_EQ(c.back(), t.path / "home/.pyenv/versions/3.11.7/bin/python3");

    o.max_candidates = 2;
    EXPECT_EQ(interpreter_candidates(o).size(), 2u);
}

TEST(Candidates, WindowsNamesAsData) {
    TempDir t;
    std::ofstream(t.path / "python.exe") << "MZ";
    std::ofstream(t.path / "python3.12.exe") << "MZ";
    std::ofstream(t.path / "pythonw.exe") << "MZ";
    fs::create_directories(t.path / "WindowsApps");
    std::ofstream(t.path / "WindowsApps" / "python.exe") << "MZ";
    DiscoveryOptions o;
    o.windows = true;
    o.path_value = (t.path / "WindowsApps").string() + ";" + t.path.string();
    auto c = interpreter_candidates(o);
    EXPECT_EQ(c, (std::vector<fs::path>{t.path / "python3.12.exe", t.path / "python.exe"}));
}

TEST(Discover, RunsEachCandidateAndDedupesByRealExecutable) {
    TempDir t;
    auto bin = t.path / "bin";
    fake_python(bin / "python3.12", "3.12.1", "/opt/py/bin/python3.12");
    fake_python(bin / "python", "3.12.1", "/opt/py/bin/python3.12");  // the same interpreter again
    fake_python(bin / "python3.9", "3.9.18", "/opt/py9/bin/python3.9");
    fake_python(bin / "python3.8", "", "", "echo broken >&2; exit 1\n");
    fake_python(bin / "python3.7", "3.7.16", "/slow", "sleep 30\n");
    DiscoveryOptions o;
    o.path_value = bin.string();
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 500ms;
    auto begin = std::chrono::steady_clock::now();
    auto found = discover_interpreters(o);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].version, "3.12.1");
    EXPECT_EQ(found[0].path, bin / "python3.12");
    EXPECT_EQ(found[0].executable, "/opt/py/bin/python3.12");
    EXPECT_EQ(found[1].version, "3.9.18");
}

TEST(Discover, FindsThisMachinesPython) {
    DiscoveryOptions o;
    auto env = aitk::util::current_environment();
    o.path_value = env.count("PATH") ? env["PATH"] : "/usr/bin:/bin";
    o.home = env.count("HOME") ? env["HOME"] : "/";
    o.environment = env;
    o.timeout = 10s;
    auto found = discover_interpreters(o);
    ASSERT_FALSE(found.empty());
    for (const auto& i : found) {
        EXPECT_FALSE(i.version.empty());
        EXPECT_TRUE(i.executable.is_absolute()) << i.executable;
    }
    for (std::size_t a = 0; a < found.size(); ++a) {
        for (std::size_t b = a + 1; b < found.size(); ++b)
            EXPECT_NE(found[a].executable, found[b].executable);
    }
}

}  // namespace
