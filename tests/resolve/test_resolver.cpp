// Resolutions that succeed, and the rules that shape them: markers, extras, prereleases, yanked
// versions, local versions, preferences, constraints, direct references, source failures.
#include <gtest/gtest.h>

#include <typeinfo>

#include "memory_source.hpp"

namespace aitk::resolve {
namespace AITK_FILE_LOCAL {

using testing::failure;
using testing::MemorySource;
using testing::options;
using testing::pins;
using testing::roots;
using V = std::vector<std::string>;

const ResolvedPackage& package(const Resolution& resolution, const std::string& name) {
    for (const auto& p : resolution.packages) {
        if (p.name == name) return p;
    }
    throw std::out_of_range("not resolved: " + name);
}

// ---- the examples of pub's doc/solver.md --------------------------------------------------

TEST(Resolver, NoConflicts) {
    MemorySource s;
    s.add("foo", "1.0.0", {"bar>=1.0.0,<2.0.0"});
    s.add("bar", "1.0.0").add("bar", "2.0.0");
    auto r = resolve(s, roots({"foo>=1.0.0,<2.0.0"}), options());
    EXPECT_EQ(pins(r), (V{"bar==1.0.0", "foo==1.0.0"}));
    EXPECT_EQ(r.conflicts, 0u);
}

TEST(Resolver, AvoidsConflictDuringDecisionMaking) {
    MemorySource s;
    s.add("foo", "1.0.0").add("foo", "1.1.0", {"bar>=2.0.0,<3.0.0"});
    s.add("bar", "1.0.0").add("bar", "1.1.0").add("bar", "2.0.0");
    auto r = resolve(s, roots({"foo>=1.0.0,<2.0.0", "bar>=1.0.0,<2.0.0"}), options());
    EXPECT_EQ(pins(r), (V{"bar==1.1.0", "foo==1.0.0"}));
}

TEST(Resolver, PerformsConflictResolution) {
    MemorySource s;
    s.add("foo", "1.0.0").add("foo", "2.0.0", {"bar>=1.0.0,<2.0.0"});
    s.add("bar", "1.0.0", {"foo>=1.0.0,<2.0.0"});
    auto r = resolve(s, roots({"foo>=1.0.0"}), options());
    EXPECT_EQ(pins(r), (V{"foo==1.0.0"}));
    EXPECT_GE(r.conflicts, 1u);
}

TEST(Resolver, ConflictResolutionWithAPartialSatisfier) {
    MemorySource s;
    s.add("foo", "1.0.0").add("foo", "1.1.0", {"left>=1.0.0,<2.0.0", "right>=1.0.0,<2.0.0"});
    s.add("left", "1.0.0", {"shared>=1.0.0"});
    s.add("right", "1.0.0", {"shared<2.0.0"});
    s.add("shared", "2.0.0").add("shared", "1.0.0", {"target>=1.0.0,<2.0.0"});
    s.add("target", "2.0.0").add("target", "1.0.0");
    auto r = resolve(s, roots({"foo>=1.0.0,<2.0.0", "target>=2.0.0,<3.0.0"}), options());
    EXPECT_EQ(pins(r), (V{"foo==1.0.0", "target==2.0.0"}));
    EXPECT_GE(r.conflicts, 1u);
}

// ---- shapes ---------------------------------------------------------------------------------

TEST(Resolver, ChainTakesTheNewestVersions) {
    MemorySource s;
    s.add("a", "1.0", {"b"}).add("a", "2.0", {"b>=2"});
    s.add("b", "1.0").add("b", "2.0", {"c<3"}).add("b", "2.1", {"c<3"});
    s.add("c", "1.0").add("c", "2.0").add("c", "3.0");
    auto r = resolve(s, roots({"a"}), options());
    EXPECT_EQ(pins(r), (V{"a==2.0", "b==2.1", "c==2.0"}));
    EXPECT_EQ(package(r, "a").dependencies, (V{"b"}));
    EXPECT_EQ(package(r, "b").dependencies, (V{"c"}));
    EXPECT_TRUE(package(r, "a").requested);
    EXPECT_FALSE(package(r, "b").requested);
}

TEST(Resolver, DiamondMeetsBothSides) {
    MemorySource s;
    s.add("app", "1.0", {"left", "right"});
    s.add("left", "1.0", {"shared>=1.2"});
    s.add("right", "1.0", {"shared<2"});
    s.add("shared", "1.0").add("shared", "1.2").add("shared", "1.5").add("shared", "2.0");
    auto r = resolve(s, roots({"app"}), options());
    EXPECT_EQ(pins(r), (V{"app==1.0", "left==1.0", "right==1.0", "shared==1.5"}));
}

TEST(Resolver, BacktracksToAnOlderVersion) {
    // numpy 2 is newest, but the only torch there is needs numpy<2.
    MemorySource s;
    s.add("torch", "2.0", {"numpy<2"});
    s.add("numpy", "1.26.4").add("numpy", "2.1.0");
    s.add("pandas", "2.2.0", {"numpy>=2"}).add("pandas", "2.1.0", {"numpy>=1.22"});
    auto r = resolve(s, roots({"pandas", "torch"}), options());
    EXPECT_EQ(pins(r), (V{"numpy==1.26.4", "pandas==2.1.0", "torch==2.0"}));
}

// Where requirements pull against each other, pip's choice: what it decides first (root
// requirements in the order written, then shallower before deeper) gets its newest version.
TEST(Resolver, DecidesInPipsOrder) {
    MemorySource s;
    s.add("a", "1.0", {"c<3"}).add("a", "2.0", {"c<2"});
    s.add("b", "1.0", {"c<3"}).add("b", "2.0", {"c>=2"});
    s.add("c", "1.0").add("c", "2.0");
    EXPECT_EQ(pins(resolve(s, roots({"a", "b"}), options())), (V{"a==2.0", "b==1.0", "c==1.0"}));
    EXPECT_EQ(pins(resolve(s, roots({"b", "a"}), options())), (V{"a==1.0", "b==2.0", "c==2.0"}));
    // A pinned requirement goes first wherever it is written.
    EXPECT_EQ(pins(resolve(s, roots({"a", "b==2.0"}), options())),
              (V{"a==1.0", "b==2.0", "c==2.0"}));
    // A root requirement goes before a dependency of one.
    s.add("app", "1.0", {"a"});
    EXPECT_EQ(pins(resolve(s, roots({"app", "b"}), options())),
              (V{"a==1.0", "app==1.0", "b==2.0", "c==2.0"}));
}

// pip keeps the version it is pinning and re-pins an earlier choice in its way, when that
// choice's own requirements leave room; only when they do not does it take an older version.
TEST(Resolver, RePinsAnEarlierChoiceAsPipDoes) {
    MemorySource s;
    s.add("lib", "1.0", {"core"}).add("app", "1.0", {"tool"});
    s.add("core", "1.0").add("core", "2.0");
    s.add("tool", "1.0").add("tool", "2.0", {"core<2"});
    EXPECT_EQ(pins(resolve(s, roots({"lib", "app"}), options())),
              (V{"app==1.0", "core==1.0", "lib==1.0", "tool==2.0"}));
    EXPECT_EQ(pins(resolve(s, roots({"lib", "app", "core>=2"}), options())),
              (V{"app==1.0", "core==2.0", "lib==1.0", "tool==1.0"}));
    // The choices made since stay: here lib, which brought tool in.
    MemorySource u;
    u.add("core", "1.0").add("core", "2.0").add("lib", "1.0", {"tool"});
    u.add("tool", "1.0").add("tool", "2.0", {"core<2"});
    EXPECT_EQ(pins(resolve(u, roots({"core", "lib"}), options())),
              (V{"core==1.0", "lib==1.0", "tool==2.0"}));
    // Not when a choice made since needs the earlier one where it is (needy needs core>=2).
    u.add("needy", "1.0", {"core>=2"}).add("app", "1.0", {"tool"});
    EXPECT_EQ(pins(resolve(u, roots({"core", "needy", "app"}), options())),
              (V{"app==1.0", "core==2.0", "needy==1.0", "tool==1.0"}));
    // Also through an extra, whose tie to its package moves along.
    MemorySource t;
    t.add("lib", "1.0", {"core[docs]"}).add("app", "1.0", {"tool"});
    t.add("core", "1.0", {"sphinx<7; extra == 'docs'"})
        .add("core", "2.0", {"sphinx; extra == 'docs'"});
    t.add("sphinx", "6.0").add("sphinx", "7.0");
    t.add("tool", "1.0").add("tool", "2.0", {"core[docs]<2"});
    auto r = resolve(t, roots({"lib", "app"}), options());
    EXPECT_EQ(pins(r), (V{"app==1.0", "core==1.0", "lib==1.0", "sphinx==6.0", "tool==2.0"}));
    EXPECT_EQ(package(r, "core").extras, (V{"docs"}));
    // A version kept from the lockfile is not re-pinned: the newcomer gives way.
    auto o = options();
    o.preferences = {{"core", testing::version("2.0")}};
    EXPECT_EQ(pins(resolve(s, roots({"lib", "app"}), o)),
              (V{"app==1.0", "core==2.0", "lib==1.0", "tool==1.0"}));
}

TEST(Resolver, RootRequirementsOnOneNameAreIntersected) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "1.5").add("foo", "2.0");
    auto r = resolve(s, roots({"foo>=1", "foo<2", "Foo_Bar; python_version < '3'"}), options());
    EXPECT_EQ(pins(r), (V{"foo==1.5"}));
}

