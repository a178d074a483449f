// PEP 751's marker forms: `extras` and `dependency_groups` are sets of names, defined only when
// installing from a lock file (the dependency specifiers spec, "Environment Markers": "Set of
// strings", sample values {"toml"} and {"test"}; "Outside of the context of lock files, these two
// variables should result in an error like all other unknown variables").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/requirement.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::LockFileSelection;
using aitk::pep::Marker;
using aitk::pep::MarkerEnvironment;
using aitk::pep::MarkerVariable;
using testing::HasSubstr;

namespace {

Marker m(std::string_view text) {
    auto parsed = Marker::parse(text);
    if (!parsed) throw std::runtime_error("marker does not parse: " + parsed.error().describe());
    return *parsed;
}

MarkerEnvironment linux_312() {
    MarkerEnvironment env;
    env.set(MarkerVariable::sys_platform, "linux");
    env.set(MarkerVariable::platform_machine, "x86_64");
    env.set(MarkerVariable::python_version, "3.12");
    env.set(MarkerVariable::python_full_version, "3.12.3");
    return env;
}

bool in_lock(std::string_view marker, const std::vector<std::string>& extras,
             const std::vector<std::string>& groups) {
    LockFileSelection selection{extras, groups};
    auto result = m(marker).evaluate(linux_312(), selection);
    if (!result) throw std::runtime_error("evaluation failed: " + result.error().describe());
    return *result;
}

std::string lock_error(std::string_view marker) {
    const std::vector<std::string> none;
    auto result = m(marker).evaluate(linux_312(), LockFileSelection{none, none});
    if (result)
        throw std::runtime_error("evaluation unexpectedly succeeded: " + std::string(marker));
    return result.error().message;
}

}  // namespace

TEST(MarkerLockFile, ParsesBothSetsAndKeepsTheirSpelling) {
    EXPECT_EQ(m("'cu128' in extras").to_string(), "\"cu128\" in extras");
    EXPECT_EQ(m("'dev' in dependency_groups").to_string(), "\"dev\" in dependency_groups");
    EXPECT_EQ(m("\"Foo_Bar\" not in extras").to_string(), "\"Foo_Bar\" not in extras");
    EXPECT_TRUE(m("'x' in extras").mentions(MarkerVariable::extras));
    EXPECT_FALSE(m("'x' in extras").mentions(MarkerVariable::extra));
    EXPECT_EQ(aitk::pep::marker_variable_name(MarkerVariable::dependency_groups),
              "dependency_groups");
    // A requirement's marker parses too (packaging's grammar has the words); only evaluating it
    // outside a lock file is an error.
    EXPECT_TRUE(aitk::pep::Requirement::parse("torch; 'cu128' in extras"));
}

TEST(MarkerLockFile, SetMembershipOfTheSelectedNames) {
    EXPECT_TRUE(in_lock("'cu128' in extras", {"cu128"}, {}));
    EXPECT_FALSE(in_lock("'cu128' in extras", {"cpu"}, {}));
    EXPECT_FALSE(in_lock("'cu128' in extras", {}, {}));
    EXPECT_TRUE(in_lock("'cu128' not in extras", {"cpu"}, {}));
    EXPECT_TRUE(in_lock("'dev' in dependency_groups", {}, {"dev"}));
    EXPECT_FALSE(in_lock("'dev' in dependency_groups", {"dev"}, {}));
    EXPECT_TRUE(in_lock("'test' not in dependency_groups", {}, {"dev"}));
    // Set membership, not Python's substring test that `in` means between two strings.
    EXPECT_FALSE(in_lock("'cu12' in extras", {"cu128"}, {}));
    EXPECT_FALSE(in_lock("'de' in dependency_groups", {}, {"dev"}));
}

TEST(MarkerLockFile, NamesCompareNormalised) {
    // PEP 685 for extras, PEP 735 for groups: both compare as PEP 503 names.
    EXPECT_TRUE(in_lock("'Fast_Path' in extras", {"fast-path"}, {}));
    EXPECT_TRUE(in_lock("'fast-path' in extras", {"FAST.path"}, {}));
    EXPECT_TRUE(in_lock("'Type_Check' in dependency_groups", {}, {"type-check"}));
}

TEST(MarkerLockFile, CombinesWithTheEnvironment) {
    const std::string marker =
        "sys_platform == 'linux' and ('cu128' in extras or 'gpu' in dependency_groups)";
    EXPECT_TRUE(in_lock(marker, {"cu128"}, {}));
    EXPECT_TRUE(in_lock(marker, {}, {"gpu"}));
    EXPECT_FALSE(in_lock(marker, {"cpu"}, {"dev"}));
    EXPECT_FALSE(in_lock("sys_platform == 'win32' and 'cu128' in extras", {"cu128"}, {}));
}

TEST(MarkerLockFile, UndefinedOutsideALockFile) {
    MarkerEnvironment env = linux_312();
    auto result = m("'cu128' in extras").evaluate(env);
    ASSERT_FALSE(result);
    EXPECT_THAT(result.error().message, HasSubstr("'extras' is defined only in the markers of a "
                                                  "lock file"));
    const std::vector<std::string> some = {"dev"};
    auto with_extras = m("'dev' in dependency_groups").evaluate(env, some);
    ASSERT_FALSE(with_extras);
    EXPECT_THAT(with_extras.error().message, HasSubstr("'dependency_groups' is defined only"));
}

TEST(MarkerLockFile, OnlyMembershipOfANameIsDefined) {
    EXPECT_THAT(lock_error("extras == 'cu128'"), HasSubstr("the only comparisons with it are "
                                                           "'NAME' in extras and 'NAME' not in "
                                                           "extras"));
    EXPECT_THAT(lock_error("'cu128' == extras"), HasSubstr("is a set of names"));
    EXPECT_THAT(lock_error("extras in 'cu128'"), HasSubstr("is a set of names"));
    EXPECT_THAT(lock_error("'a' < dependency_groups"), HasSubstr("'dependency_groups' is a set"));
    // `extra` (a wheel's METADATA variable) means nothing in a lock file's markers.
    EXPECT_THAT(lock_error("extra == 'cu128'"), HasSubstr("'extra' is not defined in a lock "
                                                          "file's markers"));
}

TEST(MarkerLockFile, TheEnvironmentHoldsNoSetValues) {
    MarkerEnvironment env;
    env.set(MarkerVariable::extras, "ignored");
    EXPECT_EQ(env.get(MarkerVariable::extras), "");
    EXPECT_EQ(env.get(MarkerVariable::dependency_groups), "");
    EXPECT_FALSE(aitk::pep::marker_variable_from_name("extras"));
    EXPECT_FALSE(env.set("dependency_groups", "x"));
    // marker_map (how locks record an environment) is unchanged: the twelve string variables
    // but `extra`.
    EXPECT_EQ(aitk::pep::marker_map(env).size(), aitk::pep::marker_variable_count - 1);
}

}  // namespace AITK_FILE_LOCAL
