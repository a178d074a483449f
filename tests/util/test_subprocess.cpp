// run_process with a real child (tests/support/test_child.c, built for each platform): output
// capture, arguments without a shell, environment changes, caps, working directories, timeouts
// that kill the whole tree, crashes. The same tests drive fork/exec on POSIX and CreateProcessW
// with a job object on Windows; what only a shell shows (signals, exec bits) is POSIX-only below.
#include "aitk/util/subprocess.hpp"

#include <gtest/gtest.h>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <process.h>
#include <windows.h>
#else
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace std::chrono_literals;
using aitk::test::TempDir;
using aitk::test::write_file;
using aitk::util::Environment;
using aitk::util::ProcessEnd;
using aitk::util::ProcessRequest;
using aitk::util::run_process;

namespace fs = std::filesystem;

#ifdef _WIN32
constexpr bool kWindows = true;
#else
constexpr bool kWindows = false;
#endif

// The test child running `args`.
ProcessRequest child(std::vector<std::string> args) {
    ProcessRequest r;
    r.argv = {AITK_TEST_CHILD};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    return r;
}

// Whether the process `pid` has ended (a POSIX zombie counts as ended).
bool has_ended(long pid) {
#ifdef _WIN32
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
    if (h == nullptr) return true;
    const bool ended = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
    CloseHandle(h);
    return ended;
#else
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string content((std::istreambuf_iterator<char>(stat)), {});
    return !stat || content.find(") Z") != std::string::npos;
#endif
}

