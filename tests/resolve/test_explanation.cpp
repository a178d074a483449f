// Explanations of unsatisfiable requirements, word for word: the error-reporting examples of
// pub's doc/solver.md, and the shapes our inputs produce (origins, extras, constraints, missing
// versions with the source's reasons).
#include <gtest/gtest.h>

#include "memory_source.hpp"

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

using testing::failure;
using testing::MemorySource;
using testing::options;
using testing::requirement;
using testing::roots;

TEST(Explanation, LinearErrorReporting) {
    MemorySource s;
    s.add("foo", "1.0.0", {"bar>=2.0.0,<3.0.0"});
    s.add("bar", "2.0.0", {"baz>=3.0.0,<4.0.0"});
    s.add("baz", "1.0.0").add("baz", "3.0.0");
    EXPECT_EQ(failure(s, roots({"foo>=1.0.0,<2.0.0", "baz>=1.0.0,<2.0.0"}), options()),
              "Because foo==1.0.0 depends on bar<3.0.0,>=2.0.0 which depends on "
              "baz<4.0.0,>=3.0.0, foo==1.0.0 requires baz<4.0.0,>=3.0.0.\n"
              "So, because foo<2.0.0,>=1.0.0 (requirements.txt:1) and baz<2.0.0,>=1.0.0 "
              "(requirements.txt:2) are required, the requirements cannot be satisfied.");
}

TEST(Explanation, BranchingErrorReportingNumbersTheLineReferredTo) {
    MemorySource s;
    s.add("foo", "1.0.0", {"a>=1.0.0,<2.0.0", "b>=1.0.0,<2.0.0"});
    s.add("foo", "1.1.0", {"x>=1.0.0,<2.0.0", "y>=1.0.0,<2.0.0"});
    s.add("a", "1.0.0", {"b>=2.0.0,<3.0.0"});
    s.add("b", "1.0.0").add("b", "2.0.0");
    s.add("x", "1.0.0", {"y>=2.0.0,<3.0.0"});
    s.add("y", "1.0.0").add("y", "2.0.0");
    EXPECT_EQ(
        failure(s, roots({"foo>=1.0.0,<2.0.0"}), options()),
        "    Because foo==1.0.0 depends on a<2.0.0,>=1.0.0 which depends on b<3.0.0,>=2.0.0, "
        "foo==1.0.0 requires b<3.0.0,>=2.0.0.\n"
        "(1) So, because foo==1.0.0 depends on b<2.0.0,>=1.0.0, foo==1.0.0 is forbidden.\n"
        "\n"
        "    Because foo==1.1.0 depends on x<2.0.0,>=1.0.0 which depends on y<3.0.0,>=2.0.0, "
        "foo==1.1.0 requires y<3.0.0,>=2.0.0.\n"
        "    And because foo==1.1.0 depends on y<2.0.0,>=1.0.0, foo==1.1.0 is forbidden.\n"
        "    And because foo==1.0.0 is forbidden (1), every version of foo is forbidden.\n"
        "    So, because foo<2.0.0,>=1.0.0 is required (requirements.txt:1), the requirements "
        "cannot be satisfied.");
}

TEST(Explanation, NamesTheOriginOfEachRootRequirement) {
    MemorySource s;
    s.add("torch", "2.13.0+cu130", {"setuptools>=77", "numpy"});
    s.add("setuptools", "69.5.1").add("setuptools", "77.0.3").add("numpy", "2.0");
    std::vector<RootRequirement> r{{requirement("torch==2.13.0"), "ai-toolkit.yaml torch family"},
                                   {requirement("setuptools==69.5.1"), "requirements_base.txt:38"}};
    EXPECT_EQ(failure(s, r, options()),
              "Because torch==2.13.0+cu130 depends on setuptools>=77 and torch==2.13.0 is "
              "required (ai-toolkit.yaml torch family), setuptools>=77 is required.\n"
              "So, because setuptools==69.5.1 is required (requirements_base.txt:38), the "
              "requirements cannot be satisfied.");
}