TEST(Resolver, NoRequirementsResolveToNothing) {
    MemorySource s;
    auto r = resolve(s, {}, options());
    EXPECT_TRUE(r.packages.empty());
    EXPECT_TRUE(s.version_calls.empty());
}

TEST(Resolver, CyclesAndSelfDependenciesAreFine) {
    MemorySource s;
    s.add("a", "1.0", {"b>=1"}).add("b", "1.0", {"a==1.0"});
    s.add("c", "1.0", {"c>=1", "c[x]"}, {"x"});
    auto r = resolve(s, testing::roots({"a", "c"}), options());
    EXPECT_EQ(pins(r), (V{"a==1.0", "b==1.0", "c==1.0"}));
    EXPECT_EQ(package(r, "a").dependencies, (V{"b"}));
    EXPECT_EQ(package(r, "b").dependencies, (V{"a"}));
    EXPECT_TRUE(package(r, "c").dependencies.empty());
    EXPECT_EQ(package(r, "c").extras, (V{"x"}));
}

// ---- markers and extras --------------------------------------------------------------------

TEST(Resolver, MarkersAreEvaluatedForTheTarget) {
    MemorySource s;
    s.add("app", "1.0",
          {"pywin32>=300; sys_platform == 'win32'", "uvloop; sys_platform != 'win32'",
           "colorama; os_name == 'nt' and python_version >= '3.8'"});
    s.add("pywin32", "306").add("uvloop", "0.19").add("colorama", "0.4.6");
    EXPECT_EQ(pins(resolve(s, roots({"app"}), options("linux"))), (V{"app==1.0", "uvloop==0.19"}));
    auto windows = resolve(s, roots({"app", "triton; sys_platform == 'linux'"}), options("win32"));
    EXPECT_EQ(pins(windows), (V{"app==1.0", "colorama==0.4.6", "pywin32==306"}));
    EXPECT_EQ(package(windows, "app").dependencies, (V{"colorama", "pywin32"}));
}

