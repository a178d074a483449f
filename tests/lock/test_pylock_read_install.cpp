// What an install from a pylock.toml selects (the specification's "Installation" steps) and the
// lockfile target it becomes: markers with the PEP 751 sets, dependency groups, requires-python,
// environments, one entry per name, the best wheel by the target's tags, and the source kinds
// the build layer takes. Then our own export read back to the same target.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "aitk/lock/exporters.hpp"
#include "aitk/lock/pylock.hpp"
#include "lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using testing::HasSubstr;
using V = pep::MarkerVariable;

const std::string sha_a = std::string(64, 'a');
const std::string sha_b = std::string(64, 'b');

Pylock parsed(const std::string& text) {
    auto lock = parse_pylock(text, "pylock.toml");
    if (!lock) throw std::runtime_error(lock.error().describe());
    return std::move(*lock);
}

pep::MarkerEnvironment environment(const std::string& os, const std::string& arch,
                                   const std::string& python) {
    pep::MarkerEnvironment env;
    env.set(V::implementation_name, "cpython");
    env.set(V::platform_python_implementation, "CPython");
    env.set(V::python_full_version, python);
    env.set(V::implementation_version, python);
    env.set(V::python_version, python.substr(0, python.rfind('.')));
    env.set(V::sys_platform, os == "windows" ? "win32" : os);
    env.set(V::os_name, os == "windows" ? "nt" : "posix");
    env.set(V::platform_system, os == "windows" ? "Windows" : "Linux");
    env.set(V::platform_machine, os == "windows" ? "AMD64" : arch);
    return env;
}

PylockTarget target_for(const std::string& os, const std::string& arch, const std::string& python) {
    PylockTarget t;
    t.os = os;
    t.arch = arch;
    t.backend = "cpu";
    t.id = os + "-" + arch + "-cpu";
    t.python = python;
    t.environment = environment(os, arch, python);
    pep::TargetPlatform platform;
    platform.python_major = 3;
    platform.python_minor = static_cast<unsigned>(std::stoul(python.substr(2)));
    platform.arch = arch;
    platform.os = os == "windows" ? pep::TargetOs::windows : pep::TargetOs::linux_glibc;
    platform.os_version = os == "windows" ? pep::OsVersion{} : pep::OsVersion{2, 28};
    t.tags = pep::TagPriority::for_target(platform);
    return t;
}

PylockPlaces places() {
    PylockPlaces p;
    p.local_url = [](std::string_view path) { return "file:///work/" + std::string(path); };
    p.index_backend = [](std::string_view url) -> std::optional<std::string> {
        if (url.ends_with("/whl/cu128")) return std::string("cu128");
        if (url.ends_with("/whl/cpu")) return std::string("cpu");
        return std::nullopt;
    };
    return p;
}

struct Installed {
    std::vector<const PylockPackage*> selected;
    LockedTarget target;
    std::vector<LockedIndex> indexes;
};

PylockResult<std::vector<const PylockPackage*>> select(const Pylock& lock,
                                                       const std::vector<std::string>& extras,
                                                       const std::vector<std::string>& groups,
                                                       const std::string& python = "3.12.3",
                                                       const std::string& os = "linux") {
    PylockSelection selection;
    selection.environment = environment(os, "x86_64", python);
    selection.extras = extras;
    selection.groups = groups;
    return select_pylock_packages(lock, selection);
}

std::vector<std::string> names(const std::vector<const PylockPackage*>& packages) {
    std::vector<std::string> out;
    for (const auto* p : packages)
        out.push_back(p->name + (p->version.empty() ? "" : " " + p->version));
    return out;
}

Installed install(const Pylock& lock, const std::vector<std::string>& extras = {},
                  const std::vector<std::string>& groups = {}, const std::string& os = "linux",
                  const std::string& python = "3.12.3") {
    Installed out;
    auto selected = select(lock, extras, groups, python, os);
    if (!selected) throw std::runtime_error(selected.error().problem.describe());
    out.selected = *selected;
    auto target =
        pylock_target(out.selected, target_for(os, "x86_64", python), places(), out.indexes);
    if (!target) throw std::runtime_error(target.error().problem.describe());
    out.target = std::move(*target);
    return out;
}

std::string wheel(const std::string& file, const std::string& sha = sha_a) {
    return "{url = \"https://files.example/" + file + "\", hashes = {sha256 = \"" + sha + "\"}}";
}