TEST(RunProcess, CapturesStdoutStderrAndExitStatus) {
    auto r = run_process(child({"talk", "out", "err", "6"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->end, ProcessEnd::exited);
    EXPECT_EQ(r->exit_code, 6);
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
    EXPECT_FALSE(r->succeeded());
    EXPECT_EQ(r->describe(), "exited with status 6");
}

TEST(RunProcess, PassesArgumentsWithoutAShell) {
    // Spaces, quotes, backslashes before quotes, shell and cmd metacharacters, an empty
    // argument and non-ASCII text arrive as they were given (on Windows through the quoting
    // the MSVC runtime parses back).
    auto r = run_process(child({"args", "|", "a b", "$HOME", "*", "", "say \"hi\"", "C:\\x y\\",
                                "a\\\\\"b", "%PATH% & ^ !x!", "Zo\xC3\xAB"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->succeeded());
    EXPECT_EQ(r->out, "a b|$HOME|*||say \"hi\"|C:\\x y\\|a\\\\\"b|%PATH% & ^ !x!|Zo\xC3\xAB|");
}

TEST(RunProcess, SetsAndUnsetsEnvironmentVariables) {
    ProcessRequest req = child({"env", "A", "B", "C"});
    req.environment = Environment{{"A", "1"}, {"C", "3"}};
    req.environment_changes = {{"A", std::nullopt}, {"B", "two words"}};
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "A=unset B=two words C=3\n");
}

TEST(RunProcess, InheritsThisProcessEnvironmentByDefault) {
    auto env = aitk::util::current_environment();
    auto path = aitk::util::environment_lookup(env, "PATH", kWindows);
    ASSERT_TRUE(path);
    auto r = run_process(child({"env", "PATH"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "PATH=" + *path + "\n");
}

TEST(RunProcess, FeedsStdinWithoutDeadlockingOnLargeData) {
    ProcessRequest req = child({"cat"});
    req.stdin_data = std::string(3u << 20, 'x');  // larger than any pipe buffer
    req.timeout = 20s;
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->succeeded());
    EXPECT_EQ(r->out.size(), req.stdin_data.size());
    EXPECT_EQ(r->out, req.stdin_data);
}

TEST(RunProcess, ChildThatIgnoresStdinDoesNotKillUs) {
    ProcessRequest req = child({"talk", "", "", "0"});
    req.stdin_data = std::string(1u << 20, 'x');
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->succeeded());
}

TEST(RunProcess, CapsOutputButKeepsReading) {
    ProcessRequest req = child({"zeros", "200000"});
    req.output_limit = 1000;
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->succeeded());  // the child was not blocked on a full pipe
    EXPECT_EQ(r->out.size(), 1000u);
    EXPECT_TRUE(r->out_truncated);
    EXPECT_FALSE(r->err_truncated);
}

TEST(RunProcess, TimeoutKillsTheWholeProcessTree) {
    TempDir dir;
    fs::path pidfile = dir.path / "grandchild.pid";
    ProcessRequest req = child({"tree", pidfile.string()});
    req.timeout = 1500ms;
    auto begin = std::chrono::steady_clock::now();
    auto r = run_process(req);
    auto took = std::chrono::steady_clock::now() - begin;
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->end, ProcessEnd::timed_out);
    EXPECT_EQ(r->out, "started\n");  // output up to the kill is kept
    EXPECT_EQ(r->describe(), "did not finish within 1500 ms");
    EXPECT_LT(took, 10s);
    std::ifstream in(pidfile);
    long grandchild = 0;
    ASSERT_TRUE(in >> grandchild);
    // The grandchild went with the group (POSIX) or the job (Windows).
    bool gone = false;
    for (int i = 0; i < 250 && !gone; ++i) {
        gone = has_ended(grandchild);
        if (!gone) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(gone);
}

TEST(RunProcess, BackgroundGrandchildHoldingThePipeDoesNotTurnSuccessIntoTimeout) {
    // The child exits at once; its own child keeps stdout open for 30 s. POSIX reads on until
    // the timeout, Windows ends the job with the child: either way the run is a success.
    ProcessRequest req = child({"orphan"});
    req.timeout = 2s;
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->end, ProcessEnd::exited);
    EXPECT_EQ(r->exit_code, 0);
    EXPECT_EQ(r->out, "done\n");
}

TEST(RunProcess, ACrashSaysHowTheChildEnded) {
    auto r = run_process(child({"crash"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->succeeded());
#ifdef _WIN32
    EXPECT_EQ(r->end, ProcessEnd::exited);
    EXPECT_EQ(static_cast<unsigned>(r->exit_code), 0xC0000005u);
    EXPECT_EQ(r->describe(), "crashed with exception 0xC0000005 (access violation)");
#else
    EXPECT_EQ(r->end, ProcessEnd::signaled);
    EXPECT_EQ(r->signal, SIGSEGV);
    EXPECT_EQ(r->describe(), "was killed by signal 11");
#endif
}

TEST(RunProcess, ProgramNotFoundIsAnErrorValue) {
    ProcessRequest req;
    req.argv = {"aitk-no-such-program-xyz"};
    auto r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "aitk-no-such-program-xyz: not found on PATH");

    ProcessRequest none;
    EXPECT_FALSE(run_process(none));
}

TEST(RunProcess, RunsInTheGivenWorkingDirectory) {
    TempDir dir;
    ProcessRequest req = child({"pwd"});
    req.working_directory = dir.path;
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, fs::canonical(dir.path).string() + "\n");

    req.working_directory = dir.path / "missing";
    r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(kWindows ? "irectory name" : "No such file or directory"),
              std::string::npos)
        << r.error().message;
}

TEST(RunProcess, FindsBareNamesOnTheChildsPath) {
    TempDir dir;
    const fs::path tool = dir.path / (kWindows ? "aitk-fake-tool.exe" : "aitk-fake-tool");
    fs::copy_file(AITK_TEST_CHILD, tool);
    ProcessRequest req;
    req.argv = {"aitk-fake-tool", "args", "|", "x"};
    req.environment_changes = {
        {"PATH", dir.path.string() + (kWindows ? ";C:\\nowhere" : ":/usr/bin:/bin")}};
    auto r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "x|");
}

