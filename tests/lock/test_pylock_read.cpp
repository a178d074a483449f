// The pylock.toml reader (PEP 751, the packaging specification "pylock.toml Specification"):
// the specification's own example, a file as pip's `pip lock` writes it, and each way a file can
// be wrong, with the place it names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "aitk/lock/pylock.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using testing::HasSubstr;

// The example of the specification's "Example" section, as written there.
const std::string spec_example = R"(lock-version = '1.0'
environments = ["sys_platform == 'win32'", "sys_platform == 'linux'"]
requires-python = '==3.12'
created-by = 'mousebender'

[[packages]]
name = 'attrs'
version = '25.1.0'
requires-python = '>=3.8'
wheels = [
  {name = 'attrs-25.1.0-py3-none-any.whl', upload-time = 2025-01-25T11:30:10.164985+00:00, url = 'https://files.pythonhosted.org/packages/fc/30/d4986a882011f9df997a55e6becd864812ccfcd821d64aac8570ee39f719/attrs-25.1.0-py3-none-any.whl', size = 63152, hashes = {sha256 = 'c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a'}},
]
[[packages.attestation-identities]]
environment = 'release-pypi'
kind = 'GitHub'
repository = 'python-attrs/attrs'
workflow = 'pypi-package.yml'

[[packages]]
name = 'cattrs'
version = '24.1.2'
requires-python = '>=3.8'
dependencies = [
    {name = 'attrs'},
]
wheels = [
  {name = 'cattrs-24.1.2-py3-none-any.whl', upload-time = 2024-09-22T14:58:34.812643+00:00, url = 'https://files.pythonhosted.org/packages/c8/d5/867e75361fc45f6de75fe277dd085627a9db5ebb511a87f27dc1396b5351/cattrs-24.1.2-py3-none-any.whl', size = 66446, hashes = {sha256 = '67c7495b760168d931a10233f979b28dc04daf853b30752246f4f8471c6d68d0'}},
]

[[packages]]
name = 'numpy'
version = '2.2.3'
requires-python = '>=3.10'
wheels = [
  {name = 'numpy-2.2.3-cp312-cp312-win_amd64.whl', upload-time = 2025-02-13T16:51:21.821880+00:00, url = 'https://files.pythonhosted.org/packages/42/6e/55580a538116d16ae7c9aa17d4edd56e83f42126cb1dfe7a684da7925d2c/numpy-2.2.3-cp312-cp312-win_amd64.whl', size = 12626357, hashes = {sha256 = '83807d445817326b4bcdaaaf8e8e9f1753da04341eceec705c001ff342002e5d'}},
  {name = 'numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl', upload-time = 2025-02-13T16:50:00.079662+00:00, url = 'https://files.pythonhosted.org/packages/39/04/78d2e7402fb479d893953fb78fa7045f7deb635ec095b6b4f0260223091a/numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl', size = 16116679, hashes = {sha256 = '3b787adbf04b0db1967798dba8da1af07e387908ed1553a0d6e74c084d1ceafe'}},
]

[tool.mousebender]
command = ['.', 'lock', '--platform', 'cpython3.12-windows-x64', '--platform', 'cpython3.12-manylinux2014-x64', 'cattrs', 'numpy']
run-on = 2025-03-06T12:28:57.760769
)";

const std::string sha_a = std::string(64, 'a');

Pylock parsed(const std::string& text) {
    auto lock = parse_pylock(text, "pylock.toml");
    if (!lock) throw std::runtime_error(lock.error().describe());
    return std::move(*lock);
}

util::InputProblem refused(const std::string& text) {
    auto lock = parse_pylock(text, "pylock.toml");
    if (lock) throw std::runtime_error("parsed, but should not:\n" + text);
    return lock.error();
}

// A minimal valid file around `packages` (TOML that follows the top-level keys).
std::string file_with(const std::string& packages, const std::string& version = "1.0") {
    return "lock-version = \"" + version + "\"\ncreated-by = \"test\"\n" + packages;
}