TEST(Resolver, ExtrasPullInTheirRequirements) {
    MemorySource s;
    s.add("foo", "1.0",
          {"base-dep", "bar-dep>=2; extra == 'bar'",
           "win-dep; extra == 'bar' and sys_platform == 'win32'", "other-dep; extra == 'other'"},
          {"bar", "other"});
    s.add("base-dep", "1.0").add("bar-dep", "1.0").add("bar-dep", "2.0").add("win-dep", "1.0");
    s.add("other-dep", "1.0");
    auto r = resolve(s, roots({"foo[BAR]"}), options());
    EXPECT_EQ(pins(r), (V{"bar-dep==2.0", "base-dep==1.0", "foo==1.0"}));
    EXPECT_EQ(package(r, "foo").extras, (V{"bar"}));
    EXPECT_EQ(package(r, "foo").dependencies, (V{"bar-dep", "base-dep"}));
    EXPECT_TRUE(package(r, "foo").requested);

    auto windows = resolve(s, roots({"foo[bar]"}), options("win32"));
    EXPECT_EQ(pins(windows), (V{"bar-dep==2.0", "base-dep==1.0", "foo==1.0", "win-dep==1.0"}));
}

TEST(Resolver, AnExtraKeepsItsPackagesVersion) {
    // foo 2.0 is newest, but "foo<2" holds the package, and with it the extra, at 1.0.
    MemorySource s;
    s.add("foo", "1.0", {"x==1; extra == 'e'"}, {"e"});
    s.add("foo", "2.0", {"x==2; extra == 'e'"}, {"e"});
    s.add("x", "1").add("x", "2");
    s.add("lib", "1.0", {"foo[e]"});
    auto r = resolve(s, roots({"lib", "foo<2"}), options());
    EXPECT_EQ(pins(r), (V{"foo==1.0", "lib==1.0", "x==1"}));
    EXPECT_EQ(package(r, "foo").extras, (V{"e"}));
    EXPECT_EQ(package(r, "lib").dependencies, (V{"foo"}));
}

