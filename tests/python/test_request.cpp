// `--python` / `python find SPEC`: the forms of a request, their errors, and finding the newest
// match among fake and real interpreters.
#include "aitk/python/request.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST(InterpreterRequest, Forms) {
    auto v = parse_interpreter_request("3.12");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->kind, InterpreterRequest::Kind::version);
    EXPECT_EQ(v->specifier.to_string(), "==3.12.*");
    EXPECT_EQ(v->describe(), "Python 3.12");
    auto full = parse_interpreter_request(" 3.12.1 ");
    ASSERT_TRUE(full);
    EXPECT_EQ(full->specifier.to_string(), "==3.12.1");
    EXPECT_EQ(full->text, "3.12.1");
    auto s = parse_interpreter_request(">=3.10,<3.13");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->kind, InterpreterRequest::Kind::specifier);
    EXPECT_EQ(s->describe(), "Python <3.13,>=3.10");
    auto p = parse_interpreter_request("/opt/py/bin/python3");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->kind, InterpreterRequest::Kind::path);
    EXPECT_EQ(p->path, "/opt/py/bin/python3");
    EXPECT_EQ(parse_interpreter_request("./python")->kind, InterpreterRequest::Kind::path);
    EXPECT_EQ(parse_interpreter_request("C:\\Python312\\python.exe")->kind,
              InterpreterRequest::Kind::path);
    auto prog = parse_interpreter_request("python3.11");
    ASSERT_TRUE(prog);
    EXPECT_EQ(prog->kind, InterpreterRequest::Kind::program);
}

TEST(InterpreterRequest, Errors) {
    auto e = parse_interpreter_request("three");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "\"three\" is not a Python version (3.12, 3.12.1), a version specifier "
              "(>=3.10,<3.13), a path or a program name (python3.12)");
    e = parse_interpreter_request("");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "an empty Python request: give a version (3.12, 3.12.1), a specifier "
              "(>=3.10,<3.13) or a path");
    e = parse_interpreter_request(">=3.x");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("\">=3.x\" is not a valid version specifier: ", 0), 0u)
        << e.error().message;
    EXPECT_FALSE(parse_interpreter_request("3.12.1.4"));
}

TEST(InterpreterRequest, Matches) {
    Interpreter i;
    i.version = "3.12.1";
    EXPECT_TRUE(parse_interpreter_request("3.12")->matches(i));
    EXPECT_TRUE(parse_interpreter_request("3")->matches(i));
    EXPECT_TRUE(parse_interpreter_request("3.12.1")->matches(i));
    EXPECT_FALSE(parse_interpreter_request("3.12.2")->matches(i));
    EXPECT_FALSE(parse_interpreter_request("3.1")->matches(i));
    EXPECT_TRUE(parse_interpreter_request(">=3.10,<3.13")->matches(i));
    EXPECT_FALSE(parse_interpreter_request("<3.12")->matches(i));
    EXPECT_FALSE(parse_interpreter_request("/x")->matches(i));
}

TEST(FindInterpreter, NewestMatchFirstAmongFakes) {
    TempDir t;
    auto bin = t.path / "bin";
    fake_python(bin / "python3.9", "3.9.18", "/p/3.9");
    fake_python(bin / "python3.11", "3.11.2", "/p/3.11.2");
    fake_python(t.path / "pyenv/versions/3.11.7/bin/python3", "3.11.7", "/p/3.11.7");
    fake_python(t.path / "pyenv/versions/3.12.1/bin/python3", "3.12.1", "/p/3.12.1");
    DiscoveryOptions o;
    o.path_value = bin.string();
    o.pyenv_root = t.path / "pyenv";
    o.system_dirs = std::vector<fs::path>{};
    o.environment = {{"PATH", "/usr/bin:/bin"}};

    auto all = find_interpreters(*parse_interpreter_request(">=3.10"), o);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].version, "3.12.1");
    EXPECT_EQ(all[1].version, "3.11.7");
    EXPECT_EQ(all[2].version, "3.11.2");
    auto one = find_interpreter("3.11", o);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->version, "3.11.7");
    EXPECT_EQ(one->path, t.path / "pyenv/versions/3.11.7/bin/python3");
    EXPECT_EQ(find_interpreter("3.11.2", o)->path, bin / "python3.11");
    EXPECT_FALSE(find_interpreter("3.13", o));

    // A program name is looked up on PATH.
    auto prog = find_interpreter("python3.9", o);
    ASSERT_TRUE(prog);
    EXPECT_EQ(prog->path, bin / "python3.9");
    EXPECT_FALSE(find_interpreter("python3.4", o));
}

TEST(FindInterpreter, BadSpecsAndPathsAreInputErrors) {
    TempDir t;
    DiscoveryOptions o;
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    try {
        (void)find_interpreter("latest", o);
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "\"latest\" is not a Python version (3.12, 3.12.1), a version specifier "
                  "(>=3.10,<3.13), a path or a program name (python3.12)");
    }
    try {
        (void)find_interpreter((t.path / "nope").string(), o);
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), (t.path / "nope").string() + " does not exist");
        EXPECT_EQ(e.hint(), "give the path of a Python executable, or a version such as 3.12");
    }
}

TEST(FindInterpreter, RealPyenvInterpreters) {
    if (!fs::exists(pyenv_python("3.11.7")) || !fs::exists(pyenv_python("3.12.1"))) {
        GTEST_SKIP() << "no pyenv 3.11.7 and 3.12.1 here";
    }
    TempDir t;
    DiscoveryOptions o;
    o.pyenv_root = "/root/.pyenv";
    o.system_dirs = std::vector<fs::path>{};
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 20s;
    o.cache_file = t.path / "interpreters.json";
    auto newest = find_interpreter(">=3.10,<3.13", o);
    ASSERT_TRUE(newest);
    EXPECT_EQ(newest->version, "3.12.1");
    EXPECT_EQ(newest->executable, pyenv_versions / "3.12.1/bin/python3.12");
    auto by_path = find_interpreter(pyenv_python("3.11.7").string(), o);
    ASSERT_TRUE(by_path);
    EXPECT_EQ(by_path->version, "3.11.7");
    EXPECT_EQ(by_path->path, pyenv_python("3.11.7"));
    auto exact = find_interpreter("3.11.7", o);
    ASSERT_TRUE(exact);
    EXPECT_EQ(exact->base_prefix, pyenv_versions / "3.11.7");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
