// `aitk-env pep` through the real binary: the JSON-lines contract of docs/cli.md.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "run_cli.hpp"
#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::test::run_cli;
using nlohmann::json;

namespace {

std::vector<json> json_lines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        out.push_back(json::parse(line));
    return out;
}

}  // namespace

TEST(PepBatch, AnswersTheContractExamplesInOrder) {
    std::string input = R"({"op":"normalize","version":"1.0.POST1"})"
                        "\n"
                        R"({"op":"compare","a":"1.0","b":"1.0.0"})"
                        "\n"
                        R"({"op":"compare","a":"2.7.0+cu128","b":"2.7.0"})"
                        "\n"
                        R"({"op":"name","input":"Foo.Bar_baz"})"
                        "\n"
                        R"({"op":"wheel","filename":"foo-1.0-1000abc-py2.py3-none-any.whl"})"
                        "\n";
    auto r = run_cli({"pep", "batch"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], json::parse(R"({"ok":true,"result":"1.0.post1"})"));
    EXPECT_EQ(lines[1], json::parse(R"({"ok":true,"result":0})"));
    EXPECT_EQ(lines[2], json::parse(R"({"ok":true,"result":1})"));
    EXPECT_EQ(lines[3], json::parse(R"({"ok":true,"result":"foo-bar-baz"})"));
    EXPECT_EQ(lines[4]["result"], json::parse(R"({"name":"foo","version":"1.0","build":[1000,"abc"],
                              "tags":["py2-none-any","py3-none-any"]})"));
}