TEST(Resolver, AnUnknownExtraIsIgnoredWithAWarning) {
    MemorySource s;
    s.add("foo", "1.0", {"bar"}).add("bar", "1.0");
    auto r = resolve(s, roots({"foo[nope]"}), options());
    EXPECT_EQ(pins(r), (V{"bar==1.0", "foo==1.0"}));
    EXPECT_EQ(package(r, "foo").extras, (V{"nope"}));
    EXPECT_EQ(r.warnings, (V{"foo 1.0 does not provide the extra 'nope'"}));
}

TEST(Resolver, AnExtraNamedOnlyInMarkersCounts) {
    // Old metadata without Provides-Extra.
    MemorySource s;
    s.add("foo", "1.0", {"bar; extra == 'fast'"}).add("bar", "1.0");
    auto r = resolve(s, roots({"foo[fast]"}), options());
    EXPECT_EQ(package(r, "foo").extras, (V{"fast"}));
    EXPECT_TRUE(r.warnings.empty());
}

// ---- prereleases -----------------------------------------------------------------------------

TEST(Resolver, PrereleasesAreSkippedByDefault) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0b1");
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), options())), (V{"foo==1.0"}));
    EXPECT_EQ(pins(resolve(s, roots({"foo>=0.5"}), options())), (V{"foo==1.0"}));
}

TEST(Resolver, PrereleasesWhenAllowed) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0b1");
    auto o = options();
    o.allow_prereleases = true;
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), o)), (V{"foo==2.0b1"}));
}

TEST(Resolver, PrereleasesWhenTheSpecifierNamesOne) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0b1").add("foo", "2.0rc1");
    EXPECT_EQ(pins(resolve(s, roots({"foo>=2.0b1"}), options())), (V{"foo==2.0rc1"}));
    s.add("lib", "1.0", {"foo==2.0b1"});
    EXPECT_EQ(pins(resolve(s, roots({"lib"}), options())), (V{"foo==2.0b1", "lib==1.0"}));
}

TEST(Resolver, ARootPrereleasePinReachesTransitiveRequirements) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0b1");
    s.add("lib", "1.0", {"foo>=1"});
    EXPECT_EQ(pins(resolve(s, roots({"lib", "foo==2.0b1"}), options())),
              (V{"foo==2.0b1", "lib==1.0"}));
}

TEST(Resolver, PrereleasesWhenNothingElseIsOffered) {
    // packaging's fallback, as pip 23.2 applies it: only for a requirement without specifier.
    MemorySource s;
    s.add("foo", "2.0b1").add("foo", "1.0rc1");
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), options())), (V{"foo==2.0b1"}));
    EXPECT_EQ(failure(s, roots({"foo>=1"}), options()),
              "Because foo>=1 is required (requirements.txt:1) and no version of foo matches >=1 "
              "(only the prerelease 2.0b1 matches; allow prereleases with --pre or name one in "
              "the specifier), the requirements cannot be satisfied.");
}

// ---- yanked versions -------------------------------------------------------------------------