// uv's idiom, as a pylock.toml writes it: one torch per backend extra, each from its index.
const std::string backend_extras = R"(lock-version = "1.0"
created-by = "test"
extras = ["cpu", "cu128"]
dependency-groups = ["dev"]
default-groups = ["default"]

[[packages]]
name = "torch"
version = "2.7.0+cpu"
marker = "'cpu' in extras"
index = "https://download.pytorch.org/whl/cpu"
wheels = [{url = "https://download.pytorch.org/whl/cpu/torch-2.7.0%2Bcpu-cp312-cp312-manylinux_2_28_x86_64.whl", hashes = {sha256 = ")" +
                                   sha_a + R"("}}]

[[packages]]
name = "torch"
version = "2.7.0+cu128"
marker = "'cu128' in extras"
index = "https://download.pytorch.org/whl/cu128"
wheels = [{url = "https://download.pytorch.org/whl/cu128/torch-2.7.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl", hashes = {sha256 = ")" +
                                   sha_b + R"("}}]

[[packages]]
name = "numpy"
version = "2.2.3"
index = "https://pypi.org/simple"
dependencies = [{name = "torch"}]
wheels = [)" + wheel("numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl") +
                                   R"(]

[[packages]]
name = "pytest"
version = "8.3.0"
marker = "'dev' in dependency_groups"
wheels = [)" + wheel("pytest-8.3.0-py3-none-any.whl") +
                                   R"(]

[[packages]]
name = "rich"
version = "13.0"
marker = "'default' in dependency_groups"
wheels = [)" + wheel("rich-13.0-py3-none-any.whl") +
                                   R"(]
)";

