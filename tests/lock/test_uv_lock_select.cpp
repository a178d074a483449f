// What `uv sync --frozen` installs from a real uv.lock, per environment and per backend extra,
// against the sets bench/uv_lock_walk.py derives from the same lock's markers (Python,
// packaging), and those packages as lockfile packages for a target.
#include <gtest/gtest.h>

#include "uv_lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using uv_test::data;
using uv_test::environment;
using uv_test::expected;
using uv_test::installed;

UvInstallSet walk(const UvLock& lock, const pep::MarkerEnvironment& env,
                  const UvSelection& selection = {}) {
    auto set = select_uv_packages(lock, env, selection);
    if (!set) throw std::runtime_error(set.error());
    return std::move(*set);
}

const UvLock& dia() {
    static const UvLock lock = uv_test::read(data("nari-labs_dia__uv.lock"));
    return lock;
}

TEST(UvLockSelect, DiaOnLinuxIsUvsSet) {
    auto set = walk(dia(), environment("linux", "x86_64"));
    EXPECT_EQ(installed(dia(), set), expected("nari-labs_dia__linux-x86_64-py3.12.txt"));
}

TEST(UvLockSelect, DiaOnWindowsTakesTritonWindows) {
    auto names = installed(dia(), walk(dia(), environment("windows", "x86_64")));
    EXPECT_EQ(names, expected("nari-labs_dia__windows-x86_64-py3.12.txt"));
    EXPECT_NE(std::find(names.begin(), names.end(), "triton-windows==3.2.0.post18"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "triton==3.2.0"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "torch==2.6.0+cu126"), names.end());
}

TEST(UvLockSelect, DiaOnAppleSiliconTakesPyPIsTorch) {
    auto names = installed(dia(), walk(dia(), environment("macos", "arm64")));
    EXPECT_EQ(names, expected("nari-labs_dia__macos-arm64-py3.12.txt"));
    EXPECT_NE(std::find(names.begin(), names.end(), "torch==2.6.0"), names.end());
}

TEST(UvLockSelect, TheDevGroupIsADefaultAndCanBeLeftOut) {
    const auto env = environment("linux", "x86_64");
    UvSelection none;
    none.no_default_groups = true;
    auto without = installed(dia(), walk(dia(), env, none));
    EXPECT_EQ(without.size() + 1, installed(dia(), walk(dia(), env)).size());  // ninja
    EXPECT_EQ(std::find(without.begin(), without.end(), "ninja==1.11.1.4"), without.end());
}

TEST(UvLockSelect, NanochatPerBackendExtra) {
    const auto lock = uv_test::read(data("karpathy_nanochat__uv.lock"));
    for (const std::string extra : {"cpu", "gpu"}) {
        SCOPED_TRACE(extra);
        UvSelection s;
        s.extras = {extra};
        s.default_groups = {};  // nanochat's [tool.uv] default-groups = []
        auto set = walk(lock, environment("linux", "x86_64"), s);
        EXPECT_EQ(installed(lock, set),
                  expected("karpathy_nanochat__linux-x86_64-py3.12-" + extra + ".txt"));
        EXPECT_NE(std::find(set.active.begin(), set.active.end(), "extra-8-nanochat-" + extra),
                  set.active.end());
    }
}

TEST(UvLockSelect, FishSpeechPerBackendExtra) {
    const auto lock = uv_test::read(data("fishaudio_fish-speech__uv.lock"));
    for (const std::string extra : {"cpu", "cu126", "cu128", "cu129"}) {
        SCOPED_TRACE(extra);
        UvSelection s;
        s.extras = {extra};
        EXPECT_EQ(installed(lock, walk(lock, environment("linux", "x86_64"), s)),
                  expected("fishaudio_fish-speech__linux-x86_64-py3.12-" + extra + ".txt"));
    }
}

TEST(UvLockSelect, TwoExtrasOfOneConflictSetAreRefused) {
    const auto lock = uv_test::read(data("karpathy_nanochat__uv.lock"));
    UvSelection s;
    s.extras = {"cpu", "gpu"};
    auto set = select_uv_packages(lock, environment("linux", "x86_64"), s);
    ASSERT_FALSE(set);
    EXPECT_NE(set.error().find("'cpu' of nanochat and 'gpu' of nanochat are declared in conflict"),
              std::string::npos)
        << set.error();
}