TEST(Resolver, YankedVersionsOnlyWhenPinned) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "2.0").yank("foo", "2.0", "broken wheel");
    EXPECT_EQ(pins(resolve(s, roots({"foo"}), options())), (V{"foo==1.0"}));
    EXPECT_EQ(pins(resolve(s, roots({"foo==2.0"}), options())), (V{"foo==2.0"}));
    EXPECT_EQ(pins(resolve(s, roots({"foo===2.0"}), options())), (V{"foo==2.0"}));
    s.add("lib", "1.0", {"foo>=1"});
    EXPECT_EQ(pins(resolve(s, roots({"lib", "foo==2.0"}), options())), (V{"foo==2.0", "lib==1.0"}));
    EXPECT_EQ(failure(s, roots({"foo>=2"}), options()),
              "Because foo>=2 is required (requirements.txt:1) and no version of foo matches >=2 "
              "(foo 2.0 is yanked (\"broken wheel\"), and only an exact == pin selects a yanked "
              "version), the requirements cannot be satisfied.");
}

// ---- local versions and the backend rule ------------------------------------------------------

TEST(Resolver, EqualsMatchesLocalVersions) {
    MemorySource s;
    s.add("torch", "2.13.0+cu130").add("torch", "2.12.0+cu130").add("torch", "2.13.0+cpu");
    s.add("torchvision", "0.28.0+cu130", {"torch==2.13.0"});
    auto o = options();
    o.local_group = {"torch*"};
    o.local_label = "cu130";
    auto r = resolve(s, roots({"torch==2.13.0", "torchvision"}), o);
    EXPECT_EQ(pins(r), (V{"torch==2.13.0+cu130", "torchvision==0.28.0+cu130"}));
}

TEST(Resolver, TheBackendRuleRefusesOtherBuilds) {
    MemorySource s;
    s.add("torch", "2.13.0+cu130");
    s.add("torchvision", "0.28.0+cpu").add("torchvision", "0.27.0+rocm6.4");
    auto o = options();
    o.local_group = {"torch", "torchvision"};
    o.local_label = "cu130";
    EXPECT_EQ(failure(s, roots({"torch", "torchvision==0.28.0"}), o),
              "Because torchvision==0.28.0 is required (requirements.txt:2) and no version of "
              "torchvision matches ==0.28.0 (torchvision 0.28.0+cpu is built for cpu, not cu130), "
              "the requirements cannot be satisfied.");
    EXPECT_EQ(failure(s, roots({"torchvision"}), o),
              "Because torchvision is required (requirements.txt:1) and no version of torchvision "
              "is available (torchvision 0.28.0+cpu is built for cpu, not cu130, and 1 more is "
              "built for another backend), the requirements cannot be satisfied.");
    // Builds without a local label, and packages outside the group, are not affected.
    s.add("torchvision", "0.28.0").add("pillow", "10.0+cpu");
    EXPECT_EQ(pins(resolve(s, roots({"torchvision", "pillow"}), o)),
              (V{"pillow==10.0+cpu", "torchvision==0.28.0"}));
}

TEST(Resolver, ALocalLabelThatNamesNoBackendIsNotAnotherBuild) {
    // prime-rl pins torchao==0.17.0+git02105d46c: a source build's label, not a backend's, so
    // the one-flavour rule has nothing to say about it.
    MemorySource s;
    s.add("torch", "2.13.0+cu128");
    s.add("torchao", "0.17.0+git02105d46c").add("torchao", "0.16.0+cpu");
    auto o = options();
    o.local_group = {"torch", "torchao"};
    o.local_label = "cu128";
    EXPECT_EQ(pins(resolve(s, roots({"torch", "torchao==0.17.0+git02105d46c"}), o)),
              (V{"torch==2.13.0+cu128", "torchao==0.17.0+git02105d46c"}));
    EXPECT_EQ(failure(s, roots({"torch", "torchao==0.16.0"}), o),
              "Because torchao==0.16.0 is required (requirements.txt:2) and no version of "
              "torchao matches ==0.16.0 (torchao 0.16.0+cpu is built for cpu, not cu128), "
              "the requirements cannot be satisfied.");
}

// ---- preferences, upgrades, constraints ---------------------------------------------------------