#ifdef _WIN32
TEST(RunProcess, AFileThatIsNotAProgramIsRefusedWithTheReason) {
    TempDir dir;
    const fs::path fake = dir.path / "tool.exe";
    // An MZ header and nothing of a PE image (not a script: Wine would run one it may execute).
    write_file(fake, std::string("MZ") + std::string(62, '\0'));
    ProcessRequest req;
    req.argv = {fake.string()};
    auto r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.rfind("cannot run " + fake.string() + ": ", 0), 0u)
        << r.error().message;
}

TEST(SelfExecutable, IsThisTestProgram) {
    EXPECT_EQ(aitk::util::self_executable_path().filename(), "test_util.exe");
}
#else
ProcessRequest sh(const std::string& script) {
    ProcessRequest r;
    r.argv = {"/bin/sh", "-c", script};
    return r;
}

TEST(RunProcess, ReportsDeathBySignal) {
    auto r = run_process(sh("kill -SEGV $$"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, ProcessEnd::signaled);
    EXPECT_EQ(r->signal, SIGSEGV);
    EXPECT_EQ(r->describe(), "was killed by signal 11");
}

TEST(RunProcess, NonExecutableFileAndAPathThatIsNoProgram) {
    TempDir dir;
    fs::path script = dir.path / "script";
    write_file(script, "#!/bin/sh\necho hi\n");
    ProcessRequest req;
    req.argv = {script.string()};
    auto r = run_process(req);
    ASSERT_FALSE(r);  // no execute permission

    fs::permissions(script, fs::perms::owner_all);
    r = run_process(req);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "hi\n");

    req.argv = {"/nonexistent/dir/prog"};
    r = run_process(req);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "/nonexistent/dir/prog: not an executable file");
}

TEST(FindProgram, PosixPathSearch) {
    TempDir dir;
    fs::create_directories(dir.path / "a");
    fs::create_directories(dir.path / "b");
    write_file(dir.path / "a" / "tool", "x");  // not executable: skipped
    write_file(dir.path / "b" / "tool", "x");
    fs::permissions(dir.path / "b" / "tool", fs::perms::owner_all);
    std::string path = (dir.path / "a").string() + ":" + (dir.path / "b").string();
    auto found = aitk::util::find_program("tool", path);
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, dir.path / "b" / "tool");
    EXPECT_FALSE(aitk::util::find_program("missing", path));
    EXPECT_FALSE(aitk::util::find_program("", path));
}

TEST(SelfExecutable, IsThisTestProgram) {
    EXPECT_EQ(aitk::util::self_executable_path().filename(), "test_util");
}
#endif

TEST(FindProgram, WindowsRulesEvaluatedAsData) {
    TempDir dir;
    fs::create_directories(dir.path / "NVSMI");
    write_file(dir.path / "NVSMI" / "nvidia-smi.exe", "MZ");
    std::string path = "C:\\nowhere;;" + (dir.path / "NVSMI").string();
    auto found = aitk::util::find_program("nvidia-smi", path, true, ".COM;.EXE");
    ASSERT_TRUE(found);
    // The same file (on Windows it may be spelt with PATHEXT's ".EXE").
    EXPECT_TRUE(fs::equivalent(*found, dir.path / "NVSMI" / "nvidia-smi.exe")) << *found;
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

// The one place that knows where a Windows user's local application data is: the cache root
// and `self install`'s folder both start from it.
TEST(Environment, WindowsLocalAppDataFallsBackToTheProfile) {
    using aitk::util::windows_local_app_data;
    EXPECT_EQ(windows_local_app_data({{"LocalAppData", "D:\\L"}, {"USERPROFILE", "C:\\Users\\u"}}),
              "D:\\L");
    EXPECT_EQ(windows_local_app_data({{"LOCALAPPDATA", ""}, {"UserProfile", "C:\\Users\\u"}}),
              "C:\\Users\\u\\AppData\\Local");
    EXPECT_EQ(windows_local_app_data({{"USERPROFILE", "C:\\Users\\u\\"}}),
              "C:\\Users\\u\\AppData\\Local");
    EXPECT_EQ(windows_local_app_data({{"HOME", "/home/u"}}), "");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