TEST(PepBatch, BadLinesGetErrorsAndTheBatchGoesOn) {
    std::string input =
        "not json\n"
        R"({"op":"normalize","version":"french toast"})"
        "\n"
        R"({"op":"nope"})"
        "\n"
        R"({"version":"1"})"
        "\n"
        R"({"op":"compare","a":1,"b":"2"})"
        "\n"
        "\n"
        R"({"op":"normalize","version":"2.0"})"
        "\n";
    auto r = run_cli({"pep", "batch"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 6u);  // the blank line is skipped
    for (int i = 0; i < 5; ++i) {
        EXPECT_FALSE(lines[i]["ok"].get<bool>()) << lines[i];
        EXPECT_FALSE(lines[i]["error"].get<std::string>().empty());
    }
    EXPECT_NE(lines[0]["error"].get<std::string>().find("line 1 is not valid JSON"),
              std::string::npos);
    EXPECT_NE(lines[1]["error"].get<std::string>().find("invalid version"), std::string::npos);
    EXPECT_NE(lines[2]["error"].get<std::string>().find("unknown op \"nope\""), std::string::npos);
    EXPECT_NE(lines[3]["error"].get<std::string>().find("missing field \"op\""), std::string::npos);
    EXPECT_NE(lines[4]["error"].get<std::string>().find("\"a\" must be a string"),
              std::string::npos);
    EXPECT_EQ(lines[5], json::parse(R"({"ok":true,"result":"2.0"})"));
}

// packaging reads from the environment only the variables a marker names: a key that is no
// marker variable is ignored, whatever its value, while a variable must still be a string.
TEST(PepBatch, MarkerEnvironmentIgnoresKeysThatAreNoVariables) {
    std::string input =
        R"({"op":"marker","marker":"'a' == 'a'","environment":{"a":"a"}})"
        "\n"
        R"({"op":"marker","marker":"os_name == 'posix'","environment":{"os_name":"posix","a":"a","b":1}})"
        "\n"
        R"({"op":"marker","marker":"os_name == 'posix'","environment":{"os_name":1}})"
        "\n";
    auto r = run_cli({"pep", "batch"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], json::parse(R"({"ok":true,"result":true})"));
    EXPECT_EQ(lines[1], json::parse(R"({"ok":true,"result":true})"));
    EXPECT_FALSE(lines[2]["ok"].get<bool>());
    EXPECT_NE(lines[2]["error"].get<std::string>().find("\"os_name\" must be a string"),
              std::string::npos)
        << lines[2];
}

// Every marker vector of tests/data/conformance, environment as given (extra keys included),
// answered by one batch.
TEST(PepBatch, EvaluatesEveryMarkerConformanceCase) {
    const auto cases = aitk::test::conformance("markers");
    ASSERT_GE(cases.size(), 90u);
    std::string input;
    for (const auto& c : cases) {
        json request = {
            {"op", "marker"}, {"marker", c["marker"]}, {"environment", c["environment"]}};
        input += request.dump() + "\n";
    }
    auto r = run_cli({"pep", "batch"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(lines[i], (json{{"ok", true}, {"result", cases[i]["result"]}}))
            << cases[i]["marker"];
    }
}

TEST(PepBatch, InvalidUtf8DoesNotCrash) {
    auto r = run_cli({"pep", "batch"}, "{\"op\":\"name\",\"input\":\"\xff\xfe\"}\n\xc3\n");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_FALSE(lines[0]["ok"].get<bool>());
    EXPECT_FALSE(lines[1]["ok"].get<bool>());
}

TEST(PepCommands, PrintPlainResultsAndJsonBeforeOrAfterTheCommand) {
    auto r = run_cli({"pep", "normalize", "1.0.POST1"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "1.0.post1\n");
    auto before = run_cli({"--json", "pep", "compare", "1", "2"});
    auto after = run_cli({"pep", "compare", "1", "2", "--json"});
    EXPECT_EQ(before.out, "{\"ok\":true,\"result\":-1}\n");
    EXPECT_EQ(after.out, before.out);
}

TEST(PepCommands, BadInputExitsTwoWithTheColumn) {
    auto r = run_cli({"pep", "normalize", "1.0+foo&bar"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unexpected character '&'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("column 8"), std::string::npos) << r.err;
    EXPECT_EQ(run_cli({"pep"}).exit_code, 2);
    EXPECT_EQ(run_cli({"pep", "compare", "1"}).exit_code, 2);
}

TEST(PepCommands, HumanSubcommandsAnswerWhyAVersionIsPicked) {
    EXPECT_EQ(run_cli({"pep", "contains", ">=2.6,<2.8", "2.7.0+cu128"}).out, "true\n");
    // A prerelease is not admitted unless asked for or named by the specifier.
    EXPECT_EQ(run_cli({"pep", "contains", ">=2.6", "2.8.0rc1"}).out, "false\n");
    EXPECT_EQ(run_cli({"pep", "contains", ">=2.6", "2.8.0rc1", "--pre"}).out, "true\n");
    EXPECT_EQ(run_cli({"pep", "filter", ">=1.0", "0.9", "1.0", "1.1a1", "2.0"}).out, "1.0\n2.0\n");
    EXPECT_EQ(run_cli({"pep", "name", "Foo.Bar_baz"}).out, "foo-bar-baz\n");
    auto marker = run_cli({"pep", "marker", "python_version >= '3.8' and sys_platform == 'linux'",
                           "--env", "python_version=3.12", "--env", "sys_platform=linux"});
    EXPECT_EQ(marker.out, "true\n");
    auto bad_env = run_cli({"pep", "marker", "os_name == 'nt'", "--env", "bogus=1"});
    EXPECT_EQ(bad_env.exit_code, 2);
    EXPECT_NE(bad_env.err.find("unknown marker variable 'bogus'"), std::string::npos)
        << bad_env.err;
    auto tags = run_cli({"pep", "tags", "--os", "windows", "--python", "3.11"});
    EXPECT_EQ(tags.out.substr(0, tags.out.find('\n')), "cp311-cp311-win_amd64");
    auto wheel = run_cli({"--json", "pep", "wheel", "torch-2.7.0+cu128-cp312-cp312-win_amd64.whl",
                          "--os", "linux", "--libc", "glibc 2.36"});
    auto reply = json::parse(wheel.out);
    EXPECT_EQ(reply["result"]["compatible"], false);
    EXPECT_EQ(reply["result"]["version"], "2.7.0+cu128");
}

TEST(PepBatch, AbsurdTargetVersionsAreRejectedQuickly) {
    // Found by fuzz_pep_batch: a huge macOS version made the tag ladder loop for seconds.
    std::string input = R"({"op":"tags","os":"macos","arch":"arm64","os_version":"99999.0"})"
                        "\n"
                        R"({"op":"tags","python":"3.4294967296"})"
                        "\n"
                        R"({"op":"tags","os":"linux","libc":"glibc 2.999999"})"
                        "\n";
    auto r = run_cli({"pep", "batch"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 3u);
    for (const auto& line : lines)
        EXPECT_FALSE(line["ok"].get<bool>()) << line;
    EXPECT_NE(lines[0]["error"].get<std::string>().find("out of range"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
