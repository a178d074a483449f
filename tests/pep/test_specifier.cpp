#include "aitk/pep/specifier.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <new>
#include <stdexcept>

#include "test_data.hpp"

// Counts heap allocations so that the hot path (contains(const Version&)) can be shown to make
// none. Every plain and nothrow form is replaced so that all of them pair with the same free()
// (sanitizer runtimes bring their own otherwise), and they stay out of line: inlined, GCC takes
// free() of operator new's memory for a mismatch (-Wmismatched-new-delete).
namespace {
std::atomic<long> g_allocations{0};

void* counted_malloc(std::size_t size) noexcept {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t size) {
    if (void* p = counted_malloc(size)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t size) {
    if (void* p = counted_malloc(size)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
[[gnu::noinline]] void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}

namespace AITK_FILE_LOCAL {

using aitk::pep::Operator;
using aitk::pep::operator_string;
using aitk::pep::Specifier;
using aitk::pep::SpecifierSet;
using aitk::pep::Version;
using nlohmann::json;

namespace {

Version ver(std::string_view s) {
    auto parsed = Version::parse(s);
    if (!parsed) throw std::runtime_error("test version does not parse: " + std::string(s));
    return *parsed;
}

Specifier spec(std::string_view s, std::optional<bool> prereleases = std::nullopt) {
    auto parsed = Specifier::parse(s, prereleases);
    if (!parsed)
        throw std::runtime_error("test specifier does not parse: " + parsed.error().describe());
    return *parsed;
}

SpecifierSet set(std::string_view s, std::optional<bool> prereleases = std::nullopt) {
    auto parsed = SpecifierSet::parse(s, prereleases);
    if (!parsed) throw std::runtime_error("test set does not parse: " + parsed.error().describe());
    return *parsed;
}

std::optional<bool> optional_bool(const json& value) {
    if (value.is_null()) return std::nullopt;
    return value.get<bool>();
}

std::vector<std::string> items(const SpecifierSet& s) {
    std::vector<std::string> out;
    for (const Specifier& clause : s.specifiers())
        out.push_back(clause.to_string());
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Conformance vectors

TEST(SpecifierConformance, Contains) {
    const json cases = aitk::test::conformance("specifiers");
    std::size_t passed = 0;
    for (const json& c : cases) {
        const std::string text = c["spec"];
        const std::string candidate = c["version"];
        SCOPED_TRACE(c.dump());
        const auto prereleases = optional_bool(c["prereleases"]);
        const auto contains_prereleases = optional_bool(c["contains_prereleases"]);
        const bool installed = c["installed"].is_null() ? false : c["installed"].get<bool>();
        const bool parsed_candidate = c["version_is_parsed"].get<bool>();
        const bool expected = c["contains"].get<bool>();

        bool actual = false;
        if (c["kind"] == "Specifier") {
            auto s = Specifier::parse(text, prereleases);
            ASSERT_TRUE(s) << s.error().describe();
            actual = parsed_candidate
                         ? s->contains(ver(candidate), contains_prereleases)
                         : s->contains(std::string_view(candidate), contains_prereleases);
        } else {
            auto s = SpecifierSet::parse(text, prereleases);
            ASSERT_TRUE(s) << s.error().describe();
            actual = parsed_candidate ? s->contains(ver(candidate), contains_prereleases, installed)
                                      : s->contains(std::string_view(candidate),
                                                    contains_prereleases, installed);
        }
        EXPECT_EQ(actual, expected);
        if (actual == expected) ++passed;
    }
    std::cout << "specifiers.json: " << passed << "/" << cases.size() << " cases passed\n";
    EXPECT_EQ(passed, cases.size());
    EXPECT_GE(cases.size(), 382u);
}

TEST(SpecifierConformance, Filter) {
    const json cases = aitk::test::conformance("specifiers_filter");
    std::size_t passed = 0;
    for (const json& c : cases) {
        SCOPED_TRACE(c.dump());
        const std::string text = c["spec"];
        const auto prereleases = optional_bool(c["prereleases"]);
        const auto filter_prereleases = optional_bool(c["filter_prereleases"]);
        const auto input = c["input"].get<std::vector<std::string>>();
        const auto expected = c["output"].get<std::vector<std::string>>();

        std::vector<std::string> actual;
        if (c["kind"] == "Specifier") {
            auto s = Specifier::parse(text, prereleases);
            ASSERT_TRUE(s) << s.error().describe();
            actual = s->filter(input, filter_prereleases);
        } else {
            auto s = SpecifierSet::parse(text, prereleases);
            ASSERT_TRUE(s) << s.error().describe();
            actual = s->filter(input, filter_prereleases);
        }
        EXPECT_EQ(actual, expected);
        if (actual == expected) ++passed;
    }
    std::cout << "specifiers_filter.json: " << passed << "/" << cases.size() << " cases passed\n";
    EXPECT_EQ(passed, cases.size());
    EXPECT_GE(cases.size(), 57u);
}

TEST(SpecifierConformance, ValidParseAndRoundTrip) {
    const json cases = aitk::test::conformance("specifiers_valid");
    std::size_t passed = 0;
    for (const json& c : cases) {
        SCOPED_TRACE(c.dump());
        const std::string text = c["spec"];
        const std::string expected_str = c["str"];
        bool ok = true;
        if (c["kind"] == "Specifier") {
            auto s = Specifier::parse(text);
            ASSERT_TRUE(s) << s.error().describe();
            ok = ok && std::string(operator_string(s->op())) == c["operator"].get<std::string>();
            ok = ok && s->version_text() == c["version"].get<std::string>();
            ok = ok && s->to_string() == expected_str;
            ok = ok && s->has_wildcard() == s->version_text().ends_with(".*");
            // Round trip: the printed form parses back to an equal clause with the same text.
            auto again = Specifier::parse(s->to_string());
            ok = ok && again && *again == *s && again->to_string() == s->to_string();
        } else {
            auto s = SpecifierSet::parse(text);
            ASSERT_TRUE(s) << s.error().describe();
            ok = ok && s->to_string() == expected_str;
            ok = ok && s->size() == c["len"].get<std::size_t>();
            ok = ok && items(*s) == c["items"].get<std::vector<std::string>>();
            auto again = SpecifierSet::parse(s->to_string());
            ok = ok && again && *again == *s && again->to_string() == s->to_string();
        }
        EXPECT_TRUE(ok);
        if (ok) ++passed;
    }
    std::cout << "specifiers_valid.json: " << passed << "/" << cases.size() << " cases passed\n";
    EXPECT_EQ(passed, cases.size());
    EXPECT_GE(cases.size(), 450u);
}

TEST(SpecifierConformance, InvalidAreRejected) {
    const json cases = aitk::test::conformance("specifiers_invalid");
    std::size_t passed = 0;
    for (const json& c : cases) {
        const std::string text = c;
        SCOPED_TRACE(text);
        bool ok = true;
        auto as_set = SpecifierSet::parse(text);
        EXPECT_FALSE(as_set) << "accepted as " << as_set->to_string();
        ok = ok && !as_set;
        if (!as_set) {
            EXPECT_FALSE(as_set.error().message.empty());
            EXPECT_EQ(as_set.error().input, text);
            EXPECT_LE(as_set.error().position, text.size());
        }
        // Every string is also rejected as a single clause (with a comma it never is one).
        auto as_clause = Specifier::parse(text);
        EXPECT_FALSE(as_clause) << "accepted as " << as_clause->to_string();
        ok = ok && !as_clause;
        if (ok) ++passed;
    }
    std::cout << "specifiers_invalid.json: " << passed << "/" << cases.size() << " cases passed\n";
    EXPECT_EQ(passed, cases.size());
    EXPECT_GE(cases.size(), 29u);
}

// Every valid version is matched by "===" of its normalised form and by "==" of itself.
TEST(SpecifierConformance, EveryValidVersionMatchesItsOwnSpecifiers) {
    for (const json& c : aitk::test::conformance("versions_valid")) {
        const std::string input = c["input"];
        const std::string normalized = c["normalized"];
        SCOPED_TRACE(input);
        const Version v = ver(input);
        EXPECT_TRUE(spec("===" + normalized).contains(v, true));
        EXPECT_TRUE(spec("===" + normalized).contains(std::string_view(normalized), true));
        EXPECT_TRUE(spec("==" + normalized).contains(v, true));
        EXPECT_FALSE(spec("!=" + normalized).contains(v, true));
        EXPECT_TRUE(spec("<=" + c["public"].get<std::string>()).contains(v, true));
        EXPECT_TRUE(spec(">=" + c["public"].get<std::string>()).contains(v, true));
        EXPECT_FALSE(spec("<" + c["public"].get<std::string>()).contains(v, true));
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(SpecifierParse, Accessors) {
    Specifier s = spec("  ~=  2.2.post3 ");
    EXPECT_EQ(s.op(), Operator::compatible);
    EXPECT_EQ(s.version_text(), "2.2.post3");
    EXPECT_FALSE(s.has_wildcard());
    EXPECT_FALSE(s.explicit_prereleases());
    EXPECT_EQ(s.to_string(), "~=2.2.post3");

    Specifier w = spec("!=1.2.*", true);
    EXPECT_EQ(w.op(), Operator::not_equal);
    EXPECT_TRUE(w.has_wildcard());
    EXPECT_EQ(w.explicit_prereleases(), true);

    Specifier a = spec("=== foo-bar_1 ");
    EXPECT_EQ(a.op(), Operator::arbitrary);
    EXPECT_EQ(a.version_text(), "foo-bar_1");
    EXPECT_EQ(a.to_string(), "===foo-bar_1");
}

TEST(SpecifierParse, OperatorStrings) {
    for (auto [op, text] :
         std::vector<std::pair<Operator, std::string>>{{Operator::compatible, "~="},
                                                       {Operator::equal, "=="},
                                                       {Operator::not_equal, "!="},
                                                       {Operator::less_equal, "<="},
                                                       {Operator::greater_equal, ">="},
                                                       {Operator::less, "<"},
                                                       {Operator::greater, ">"},
                                                       {Operator::arbitrary, "==="}}) {
        EXPECT_EQ(operator_string(op), text);
        EXPECT_EQ(spec(text + "1.0").op(), op);
    }
}

TEST(SpecifierParse, WhitespaceAroundPartsIsIgnored) {
    EXPECT_EQ(spec("\t>=\n1.0 ").to_string(), ">=1.0");
    EXPECT_EQ(spec("\xc2\xa0==1.0\xe2\x80\xaf").to_string(), "==1.0");  // U+00A0, U+202F
    EXPECT_EQ(set(" >= 1.0 ,\t< 2 , ").to_string(), "<2,>=1.0");
    EXPECT_EQ(set(">=1.0,,<2").size(), 2u);
    EXPECT_TRUE(set(" , ").empty());
    EXPECT_EQ(spec("===").version_text(), "");  // packaging accepts an empty arbitrary version
}

struct ErrorCase {
    std::string input;
    std::string message;  // a substring of the message
    std::size_t position;
};

TEST(SpecifierParse, ErrorMessagesSayWhatAndWhere) {
    const std::vector<ErrorCase> cases = {
        {"", "empty version specifier", 0},
        {"  ", "empty version specifier", 2},
        {"2.0", "missing comparison operator before the version; write e.g. '==2.0'", 0},
        {" =>2.0", "'=>' is not an operator; did you mean '>='?", 1},
        {"=<2.0", "did you mean '<='?", 0},
        {"=1.0", "'=' is not an operator; did you mean '=='?", 0},
        {"~1.0", "did you mean '~='?", 0},
        {"!1.0", "did you mean '!='?", 0},
        {"foo", "expected a comparison operator", 0},
        {"==", "missing version after '=='", 2},
        {">= ", "missing version after '>='", 2},
        {"> = 1.0",
         "expected a version after '>' but found '='; an operator is written without "
         "spaces inside it",
         2},
        {"<<1", "expected a version after '<' but found '<'", 1},
        {"~=1.0+5", "'~=' does not accept a local version label ('+...'); only '==' and '!=' do",
         5},
        {">=1.0+deadbeef", "'>=' does not accept a local version label", 5},
        {"~=1.0.*", "'.*' prefix matching is only allowed with '==' and '!=', not '~='", 5},
        {">=20.*", "only allowed with '==' and '!='", 4},
        {"==1.0.*+5", "'.*' must end the version", 7},
        {"==2.0a1.*", "'.*' can only follow release numbers", 5},
        {"!=2.0.post1.*", "'.*' can only follow release numbers", 5},
        {"==1.0 .*", "unexpected whitespace inside the version", 5},
        {"~=1", "'~=' needs a version with at least two release numbers", 2},
        {"~=1a1", "at least two release numbers", 2},
        {"==1.0.org1", "invalid version after '==': unexpected character '.'", 5},
        {"==foo", "invalid version after '==': expected a release number such as 1.0", 2},
        {"==1.0+", "invalid version after '==': expected a local version label after '+'", 6},
        {std::string(50, '1'), "write e.g. '==1.0' or '>=1.0'", 0},
        {">=1.0 <=2.0", "unexpected whitespace inside the version; separate clauses with ','", 5},
        {">=1.0;<2", "unexpected ';' in the version", 5},
        {"<=1.0,>=", "a single specifier cannot contain ','", 5},
        {"===a b", "the version after '===' cannot contain whitespace, ';' or ')'", 4},
        {"===a)", "cannot contain whitespace, ';' or ')'", 4},
    };
    for (const ErrorCase& c : cases) {
        SCOPED_TRACE(c.input);
        auto parsed = Specifier::parse(c.input);
        ASSERT_FALSE(parsed);
        EXPECT_NE(parsed.error().message.find(c.message), std::string::npos)
            << parsed.error().message;
        EXPECT_EQ(parsed.error().position, c.position);
        EXPECT_EQ(parsed.error().input, c.input);
    }
}

TEST(SpecifierParse, SetErrorsPointIntoTheWholeText) {
    auto parsed = SpecifierSet::parse(">=1.0, <=2.0 .*,<3");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().input, ">=1.0, <=2.0 .*,<3");
    EXPECT_EQ(parsed.error().position, 12u);
    EXPECT_EQ(parsed.error().describe(),
              "unexpected whitespace inside the version; separate clauses with ',' (at column 13 "
              "of '>=1.0, <=2.0 .*,<3')");

    auto missing = SpecifierSet::parse("<=1.0,>=");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().message, "missing version after '>='");
    EXPECT_EQ(missing.error().position, 8u);
}

TEST(SpecifierParse, RejectsHostileInputWithoutCrashing) {
    const std::vector<std::string> junk = {std::string("\0\0==", 4),
                                           "==\xff",
                                           "===\xff\xfe",
                                           std::string(10000, '='),
                                           "==" + std::string(5000, '9'),
                                           "~=" + std::string(3000, '1') + ".1",
                                           "==1." + std::string(4000, '*'),
                                           ">=1" + std::string(20000, ','),
                                           std::string(3000, ',') + "==1",
                                           "==99999999999999999999999.0"};
    for (const std::string& s : junk) {
        auto a = Specifier::parse(s);
        auto b = SpecifierSet::parse(s);
        if (a) (void)a->contains("1.0");
        if (b) (void)b->contains("1.0");
    }
    EXPECT_EQ(set(">=1" + std::string(20000, ',')).to_string(), ">=1");
    EXPECT_EQ(spec(std::string(10000, '=')).version_text(), std::string(9997, '='));
}

// ---------------------------------------------------------------------------------------------
// Matching

TEST(SpecifierContains, LocalVersionRules) {
    EXPECT_TRUE(spec("==2.5.1").contains(ver("2.5.1+cu121")));
    EXPECT_TRUE(spec("==2.5.1+cu121").contains(ver("2.5.1+CU121")));
    EXPECT_FALSE(spec("==2.5.1+cu121").contains(ver("2.5.1+cu118")));
    EXPECT_FALSE(spec("==2.5.1+cu121").contains(ver("2.5.1")));
    EXPECT_FALSE(spec("!=2.5.1").contains(ver("2.5.1+cu121")));
    EXPECT_TRUE(spec("<=1.0").contains(ver("1.0+local")));
    EXPECT_TRUE(spec(">=1.0").contains(ver("1.0+local")));
    EXPECT_FALSE(spec("<1.0").contains(ver("1.0+local")));
    EXPECT_FALSE(spec(">1.0").contains(ver("1.0+local")));
    EXPECT_TRUE(spec(">1.0").contains(ver("1.0.1+local")));
    EXPECT_TRUE(spec("==1.*").contains(ver("1.5+local")));
    // A local build of the clause's own release is excluded by '>' even above a prerelease.
    EXPECT_FALSE(spec(">1.0a1").contains(ver("1.0+local")));
    EXPECT_TRUE(spec(">1.0a1").contains(ver("1.0")));
}

TEST(SpecifierContains, ExclusiveOrderingRules) {
    // <V excludes V's prereleases unless V is one; >V excludes V's post releases unless V is one.
    EXPECT_FALSE(spec("<3.1").contains(ver("3.1.dev0"), true));
    EXPECT_TRUE(spec("<3.1").contains(ver("3.0.dev0"), true));
    EXPECT_TRUE(spec("<3.1rc1").contains(ver("3.1a1"), true));
    EXPECT_FALSE(spec(">3.1").contains(ver("3.1.post0")));
    EXPECT_TRUE(spec(">3.1").contains(ver("3.2.post0")));
    EXPECT_TRUE(spec(">3.1.post1").contains(ver("3.1.post2")));
    EXPECT_TRUE(spec("<=3.1").contains(ver("3.1")));
    EXPECT_FALSE(spec("<=3.1").contains(ver("3.1.post1")));
    EXPECT_TRUE(spec(">=1!0").contains(ver("1!0.5")));
    EXPECT_FALSE(spec(">=1!0").contains(ver("5.0")));
}

TEST(SpecifierContains, PrefixMatchingPadsWithZeros) {
    EXPECT_TRUE(spec("==1.*").contains(ver("1")));
    EXPECT_TRUE(spec("==1.0.*").contains(ver("1")));
    EXPECT_TRUE(spec("==1.0.0.*").contains(ver("1.0")));
    EXPECT_TRUE(spec("==1.0.*").contains(ver("1.0.9.post1")));
    EXPECT_FALSE(spec("==1.0.*").contains(ver("1.1")));
    EXPECT_TRUE(spec("==1.*").contains(ver("1.9a1"), true));
    EXPECT_FALSE(spec("==1.*").contains(ver("1.9a1")));
    EXPECT_FALSE(spec("==1.*").contains(ver("1!1.0")));
    EXPECT_TRUE(spec("==2!1.0.0.0.*").contains(ver("2!1.0.0")));
    EXPECT_TRUE(spec("==v1.*").contains(ver("1.2")));
    EXPECT_FALSE(spec("!=2.5.*").contains(ver("2.5.1")));
    EXPECT_TRUE(spec("!=2.5.*").contains(ver("2.6.0")));
}

TEST(SpecifierContains, CompatibleRelease) {
    EXPECT_TRUE(spec("~=2.2").contains(ver("2.9")));
    EXPECT_FALSE(spec("~=2.2").contains(ver("3.0")));
    EXPECT_FALSE(spec("~=2.2").contains(ver("2.1")));
    EXPECT_TRUE(spec("~=1.4.5").contains(ver("1.4.9")));
    EXPECT_FALSE(spec("~=1.4.5").contains(ver("1.5.0")));
    EXPECT_TRUE(spec("~=2.2.post3").contains(ver("2.9")));
    EXPECT_FALSE(spec("~=2.2.post3").contains(ver("2.2")));
    EXPECT_TRUE(spec("~=1!2.0").contains(ver("1!2.5")));
    EXPECT_FALSE(spec("~=1!2.0").contains(ver("2.5")));
    // The suffix never changes the prefix length (packaging 24 disagrees for some spellings
    // such as "~=v1.0"; PEP 440 is followed here).
    EXPECT_TRUE(spec("~=v1.0").contains(ver("1.5")));
    EXPECT_TRUE(spec("~=1.0.DEV1").contains(ver("1.5")));
}

TEST(SpecifierContains, ArbitraryEquality) {
    EXPECT_TRUE(spec("===foo").contains(std::string_view("FOO")));
    EXPECT_FALSE(spec("===foo").contains(std::string_view("foo1")));
    EXPECT_TRUE(set("===foo").contains(std::string_view("foo")));
    EXPECT_FALSE(set("===foo,>=1").contains(std::string_view("foo")));
    EXPECT_FALSE(set("").contains(std::string_view("foo")));
    // A parsed candidate compares through its normalised form.
    EXPECT_TRUE(spec("===1.0.POST1").contains(ver("1.0-1")));
    EXPECT_FALSE(spec("===1.0-1").contains(ver("1.0.post1")));
    EXPECT_FALSE(spec("===1.0").contains(ver("1.0.0")));
    EXPECT_TRUE(spec("===1!2.0rc1.post3.dev4+abc.5").contains(ver("1!2.0RC1-3dev4+ABC-05")));
    // Raw text is compared as written (case-insensitively).
    EXPECT_FALSE(spec("===1.0.post1").contains(std::string_view("1.0-1")));
    EXPECT_TRUE(spec("===1.0a1").contains(std::string_view("1.0A1")));
    EXPECT_FALSE(spec("===1.0a1").contains(std::string_view("1.0a1"), false));
}

TEST(SpecifierContains, InvalidCandidatesAreNeverContained) {
    EXPECT_FALSE(spec(">=1").contains(std::string_view("not a version")));
    EXPECT_FALSE(spec("!=1").contains(std::string_view("")));
    EXPECT_FALSE(set("!=1").contains(std::string_view("1.0.")));
    EXPECT_EQ(set("!=1").filter({"x", "2", "1.0.x"}), std::vector<std::string>{"2"});
    EXPECT_EQ(set("").filter({"x", "2"}), std::vector<std::string>{"2"});
    EXPECT_EQ(spec(">0").filter({"x", "2"}), std::vector<std::string>{"2"});
}

// ---------------------------------------------------------------------------------------------
// Prerelease policy

TEST(SpecifierPrereleases, AutoDetectedFromInclusiveClauses) {
    EXPECT_TRUE(spec(">=1.0a1").prereleases());
    EXPECT_TRUE(spec("<=1.0.dev1").prereleases());
    EXPECT_TRUE(spec("==1.0rc1").prereleases());
    EXPECT_TRUE(spec("~=1.0b1").prereleases());
    EXPECT_TRUE(spec("===1.0a1").prereleases());
    EXPECT_FALSE(spec("===foo").prereleases());
    EXPECT_FALSE(spec("<1.0a1").prereleases());
    EXPECT_FALSE(spec(">1.0a1").prereleases());
    EXPECT_FALSE(spec("!=1.0a1").prereleases());
    EXPECT_FALSE(spec("==1.*").prereleases());
    EXPECT_FALSE(spec(">=1.0").prereleases());
    EXPECT_FALSE(spec(">=1.0a1", false).prereleases());
    EXPECT_TRUE(spec(">=1.0", true).prereleases());
}

TEST(SpecifierPrereleases, SetPolicy) {
    EXPECT_EQ(set("").prereleases(), std::nullopt);
    EXPECT_EQ(set("", true).prereleases(), true);
    EXPECT_EQ(set(">=1.0").prereleases(), false);
    EXPECT_EQ(set(">=1.0,<=2.0a1").prereleases(), true);
    EXPECT_EQ(set(">=1.0a1", false).prereleases(), false);

    EXPECT_FALSE(set(">=1.0").contains(ver("1.5a1")));
    EXPECT_TRUE(set(">=1.0").contains(ver("1.5a1"), true));
    EXPECT_TRUE(set("").contains(ver("1.5")));
    EXPECT_FALSE(set("").contains(ver("1.5a1")));
    // An installed prerelease, once allowed, is judged by its release.
    EXPECT_FALSE(set("~=1.0").contains(ver("1.1.0.dev1"), std::nullopt, true));
    EXPECT_TRUE(set("~=1.0").contains(ver("1.1.0.dev1"), true, true));
    EXPECT_TRUE(set("<1.1").contains(ver("1.0.dev1"), true, true));
    EXPECT_FALSE(set("<1.0").contains(ver("1.0.dev1"), true, true));
}

TEST(SpecifierPrereleases, FilterFallsBackToPrereleases) {
    // A single clause yields prereleases when no final release matches.
    EXPECT_EQ(spec(">=1.0").filter({"0.9", "1.1a1", "1.2b1"}),
              (std::vector<std::string>{"1.1a1", "1.2b1"}));
    EXPECT_EQ(spec(">=1.0").filter({"1.1a1", "1.0", "1.2b1"}), std::vector<std::string>{"1.0"});
    EXPECT_TRUE(spec(">=1.0").filter({"1.1a1"}, false).empty());
    // So does the empty set, unless told otherwise.
    EXPECT_EQ(set("").filter({"1.0a1", "1.0b1"}), (std::vector<std::string>{"1.0a1", "1.0b1"}));
    EXPECT_TRUE(set("").filter({"1.0a1"}, false).empty());
    // A non-empty set decides once, as packaging does: no fallback.
    EXPECT_TRUE(set(">=1.0").filter({"1.1a1"}).empty());
    EXPECT_EQ(set(">=1.0,!=1.5").filter({"1.5", "1.6", "1.4", "1.7a1"}),
              (std::vector<std::string>{"1.6", "1.4"}));
}

// ---------------------------------------------------------------------------------------------
// Equality, sets, intersection

TEST(SpecifierEquality, ComparesOperatorAndCanonicalVersion) {
    EXPECT_EQ(spec(">=1.0"), spec(">=1.0.0"));
    EXPECT_EQ(spec("==1.0+ABC"), spec("== 1.0+abc"));
    EXPECT_EQ(spec("==V1.0a"), spec("==1.0a0"));
    EXPECT_EQ(spec(">=1.0", true), spec(">=1.0", false));  // the policy is not compared
    EXPECT_NE(spec("~=1.0"), spec("~=1.0.0"));             // ~= keeps its trailing zeros
    EXPECT_NE(spec(">=1.0"), spec(">1.0"));
    EXPECT_NE(spec("==1.0.*"), spec("==1.*"));
    EXPECT_EQ(spec("===1.0"), spec("===1.0.0"));  // packaging canonicalises "===" text too
    EXPECT_NE(spec("===foo"), spec("===FOO"));
}

TEST(SpecifierSetBasics, SortsAndDeduplicates) {
    SpecifierSet s = set(">=1.0.0, <2 ,>=1.0,!=1.5");
    EXPECT_EQ(s.size(), 3u);
    EXPECT_EQ(s.to_string(), "!=1.5,<2,>=1.0.0");  // the first spelling of a duplicate stays
    EXPECT_EQ(items(s), (std::vector<std::string>{"!=1.5", "<2", ">=1.0.0"}));
    EXPECT_EQ(s, set("<2,!=1.5.0,>=1"));
    EXPECT_NE(s, set("<2,!=1.5"));
    EXPECT_EQ(set(">=1", true), set(">=1", false));
    EXPECT_EQ(set(""), SpecifierSet());
    EXPECT_TRUE(SpecifierSet().contains(ver("3")));
    EXPECT_EQ(SpecifierSet().to_string(), "");
}

TEST(SpecifierSetBasics, IntersectionKeepsBothAndMergesPolicy) {
    SpecifierSet a = set(">=1.0.0,!=1.0.1");
    a &= set("<=2.0.0,!=2.0.1,>=1.0");
    EXPECT_EQ(a.to_string(), "!=1.0.1,!=2.0.1,<=2.0.0,>=1.0.0");
    EXPECT_EQ(a.prereleases(), false);

    SpecifierSet b = set(">2.0");
    b &= set("<5.0", true);
    EXPECT_EQ(b.to_string(), "<5.0,>2.0");
    EXPECT_EQ(b.prereleases(), true);
    EXPECT_TRUE(b.contains(ver("3.0a1")));

    SpecifierSet c = set("", false);
    c &= set(">=1");
    EXPECT_EQ(c.prereleases(), false);
    c &= set("<3", false);
    EXPECT_EQ(c.to_string(), "<3,>=1");

    SpecifierSet d = set(">=1", true);
    EXPECT_THROW(d &= set("<3", false), std::invalid_argument);
}

TEST(SpecifierSetBasics, LargeSetsDeduplicateLikeSmallOnes) {
    // 40 distinct clauses, each also written a second way later on.
    std::string text;
    std::vector<std::string> expected;
    for (int i = 0; i < 40; ++i) {
        text += "!=1." + std::to_string(i) + ",";
        expected.push_back("!=1." + std::to_string(i));
    }
    for (int i = 39; i >= 0; --i)
        text += "!=1." + std::to_string(i) + ".0,";
    std::sort(expected.begin(), expected.end());
    SpecifierSet s = set(text);
    EXPECT_EQ(items(s), expected);
    EXPECT_EQ(s, set(s.to_string()));
    EXPECT_FALSE(s.contains(ver("1.39")));
    EXPECT_TRUE(s.contains(ver("1.40")));
}

TEST(SpecifierSetBasics, RoundTripsThroughText) {
    for (const std::string text :
         {">=1.0,<2.0,!=1.5.*", "~=3.10", "===weird,>=0", "==2.5.1+cu121", "", ">=1!2.0.post1"}) {
        SpecifierSet s = set(text);
        SpecifierSet again = set(s.to_string());
        EXPECT_EQ(again, s) << text;
        EXPECT_EQ(again.to_string(), s.to_string()) << text;
    }
}

// ---------------------------------------------------------------------------------------------
// Performance contract

TEST(SpecifierPerformance, ContainsVersionDoesNotAllocate) {
    const std::vector<Specifier> clauses = {spec("~=1.4.2"), spec("==1.4.*"),      spec("!=1.4.*"),
                                            spec("==1.4.3"), spec("==1.4.3+cu1"),  spec("!=1.4.3"),
                                            spec("<=1.4"),   spec(">=1.4"),        spec("<1.5"),
                                            spec(">1.4"),    spec("===1.4.3+cu1"), spec("===foo"),
                                            spec(">=1.0a1")};
    const SpecifierSet range = set(">=1.0,<2,!=1.4.*,~=1.1");
    const std::vector<Version> candidates = {ver("1.4.3+cu1"), ver("1.5a1"), ver("1!2"),
                                             ver("1.4.post1"), ver("1.2.3")};
    long before = g_allocations.load();
    bool sink = false;
    for (const Version& v : candidates) {
        for (const Specifier& s : clauses) {
            sink ^= s.contains(v);
            sink ^= s.contains(v, true);
        }
        sink ^= range.contains(v);
        sink ^= range.contains(v, true);
    }
    long after = g_allocations.load();
    EXPECT_EQ(after - before, 0);
    (void)sink;
}

}  // namespace AITK_FILE_LOCAL
