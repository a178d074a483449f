// pip's hash-checking mode over a ProjectInput (project/hash_pins.hpp): when it is on, which
// lines it refuses, and how pins judge a file's digests.
#include <gtest/gtest.h>

#include "aitk/project/hash_pins.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/requirements_file.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

const std::string a64(64, 'a');
const std::string b64(64, 'b');

HashChecking checking_of(const std::string& text, bool flag = false) {
    auto file = parse_requirements_text(text, "requirements.txt");
    EXPECT_TRUE(file) << (file ? "" : file.error().describe());
    auto input = from_requirements(*file, "requirements");
    return hash_checking_for(input, *Target::parse("linux-x86_64-cpu"), flag);
}

TEST(HashPins, OffWithoutAnyHashOrRequireHashes) {
    auto c = checking_of("victim==1.0\ndep>=1\n-e ./local\n");
    EXPECT_FALSE(c.on);
    EXPECT_TRUE(c.pins.empty());
    EXPECT_TRUE(c.problems.empty());
}

TEST(HashPins, OnByAnyHashByTheOptionOrByTheCommandLine) {
    auto by_hash = checking_of("victim==1.0 --hash=sha256:" + a64 + "\ndep==2\n");
    EXPECT_TRUE(by_hash.on);
    EXPECT_NE(by_hash.reason.find("requirements.txt:1:1"), std::string::npos) << by_hash.reason;
    auto by_option = checking_of("--require-hashes\nvictim==1.0\n");
    EXPECT_TRUE(by_option.on);
    EXPECT_NE(by_option.reason.find("--require-hashes"), std::string::npos);
    auto by_flag = checking_of("victim==1.0\n", true);
    EXPECT_TRUE(by_flag.on);
    EXPECT_EQ(by_flag.reason, "--require-hashes on the command line");
}

TEST(HashPins, LinesOfOneProjectMergeTheirHashes) {
    auto c = checking_of("Victim==1.0 --hash=sha256:" + a64 + "\nvictim==1.0 --hash=sha256:" + b64 +
                         "\n");
    const auto* pin = c.find("victim");
    ASSERT_NE(pin, nullptr);
    EXPECT_EQ(pin->allowed.size(), 2u);
    EXPECT_EQ(pin->where.line, 1u);
    EXPECT_EQ(pin->judge_sha256(b64), HashPin::Verdict::allowed);
    EXPECT_EQ(pin->judge_sha256(std::string(64, 'c')), HashPin::Verdict::refused);
    // A digest of an algorithm no pin uses tells nothing.
    EXPECT_EQ(pin->judge({{"sha512", std::string(128, 'c')}}), HashPin::Verdict::unknown);
    EXPECT_EQ(pin->algorithms(), std::vector<std::string>{"sha256"});
}

TEST(HashPins, PinnedMeansOneEqualsOrArbitraryClauseAsPipSays) {
    const std::string hash = " --hash=sha256:" + a64 + "\n";
    EXPECT_TRUE(checking_of("a==1.0" + hash).problems.empty());
    EXPECT_TRUE(checking_of("a===1.0" + hash).problems.empty());
    EXPECT_TRUE(checking_of("a==1.0.*" + hash).problems.empty());  // pip 23.2 accepts it
    EXPECT_EQ(checking_of("a>=1.0" + hash).problems.size(), 1u);
    EXPECT_EQ(checking_of("a==1.0,!=1.1" + hash).problems.size(), 1u);
    EXPECT_EQ(checking_of("a" + hash).problems.size(), 1u);
    auto unpinned = checking_of("x==1" + hash + "a>=1.0" + hash);
    ASSERT_EQ(unpinned.problems.size(), 1u);
    EXPECT_EQ(unpinned.problems[0].where.to_string(), "requirements.txt:2:1");
}

TEST(HashPins, EditableAndVcsLinesAreRefused) {
    auto c = checking_of(
        "--require-hashes\n-e git+https://example.invalid/x.git#egg=x\n"
        "y @ git+https://example.invalid/y.git@v1\n");
    ASSERT_EQ(c.problems.size(), 2u);
    EXPECT_NE(c.problems[0].message.find("editable"), std::string::npos);
    EXPECT_NE(c.problems[1].message.find("version-control"), std::string::npos);
}

TEST(HashPins, AUrlRequirementNeedsNoVersionPin) {
    auto c = checking_of(
        "victim @ https://example.invalid/victim-1.0-py3-none-any.whl "
        "--hash=sha256:" +
        a64 + "\n");
    EXPECT_TRUE(c.on);
    EXPECT_TRUE(c.problems.empty());
    ASSERT_NE(c.find("victim"), nullptr);
}

TEST(HashPins, AUrlFragmentIsAPinButDoesNotTurnTheModeOn) {
    // pip: hashes in URLs satisfy --require-hashes but do not activate it.
    auto off =
        checking_of("victim @ https://example.invalid/victim-1.0-py3-none-any.whl#sha256=" + a64 +
                    "\ndep>=1\n");
    EXPECT_FALSE(off.on);
    auto on = checking_of(
        "--require-hashes\nvictim @ "
        "https://example.invalid/victim-1.0-py3-none-any.whl#sha256=" +
        a64 + "\n");
    EXPECT_TRUE(on.on);
    EXPECT_TRUE(on.problems.empty());
    ASSERT_NE(on.find("victim"), nullptr);
    EXPECT_EQ(on.find("victim")->judge_sha256(a64), HashPin::Verdict::allowed);
}

TEST(HashPins, ConstraintHashesTurnTheModeOnAndAreCheckedToo) {
    auto file = parse_requirements_text("victim==1.0 --hash=sha256:" + a64 + "\n-c c.txt\n",
                                        "requirements.txt",
                                        {{}, [&](const std::filesystem::path&) {
                                             return util::Expected<std::string, std::string>(
                                                 "victim==1.0 --hash=sha256:" + b64 + "\n");
                                         }});
    ASSERT_TRUE(file) << file.error().describe();
    auto input = from_requirements(*file, "requirements");
    auto c = hash_checking_for(input, *Target::parse("linux-x86_64-cpu"), false);
    const auto* pin = c.find("victim");
    ASSERT_NE(pin, nullptr);
    EXPECT_EQ(pin->constrained.size(), 1u);
    // The file must satisfy both the requirement's and the constraint's hashes.
    EXPECT_EQ(pin->judge_sha256(a64), HashPin::Verdict::refused);
    EXPECT_EQ(pin->judge_sha256(b64), HashPin::Verdict::refused);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
