#include "aitk/pep/marker.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::Marker;
using aitk::pep::MarkerEnvironment;
using aitk::pep::MarkerOp;
using aitk::pep::MarkerVariable;
using testing::HasSubstr;

namespace {

Marker m(std::string_view text) {
    auto parsed = Marker::parse(text);
    if (!parsed) throw std::runtime_error("marker does not parse: " + parsed.error().describe());
    return *parsed;
}

// A CPython 3.12 on x86_64 Linux, as in the conformance vectors.
MarkerEnvironment linux_env() {
    MarkerEnvironment env;
    env.set(MarkerVariable::implementation_name, "cpython");
    env.set(MarkerVariable::implementation_version, "3.12.1");
    env.set(MarkerVariable::os_name, "posix");
    env.set(MarkerVariable::platform_machine, "x86_64");
    env.set(MarkerVariable::platform_release, "6.8.0-45-generic");
    env.set(MarkerVariable::platform_system, "Linux");
    env.set(MarkerVariable::platform_version, "#45-Ubuntu SMP PREEMPT_DYNAMIC");
    env.set(MarkerVariable::python_full_version, "3.12.1");
    env.set(MarkerVariable::platform_python_implementation, "CPython");
    env.set(MarkerVariable::python_version, "3.12");
    env.set(MarkerVariable::sys_platform, "linux");
    return env;
}

bool eval(std::string_view text, const MarkerEnvironment& env) {
    auto result = m(text).evaluate(env);
    if (!result) throw std::runtime_error("evaluation failed: " + result.error().describe());
    return *result;
}

// Parses, expecting failure; returns the error.
aitk::util::ParseError parse_failure(std::string_view text) {
    auto parsed = Marker::parse(text);
    if (parsed) throw std::runtime_error("marker unexpectedly parses: " + std::string(text));
    return parsed.error();
}

}  // namespace

TEST(MarkerConformance, EvaluatesLikePackaging) {
    auto cases = aitk::test::conformance("markers");
    ASSERT_GE(cases.size(), 90u);
    for (const auto& c : cases) {
        std::string text = c["marker"];
        SCOPED_TRACE(text);
        MarkerEnvironment env;
        for (const auto& [key, value] : c["environment"].items()) {
            // Four upstream string-rule cases carry an extra key "a" that only packaging's
            // dictionary lookup of a literal uses; it is not a marker variable.
            if (key == "a") continue;
            ASSERT_TRUE(env.set(key, value.get<std::string>())) << key;
        }
        auto marker = Marker::parse(text);
        ASSERT_TRUE(marker) << marker.error().describe();
        auto result = marker->evaluate(env);
        ASSERT_TRUE(result) << result.error().describe();
        EXPECT_EQ(*result, c["result"].get<bool>());
    }
}

TEST(MarkerConformance, ValidMarkersParseAndRoundTrip) {
    auto cases = aitk::test::conformance("markers_valid");
    ASSERT_GE(cases.size(), 1000u);
    std::size_t with_str = 0;
    for (const auto& c : cases) {
        std::string text = c["marker"];
        SCOPED_TRACE(text);
        auto marker = Marker::parse(text);
        ASSERT_TRUE(marker) << marker.error().describe();
        std::string str = marker->to_string();
        if (c.contains("str")) {
            EXPECT_EQ(str, c["str"].get<std::string>());
            ++with_str;
        }
        auto again = Marker::parse(str);
        ASSERT_TRUE(again) << again.error().describe();
        EXPECT_EQ(again->to_string(), str);
        EXPECT_EQ(*again, *marker);
        EXPECT_EQ(again->comparisons().size(), marker->comparisons().size());
    }
    EXPECT_GE(with_str, 9u);
}

TEST(MarkerConformance, InvalidMarkersAreRejected) {
    auto cases = aitk::test::conformance("markers_invalid");
    ASSERT_GE(cases.size(), 15u);
    for (const auto& c : cases) {
        std::string text = c;
        SCOPED_TRACE(text);
        auto marker = Marker::parse(text);
        ASSERT_FALSE(marker) << marker->to_string();
        EXPECT_FALSE(marker.error().message.empty());
        EXPECT_EQ(marker.error().input, text);
        EXPECT_LE(marker.error().position, text.size());
    }
}

