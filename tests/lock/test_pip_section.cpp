#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/lock/lockfile.hpp"
#include "lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using test::hex64;

TEST(PipSection, IndexesInLockOrderThenOneLinePerPackageByName) {
    const Lockfile lock = test::rich_lockfile();
    const PipSection section = pip_section(lock, *lock.find_target("linux-x86_64-cu130"));
    const std::vector<std::string> expected = {
        "--require-hashes",
        "--index-url https://pypi.org/simple",
        "--extra-index-url https://mirror.example/simple",
        "--extra-index-url https://download.pytorch.org/whl/cu130",
        "filelock==3.13.1 --hash=sha256:" + hex64('d'),
        // find-links files and direct references are named by URL (fragment replaced).
        "mpmath @ https://wheels.example/flat/mpmath-1e3-py3-none-any.whl#sha256=" + hex64('0'),
        "nvidia-cublas==13.0.0.19 --hash=sha256:" + hex64('e'),
        "oldpkg==0.9 --hash=sha256:" + hex64('4'),
        "requests @ https://direct.example/requests-2.0-py3-none-any.whl#sha256=" + hex64('3'),
        "sympy==1.10 --hash=sha256:" + hex64('f'),
        "torch==2.9.0+cu130 --hash=sha256:" + hex64('c'),
    };
    EXPECT_EQ(section.lines, expected);
    EXPECT_EQ(section.left_out, std::vector<std::string>{"toolkit-extras"});
}

// pip 23 reads a dependency's `lib[fast]>=1` and a plain `lib` as separate requirements: both
// must be pinned (found by the generated pip comparison, seeds 27 and 44).
TEST(PipSection, APackageWithExtrasIsPinnedPlainAndWithItsExtras) {
    Lockfile lock = test::rich_lockfile();
    LockedTarget target = *lock.find_target("linux-x86_64-cu130");
    for (auto& package : target.packages) {
        if (package.name == "sympy") package.extras = {"dev", "fast"};
    }
    const PipSection section = pip_section(lock, target);
    auto plain = std::find(section.lines.begin(), section.lines.end(),
                           "sympy==1.10 --hash=sha256:" + hex64('f'));
    ASSERT_NE(plain, section.lines.end());
    ASSERT_NE(plain + 1, section.lines.end());
    EXPECT_EQ(*(plain + 1), "sympy[dev,fast]==1.10 --hash=sha256:" + hex64('f'));
}

TEST(PipSection, OtherTargetUsesItsOwnIndexes) {
    const Lockfile lock = test::rich_lockfile();
    const PipSection section = pip_section(lock, *lock.find_target("linux-aarch64-cpu"));
    const std::vector<std::string> expected = {
        "--require-hashes",
        "--index-url https://pypi.org/simple",
        "--extra-index-url https://download.pytorch.org/whl/cpu",
        "filelock==3.13.1 --hash=sha256:" + hex64('d'),
        "torch==2.9.0+cpu --hash=sha256:" + hex64('5'),
    };
    EXPECT_EQ(section.lines, expected);
    EXPECT_TRUE(section.left_out.empty());
}

TEST(PipSection, FirstUsedIndexBecomesTheIndexUrl) {
    Lockfile lock = test::rich_lockfile();
    LockedTarget target;
    target.id = "t";
    target.packages = {test::wheel_package("torch", "2.9.0+cu130", "torch cu130",
                                           "https://download.pytorch.org/whl/cu130/t.whl", 'c', 1)};
    const PipSection section = pip_section(lock, target);
    EXPECT_EQ(section.lines,
              (std::vector<std::string>{"--require-hashes",
                                        "--index-url https://download.pytorch.org/whl/cu130",
                                        "torch==2.9.0+cu130 --hash=sha256:" + hex64('c')}));
}

TEST(PipSection, OnlyDirectReferencesMeansNoIndex) {
    Lockfile lock;
    LockedTarget target;
    auto direct = test::wheel_package("a", "1.0", "", "https://h/a-1.0-py3-none-any.whl", 'a', 1);
    LockedPackage archive;
    archive.name = "b";
    archive.source =
        LockedSource{SourceKind::url, "https://h/b.tar.gz#egg=b", "", hex64('b'), 5, "pkg/sub"};
    LockedPackage versionless;  // pinned by index but without a version: by URL
    versionless.name = "c";
    versionless.index = "primary";
    versionless.wheel = LockedFile{"c.whl", "https://h/c.whl", hex64('c'), 1};
    target.packages = {versionless, archive, direct};
    EXPECT_EQ(pip_section(lock, target).lines,
              (std::vector<std::string>{
                  "--require-hashes",
                  "--no-index",
                  "a @ https://h/a-1.0-py3-none-any.whl#sha256=" + hex64('a'),
                  "b @ https://h/b.tar.gz#sha256=" + hex64('b') + "&subdirectory=pkg/sub",
                  "c @ https://h/c.whl#sha256=" + hex64('c'),
              }));
}

TEST(PipSection, SourcesWithoutHashAreLeftOut) {
    Lockfile lock;
    lock.indexes = {{"primary", "https://pypi.org/simple", IndexKind::simple}};
    LockedTarget target;
    LockedPackage vcs;
    vcs.name = "v";
    vcs.source = LockedSource{SourceKind::vcs, "git+https://h/v.git", "abc", "", std::nullopt, ""};
    LockedPackage folder;
    folder.name = "d";
    folder.source = LockedSource{SourceKind::directory, "/src/d", "", "", std::nullopt, ""};
    LockedPackage unhashed_sdist;
    unhashed_sdist.name = "s";
    unhashed_sdist.version = "1.0";
    unhashed_sdist.index = "primary";
    unhashed_sdist.source =
        LockedSource{SourceKind::sdist, "https://h/s-1.0.tar.gz", "", "", std::nullopt, ""};
    target.packages = {vcs, folder, unhashed_sdist};
    const PipSection section = pip_section(lock, target);
    EXPECT_TRUE(section.lines.empty());
    EXPECT_EQ(section.left_out, (std::vector<std::string>{"d", "s", "v"}));
}

TEST(PipSection, CredentialsAreStripped) {
    Lockfile lock;
    lock.indexes = {{"primary", "https://user:pw@pypi.example/simple", IndexKind::simple}};
    LockedTarget target;
    target.packages = {
        test::wheel_package("a", "1.0", "primary", "https://user:pw@pypi.example/a.whl", 'a', 1),
        test::wheel_package("b", "1.0", "", "https://tok@direct.example/b.whl", 'b', 1)};
    EXPECT_EQ(
        pip_section(lock, target).lines,
        (std::vector<std::string>{"--require-hashes", "--index-url https://pypi.example/simple",
                                  "a==1.0 --hash=sha256:" + hex64('a'),
                                  "b @ https://direct.example/b.whl#sha256=" + hex64('b')}));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
