#include "aitk/lock/yaml_scalar.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "yaml_readers.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

struct Case {
    std::string text;
    std::string block;  // as written in block context
};

// What the emitter writes for values YAML readers like to reinterpret.
const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        // Versions: only those a resolver reads as a number get quotes.
        {"2.13.0", "2.13.0"},
        {"2.9.0+cu130", "2.9.0+cu130"},
        {"1.10", "\"1.10\""},
        {"2.0", "\"2.0\""},
        {"1e3", "\"1e3\""},
        {"1E-3", "\"1E-3\""},
        {"1.", "\"1.\""},
        {".5", "\".5\""},
        {"-1", "\"-1\""},
        {"+1", "\"+1\""},
        {"0777", "\"0777\""},
        {"1_000", "\"1_000\""},
        {"0x1F", "\"0x1F\""},
        {"0o17", "\"0o17\""},
        {"0b101", "\"0b101\""},
        {"1:20", "\"1:20\""},
        {"190:20:30.15", "\"190:20:30.15\""},
        {".inf", "\".inf\""},
        {"-.Inf", "\"-.Inf\""},
        {".NaN", "\".NaN\""},
        {"2024-01-01", "\"2024-01-01\""},
        {"2001-12-14t21:59:43.10-05:00", "\"2001-12-14t21:59:43.10-05:00\""},
        {"12e", "12e"},
        {"1.0rc1", "1.0rc1"},
        {"3.12", "\"3.12\""},
        // Booleans and nulls of YAML 1.1 and 1.2.
        {"yes", "\"yes\""},
        {"Yes", "\"Yes\""},
        {"NO", "\"NO\""},
        {"y", "\"y\""},
        {"n", "\"n\""},
        {"on", "\"on\""},
        {"OFF", "\"OFF\""},
        {"true", "\"true\""},
        {"False", "\"False\""},
        {"null", "\"null\""},
        {"NULL", "\"NULL\""},
        {"~", "\"~\""},
        {"", "\"\""},
        {"<<", "\"<<\""},
        {"=", "\"=\""},
        {"yesterday", "yesterday"},
        // Indicators and comments.
        {"https://h/x%2Bcu130.whl#sha256=ab", "https://h/x%2Bcu130.whl#sha256=ab"},
        {"a #b", "\"a #b\""},
        {"a: b", "\"a: b\""},
        {"a:", "\"a:\""},
        {"key:value", "key:value"},
        {"-x", "-x"},
        {"- x", "\"- x\""},
        {"-", "\"-\""},
        {"--index-url https://h/simple", "--index-url https://h/simple"},
        {"x --hash=sha256:ab", "x --hash=sha256:ab"},
        {">=3.10", "\">=3.10\""},
        {"@x", "\"@x\""},
        {"%x", "\"%x\""},
        {"!x", "\"!x\""},
        {"&x", "\"&x\""},
        {"*x", "\"*x\""},
        {"|x", "\"|x\""},
        {"?x", "\"?x\""},
        {"'x'", "\"'x'\""},
        {"x,y", "\"x,y\""},
        {"[x]", "\"[x]\""},
        {"{x}", "\"{x}\""},
        {" x", "\" x\""},
        {"x ", "\"x \""},
        {"C:\\tools", "C:\\tools"},
        {"/data/hf", "/data/hf"},
        {"expandable_segments:True", "expandable_segments:True"},
        // Escapes.
        {"say \"hi\"", "\"say \\\"hi\\\"\""},
        {"tab\there", "\"tab\\there\""},
        {"line\nbreak", "\"line\\nbreak\""},
        {"cr\rx", "\"cr\\rx\""},
        {std::string("nul\0x", 5), "\"nul\\0x\""},
        {"bell\x07", "\"bell\\x07\""},
        {"del\x7F", "\"del\\x7F\""},
        {"back\\slash\n", "\"back\\\\slash\\n\""},
        {"caf\xC3\xA9", "\"caf\xC3\xA9\""},
        {"nel\xC2\x85", "\"nel\\x85\""},
        {"ls\xE2\x80\xA8", "\"ls\\u2028\""},
        {"ps\xE2\x80\xA9", "\"ps\\u2029\""},
        {"bom\xEF\xBB\xBF", "\"bom\\uFEFF\""},
        {"emoji\xF0\x9F\x98\x80", "\"emoji\xF0\x9F\x98\x80\""},
        {"nonchar\xEF\xBF\xBF", "\"nonchar\\uFFFF\""},
    };
    return all;
}