TEST(PylockInstall, TheExtraChoosesTheTorchBuild) {
    const auto lock = parsed(backend_extras);
    EXPECT_EQ(names(*select(lock, {"cu128"}, {"default"})),
              (std::vector<std::string>{"torch 2.7.0+cu128", "numpy 2.2.3", "rich 13.0"}));
    EXPECT_EQ(names(*select(lock, {"CPU"}, {"default"})),
              (std::vector<std::string>{"torch 2.7.0+cpu", "numpy 2.2.3", "rich 13.0"}));
    // PEP 751: no extra by default, so no torch at all.
    EXPECT_EQ(names(*select(lock, {}, {})), (std::vector<std::string>{"numpy 2.2.3"}));

    const auto cuda = install(lock, {"cu128"}, {"default"});
    const auto* torch = cuda.target.find("torch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ(torch->version, "2.7.0+cu128");
    EXPECT_EQ(torch->wheel->filename, "torch-2.7.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(torch->wheel->sha256, sha_b);
    EXPECT_EQ(torch->index, "torch cu128");
    EXPECT_EQ(cuda.target.find("numpy")->index, "primary");
    ASSERT_EQ(cuda.indexes.size(), 2u);
    EXPECT_EQ(cuda.indexes[0], (LockedIndex{"torch cu128", "https://download.pytorch.org/whl/cu128",
                                            IndexKind::torch_backend}));
    // What nothing else needs was asked for: numpy needs torch.
    EXPECT_TRUE(cuda.target.find("numpy")->requested);
    EXPECT_FALSE(torch->requested);
    EXPECT_EQ(cuda.target.find("numpy")->dependencies, std::vector<std::string>{"torch"});
}

TEST(PylockInstall, TwoEntriesForOneNameAreAnAmbiguity) {
    const auto lock = parsed(backend_extras);
    const auto both = select(lock, {"cpu", "cu128"}, {});
    ASSERT_FALSE(both);
    EXPECT_EQ(both.error().problem.where.to_string(), "pylock.toml:14:1");
    EXPECT_THAT(both.error().problem.message,
                HasSubstr("package torch has two entries for this install (the other at "
                          "pylock.toml:7:1)"));
    EXPECT_FALSE(both.error().fits_elsewhere);
}

TEST(PylockInstall, ExtrasAndGroupsMustBeTheFilesOwn) {
    const auto lock = parsed(backend_extras);
    auto unknown = select(lock, {"cu126"}, {});
    ASSERT_FALSE(unknown);
    EXPECT_THAT(unknown.error().problem.message,
                HasSubstr("the lock file has no extra 'cu126' (its extras: cpu, cu128)"));
    EXPECT_FALSE(unknown.error().fits_elsewhere);
    unknown = select(lock, {}, {"docs"});
    ASSERT_FALSE(unknown);
    EXPECT_THAT(unknown.error().problem.message,
                HasSubstr("has no dependency group 'docs' (its groups: dev)"));
}

TEST(PylockInstall, DependencyGroups) {
    const auto lock = parsed(backend_extras);
    EXPECT_EQ(names(*select(lock, {}, {"dev", "default"})),
              (std::vector<std::string>{"numpy 2.2.3", "pytest 8.3.0", "rich 13.0"}));
    EXPECT_EQ(names(*select(lock, {}, {"Dev"})),
              (std::vector<std::string>{"numpy 2.2.3", "pytest 8.3.0"}));
}

TEST(PylockInstall, RequiresPythonAndEnvironmentsMustHold) {
    const auto spec = parsed(R"(lock-version = "1.0"
created-by = "t"
environments = ["sys_platform == 'win32'", "sys_platform == 'linux'"]
requires-python = ">=3.10"
[[packages]]
name = "old"
version = "1.0"
requires-python = "<3.12"
marker = "python_version < '3.13'"
wheels = [)" + wheel("old-1.0-py3-none-any.whl") +
                             R"(]
)");
    auto outside = select(spec, {}, {}, "3.9.18");
    ASSERT_FALSE(outside);
    EXPECT_THAT(outside.error().problem.message,
                HasSubstr("the lock file's requires-python '>=3.10' does not allow Python 3.9.18"));
    // A valid file another Python installs: unsatisfiable here, not bad input.
    EXPECT_TRUE(outside.error().fits_elsewhere);
    auto package = select(spec, {}, {}, "3.12.3");
    ASSERT_FALSE(package);
    EXPECT_EQ(package.error().problem.where.to_string(), "pylock.toml:5:1");
    EXPECT_THAT(package.error().problem.message,
                HasSubstr("package old requires Python '<3.12', and this install is for 3.12.3"));
    // Its marker excludes it on 3.13, so its requires-python is not asked.
    EXPECT_TRUE(select(spec, {}, {}, "3.13.1")->empty());
    EXPECT_EQ(select(spec, {}, {}, "3.11.7")->size(), 1u);
    auto mac = select(spec, {}, {}, "3.11.7", "darwin");
    ASSERT_FALSE(mac);
    EXPECT_EQ(mac.error().problem.where.to_string(), "pylock.toml:3:16");
    EXPECT_THAT(mac.error().problem.message,
                HasSubstr("none of the lock file's environments ('sys_platform == \"win32\"', "
                          "'sys_platform == \"linux\"') holds for sys_platform 'darwin'"));
}

TEST(PylockInstall, TheBestWheelForEachTarget) {
    const auto lock = parsed(R"(lock-version = "1.0"
created-by = "t"
[[packages]]
name = "numpy"
version = "2.2.3"
wheels = [)" + wheel("numpy-2.2.3-cp312-cp312-win_amd64.whl", sha_a) +
                             ", " +
                             wheel("numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_"
                                   "x86_64.whl",
                                   sha_b) +
                             ", " + wheel("numpy-2.2.3-cp311-cp311-manylinux_2_17_x86_64.whl") +
                             R"(]
sdist = {url = "https://files.example/numpy-2.2.3.tar.gz", size = 99, hashes = {sha256 = ")" +
                             sha_a + R"("}}
)");
    const auto linux_wheel = install(lock).target.find("numpy")->wheel;
    EXPECT_EQ(linux_wheel->filename,
              "numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    EXPECT_EQ(linux_wheel->sha256, sha_b);
    EXPECT_EQ(install(lock, {}, {}, "windows").target.find("numpy")->wheel->filename,
              "numpy-2.2.3-cp312-cp312-win_amd64.whl");
    // No wheel for CPython 3.13: the sdist, a build the build layer makes.
    const auto newer = install(lock, {}, {}, "linux", "3.13.1");
    const auto* built = newer.target.find("numpy");
    EXPECT_FALSE(built->wheel);
    ASSERT_TRUE(built->source);
    EXPECT_EQ(built->source->kind, SourceKind::url);
    EXPECT_EQ(built->source->url, "https://files.example/numpy-2.2.3.tar.gz");
    EXPECT_EQ(built->source->sha256, sha_a);
    EXPECT_EQ(built->source->size, 99u);
    EXPECT_EQ(built->version, "2.2.3");
}

TEST(PylockInstall, NoFittingFileIsAProblemNamingTheWheels) {
    const auto lock = parsed(R"(lock-version = "1.0"
created-by = "t"
[[packages]]
name = "numpy"
version = "2.2.3"
wheels = [)" + wheel("numpy-2.2.3-cp312-cp312-win_amd64.whl") +
                             R"(]
)");
    std::vector<LockedIndex> indexes;
    const auto selected = select(lock, {}, {});
    auto target =
        pylock_target(*selected, target_for("linux", "x86_64", "3.12.3"), places(), indexes);
    ASSERT_FALSE(target);
    EXPECT_EQ(target.error().problem.where.to_string(), "pylock.toml:3:1");
    EXPECT_THAT(target.error().problem.message,
                HasSubstr("package numpy 2.2.3 has no wheel for linux-x86_64-cpu (Python 3.12.3) "
                          "and no sdist; its wheels: numpy-2.2.3-cp312-cp312-win_amd64.whl"));
    EXPECT_TRUE(target.error().fits_elsewhere);
    // A file of another project is a problem too.
    const auto wrong = parsed(R"(lock-version = "1.0"
created-by = "t"
[[packages]]
name = "numpy"
wheels = [)" + wheel("scipy-1.0-py3-none-any.whl") +
                              R"(]
)");
    target = pylock_target(*select(wrong, {}, {}), target_for("linux", "x86_64", "3.12.3"),
                           places(), indexes);
    ASSERT_FALSE(target);
    EXPECT_THAT(target.error().problem.message,
                HasSubstr("package numpy lists 'scipy-1.0-py3-none-any.whl', a wheel of scipy"));
}

// A wheel's name becomes a file name in the cache, a bundle and a mirror: the rule of
// util::path_name_problem holds for it as for a lockfile's `filename` (a wheel name that parses
// can still be too long for every file system).
TEST(PylockInstall, AWheelNameThatCannotNameAFileIsRefused) {
    std::string version = "1";
    while (version.size() < 260)
        version += ".0";
    const auto lock = parsed(R"(lock-version = "1.0"
created-by = "t"
[[packages]]
name = "numpy"
wheels = [)" + wheel("numpy-" + version + "-py3-none-any.whl") +
                             R"(]
)");
    std::vector<LockedIndex> indexes;
    auto target = pylock_target(*select(lock, {}, {}), target_for("linux", "x86_64", "3.12.3"),
                                places(), indexes);
    ASSERT_FALSE(target);
    EXPECT_EQ(target.error().problem.where.to_string(), "pylock.toml:5:11");
    EXPECT_THAT(target.error().problem.message, HasSubstr("cannot name a file"));
    EXPECT_FALSE(target.error().fits_elsewhere);
}

TEST(PylockInstall, VcsDirectoryArchiveAndSdistBecomeSourceNodes) {
    const auto lock = parsed(R"(lock-version = "1.0"
created-by = "t"
[[packages]]
name = "toolkit"
vcs = {type = "git", url = "https://github.com/example/toolkit.git", requested-revision = "v2", commit-id = ")" +
                             std::string(40, 'c') + R"(", subdirectory = "pkg"}
[[packages]]
name = "local-lib"
directory = {path = "libs/local", editable = true}
[[packages]]
name = "zipped"
archive = {url = "https://files.example/zipped-src.zip", size = 12, hashes = {sha256 = ")" +
                             sha_a + R"("}, subdirectory = "src"}
[[packages]]
name = "direct-wheel"
archive = {path = "vendor/direct_wheel-3.0-py3-none-any.whl", hashes = {sha256 = ")" +
                             sha_b + R"("}}
[[packages]]
name = "old"
version = "0.9"
index = "https://pypi.org/simple"
sdist = {url = "https://files.example/old-0.9.tar.gz", hashes = {sha256 = ")" +
                             sha_a + R"("}}
)");
    const auto installed = install(lock);
    const auto& t = installed.target;
    ASSERT_EQ(t.packages.size(), 5u);
    const auto& vcs = *t.find("toolkit")->source;
    EXPECT_EQ(vcs.kind, SourceKind::vcs);
    EXPECT_EQ(vcs.url, "git+https://github.com/example/toolkit.git");
    EXPECT_EQ(vcs.commit, std::string(40, 'c'));
    EXPECT_EQ(vcs.revision, "v2");
    EXPECT_EQ(vcs.subdirectory, "pkg");
    EXPECT_EQ(t.find("toolkit")->version, "");
    const auto& dir = *t.find("local-lib")->source;
    EXPECT_EQ(dir.kind, SourceKind::directory);
    EXPECT_EQ(dir.url, "file:///work/libs/local");
    EXPECT_TRUE(dir.editable);
    const auto& zipped = *t.find("zipped")->source;
    EXPECT_EQ(zipped.kind, SourceKind::url);
    EXPECT_EQ(zipped.sha256, sha_a);
    EXPECT_EQ(zipped.size, 12u);
    EXPECT_EQ(zipped.subdirectory, "src");
    const auto* direct = t.find("direct-wheel");
    ASSERT_TRUE(direct->wheel);
    EXPECT_EQ(direct->wheel->url, "file:///work/vendor/direct_wheel-3.0-py3-none-any.whl");
    EXPECT_EQ(direct->version, "3.0");
    EXPECT_EQ(direct->index, "");
    const auto* old = t.find("old");
    EXPECT_EQ(old->source->kind, SourceKind::sdist);
    EXPECT_EQ(old->index, "primary");
    // Every package is requested when no entry records its dependencies.
    for (const auto& p : t.packages)
        EXPECT_TRUE(p.requested) << p.name;
}

// Our own export, read back: the same packages, files, hashes and sizes for the target.
TEST(PylockInstall, OurExportReadsBackToTheSameTarget) {
    auto lock = test::rich_lockfile();
    auto& original = lock.targets[1];  // linux-x86_64-cu130
    ASSERT_EQ(original.id, "linux-x86_64-cu130");
    // The fixture's "1e3" tests YAML quoting; PEP 751 asks for PEP 440 versions.
    for (auto& package : original.packages) {
        if (package.name != "mpmath") continue;
        package.version = "1.3.0";
        package.wheel->filename = "mpmath-1.3.0-py3-none-any.whl";
        package.wheel->url = "https://wheels.example/flat/mpmath-1.3.0-py3-none-any.whl";
    }
    const auto text = export_pylock(lock, original, ExportSource{"lockfiles/demo.lock.yml"});
    const auto read = parsed(text);
    PylockSelection selection;
    selection.environment = environment("linux", "x86_64", "3.12.3");
    auto selected = select_pylock_packages(read, selection);
    ASSERT_TRUE(selected) << selected.error().problem.describe();
    auto t = target_for("linux", "x86_64", "3.12.3");
    std::vector<LockedIndex> indexes;
    auto back = pylock_target(*selected, t, places(), indexes);
    ASSERT_TRUE(back) << back.error().problem.describe();
    ASSERT_EQ(back->packages.size(), original.packages.size());
    for (std::size_t i = 0; i < original.packages.size(); ++i) {
        const auto& a = original.packages[i];
        const auto& b = back->packages[i];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(b.name, a.name);
        EXPECT_EQ(b.version, a.version);
        EXPECT_EQ(b.dependencies, a.dependencies);
        ASSERT_EQ(b.wheel.has_value(), a.wheel.has_value());
        if (a.wheel) {
            EXPECT_EQ(b.wheel->filename, a.wheel->filename);
            EXPECT_EQ(b.wheel->sha256, a.wheel->sha256);
            EXPECT_EQ(b.wheel->size, a.wheel->size);
            EXPECT_EQ(b.wheel->url, a.wheel->url.substr(0, a.wheel->url.find('#')));
        }
        ASSERT_EQ(b.source.has_value(), a.source.has_value());
        if (a.source) {
            EXPECT_EQ(b.source->kind, a.source->kind);
            EXPECT_EQ(b.source->url, a.source->url);
            EXPECT_EQ(b.source->commit, a.source->commit);
            EXPECT_EQ(b.source->sha256, a.source->sha256);
            EXPECT_EQ(b.source->subdirectory, a.source->subdirectory);
        }
        // Index packages stay index packages (named by the index's URL, then as lock names it).
        EXPECT_EQ(b.index.empty(), a.index.empty() || a.index == "find-links");
    }
    // The converted target is a valid lockfile target: written and read back unchanged.
    Lockfile converted;
    converted.name = "pylock";
    converted.generator = "aitk-env test";
    converted.input_hash = "sha256:" + std::string(64, '0');
    converted.indexes = indexes;
    back->id = "linux-x86_64-cu130";
    back->backend = "cu130";
    converted.default_target = back->id;
    converted.targets = {*back};
    auto reread = parse_lockfile(write_lockfile(converted), "converted.lock.yml");
    ASSERT_TRUE(reread) << reread.error().describe();
    EXPECT_EQ(*reread, converted);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