std::string wheel_package(const std::string& name = "demo") {
    return "[[packages]]\nname = \"" + name +
           "\"\nversion = \"1.0\"\nwheels = [{url = " + "\"https://files.example/" + name +
           "-1.0-py3-none-any.whl\", hashes = {sha256 = \"" + sha_a + "\"}}]\n";
}

TEST(PylockRead, TheSpecificationsExample) {
    const auto lock = parsed(spec_example);
    EXPECT_EQ(lock.lock_version, "1.0");
    EXPECT_EQ(lock.created_by, "mousebender");
    ASSERT_EQ(lock.environments.size(), 2u);
    EXPECT_EQ(lock.environments[1].to_string(), "sys_platform == \"linux\"");
    EXPECT_EQ(lock.requires_python_text, "==3.12");
    EXPECT_TRUE(lock.extras.empty());
    EXPECT_TRUE(lock.warnings.empty());
    ASSERT_EQ(lock.packages.size(), 3u);
    const auto& attrs = lock.packages[0];
    EXPECT_EQ(attrs.name, "attrs");
    EXPECT_EQ(attrs.version, "25.1.0");
    EXPECT_EQ(attrs.requires_python_text, ">=3.8");
    ASSERT_EQ(attrs.wheels.size(), 1u);
    EXPECT_EQ(attrs.wheels[0].name, "attrs-25.1.0-py3-none-any.whl");
    EXPECT_EQ(attrs.wheels[0].size, 63152u);
    EXPECT_EQ(attrs.wheels[0].sha256,
              "c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a");
    EXPECT_EQ(attrs.where.to_string(), "pylock.toml:6:1");
    EXPECT_FALSE(attrs.has_dependencies);
    const auto& cattrs = lock.packages[1];
    EXPECT_TRUE(cattrs.has_dependencies);
    EXPECT_EQ(cattrs.dependencies, std::vector<std::string>{"attrs"});
    EXPECT_EQ(lock.packages[2].wheels.size(), 2u);
}

// `pip lock` (pip 25.1) writes its file with tomli-w: arrays of tables, a hashes table per
// file, no `index`, no environments. No pip here can write one (the newest is pip 24.2), so the
// file is written by hand in that layout.
TEST(PylockRead, AFileInTheLayoutPipLockWrites) {
    const auto lock = parsed(R"(lock-version = "1.0"
created-by = "pip"

[[packages]]
name = "certifi"
version = "2025.1.31"

[[packages.wheels]]
name = "certifi-2025.1.31-py3-none-any.whl"
url = "https://files.pythonhosted.org/packages/38/fc/bce832fd4fd99766c04d1ee0eead6b0ec6486fb100ae5e74c1d91292b982/certifi-2025.1.31-py3-none-any.whl"

[packages.wheels.hashes]
sha256 = "ca78db4565a652026a4db2bcdf68f2fb589ea80d0be70e03929ed730746b84fe"

[[packages]]
name = "demo"

[packages.directory]
path = "."
editable = true
)");
    ASSERT_EQ(lock.packages.size(), 2u);
    EXPECT_EQ(lock.packages[0].wheels.at(0).sha256,
              "ca78db4565a652026a4db2bcdf68f2fb589ea80d0be70e03929ed730746b84fe");
    ASSERT_TRUE(lock.packages[1].directory);
    EXPECT_EQ(lock.packages[1].directory->path, ".");
    EXPECT_TRUE(lock.packages[1].directory->editable);
}