TEST(YamlScalar, QuotesExactlyWhatAReaderCouldMisread) {
    for (const auto& c : cases()) {
        EXPECT_EQ(yaml_scalar(c.text), c.block) << "input: " << c.text;
    }
}

TEST(YamlScalar, FlowContextAlsoQuotesColonsHashesAndSpaces) {
    EXPECT_EQ(yaml_scalar("foo-bar", YamlContext::flow), "foo-bar");
    EXPECT_EQ(yaml_scalar("typing-extensions", YamlContext::flow), "typing-extensions");
    EXPECT_EQ(yaml_scalar("a:b", YamlContext::flow), "\"a:b\"");
    EXPECT_EQ(yaml_scalar("a#b", YamlContext::flow), "\"a#b\"");
    EXPECT_EQ(yaml_scalar("a b", YamlContext::flow), "\"a b\"");
    EXPECT_EQ(yaml_scalar("-x", YamlContext::flow), "\"-x\"");
    EXPECT_EQ(yaml_scalar("1.10", YamlContext::flow), "\"1.10\"");
    EXPECT_FALSE(yaml_plain_safe("x]", YamlContext::flow));
}

TEST(YamlScalar, BytesThatAreNotUtf8BecomeHexEscapes) {
    EXPECT_EQ(yaml_double_quoted("a\xFF"), "\"a\\xFF\"");
    EXPECT_EQ(yaml_double_quoted("\xC3"), "\"\\xC3\"");                    // truncated sequence
    EXPECT_EQ(yaml_double_quoted("\xC0\xAF"), "\"\\xC0\\xAF\"");           // overlong '/'
    EXPECT_EQ(yaml_double_quoted("\xED\xA0\x80"), "\"\\xED\\xA0\\x80\"");  // a surrogate
}

// Every case, written in a block list and a flow list, reads back as the same string.
std::string document() {
    std::string block;
    std::string flow = "flow: [";
    for (std::size_t i = 0; i < cases().size(); ++i) {
        block += "  - " + yaml_scalar(cases()[i].text) + "\n";
        flow += (i ? ", " : "") + yaml_scalar(cases()[i].text, YamlContext::flow);
    }
    return "block:\n" + block + flow + "]\n";
}

nlohmann::json expected_document() {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& c : cases())
        list.push_back(c.text);
    return {{"block", list}, {"flow", list}};
}

TEST(YamlScalar, YamlCppReadsEveryValueBack) {
    EXPECT_EQ(test::read_with_yaml_cpp(document()), expected_document());
}

TEST(YamlScalar, PyYamlReadsEveryValueBackAsAString) {
    const auto python = test::python_with_pyyaml();
    if (!python) GTEST_SKIP() << "no Python with PyYAML";
    EXPECT_EQ(test::read_with_pyyaml(*python, document()), expected_document());
}

TEST(YamlScalar, PlainValuesReadBackUnderBothResolvers) {
    // The values kept plain are the risky part: check a batch of version-like strings.
    std::vector<std::string> values = {
        "2.13.0", "0.24.0",    "1.0.post1", "2!1.0", "1.0.dev0", "13.0.0.19", "2.9.0+cpu",
        "3.12.3", "1.2.3.4.5", "10.0.0a1",  "v1.0",  "1-2-3",    "2024.1.1",  "1.0-1"};
    std::string text;
    nlohmann::json expected = nlohmann::json::array();
    for (const auto& v : values) {
        EXPECT_TRUE(yaml_plain_safe(v, YamlContext::block)) << v;
        text += "- " + yaml_scalar(v) + "\n";
        expected.push_back(v);
    }
    EXPECT_EQ(test::read_with_yaml_cpp(text), expected);
    const auto python = test::python_with_pyyaml();
    if (!python) GTEST_SKIP() << "no Python with PyYAML";
    EXPECT_EQ(test::read_with_pyyaml(*python, text), expected);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