TEST(Explanation, VersionsWithTheSameDependencyAreGathered) {
    MemorySource s;
    s.add("a", "1.0", {"c<2"}).add("a", "2.0", {"c<2"}).add("a", "3.0", {"c<3"});
    s.add("b", "1.0", {"c>=3"}).add("b", "2.0", {"c>=3"});
    s.add("c", "1.0").add("c", "2.0").add("c", "3.0");
    EXPECT_EQ(failure(s, roots({"a", "b"}), options()),
              "Because a==1.0 depends on c<2 and a==2.0 depends on c<2, a<=2.0 requires c<2.\n"
              "And because a==3.0 depends on c<3, every version of a requires c<3.\n"
              "Because b==1.0 depends on c>=3 and b==2.0 depends on c>=3, every version of b "
              "requires c>=3.\n"
              "Thus, every version of a is incompatible with b.\n"
              "So, because a (requirements.txt:1) and b (requirements.txt:2) are required, the "
              "requirements cannot be satisfied.");
}

TEST(Explanation, ExtrasAppearAsWritten) {
    MemorySource s;
    s.add("a", "1.0", {"x[e]>=1"});
    s.add("x", "1.0", {"y<1; extra == 'e'"}, {"e"});
    s.add("y", "1.0");
    EXPECT_EQ(failure(s, roots({"a"}), options()),
              "Because x[e]==1.0 depends on y<1 and no version of y matches <1, x[e]==1.0 is "
              "forbidden.\n"
              "So, because a==1.0 depends on x[e]>=1 and a is required (requirements.txt:1), the "
              "requirements cannot be satisfied.");
}

TEST(Explanation, TheSourceSaysWhyNothingMatches) {
    MemorySource s;
    s.add("app", "1.0", {"winonly>=2"});
    s.add("winonly", "1.0");
    s.explanation("winonly", "only wheels for Windows");
    EXPECT_EQ(failure(s, roots({"app"}), options()),
              "Because app==1.0 depends on winonly>=2 and no version of winonly matches >=2 (only "
              "wheels for Windows), app==1.0 is forbidden.\n"
              "So, because app is required (requirements.txt:1), the requirements cannot be "
              "satisfied.");
}

TEST(Explanation, ConflictingRootRequirements) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0");
    EXPECT_EQ(failure(s, roots({"foo>=2", "foo<2"}), options()),
              "Because foo>=2 (requirements.txt:1) and foo<2 (requirements.txt:2) are required, "
              "the requirements cannot be satisfied.");
}

TEST(Explanation, ADependencyOnTheBackendsOtherBuild) {
    MemorySource s;
    s.add("torch", "2.13.0+cu130");
    s.add("torchvision", "0.28.0+cu130", {"torch==2.13.0"});
    s.add("torchaudio", "2.13.0+cpu", {"torch==2.13.0"});
    s.add("lib", "1.0", {"torchaudio==2.13.0", "torchvision"});
    auto o = options();
    o.local_group = {"torch*"};
    o.local_label = "cu130";
    EXPECT_EQ(failure(s, roots({"lib"}), o),
              "Because lib==1.0 depends on torchaudio==2.13.0 and no version of torchaudio matches "
              "==2.13.0 (torchaudio 2.13.0+cpu is built for cpu, not cu130), lib==1.0 is "
              "forbidden.\n"
              "So, because lib is required (requirements.txt:1), the requirements cannot be "
              "satisfied.");
}

TEST(Explanation, IsTheSameOnEveryRun) {
    MemorySource s;
    s.add("a", "1.0", {"c<2"}).add("a", "2.0", {"c<2"}).add("a", "3.0", {"c<3"});
    s.add("b", "1.0", {"c>=3"}).add("b", "2.0", {"c>=3"});
    s.add("c", "1.0").add("c", "2.0").add("c", "3.0");
    const std::string first = failure(s, roots({"b", "a"}), options());
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(failure(s, roots({"b", "a"}), options()), first);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