TEST(UvLockSelect, AnExtraOrGroupTheProjectLacksIsRefused) {
    UvSelection s;
    s.extras = {"cuda"};
    auto set = select_uv_packages(dia(), environment("linux", "x86_64"), s);
    ASSERT_FALSE(set);
    EXPECT_EQ(set.error(),
              "extra 'cuda' is not defined by the project (nari-tts offers no extras)");
    UvSelection g;
    g.groups = {"docs"};
    EXPECT_FALSE(select_uv_packages(dia(), environment("linux", "x86_64"), g));
}

TEST(UvLockSelect, LeavingOutTheProjectKeepsItsDependencies) {
    UvSelection s;
    s.install_project = false;
    auto names = installed(dia(), walk(dia(), environment("linux", "x86_64"), s));
    EXPECT_EQ(std::find(names.begin(), names.end(), "nari-tts==0.1.0"), names.end());
    EXPECT_EQ(names.size() + 1, expected("nari-labs_dia__linux-x86_64-py3.12.txt").size());
}

std::vector<LockedPackage> convert(const UvLock& lock, const std::string& os,
                                   const std::string& arch) {
    const auto tags = pep::TagPriority::for_target(uv_test::platform(os, arch));
    UvConversionOptions options;
    options.tags = &tags;
    options.index_names = {{"https://pypi.org/simple", "primary"},
                           {"https://download.pytorch.org/whl/cu126", "torch cu126"}};
    options.local_url = [](std::string_view relative) {
        return "file:///work/dia/" + std::string(relative);
    };
    options.target_id = os + "-" + arch + "-cu126";
    auto packages = uv_locked_packages(lock, walk(lock, environment(os, arch)), options);
    if (!packages) throw std::runtime_error(packages.error().describe());
    return std::move(*packages);
}

const LockedPackage& find(const std::vector<LockedPackage>& packages, const std::string& name) {
    for (const auto& p : packages)
        if (p.name == name) return p;
    throw std::runtime_error("no " + name);
}

