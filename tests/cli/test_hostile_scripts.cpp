// Prefix paths that are code: `setup` installs a wheel with a console script and a `#!python`
// data script into prefixes whose paths hold a space, $HOME, $(...), backticks, quotes, a
// backslash, a newline, or 200+ characters (past the kernel's shebang limit). Each script must
// run with the prefix's python, print exactly its arguments, create no PWNED file anywhere, and
// compile as Python with warnings as errors. Linux only (tests/windows-excluded.txt: Windows
// scripts are .exe launchers).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// Python's repr() of a str of printable ASCII and \n.
std::string python_repr(const std::string& s) {
    const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char quote = use_double ? '"' : '\'';
    std::string out(1, quote);
    for (char c : s) {
        if (c == '\\' || c == quote) {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out + quote;
}

class HostileScripts : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!VictimWorld::available()) return;
        world = new World;
        for (const char* d : {"xdg", "etc", "cwd", "home", "prefixes"})
            stdfs::create_directories(world->path(d));
        MirrorBuilder mirror(world->path("mirror"));
        mirror.add_index("simple");
        WheelSpec spec;
        spec.name = "scripted";
        spec.version = "1.0";
        spec.files = {{"scripted/__init__.py",
                       "import sys\n"
                       "def main():\n"
                       "    print(repr(sys.argv[1:]))\n"
                       "    print(repr(sys.prefix))\n"
                       "    return 0\n"}};
        spec.console_scripts = {"scripted-cli = scripted:main"};
        spec.data["scripts"] = {{"scripted-data",
                                 "#!python\n"
                                 "import sys\n"
                                 "print(repr(sys.argv[1:]))\n"
                                 "print(repr(sys.prefix))\n",
                                 true}};
        mirror.add_wheel("simple", spec);
        mirror.write();
        world->server.serve_directory(world->path("mirror"), "/");
        fs::write_file_atomic(world->path("requirements.txt"), "scripted\n");
        auto locked = world->cli({"lock", "-r", world->path("requirements.txt").string(), "-o",
                                  world->path("env.lock.yml").string(), "--python",
                                  hostile_python_version, "--target", hostile_target});
        if (locked.exit_code != 0) world->error = "lock: " + locked.err;
    }
    static void TearDownTestSuite() {
        delete world;
        world = nullptr;
    }
    void SetUp() override {
        if (world == nullptr) GTEST_SKIP() << "no " << hostile_python;
        ASSERT_TRUE(world->error.empty()) << world->error;
    }

    struct World {
        stdfs::path path(const std::string& name) const { return work.path() / name; }
        CliResult cli(std::vector<std::string> args) const {
            std::vector<std::string> global = {"--no-progress", "--cache-dir",
                                               path("cache").string(), "--index-url",
                                               server.url("/simple/")};
            args.insert(args.begin(), global.begin(), global.end());
            return run_cli(args, "", isolated_environment(work.path(), hostile_python_bin));
        }
        fs::TempDir work = fs::TempDir::create("aitk-hostile-scripts");
        HttpServer server;
        std::string error;
    };

    static util::ProcessResult run(const std::vector<std::string>& argv) {
        util::ProcessRequest request;
        request.argv = argv;
        request.working_directory = world->path("cwd");
        request.environment_changes["HOME"] = world->path("home").string();
        request.environment_changes["PYTHONPATH"] = std::nullopt;
        request.environment_changes["PYTHONHOME"] = std::nullopt;
        auto result = util::run_process(request);
        EXPECT_TRUE(result.has_value()) << argv.front();
        return result ? *result : util::ProcessResult{};
    }

    // Every file named PWNED in the test's folder (the prefixes, the cwd, the home, ...),
    // removed (so each case is judged alone).
    static std::vector<std::string> pwned() {
        std::vector<std::string> found;
        for (const auto& entry : stdfs::recursive_directory_iterator(world->work.path())) {
            if (entry.path().filename() == "PWNED") found.push_back(entry.path().string());
        }
        for (const auto& f : found)
            stdfs::remove(f);
        return found;
    }

    static inline World* world = nullptr;
};

TEST_F(HostileScripts, ScriptsInPrefixesWithHostilePathsRunAndExpandNothing) {
    const std::vector<std::string> names = {
        "with space", "$HOME",        "$(touch PWNED)",     "`touch PWNED`",       "dq\" x",
        "sq' x",      "bs\\x \\N\\u", "nl\n$(touch PWNED)", std::string(200, 'L'),
    };
    for (const std::string& name : names) {
        SCOPED_TRACE(python_repr(name));
        const stdfs::path prefix = world->path("prefixes") / name;
        auto made = world->cli({"setup", "-l", world->path("env.lock.yml").string(), "-p",
                                prefix.string(), "--python", hostile_python, "--no-smoke-test"});
        ASSERT_EQ(made.exit_code, 0) << made.err;
        for (const char* script : {"scripted-cli", "scripted-data"}) {
            SCOPED_TRACE(script);
            const stdfs::path file = prefix / "bin" / script;
            auto r = run({file.string(), "one arg", "$HOME", "`x`"});
            EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
            EXPECT_EQ(r.out, "['one arg', '$HOME', '`x`']\n" + python_repr(prefix.string()) + "\n")
                << r.err;
            EXPECT_EQ(r.err, "");
            EXPECT_EQ(pwned(), std::vector<std::string>{});
            auto compiled =
                run({hostile_python, "-W", "error", "-c",
                     "import sys\n"
                     "p = sys.argv[1]\n"
                     "with open(p, 'rb') as f: compile(f.read(), p, 'exec')\n"
                     "with open(p, encoding='utf-8') as f: compile(f.read(), p, 'exec')\n",
                     file.string()});
            EXPECT_EQ(compiled.exit_code, 0) << compiled.err;
            EXPECT_EQ(compiled.err, "");
        }
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