TEST(MarkerParse, ErrorsNameTheProblemAndItsColumn) {
    struct Case {
        std::string_view text;
        std::size_t position;
        std::string_view message;
    };
    const Case cases[] = {
        {"", 0, "expected a marker variable"},
        {"invalid_name", 0, "unknown marker variable 'invalid_name'"},
        {"'3.7' <= invalid_name", 9, "unknown marker variable 'invalid_name'"},
        {"platform.system == 'Linux'", 0, "unknown marker variable 'platform.system'"},
        {"python_version >= 1.0", 18, "values must be quoted (\"1.0\")"},
        {"'3.7' notin python_version", 6, "expected a marker operator"},
        {"'3.7' not python_version", 10, "expected 'in' after 'not'"},
        {"'3.7' not'x'", 9, "expected whitespace after 'not'"},
        {"'3.7' ~ python_version", 6, "expected a marker operator"},
        {"python_version = '3.8'", 15, "did you mean '=='?"},
        {"python_version >= '3.8' or or os_name == 'nt'", 27, "found 'or'"},
        {"os_name == 'posix' and not sys_platform == 'win32'", 23, "no 'not' operator"},
        {"python_version >= '3.8' && sys_platform == 'linux'", 24, "use 'and' / 'or'"},
        {"os_name == 'posix')", 18, "unmatched ')'"},
        {"(os_name == 'posix'", 19, "expected ')' to close the '(' at column 1"},
        {"(python_version == \"2.7\") with random text", 26, "expected 'and', 'or' or the end"},
        {"os_name == 'posix", 11, "unterminated string: no closing '"},
        {"os_name == \"C:\\\"", 14, "the backslash escapes the closing quote"},
        {"os_name == \"\\x\"", 12, "truncated \\x escape"},
        {"os_name == \"\\N{DIGIT ONE}\"", 12, "\\N{...} escapes are not supported"},
        {"os_name == \"a\nb\"", 13, "line break inside a quoted string"},
        {std::string_view("os_name == \"a\0b\"", 16), 13, "NUL character"},
        {"os_name == 'a'\n\n", 14, "expected 'and', 'or' or the end"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.text));
        auto error = parse_failure(c.text);
        EXPECT_EQ(error.position, c.position);
        EXPECT_THAT(error.message, HasSubstr(std::string(c.message)));
        EXPECT_EQ(error.input, std::string(c.text));
    }
}

TEST(MarkerParse, NestingIsBoundedSoNoInputExhaustsTheStack) {
    std::string deep(Marker::max_nesting, '(');
    deep += "os_name == 'posix'";
    deep += std::string(Marker::max_nesting, ')');
    EXPECT_EQ(m(deep).to_string(), "os_name == \"posix\"");
    EXPECT_TRUE(eval(deep, linux_env()));

    std::string too_deep(100000, '(');
    too_deep += "os_name == 'posix'";
    auto error = parse_failure(too_deep);
    EXPECT_THAT(error.message, HasSubstr("nested more than 64 deep"));
    EXPECT_EQ(error.position, Marker::max_nesting);
}

TEST(MarkerParse, AcceptsPackagingsWhitespaceAndSpellings) {
    EXPECT_EQ(m("os_name=='posix'and(python_version>='3')").to_string(),
              "os_name == \"posix\" and python_version >= \"3\"");
    EXPECT_EQ(m("\t os_name  not \t in 'posix' ").to_string(), "os_name not in \"posix\"");
    EXPECT_EQ(m("'a'in os_name").to_string(), "\"a\" in os_name");
    EXPECT_EQ(m("os_name == 'posix'\n").to_string(), "os_name == \"posix\"");
    // PEP 345 / setuptools spellings map to the PEP 508 names.
    EXPECT_EQ(m("os.name == 'nt'").to_string(), "os_name == \"nt\"");
    EXPECT_EQ(m("sys.platform == 'linux'").to_string(), "sys_platform == \"linux\"");
    EXPECT_EQ(m("platform.machine == 'x'").to_string(), "platform_machine == \"x\"");
    EXPECT_EQ(m("platform.version == 'x'").to_string(), "platform_version == \"x\"");
    EXPECT_EQ(m("python_implementation == 'CPython'").to_string(),
              "platform_python_implementation == \"CPython\"");
    EXPECT_EQ(m("platform.python_implementation == 'CPython'").to_string(),
              "platform_python_implementation == \"CPython\"");
    // Keywords need word boundaries.
    EXPECT_FALSE(Marker::parse("os_name == 'a' andos_name == 'b'"));
    EXPECT_FALSE(Marker::parse("python_versionx == '3'"));
}