TEST(UvLockConvert, DiaOnLinuxTakesTheCu126TorchWheelForCp312) {
    const auto packages = convert(dia(), "linux", "x86_64");
    EXPECT_EQ(packages.size(), expected("nari-labs_dia__linux-x86_64-py3.12.txt").size());
    const auto& torch = find(packages, "torch");
    EXPECT_EQ(torch.version, "2.6.0+cu126");
    EXPECT_EQ(torch.index, "torch cu126");
    ASSERT_TRUE(torch.wheel);
    EXPECT_EQ(torch.wheel->filename, "torch-2.6.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(torch.wheel->sha256.size(), 64u);
    EXPECT_TRUE(torch.requested);
    const auto& numpy = find(packages, "numpy");
    ASSERT_TRUE(numpy.wheel);
    EXPECT_NE(numpy.wheel->filename.find("cp312-cp312-manylinux"), std::string::npos);
    EXPECT_EQ(numpy.index, "primary");
    // Published only as sdists: built by the build layer.
    const auto& fire = find(packages, "fire");
    EXPECT_FALSE(fire.wheel);
    ASSERT_TRUE(fire.source);
    EXPECT_EQ(fire.source->kind, SourceKind::sdist);
    EXPECT_EQ(fire.source->sha256.size(), 64u);
    // The project itself, editable.
    const auto& root = find(packages, "nari-tts");
    ASSERT_TRUE(root.source);
    EXPECT_EQ(root.source->kind, SourceKind::directory);
    EXPECT_TRUE(root.source->editable);
    EXPECT_EQ(root.source->url, "file:///work/dia/.");
    EXPECT_NE(std::find(root.dependencies.begin(), root.dependencies.end(), "torch"),
              root.dependencies.end());
}

TEST(UvLockConvert, DiaOnWindowsTakesWinAmd64Wheels) {
    const auto packages = convert(dia(), "windows", "x86_64");
    const auto& torch = find(packages, "torch");
    ASSERT_TRUE(torch.wheel);
    EXPECT_EQ(torch.wheel->filename, "torch-2.6.0+cu126-cp312-cp312-win_amd64.whl");
    const auto& triton = find(packages, "triton-windows");
    ASSERT_TRUE(triton.wheel);
    EXPECT_NE(triton.wheel->filename.find("win_amd64"), std::string::npos);
}

TEST(UvLockConvert, AFileWithoutAHashIsRefusedWhereItIsWritten) {
    std::string text = test::read_file(data("nari-labs_dia__uv.lock"));
    // numpy 2.2.5's cp312 manylinux x86_64 wheel loses its hash.
    const std::string wheel =
        "numpy-2.2.5-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
    auto at = text.find(wheel);
    ASSERT_NE(at, std::string::npos);
    auto hash = text.find(", hash = \"sha256:", at);
    auto end = text.find('"', hash + 10);
    text.erase(hash, end + 1 - hash);
    const std::size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    auto parsed = parse_uv_lock(text, "uv.lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    const auto tags = pep::TagPriority::for_target(uv_test::platform("linux", "x86_64"));
    UvConversionOptions options;
    options.tags = &tags;
    options.target_id = "linux-x86_64-cu126";
    auto packages =
        uv_locked_packages(*parsed, walk(*parsed, environment("linux", "x86_64")), options);
    ASSERT_FALSE(packages);
    EXPECT_EQ(packages.error().where.line, line);
    EXPECT_NE(packages.error().message.find("`numpy 2.2.5`: the wheel `" + wheel +
                                            "` has no hash in the lock"),
              std::string::npos)
        << packages.error().describe();
}

// uv's other sources become the lockfile's source nodes, which the build layer builds (git,
// local folders, editable or not) or takes as they are (a local wheel, by its locked hash).
TEST(UvLockConvert, GitDirectoryAndPathSourcesBecomeSourceNodes) {
    const std::string commit = "0123456789abcdef0123456789abcdef01234567";
    const std::string text = R"(version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "gitpkg" },
    { name = "localdir" },
    { name = "localwheel" },
]

[[package]]
name = "gitpkg"
version = "1.0"
source = { git = "https://github.com/x/gitpkg.git?subdirectory=python&branch=main#)" +
                             commit + R"(" }

[[package]]
name = "localdir"
version = "0.2"
source = { directory = "libs/localdir" }

[[package]]
name = "localwheel"
version = "1.0"
source = { path = "wheels/localwheel-1.0-py3-none-any.whl" }
wheels = [
    { filename = "localwheel-1.0-py3-none-any.whl", hash = "sha256:)" +
                             std::string(64, 'b') + R"(" },
]
)";
    auto parsed = parse_uv_lock(text, "uv.lock");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    const auto tags = pep::TagPriority::for_target(uv_test::platform("linux", "x86_64"));
    UvConversionOptions options;
    options.tags = &tags;
    options.local_url = [](std::string_view relative) {
        return "file:///work/demo/" + std::string(relative);
    };
    options.target_id = "linux-x86_64-cpu";
    auto packages =
        uv_locked_packages(*parsed, walk(*parsed, environment("linux", "x86_64")), options);
    ASSERT_TRUE(packages) << packages.error().describe();
    ASSERT_EQ(packages->size(), 4u);

    const auto& git = find(*packages, "gitpkg");
    ASSERT_TRUE(git.source);
    EXPECT_EQ(git.source->kind, SourceKind::vcs);
    EXPECT_EQ(git.source->url, "git+https://github.com/x/gitpkg.git");
    EXPECT_EQ(git.source->commit, commit);
    EXPECT_EQ(git.source->revision, "main");
    EXPECT_EQ(git.source->subdirectory, "python");
    EXPECT_FALSE(git.wheel);

    const auto& dir = find(*packages, "localdir");
    ASSERT_TRUE(dir.source);
    EXPECT_EQ(dir.source->kind, SourceKind::directory);
    EXPECT_EQ(dir.source->url, "file:///work/demo/libs/localdir");
    EXPECT_FALSE(dir.source->editable);

    const auto& wheel = find(*packages, "localwheel");
    ASSERT_TRUE(wheel.source);
    EXPECT_EQ(wheel.source->kind, SourceKind::url);
    EXPECT_EQ(wheel.source->url, "file:///work/demo/wheels/localwheel-1.0-py3-none-any.whl");
    EXPECT_EQ(wheel.source->sha256, std::string(64, 'b'));

    EXPECT_TRUE(find(*packages, "demo").source->editable);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