TEST(Resolver, PreferencesKeepLockedVersions) {
    MemorySource s;
    s.add("foo", "1.0").add("foo", "1.5").add("foo", "2.0");
    s.add("bar", "1.0").add("bar", "2.0");
    auto o = options();
    o.preferences = {{"foo", testing::version("1.5")}, {"bar", testing::version("1.0")}};
    EXPECT_EQ(pins(resolve(s, roots({"foo", "bar"}), o)), (V{"bar==1.0", "foo==1.5"}));
    // A preference the requirements rule out is dropped.
    EXPECT_EQ(pins(resolve(s, roots({"foo>=2", "bar"}), o)), (V{"bar==1.0", "foo==2.0"}));
    o.upgrade = {"foo"};
    EXPECT_EQ(pins(resolve(s, roots({"foo", "bar"}), o)), (V{"bar==1.0", "foo==2.0"}));
    o.upgrade_all = true;
    EXPECT_EQ(pins(resolve(s, roots({"foo", "bar"}), o)), (V{"bar==2.0", "foo==2.0"}));
}

TEST(Resolver, ConstraintsLimitWithoutAdding) {
    MemorySource s;
    s.add("foo", "1.0", {"bar"}).add("foo", "2.0", {"bar"});
    s.add("bar", "1.0").add("bar", "2.0").add("unused", "1.0");
    auto o = options();
    o.constraints =
        roots({"bar<2", "unused==1.0", "foo; sys_platform == 'win32'"}, "constraints.txt");
    auto r = resolve(s, roots({"foo"}), o);
    EXPECT_EQ(pins(r), (V{"bar==1.0", "foo==2.0"}));
    EXPECT_EQ(s.version_calls.count("unused"), 0u);
    EXPECT_EQ(failure(s, roots({"bar>=2"}), o),
              "Because bar is constrained to <2 (constraints.txt:1) and bar>=2 is required "
              "(requirements.txt:1), the requirements cannot be satisfied.");
}

// ---- direct references ------------------------------------------------------------------------

TEST(Resolver, DirectReferenceIsTheOnlyCandidate) {
    MemorySource s;
    s.add("foo", "9.0");
    s.add_direct("foo", "https://example.org/foo-1.0-py3-none-any.whl", "1.0", {"bar"});
    s.add("bar", "1.0");
    s.add("lib", "1.0", {"foo>=1", "foo @ https://example.org/foo-1.0-py3-none-any.whl"});
    auto r =
        resolve(s, roots({"foo @ https://example.org/foo-1.0-py3-none-any.whl", "lib"}), options());
    EXPECT_EQ(pins(r), (V{"bar==1.0", "foo==1.0", "lib==1.0"}));
    EXPECT_EQ(package(r, "foo").url, "https://example.org/foo-1.0-py3-none-any.whl");
    EXPECT_EQ(package(r, "foo").dependencies, (V{"bar"}));
    EXPECT_EQ(s.version_calls.count("foo"), 0u);
    EXPECT_EQ(s.direct_calls["foo"], 1);
}

TEST(Resolver, DirectReferenceOfUnknownVersion) {
    MemorySource s;
    s.add_direct("foo", "git+https://example.org/foo.git", std::nullopt);
    auto r = resolve(s, roots({"foo @ git+https://example.org/foo.git"}), options());
    ASSERT_EQ(r.packages.size(), 1u);
    EXPECT_EQ(r.packages[0].version, pep::Version());
    EXPECT_EQ(r.packages[0].url, "git+https://example.org/foo.git");

    s.add("lib", "1.0", {"foo>=1"});
    EXPECT_EQ(failure(s, roots({"foo @ git+https://example.org/foo.git", "lib"}), options()),
              "Because lib==1.0 depends on foo>=1 and no version of foo matches >=1 (foo @ "
              "git+https://example.org/foo.git has no known version until it is built), "
              "lib==1.0 is forbidden.\n"
              "So, because lib is required (requirements.txt:2), the requirements cannot be "
              "satisfied.");
}

TEST(Resolver, ConflictingUrlsForOneName) {
    MemorySource s;
    EXPECT_EQ(failure(s,
                      roots({"foo @ https://a.example/foo-1.0.tar.gz",
                             "foo @ https://b.example/foo-1.0.tar.gz"}),
                      options()),
              "Because foo @ https://a.example/foo-1.0.tar.gz is required (requirements.txt:1) and "
              "foo @ https://b.example/foo-1.0.tar.gz is required (requirements.txt:2), the "
              "requirements cannot be satisfied (a package comes from one URL only).");
    s.add_direct("foo", "https://a.example/foo-1.0.tar.gz", "1.0");
    s.add("lib", "1.0", {"foo @ https://b.example/foo-1.0.tar.gz"});
    EXPECT_EQ(failure(s, roots({"foo @ https://a.example/foo-1.0.tar.gz", "lib"}), options()),
              "Because lib==1.0 depends on foo @ https://b.example/foo-1.0.tar.gz, but foo @ "
              "https://a.example/foo-1.0.tar.gz is required (requirements.txt:1) and lib is "
              "required (requirements.txt:2), the requirements cannot be satisfied.");
}