TEST(MarkerParse, DecodesPythonEscapes) {
    auto value = [](std::string_view text) { return m(text).comparisons().at(0).rhs.value; };
    EXPECT_EQ(value(R"(os_name == "a\\b")"), "a\\b");
    EXPECT_EQ(value(R"(os_name == "\x41\101\u00e9")"), "AA\xc3\xa9");
    EXPECT_EQ(value(R"(os_name == "\U0001F600")"), "\xf0\x9f\x98\x80");
    EXPECT_EQ(value(R"(os_name == "\t\n\'")"), "\t\n'");
    EXPECT_EQ(value(R"(os_name == "\q")"), "\\q");    // unknown escapes stay as written
    EXPECT_EQ(value("os_name == \"a\\\nb\""), "ab");  // line continuation
    EXPECT_EQ(value(R"(os_name == "\777")"), "\xc7\xbf");
    EXPECT_FALSE(Marker::parse(R"(os_name == "\U00110000")"));
}

TEST(MarkerFormat, KeepsGroupingAndQuotesSafely) {
    EXPECT_EQ(m("(python_version == '2.7')").to_string(), "python_version == \"2.7\"");
    EXPECT_EQ(m("(((os_name == 'a')))").to_string(), "os_name == \"a\"");
    EXPECT_EQ(m("os_name == 'a' and (os_name == 'b')").to_string(),
              "os_name == \"a\" and os_name == \"b\"");
    EXPECT_EQ(m("(os_name == 'a' and os_name == 'b') or os_name == 'c'").to_string(),
              "(os_name == \"a\" and os_name == \"b\") or os_name == \"c\"");
    // packaging 24 prints this without the parentheses, which changes its meaning.
    EXPECT_EQ(
        m("python_version < '3.10' and ((sys_platform == 'linux' or sys_platform == 'darwin'))")
            .to_string(),
        "python_version < \"3.10\" and (sys_platform == \"linux\" or sys_platform == \"darwin\")");
    // Extra names are normalised (PEP 685) on whichever side they are.
    EXPECT_EQ(m("'S_P__A_M' == extra").to_string(), "\"s-p-a-m\" == extra");
    EXPECT_EQ(m("extra == 'Foo.Bar'").to_string(), "extra == \"foo-bar\"");
    // Values that packaging would print unparseably are quoted or escaped instead.
    EXPECT_EQ(m("os_name == 'say \"hi\"'").to_string(), "os_name == 'say \"hi\"'");
    EXPECT_EQ(m(R"(os_name == "a\\b")").to_string(), R"(os_name == "a\\b")");
    const char* awkward[] = {
        R"('a" == os_name or python_version >= "0" or "b' == os_name)",
        R"(os_name == "a\x22b'c\\d\n\x00\x1f")",
        R"(os_name == "tab	here")",
    };
    for (const char* text : awkward) {
        SCOPED_TRACE(text);
        Marker first = m(text);
        Marker again = m(first.to_string());
        EXPECT_EQ(again.to_string(), first.to_string());
        EXPECT_EQ(again.comparisons().at(0).lhs, first.comparisons().at(0).lhs);
        EXPECT_EQ(again.comparisons().at(0).rhs, first.comparisons().at(0).rhs);
    }
    EXPECT_EQ(
        m(R"('a" == os_name or python_version >= "0" or "b' == os_name)").comparisons().size(), 1u);
}

TEST(MarkerEvaluate, VersionsCompareAsPep440AndOthersAsStrings) {
    MarkerEnvironment env = linux_env();
    EXPECT_TRUE(eval("python_version >= '3.8'", env));
    EXPECT_TRUE(eval("python_version > '3.9'", env));  // not a string comparison ("3.12" < "3.9")
    EXPECT_TRUE(eval("'3.7' <= python_version", env));
    EXPECT_TRUE(eval("python_version == '3.12.0'", env));  // PEP 440: 3.12 == 3.12.0
    EXPECT_TRUE(eval("python_version == '3.*'", env));
    EXPECT_TRUE(eval("python_full_version ~= '3.12.0'", env));
    EXPECT_TRUE(eval("python_version === '3.12'", env));
    EXPECT_FALSE(eval("python_version === '3.12.0'", env));
    EXPECT_TRUE(eval("python_version >= ' 3.8 '", env));
    EXPECT_TRUE(eval("python_version in '3.12.1'", env));
    EXPECT_TRUE(eval("platform_machine in 'x86_64 AMD64'", env));
    EXPECT_FALSE(eval("platform_machine not in 'x86_64 AMD64'", env));
    EXPECT_TRUE(eval("os_name < 'z'", env));
    EXPECT_FALSE(eval("'b' < 'a'", env));               // two literals compare with each other
    EXPECT_TRUE(eval("os_name != sys_platform", env));  // two variables: their values
    // A python_full_version from a development build ("3.12.1+") still compares as a version.
    env.set(MarkerVariable::python_full_version, "3.12.1+");
    EXPECT_TRUE(eval("python_full_version == '3.12.1'", env));
    EXPECT_TRUE(eval("python_full_version == '3.12.1+local'", env));
}

TEST(MarkerEvaluate, FailsWherePackagingRaises) {
    MarkerEnvironment env = linux_env();
    auto release = m("platform_release >= '5.0'").evaluate(env);
    ASSERT_FALSE(release);
    EXPECT_THAT(release.error().message,
                HasSubstr("'6.8.0-45-generic' is not a valid PEP 440 version"));
    EXPECT_EQ(release.error().input, "platform_release >= \"5.0\"");
    env.set(MarkerVariable::platform_release, "6.8.0");
    EXPECT_TRUE(*m("platform_release >= '5.0'").evaluate(env));

    auto compatible = m("os_name ~= 'foo'").evaluate(env);
    ASSERT_FALSE(compatible);
    EXPECT_THAT(compatible.error().message,
                HasSubstr("~= needs PEP 440 versions on both sides, got 'posix' and 'foo'"));
    EXPECT_FALSE(m("os_name === 'foo bar'").evaluate(env));
    EXPECT_FALSE(m("os_name === 'posix'").evaluate(env));  // === parses the left side too
    // The value can complete the operator: '>' + "=6a0" is the specifier ">=6a0".
    EXPECT_FALSE(m("platform_system > '=6a0'").evaluate(env));
    EXPECT_FALSE(m("os_name == '=posix'").evaluate(env));
    // No short-circuit: packaging evaluates every comparison.
    EXPECT_FALSE(m("os_name == 'nt' and os_name ~= 'x'").evaluate(env));
}

TEST(MarkerEvaluate, ExtrasAreNormalisedAndCanBeASet) {
    MarkerEnvironment env = linux_env();
    EXPECT_FALSE(eval("extra == 'dev'", env));  // unset extra is ""
    EXPECT_TRUE(eval("extra == ''", env));
    env.set(MarkerVariable::extra, "PEP_685...norm");
    EXPECT_TRUE(eval("extra == 'pep-685-norm'", env));
    env.set(MarkerVariable::extra, "v2");
    EXPECT_TRUE(eval("extra == 'V2'", env));

    Marker gpu = m("extra == 'cuda' and sys_platform == 'linux' or extra != 'cpu'");
    std::vector<std::string> cuda{"CUDA", "test"};
    std::vector<std::string> cpu{"cpu"};
    std::vector<std::string> none;
    EXPECT_TRUE(*gpu.evaluate(env, cuda));
    EXPECT_FALSE(*gpu.evaluate(env, cpu));
    EXPECT_TRUE(*gpu.evaluate(env, none));  // extra "" is not "cpu"

    Marker both = m("extra == 'a' and extra == 'b'");
    std::vector<std::string> ab{"a", "b"};
    EXPECT_TRUE(*both.evaluate(env, ab));
    Marker not_in = m("extra not in 'a b'");
    EXPECT_FALSE(*not_in.evaluate(env, ab));
    EXPECT_TRUE(*not_in.evaluate(env, std::vector<std::string>{"c"}));
}

TEST(MarkerQuery, ReportsVariablesAndExtras) {
    Marker marker = m("python_version >= '3.9' and (extra == 'Test_X' or 'docs' == extra)");
    EXPECT_TRUE(marker.mentions_extra());
    EXPECT_TRUE(marker.mentions(MarkerVariable::python_version));
    EXPECT_FALSE(marker.mentions(MarkerVariable::sys_platform));
    EXPECT_EQ(marker.referenced_extras(), (std::vector<std::string>{"docs", "test-x"}));
    EXPECT_FALSE(m("os_name == 'posix'").mentions_extra());

    const auto& c = marker.comparisons().at(0);
    EXPECT_EQ(c.lhs.variable, MarkerVariable::python_version);
    EXPECT_EQ(c.op, MarkerOp::greater_equal);
    EXPECT_EQ(c.rhs.value, "3.9");
    EXPECT_TRUE(c.rhs_specifier.has_value());
    EXPECT_EQ(c.to_string(), "python_version >= \"3.9\"");
}

TEST(MarkerEnvironmentTest, SetsByNameAndRejectsUnknownNames) {
    MarkerEnvironment env;
    auto ok = env.set("python_version", "3.11");
    ASSERT_TRUE(ok);
    EXPECT_EQ(*ok, MarkerVariable::python_version);
    EXPECT_EQ(env.get(MarkerVariable::python_version), "3.11");
    EXPECT_EQ(env.get(MarkerVariable::extra), "");

    auto bad = env.set("os.name", "posix");  // legacy spellings belong to marker text only
    ASSERT_FALSE(bad);
    EXPECT_THAT(bad.error().message, HasSubstr("unknown marker variable 'os.name'"));
    EXPECT_THAT(bad.error().message, HasSubstr("platform_python_implementation"));

    for (std::size_t i = 0; i < aitk::pep::marker_variable_count; ++i) {
        auto variable = static_cast<MarkerVariable>(i);
        EXPECT_EQ(aitk::pep::marker_variable_from_name(aitk::pep::marker_variable_name(variable)),
                  variable);
    }
}

TEST(MarkerRealistic, AiTrainingMarkers) {
    MarkerEnvironment linux_box = linux_env();
    MarkerEnvironment windows_box;
    windows_box.set(MarkerVariable::os_name, "nt");
    windows_box.set(MarkerVariable::sys_platform, "win32");
    windows_box.set(MarkerVariable::platform_system, "Windows");
    windows_box.set(MarkerVariable::platform_machine, "AMD64");
    windows_box.set(MarkerVariable::python_version, "3.11");
    windows_box.set(MarkerVariable::python_full_version, "3.11.9");

    const char* nvidia = "platform_system == \"Linux\" and platform_machine == \"x86_64\"";
    EXPECT_TRUE(eval(nvidia, linux_box));
    EXPECT_FALSE(eval(nvidia, windows_box));
    EXPECT_TRUE(eval("platform_system == \"Windows\"", windows_box));
    EXPECT_FALSE(eval("sys_platform == \"linux\"", windows_box));
    EXPECT_TRUE(eval("python_version >= '3.9' and python_version < '3.13'", windows_box));
    EXPECT_TRUE(eval("platform_machine in 'x86_64 AMD64'", windows_box));
}

}  // namespace AITK_FILE_LOCAL