TEST(PylockRead, NamesAndFileNames) {
    EXPECT_TRUE(is_pylock_file_name("pylock.toml"));
    EXPECT_TRUE(is_pylock_file_name("pylock.dev.toml"));
    EXPECT_FALSE(is_pylock_file_name("pylock.a.b.toml"));
    EXPECT_FALSE(is_pylock_file_name("pylock..toml"));
    EXPECT_FALSE(is_pylock_file_name("Pylock.toml"));
    EXPECT_FALSE(is_pylock_file_name("uv.lock"));
    EXPECT_FALSE(is_pylock_file_name("env.lock.yml"));
    // Names come back normalised; a wheel's name defaults to its URL's last segment, decoded.
    const auto lock = parsed(file_with(
        "[[packages]]\nname = \"Torch_Vision\"\nwheels = [{url = \"https://h/whl/cu128/"
        "torchvision-0.22.0%2Bcu128-cp312-cp312-linux_x86_64.whl\", hashes = {SHA256 = \"" +
        std::string(64, 'A') + "\"}}]\n"));
    EXPECT_EQ(lock.packages[0].name, "torch-vision");
    EXPECT_EQ(lock.packages[0].wheels[0].name,
              "torchvision-0.22.0+cu128-cp312-cp312-linux_x86_64.whl");
    EXPECT_EQ(lock.packages[0].wheels[0].sha256, sha_a);
}

TEST(PylockRead, ANewerMajorVersionIsRefused) {
    const auto problem = refused(file_with(wheel_package(), "2.0"));
    EXPECT_EQ(problem.where.to_string(), "pylock.toml:1:16");
    EXPECT_THAT(problem.message, HasSubstr("`lock-version` `2.0` is a format aitk-env does not "
                                           "read (it reads lock-version 1.x)"));
    EXPECT_THAT(problem.hint, HasSubstr("lock-version 1.0"));
    EXPECT_THAT(refused(file_with(wheel_package(), "1")).message, HasSubstr("not MAJOR.MINOR"));
    EXPECT_THAT(refused(file_with(wheel_package(), "0.9")).message,
                HasSubstr("aitk-env does not read"));
    EXPECT_THAT(refused("created-by = \"x\"\n" + wheel_package()).message,
                HasSubstr("no `lock-version`"));
}

TEST(PylockRead, UnknownKeysAreErrorsIn10AndWarningsInANewerMinor) {
    const std::string text =
        "[[packages]]\nname = \"demo\"\nfuture-key = 1\nversion = \"1.0\"\n"
        "wheels = [{url = \"https://f/demo-1.0-py3-none-any.whl\", "
        "hashes = {sha256 = \"" +
        sha_a + "\"}}]\n";
    const auto problem = refused(file_with(text));
    EXPECT_EQ(problem.where.to_string(), "pylock.toml:5:1");
    EXPECT_THAT(problem.message, HasSubstr("unknown key `packages.future-key`"));
    const auto newer = parsed(file_with(text, "1.3"));
    ASSERT_EQ(newer.warnings.size(), 1u);
    EXPECT_EQ(newer.warnings[0].where.to_string(), "pylock.toml:5:1");
    EXPECT_THAT(newer.warnings[0].message, HasSubstr("ignored: written for a newer"));
}

TEST(PylockRead, AMissingHashNamesThePackageAndThePlace) {
    auto problem =
        refused(file_with("[[packages]]\nname = \"demo\"\nversion = \"1.0\"\n"
                          "wheels = [\n  {url = \"https://f/demo-1.0-py3-none-any.whl\"},"
                          "\n]\n"));
    EXPECT_EQ(problem.where.to_string(), "pylock.toml:7:3");
    EXPECT_THAT(problem.message, HasSubstr("package demo: `wheels[0]` "
                                           "(demo-1.0-py3-none-any.whl) has no `hashes`"));
    problem =
        refused(file_with("[[packages]]\nname = \"demo\"\n"
                          "sdist = {url = \"https://f/demo-1.0.tar.gz\", hashes = {}}\n"));
    EXPECT_THAT(problem.message, HasSubstr("`sdist.hashes` (demo-1.0.tar.gz) is empty"));
    problem = refused(file_with(
        "[[packages]]\nname = \"demo\"\narchive = {url = \"https://f/demo.zip\", hashes = "
        "{sha512 = \"abc\"}}\n"));
    EXPECT_EQ(problem.where.to_string(), "pylock.toml:5:49");
    EXPECT_THAT(problem.message, HasSubstr("(demo.zip) has no sha256"));
    problem =
        refused(file_with("[[packages]]\nname = \"demo\"\narchive = {url = \"https://f/d.zip\", "
                          "hashes = {sha256 = \"not-hex\"}}\n"));
    EXPECT_THAT(problem.message, HasSubstr("must be 64 hex digits"));
}

