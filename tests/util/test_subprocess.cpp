// run_process: real programs (sh, cat, head) with output capture, environment changes, caps and
// timeouts that kill the whole process group.
#include "aitk/util/subprocess.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace {

using namespace std::chrono_literals;
using aitk::util::Environment;
using aitk::util::ProcessEnd;
using aitk::util::ProcessRequest;
using aitk::util::run_process;

namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("aitk-subprocess-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(counter()++));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

ProcessRequest sh(const std::string& script) {
    ProcessRequest r;
    r.argv = {"/bin/sh", "-c", script};
    return r;
}

TEST(RunProcess, CapturesStdoutStderrAndExitStatus) {
    auto r = run_process(sh("echo out; echo err >&2; exit 6"));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->end, ProcessEnd::exited);
    EXPECT_EQ(r->exit_code, 6);
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
    EXPECT_FALSE(r->succeeded());
    EXPECT_EQ(r->describe(), "exited with status 6");
}

TEST(RunProcess, PassesArgumentsWithoutAShell) {
    ProcessRequest req;
    req.argv = {"printf", "%s|", "a b", "$HOME", "*", ""};
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->succeeded());
    EXPECT_EQ(r->out, "a b|$HOME|*||");
}

TEST(RunProcess, SetsAndUnsetsEnvironmentVariables) {
    ProcessRequest req = sh("echo \"A=${A-unset} B=${B-unset} C=${C-unset}\"");
    req.environment = Environment{{"PATH", "/usr/bin:/bin"}, {"A", "1"}, {"C", "3"}};
    req.environment_changes = {{"A", std::nullopt}, {"B", "two words"}};
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "A=unset B=two words C=3\n");
}

TEST(RunProcess, InheritsThisProcessEnvironmentByDefault) {
    auto env = aitk::util::current_environment();
    ASSERT_TRUE(env.count("PATH"));
    auto r = run_process(sh("printf %s \"$PATH\""));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, env["PATH"]);
}

TEST(RunProcess, FeedsStdinWithoutDeadlockingOnLargeData) {
    ProcessRequest req;
    req.argv = {"cat"};
    req.stdin_data = std::string(3u << 20, 'x');  // larger than any pipe buffer
    req.timeout = 20s;
    auto r = run_process(req);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->succeeded());
    EXPECT_EQ(r->out.size(), req.stdin_data.size());
}

TEST(RunProcess, ChildThatIgnoresStdinDoesNotKillUs) {
    ProcessRequest req = sh("exit 0");
    req.stdin_data = std::string(1u << 20, 'x');
    auto r = run_process(req);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->succeeded());
}

TEST(RunProcess, CapsOutputButKeepsReading) {
    ProcessRequest req;
    req.argv = {"head", "-c", "200000", "/dev/zero"};
    req.output_limit = 1000;
    auto r = run_process(req);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->succeeded());
    EXPECT_EQ(r->out.size(), 1000u);
    EXPECT_TRUE(r->out_truncated);
    EXPECT_FALSE(r->err_truncated);
}

TEST(RunProcess, TimeoutKillsTheWholeProcessGroup) {
    TempDir dir;
    fs::path pidfile = dir.path / "grandchild.pid";
    ProcessRequest req = sh("sleep 30 & echo $! > '" + pidfile.string() + "'; echo started; wait");
    req.timeout = 300ms;
    auto begin = std::chrono::steady_clock::now();
    auto r = run_process(req);
    auto took = std::chrono::steady_clock::now() - begin;
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, ProcessEnd::timed_out);
    EXPECT_EQ(r->out, "started\n");  // output up to the kill is kept
    EXPECT_EQ(r->describe(), "did not finish within 300 ms");
    EXPECT_LT(took, 5s);
    std::ifstream in(pidfile);
    pid_t grandchild = 0;
    ASSERT_TRUE(in >> grandchild);
    // The grandchild was killed with the group (it may linger as a zombie for a moment).
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
        std::string content((std::istreambuf_iterator<char>(stat)), {});
        gone = !stat || content.find(") Z") != std::string::npos;
        if (!gone) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(gone);
}

TEST(RunProcess, BackgroundGrandchildHoldingThePipeDoesNotTurnSuccessIntoTimeout) {
    ProcessRequest req = sh("sleep 30 & echo done");
    req.timeout = 500ms;
    auto r = run_process(req);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, ProcessEnd::exited);
    EXPECT_EQ(r->exit_code, 0);
    EXPECT_EQ(r->out, "done\n");
}

TEST(RunProcess, ReportsDeathBySignal) {
    auto r = run_process(sh("kill -SEGV $$"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, ProcessEnd::signaled);
    EXPECT_EQ(r->signal, SIGSEGV);
    EXPECT_EQ(r->describe(), "was killed by signal 11");
}

TEST(RunProcess, ProgramNotFoundIsAnErrorValue) {
    ProcessRequest req;
    req.argv = {"aitk-no-such-program-xyz"};
    auto r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "aitk-no-such-program-xyz: not found on PATH");

    req.argv = {"/nonexistent/dir/prog"};
    r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "/nonexistent/dir/prog: not an executable file");

    ProcessRequest none;
    EXPECT_FALSE(run_process(none));
}