TEST(Resolver, CredentialsInUrlsStayOutOfMessages) {
    MemorySource s;
    EXPECT_EQ(failure(s,
                      roots({"foo @ https://user:secret@a.example/foo.whl",
                             "foo @ https://b.example/foo.whl"}),
                      options()),
              "Because foo @ https://***@a.example/foo.whl is required (requirements.txt:1) and "
              "foo @ https://b.example/foo.whl is required (requirements.txt:2), the requirements "
              "cannot be satisfied (a package comes from one URL only).");
}

// ---- the source -------------------------------------------------------------------------------

TEST(Resolver, SourceFailuresAbort) {
    MemorySource s;
    s.add("foo", "1.0", {"bar"});
    s.fail_versions("bar", "https://pypi.org/simple/bar/: HTTP 503");
    try {
        (void)resolve(s, roots({"foo"}), options());
        FAIL() << "resolved";
    } catch (const SourceFailure& e) {
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        EXPECT_STREQ(e.what(), "https://pypi.org/simple/bar/: HTTP 503");
    }
    MemorySource t;
    t.add("foo", "1.0").fail_dependencies("foo", "1.0", "foo-1.0.whl.metadata: bad METADATA");
    EXPECT_THROW((void)resolve(t, roots({"foo"}), options()), SourceFailure);
}

TEST(Resolver, AsksTheSourceOnceAndPrefetchesInBatches) {
    MemorySource s;
    s.add("app", "1.0", {"a", "b"});
    s.add("a", "1.0", {"c>=2"}).add("a", "2.0", {"c>=2"});
    s.add("b", "1.0", {"c<3"});
    s.add("c", "1.0").add("c", "2.0").add("c", "3.0");
    auto r = resolve(s, roots({"app"}), options());
    EXPECT_EQ(pins(r), (V{"a==2.0", "app==1.0", "b==1.0", "c==2.0"}));
    for (const auto& [name, calls] : s.version_calls)
        EXPECT_EQ(calls, 1) << name;
    for (const auto& [key, calls] : s.dependency_calls)
        EXPECT_EQ(calls, 1) << key.first;
    ASSERT_GE(s.prefetches.size(), 2u);
    EXPECT_EQ(s.prefetches[0], (V{"app"}));
    EXPECT_EQ(s.prefetches[1], (V{"a", "b"}));
}

TEST(Resolver, UnknownProjectsAreExplained) {
    MemorySource s;
    s.explanation("nonexistent", "not on any index: https://pypi.org/simple/");
    EXPECT_EQ(failure(s, roots({"nonexistent>=1"}), options()),
              "Because nonexistent>=1 is required (requirements.txt:1) and no version of "
              "nonexistent matches >=1 (not on any index: https://pypi.org/simple/), the "
              "requirements cannot be satisfied.");
}

TEST(Resolver, GivesUpAfterMaxSteps) {
    MemorySource s;
    s.add("a", "1.0", {"b"}).add("b", "1.0", {"c"}).add("c", "1.0");
    auto o = options();
    o.max_steps = 2;
    try {
        (void)resolve(s, roots({"a"}), o);
        FAIL() << "resolved";
    } catch (const util::Error& e) {
        EXPECT_EQ(typeid(e), typeid(util::Error));
        EXPECT_EQ(e.code(), util::ExitCode::failure);
        EXPECT_STREQ(e.what(), "resolution gave up after 2 steps");
    }
}

TEST(Resolver, BadRootMarkerIsAnInputError) {
    MemorySource s;
    try {
        (void)resolve(s, roots({"foo; platform_release >= '5.0'"}), options());
        FAIL() << "resolved";
    } catch (const util::InputError& e) {
        EXPECT_EQ(e.code(), util::ExitCode::bad_input);
        EXPECT_NE(std::string(e.what()).find("(requirements.txt:1)"), std::string::npos);
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::resolve