TEST(PylockRead, SourcesThatExcludeEachOtherAreRefused) {
    const std::string vcs = "vcs = {type = \"git\", url = \"https://g/x.git\", commit-id = \"" +
                            std::string(40, 'b') + "\"}\n";
    auto problem = refused(file_with(wheel_package() + vcs));
    EXPECT_EQ(problem.where.to_string(), "pylock.toml:3:1");
    EXPECT_THAT(problem.message,
                HasSubstr("package demo has conflicting sources: vcs, wheels (vcs, directory and "
                          "archive exclude every other source)"));
    problem =
        refused(file_with("[[packages]]\nname = \"demo\"\ndirectory = {path = \"a\"}\n"
                          "archive = {path = \"b.zip\", hashes = {sha256 = \"" +
                          sha_a + "\"}}\n"));
    EXPECT_THAT(problem.message, HasSubstr("conflicting sources: directory, archive"));
    problem = refused(file_with("[[packages]]\nname = \"demo\"\nversion = \"1.0\"\n"));
    EXPECT_THAT(problem.message, HasSubstr("package demo has no source"));
    // An sdist beside wheels is one source: the wheels first, the sdist where none fits.
    const auto both = parsed(file_with(wheel_package() +
                                       "sdist = {url = \"https://f/demo-1.0.tar.gz\", "
                                       "hashes = {sha256 = \"" +
                                       sha_a + "\"}}\n"));
    EXPECT_TRUE(both.packages[0].sdist);
    EXPECT_EQ(both.packages[0].wheels.size(), 1u);
}

TEST(PylockRead, VcsDirectoryArchiveAndSdistEntries) {
    const auto lock = parsed(file_with(
        "[[packages]]\nname = \"toolkit\"\n"
        "vcs = {type = \"git\", url = \"https://github.com/example/toolkit.git\", "
        "requested-revision = \"v2\", commit-id = \"" +
        std::string(40, 'c') +
        "\", subdirectory = \"pkg\"}\n"
        "[[packages]]\nname = \"local-lib\"\ndirectory = {path = \"libs/local\", editable = true, "
        "subdirectory = \"py\"}\n"
        "[[packages]]\nname = \"zipped\"\narchive = {url = \"https://f/zipped-src.zip\", size = "
        "12, "
        "hashes = {sha256 = \"" +
        sha_a +
        "\"}, subdirectory = \"src\"}\n"
        "[[packages]]\nname = \"old\"\nversion = \"0.9\"\nindex = \"https://pypi.org/simple\"\n"
        "sdist = {name = \"old-0.9.tar.gz\", path = \"dist/old-0.9.tar.gz\", hashes = {sha256 = "
        "\"" +
        sha_a + "\"}}\n"));
    ASSERT_EQ(lock.packages.size(), 4u);
    const auto& vcs = *lock.packages[0].vcs;
    EXPECT_EQ(vcs.type, "git");
    EXPECT_EQ(vcs.requested_revision, "v2");
    EXPECT_EQ(vcs.commit_id, std::string(40, 'c'));
    EXPECT_EQ(vcs.subdirectory, "pkg");
    const auto& directory = *lock.packages[1].directory;
    EXPECT_EQ(directory.path, "libs/local");
    EXPECT_TRUE(directory.editable);
    EXPECT_EQ(directory.subdirectory, "py");
    const auto& archive = *lock.packages[2].archive;
    EXPECT_EQ(archive.size, 12u);
    EXPECT_EQ(archive.subdirectory, "src");
    const auto& sdist = *lock.packages[3].sdist;
    EXPECT_EQ(sdist.path, "dist/old-0.9.tar.gz");
    EXPECT_EQ(lock.packages[3].index, "https://pypi.org/simple");
    // A vcs entry needs its commit; a source tree's version is left out (and said so).
    EXPECT_THAT(refused(file_with("[[packages]]\nname = \"t\"\nvcs = {type = \"git\", url = "
                                  "\"https://g/t.git\"}\n"))
                    .message,
                HasSubstr("package t: `vcs` has no `commit-id`"));
    const auto versioned = parsed(
        file_with("[[packages]]\nname = \"t\"\nversion = \"1.0\"\ndirectory = {path = \".\"}\n"));
    EXPECT_EQ(versioned.packages[0].version, "");
    ASSERT_EQ(versioned.warnings.size(), 1u);
    EXPECT_THAT(versioned.warnings[0].message, HasSubstr("`version` of a source tree"));
}