TEST(RunProcess, NonExecutableFileAndBadDirectory) {
    TempDir dir;
    fs::path script = dir.path / "script";
    std::ofstream(script) << "#!/bin/sh\necho hi\n";
    ProcessRequest req;
    req.argv = {script.string()};
    auto r = run_process(req);
    ASSERT_FALSE(r);  // no execute permission

    fs::permissions(script, fs::perms::owner_all);
    r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "hi\n");

    req.working_directory = dir.path / "missing";
    r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos);
}

TEST(RunProcess, RunsInTheGivenWorkingDirectory) {
    TempDir dir;
    ProcessRequest req;
    req.argv = {"pwd"};
    req.working_directory = dir.path;
    auto r = run_process(req);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->out, fs::canonical(dir.path).string() + "\n");
}

TEST(RunProcess, FindsBareNamesOnTheChildsPath) {
    TempDir dir;
    fs::path tool = dir.path / "aitk-fake-tool";
    std::ofstream(tool) << "#!/bin/sh\necho fake \"$@\"\n";
    fs::permissions(tool, fs::perms::owner_all);
    ProcessRequest req;
    req.argv = {"aitk-fake-tool", "x"};
    req.environment_changes = {{"PATH", dir.path.string() + ":/usr/bin:/bin"}};
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "fake x\n");
}

TEST(FindProgram, PosixPathSearch) {
    TempDir dir;
    fs::create_directories(dir.path / "a");
    fs::create_directories(dir.path / "b");
    std::ofstream(dir.path / "a" / "tool") << "x";  // not executable: skipped
    std::ofstream(dir.path / "b" / "tool") << "x";
    fs::permissions(dir.path / "b" / "tool", fs::perms::owner_all);
    std::string path = (dir.path / "a").string() + ":" + (dir.path / "b").string();
    auto found = aitk::util::find_program("tool", path);
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, dir.path / "b" / "tool");
    EXPECT_FALSE(aitk::util::find_program("missing", path));
    EXPECT_FALSE(aitk::util::find_program("", path));
}

TEST(FindProgram, WindowsRulesEvaluatedAsData) {
    TempDir dir;
    fs::create_directories(dir.path / "NVSMI");
    std::ofstream(dir.path / "NVSMI" / "nvidia-smi.exe") << "MZ";
    std::string path = "C:\\nowhere;;" + (dir.path / "NVSMI").string();
    auto found = aitk::util::find_program("nvidia-smi", path, true, ".COM;.EXE");
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, dir.path / "NVSMI" / "nvidia-smi.exe");
    // With an extension given, PATHEXT is not applied.
    EXPECT_TRUE(aitk::util::find_program("nvidia-smi.exe", path, true, ".COM"));
    EXPECT_FALSE(aitk::util::find_program("nvidia-smi", path, true, ".COM;.BAT"));
}

TEST(WindowsCommandLine, QuotesLikeTheMsvcRuntimeParses) {
    using aitk::util::quote_windows_argument;
    EXPECT_EQ(quote_windows_argument("plain"), "plain");
    EXPECT_EQ(quote_windows_argument(""), "\"\"");
    EXPECT_EQ(quote_windows_argument("a b"), "\"a b\"");
    EXPECT_EQ(quote_windows_argument("a\"b"), "\"a\\\"b\"");
    EXPECT_EQ(quote_windows_argument("C:\\dir\\file"), "C:\\dir\\file");  // no quotes: as is
    EXPECT_EQ(quote_windows_argument("C:\\Program Files\\x\\"), "\"C:\\Program Files\\x\\\\\"");
    EXPECT_EQ(quote_windows_argument("a\\\"b c"), "\"a\\\\\\\"b c\"");
    EXPECT_EQ(
        aitk::util::windows_command_line({"C:\\x y\\nvidia-smi.exe", "--format=csv,noheader"}),
        "\"C:\\x y\\nvidia-smi.exe\" --format=csv,noheader");
}

TEST(Environment, ChangesAndLookupsFollowTheCaseRule) {
    Environment env{{"Path", "C:\\Windows"}, {"A", "1"}};
    auto windows =
        aitk::util::apply_environment_changes(env, {{"PATH", "D:\\"}, {"a", std::nullopt}}, true);
    EXPECT_EQ(windows, (Environment{{"PATH", "D:\\"}}));
    auto posix =
        aitk::util::apply_environment_changes(env, {{"PATH", "/bin"}, {"a", std::nullopt}}, false);
    EXPECT_EQ(posix, (Environment{{"A", "1"}, {"PATH", "/bin"}, {"Path", "C:\\Windows"}}));
    EXPECT_EQ(aitk::util::environment_lookup(env, "PATH", true), "C:\\Windows");
    EXPECT_EQ(aitk::util::environment_lookup(env, "PATH", false), std::nullopt);
}

TEST(SelfExecutable, IsThisTestProgram) {
    auto self = aitk::util::self_executable_path();
    EXPECT_EQ(self.filename(), "test_util");
}

}  // namespace
