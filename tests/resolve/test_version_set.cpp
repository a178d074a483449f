// The set algebra under PubGrub's terms: candidate-index bitsets and positive / negative terms.
#include <gtest/gtest.h>

#include "term.hpp"         // private: src/resolve
#include "version_set.hpp"  // private: src/resolve

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

VersionSet of(std::size_t universe, std::initializer_list<std::size_t> members) {
    VersionSet set = VersionSet::none(universe);
    for (auto m : members)
        set.insert(m);
    return set;
}

TEST(VersionSet, EmptyFullAndCount) {
    EXPECT_TRUE(VersionSet::none(5).empty());
    EXPECT_FALSE(VersionSet::none(5).full());
    EXPECT_TRUE(VersionSet::all(5).full());
    EXPECT_EQ(VersionSet::all(5).count(), 5u);
    EXPECT_EQ(VersionSet::all(130).count(), 130u);
    EXPECT_TRUE(VersionSet::all(0).empty());
    EXPECT_TRUE(VersionSet::all(0).full());
    EXPECT_EQ(VersionSet::single(70, 69).count(), 1u);
    EXPECT_TRUE(VersionSet::single(70, 69).contains(69));
    EXPECT_FALSE(VersionSet::single(70, 69).contains(5));
    EXPECT_FALSE(VersionSet::all(3).contains(3));  // outside the universe
}

TEST(VersionSet, HighestIsTheNewestMember) {
    EXPECT_EQ(of(10, {2, 7, 4}).highest(), 7u);
    EXPECT_EQ(of(200, {3, 150}).highest(), 150u);
    EXPECT_EQ(VersionSet::none(10).highest(), std::nullopt);
}

TEST(VersionSet, ComplementStaysInsideTheUniverse) {
    const VersionSet c = of(70, {0, 69}).complement();
    EXPECT_EQ(c.count(), 68u);
    EXPECT_FALSE(c.contains(0));
    EXPECT_TRUE(c.contains(1));
    EXPECT_FALSE(c.contains(69));
    EXPECT_EQ(c.complement(), of(70, {0, 69}));
    EXPECT_TRUE(VersionSet::all(64).complement().empty());
}

TEST(VersionSet, SetOperations) {
    const VersionSet a = of(100, {1, 2, 3, 90});
    const VersionSet b = of(100, {3, 4, 90});
    EXPECT_EQ(a & b, of(100, {3, 90}));
    EXPECT_EQ(a | b, of(100, {1, 2, 3, 4, 90}));
    EXPECT_EQ(a - b, of(100, {1, 2}));
    EXPECT_TRUE(of(100, {3}).subset_of(a));
    EXPECT_FALSE(b.subset_of(a));
    EXPECT_TRUE(VersionSet::none(100).subset_of(a));
    EXPECT_TRUE(of(100, {5, 6}).disjoint(a));
    EXPECT_FALSE(b.disjoint(a));
}

Term positive(VersionSet set, std::optional<std::string> label = std::nullopt) {
    return Term{1, true, std::move(set), std::move(label)};
}
Term negative(VersionSet set, std::optional<std::string> label = std::nullopt) {
    return Term{1, false, std::move(set), std::move(label)};
}

TEST(Term, PositiveAgainstPositive) {
    EXPECT_EQ(positive(of(5, {1})).relation(positive(of(5, {1, 2}))), Relation::satisfied);
    EXPECT_EQ(positive(of(5, {1, 2})).relation(positive(of(5, {3}))), Relation::contradicted);
    EXPECT_EQ(positive(of(5, {1, 2})).relation(positive(of(5, {2, 3}))), Relation::inconclusive);
}

TEST(Term, PositiveAgainstNegative) {
    // foo in {1} makes "not foo in {2}" true and "not foo in {1,2}" false.
    EXPECT_EQ(positive(of(5, {1})).relation(negative(of(5, {2}))), Relation::satisfied);
    EXPECT_EQ(positive(of(5, {1})).relation(negative(of(5, {1, 2}))), Relation::contradicted);
    EXPECT_EQ(positive(of(5, {1, 2})).relation(negative(of(5, {2}))), Relation::inconclusive);
}

TEST(Term, NegativeAllowsTheAbsentPackage) {
    // "not foo in {1}" allows foo to be absent, which no positive term allows.
    EXPECT_EQ(negative(of(5, {1})).relation(positive(of(5, {0, 2, 3, 4}))), Relation::inconclusive);
    EXPECT_EQ(negative(of(5, {0, 1, 2, 3, 4})).relation(positive(of(5, {2}))),
              Relation::contradicted);
    EXPECT_EQ(negative(of(5, {1, 2})).relation(negative(of(5, {1}))), Relation::satisfied);
    EXPECT_EQ(negative(of(5, {1})).relation(negative(of(5, {1, 2}))), Relation::inconclusive);
}

TEST(Term, IntersectionsFollowPolarity) {
    auto both = positive(of(5, {1, 2, 3})).intersect(positive(of(5, {2, 3, 4})));
    EXPECT_TRUE(both.positive);
    EXPECT_EQ(both.set, of(5, {2, 3}));
    auto minus = positive(of(5, {1, 2, 3})).intersect(negative(of(5, {2})));
    EXPECT_TRUE(minus.positive);
    EXPECT_EQ(minus.set, of(5, {1, 3}));
    auto neither = negative(of(5, {1})).intersect(negative(of(5, {2})));
    EXPECT_FALSE(neither.positive);
    EXPECT_EQ(neither.set, of(5, {1, 2}));
    EXPECT_EQ(positive(of(5, {1, 2})).difference(positive(of(5, {2}))).set, of(5, {1}));
}

TEST(Term, LabelsSurviveOnlyWhileTheyStillDescribeTheSet) {
    auto narrower = positive(of(5, {1, 2}), ">=1").intersect(positive(of(5, {1, 2, 3}), "<3"));
    EXPECT_EQ(narrower.label, ">=1");
    auto joined = positive(of(5, {1, 2}), ">=1").intersect(positive(of(5, {2, 3}), "<3"));
    EXPECT_EQ(joined.label, ">=1,<3");
    auto any = positive(of(5, {1, 2}), "").intersect(positive(of(5, {2, 3}), "<3"));
    EXPECT_EQ(any.label, "<3");
    auto cut = positive(of(5, {1, 2}), ">=1").intersect(negative(of(5, {2}), "==2"));
    EXPECT_EQ(cut.label, std::nullopt);
    auto untouched = positive(of(5, {1, 2}), ">=1").intersect(negative(of(5, {4}), "==4"));
    EXPECT_EQ(untouched.label, ">=1");
}

TEST(Term, ImpossibleAndTautology) {
    EXPECT_TRUE(positive(VersionSet::none(3)).impossible());
    EXPECT_TRUE(negative(VersionSet::none(3)).tautology());
    EXPECT_FALSE(negative(VersionSet::all(3)).tautology());
    EXPECT_EQ(negative(of(3, {1})).negated().positive, true);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