TEST(PylockRead, MarkersWithThePep751Sets) {
    const auto lock = parsed(file_with(
        "extras = [\"cpu\", \"CU128\"]\ndependency-groups = [\"dev\"]\ndefault-groups = "
        "[\"default\"]\n" +
        wheel_package() + "marker = \"'cu128' in extras and 'dev' not in dependency_groups\"\n"));
    EXPECT_EQ(lock.extras, (std::vector<std::string>{"cpu", "cu128"}));
    EXPECT_EQ(lock.dependency_groups, std::vector<std::string>{"dev"});
    EXPECT_EQ(lock.default_groups, std::vector<std::string>{"default"});
    ASSERT_TRUE(lock.packages[0].marker);
    EXPECT_TRUE(lock.packages[0].marker->mentions(pep::MarkerVariable::extras));
    EXPECT_EQ(lock.packages[0].marker_where.to_string(), "pylock.toml:10:10");
    const auto bad = refused(file_with(wheel_package() + "marker = \"'cu128' inn extras\"\n"));
    EXPECT_EQ(bad.where.to_string(), "pylock.toml:7:10");
    EXPECT_THAT(bad.message, HasSubstr("`packages[0].marker` is not a valid marker"));
}

TEST(PylockRead, TypesAndRequiredKeys) {
    EXPECT_THAT(refused("lock-version = \"1.0\"\n" + wheel_package()).message,
                HasSubstr("no `created-by`"));
    EXPECT_THAT(refused(file_with("")).message, HasSubstr("no `[[packages]]`"));
    EXPECT_THAT(refused(file_with("packages = \"x\"\n")).message,
                HasSubstr("`packages` must be an array"));
    EXPECT_THAT(refused(file_with(wheel_package() + "requires-python = \">=3.x\"\n")).message,
                HasSubstr("not a valid version specifier"));
    const auto size = refused(file_with(
        "[[packages]]\nname = \"d\"\nwheels = [{url = \"https://f/d-1-py3-none-any.whl\", size = "
        "-1, hashes = {sha256 = \"" +
        sha_a + "\"}}]\n"));
    EXPECT_THAT(size.message, HasSubstr("`wheels[0].size` must be a whole number"));
    EXPECT_THAT(refused(file_with("[[packages]]\nname = \"not a name!\"\n")).message,
                HasSubstr("is not a valid project name"));
}

TEST(PylockRead, TomlSyntaxErrorsNameTheirPlace) {
    const auto problem = refused("lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]\n");
    EXPECT_EQ(problem.where.file, "pylock.toml");
    EXPECT_EQ(problem.where.line, 3u);
    EXPECT_GT(problem.where.column, 0u);
    EXPECT_THAT(problem.message, HasSubstr("not valid TOML"));
    // TOML itself refuses a key written twice.
    EXPECT_EQ(refused("lock-version = \"1.0\"\nlock-version = \"1.0\"\n").where.line, 2u);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
