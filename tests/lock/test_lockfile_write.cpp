#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "aitk/lock/lockfile.hpp"
#include "lock_fixtures.hpp"
#include "yaml_readers.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using test::hex64;
using test::rich_lockfile;
using test::small_lockfile;

const std::string small_text =
    std::string(
        R"(# aitk-env lockfile: an environment.yml for conda and micromamba; `x-aitk-env` holds every target.
# Generated: change the inputs and run `aitk-env lock` rather than editing it.
name: demo
channels:
  - conda-forge
dependencies:
  - python=3.12.3
  - pip
  - pip:
      - --require-hashes
      - --index-url https://pypi.org/simple
      - app==2.0 --hash=sha256:)") +
    hex64('b') + R"(
      - six==1.10 --hash=sha256:)" +
    hex64('a') + R"(
variables:
  HF_HOME: /data/hf
x-aitk-env:
  format: 1
  generator: aitk-env 0.1.0
  input-hash: sha256:)" +
    hex64('1') + R"(
  python-requires: ">=3.10"
  default-target: linux-x86_64-cpu
  indexes:
    - name: primary
      url: https://pypi.org/simple
      kind: simple
  targets:
    - id: linux-x86_64-cpu
      os: linux
      arch: x86_64
      backend: cpu
      python: 3.12.3
      marker-environment:
        python_full_version: 3.12.3
        python_version: "3.12"
        sys_platform: linux
      variables:
        HF_HOME: /data/hf
      packages:
        - name: app
          version: "2.0"
          requested: true
          index: primary
          dependencies: [six]
          wheel:
            filename: app-2.0-py3-none-any.whl
            url: https://files.example/app-2.0-py3-none-any.whl
            sha256: )" +
    hex64('b') + R"(
            size: 2000
        - name: six
          version: "1.10"
          index: primary
          wheel:
            filename: six-1.10-py2.py3-none-any.whl
            url: https://files.example/six-1.10-py2.py3-none-any.whl
            sha256: )" +
    hex64('a') + R"(
            size: 10
)";

TEST(WriteLockfile, SmallLockfileGoldenText) {
    EXPECT_EQ(write_lockfile(small_lockfile()), small_text);
}

// A size the index did not give is left out, never written as 0.
TEST(WriteLockfile, AnUnknownSizeIsLeftOut) {
    const std::string without = [] {
        std::string text = small_text;
        const std::string line = "            size: 2000\n";
        return text.erase(text.find(line), line.size());
    }();
    for (const std::optional<std::uint64_t> size :
         {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(0)}) {
        Lockfile lock = small_lockfile();
        lock.targets[0].packages[0].wheel->size = size;
        EXPECT_EQ(write_lockfile(lock), without);
    }
}

TEST(WriteLockfile, ParsesBackToTheSameLockfile) {
    for (const auto& lock : {small_lockfile(), rich_lockfile()}) {
        const std::string text = write_lockfile(lock);
        const auto parsed = parse_lockfile(text, "env.lock.yml");
        ASSERT_TRUE(parsed) << parsed.error().describe() << "\n" << text;
        EXPECT_EQ(*parsed, lock);
        EXPECT_EQ(write_lockfile(*parsed), text);
    }
}

TEST(WriteLockfile, ByteIdenticalWhateverTheOrderOfTheModel) {
    const Lockfile lock = rich_lockfile();
    Lockfile shuffled = lock;
    std::reverse(shuffled.targets.begin(), shuffled.targets.end());
    for (auto& target : shuffled.targets) {
        std::reverse(target.packages.begin(), target.packages.end());
        for (auto& package : target.packages) {
            std::reverse(package.dependencies.begin(), package.dependencies.end());
            std::reverse(package.extras.begin(), package.extras.end());
            const auto twice = package.dependencies;  // duplicates are written once
            package.dependencies.insert(package.dependencies.end(), twice.begin(), twice.end());
        }
    }
    EXPECT_EQ(write_lockfile(lock), write_lockfile(lock));
    EXPECT_EQ(write_lockfile(shuffled), write_lockfile(lock));
}

TEST(WriteLockfile, NeverWritesCredentials) {
    Lockfile lock = rich_lockfile();
    lock.indexes[0].url = "https://alice:s3cr3t-pw@pypi.example/simple";
    lock.indexes[1].url = "https://TOKEN123456@mirror.example/simple";
    LockedTarget& cuda = lock.targets[1];
    ASSERT_EQ(cuda.id, "linux-x86_64-cu130");
    for (auto& package : cuda.packages) {
        if (package.wheel) {
            package.wheel->url.insert(package.wheel->url.find("://") + 3, "bob:hunter2@");
        }
    }
    LockedPackage ssh;
    ssh.name = "zz-ssh";
    ssh.source = LockedSource{SourceKind::vcs, "git+ssh://git:sshpass@github.com/example/zz.git",
                              "abc",           "",
                              std::nullopt,    ""};
    cuda.packages.push_back(ssh);
    LockedPackage tokened;
    tokened.name = "zz-token";
    tokened.source =
        LockedSource{SourceKind::vcs, "git+https://ghp_tokentoken@github.com/example/t.git",
                     "def",           "",
                     std::nullopt,    ""};
    cuda.packages.push_back(tokened);

    const std::string text = write_lockfile(lock);
    for (const char* secret : {"alice", "s3cr3t-pw", "TOKEN123456", "bob", "hunter2", "sshpass",
                               "ghp_tokentoken", "@pypi.example", "@mirror.example"}) {
        EXPECT_EQ(text.find(secret), std::string::npos) << secret;
    }
    EXPECT_NE(text.find("--index-url https://pypi.example/simple\n"), std::string::npos);
    EXPECT_NE(text.find("url: git+ssh://git@github.com/example/zz.git\n"), std::string::npos);
    EXPECT_NE(text.find("url: git+https://github.com/example/t.git\n"), std::string::npos);
    for (const auto& line : pip_section(lock, cuda).lines) {
        EXPECT_EQ(line.find("hunter2"), std::string::npos) << line;
        EXPECT_EQ(line.find("TOKEN123456"), std::string::npos) << line;
    }
}

TEST(WriteLockfile, PathIsNeverWrittenAsAVariable) {
    Lockfile lock = small_lockfile();
    lock.targets[0].variables = {{"PATH", "/opt/bin"}, {"Path", "C:\\x"}, {"A", "b"}};
    const std::string text = write_lockfile(lock);
    EXPECT_EQ(text.find("PATH"), std::string::npos);
    EXPECT_EQ(text.find("Path"), std::string::npos);
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    const std::map<std::string, std::string> expected = {{"A", "b"}};
    EXPECT_EQ(parsed->targets[0].variables, expected);
}

TEST(WriteLockfile, EmptyParts) {
    Lockfile lock = small_lockfile();
    lock.channels.clear();
    lock.python_requires.clear();
    lock.indexes.clear();
    lock.targets[0].marker_environment.clear();
    lock.targets[0].variables.clear();
    lock.targets[0].packages.clear();
    const std::string expected =
        R"(# aitk-env lockfile: an environment.yml for conda and micromamba; `x-aitk-env` holds every target.
# Generated: change the inputs and run `aitk-env lock` rather than editing it.
name: demo
channels: []
dependencies:
  - python=3.12.3
  - pip
x-aitk-env:
  format: 1
  generator: aitk-env 0.1.0
  input-hash: sha256:)" +
        hex64('1') + R"(
  default-target: linux-x86_64-cpu
  targets:
    - id: linux-x86_64-cpu
      os: linux
      arch: x86_64
      backend: cpu
      python: 3.12.3
)";
    const std::string text = write_lockfile(lock);
    EXPECT_EQ(text, expected);
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, lock);
}

TEST(WriteLockfile, LongVariableNamesUseExplicitKeys) {
    Lockfile lock = small_lockfile();
    const std::string name(1500, 'V');
    lock.targets[0].variables = {{name, "x"}};
    const std::string text = write_lockfile(lock);
    EXPECT_NE(text.find("  ? " + name + "\n  : x\n"), std::string::npos);
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->targets[0].variables.at(name), "x");
    EXPECT_EQ(test::read_with_yaml_cpp(text)["variables"][name], "x");
    const auto python = test::python_with_pyyaml();
    if (!python) GTEST_SKIP() << "no Python with PyYAML";
    EXPECT_EQ(test::read_with_pyyaml(*python, text)["variables"][name], "x");
}

// What conda (PyYAML-like) and micromamba (yaml-cpp) read: the same document, in which the
// environment.yml keys have the shape `conda env create` expects and no value changed type.
TEST(WriteLockfile, ReadAsAnEnvironmentYmlByBothYamlLibraries) {
    const std::string text = write_lockfile(rich_lockfile());
    const nlohmann::json doc = test::read_with_yaml_cpp(text);

    std::vector<std::string> keys;
    for (const auto& item : doc.items())
        keys.push_back(item.key());
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"channels", "dependencies", "name", "variables",
                                              "x-aitk-env"}));
    EXPECT_EQ(doc["name"], "ai toolkit: train");
    EXPECT_EQ(doc["channels"], nlohmann::json({"conda-forge", "nvidia"}));
    ASSERT_EQ(doc["dependencies"].size(), 3u);
    EXPECT_EQ(doc["dependencies"][0], "python=3.12.3");
    EXPECT_EQ(doc["dependencies"][1], "pip");
    const nlohmann::json& pip = doc["dependencies"][2]["pip"];
    ASSERT_TRUE(pip.is_array());
    EXPECT_EQ(pip[0], "--require-hashes");
    EXPECT_EQ(pip[1], "--index-url https://pypi.org/simple");
    EXPECT_EQ(doc["variables"]["NO"], "yes");
    EXPECT_EQ(doc["variables"]["EMPTY"], "");
    EXPECT_EQ(doc["variables"]["QUOTE"], "say \"hi\" # not a comment");
    EXPECT_EQ(doc["variables"]["UNICODE"], "caf\xC3\xA9 \xE2\x80\xA8 line");
    const nlohmann::json& cuda = doc["x-aitk-env"]["targets"][1];
    EXPECT_EQ(cuda["id"], "linux-x86_64-cu130");
    EXPECT_EQ(cuda["marker-environment"]["python_version"], "3.12");
    EXPECT_EQ(cuda["packages"][1]["name"], "mpmath");
    EXPECT_EQ(cuda["packages"][1]["version"], "1e3");
    EXPECT_EQ(cuda["packages"][1]["wheel"]["sha256"], hex64('0'));

    const auto python = test::python_with_pyyaml();
    if (!python) GTEST_SKIP() << "no Python with PyYAML";
    EXPECT_EQ(test::read_with_pyyaml(*python, text), doc);
}

// Strings YAML likes to reinterpret, in every place a string goes, come back unchanged.
TEST(WriteLockfile, TrickyStringsRoundTrip) {
    const std::vector<std::string> tricky = {"1.10",
                                             "2.0",
                                             "1e3",
                                             "yes",
                                             "No",
                                             "null",
                                             "~",
                                             "2024-01-01",
                                             "1:20",
                                             "0o17",
                                             ".inf",
                                             "a: b",
                                             "a #b",
                                             "#x",
                                             "- x",
                                             "--x",
                                             "*x",
                                             "&x",
                                             "!x",
                                             "|",
                                             ">",
                                             "@x",
                                             "%x",
                                             "'q'",
                                             "\"q\"",
                                             "[x]",
                                             "{x}",
                                             "x,y",
                                             " lead",
                                             "trail ",
                                             "tab\tx",
                                             "nl\nx",
                                             "cr\rx",
                                             std::string("nul\0x", 5),
                                             "caf\xC3\xA9",
                                             "\xE2\x80\xA8",
                                             "\xC2\x85",
                                             "\xEF\xBB\xBF",
                                             "https://h/x%2Bcu130.whl#frag",
                                             "C:\\Program Files\\x",
                                             "? x",
                                             ": x",
                                             "=",
                                             "<<"};
    Lockfile lock = small_lockfile();
    lock.name = tricky[0];
    lock.channels = tricky;
    lock.generator = "yes";
    lock.python_requires = "~=3.10";
    lock.indexes[0].name = "a: b #c";
    LockedTarget& t = lock.targets[0];
    t.python = "3.10";
    t.backend = "1e3";
    t.marker_environment.clear();
    t.variables.clear();
    for (std::size_t i = 0; i < tricky.size(); ++i) {
        t.marker_environment[tricky[i]] = tricky[(i + 1) % tricky.size()];
        if (!tricky[i].empty()) t.variables[tricky[i]] = tricky[(i + 2) % tricky.size()];
    }
    for (auto& package : t.packages) {
        package.index = "a: b #c";
        package.extras = {"1.10", "a b", "a:b", "x,y"};
        std::sort(package.extras.begin(), package.extras.end());
        // No ':' (a lock's file names are file names everywhere, util::path_name_problem);
        // the index name and the extras carry ": " to the writer.
        package.wheel->filename = "x #1 y";
    }
    t.packages[1].version = "1.10";
    t.packages[1].source =
        LockedSource{SourceKind::url, "https://h/a b.tar.gz", "yes", hex64('9'), 7, "~"};

    const std::string text = write_lockfile(lock);
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe() << "\n" << text;
    EXPECT_EQ(*parsed, lock);
    const auto python = test::python_with_pyyaml();
    if (!python) GTEST_SKIP() << "no Python with PyYAML";
    const nlohmann::json doc = test::read_with_pyyaml(*python, text);
    EXPECT_EQ(doc, test::read_with_yaml_cpp(text));
    EXPECT_EQ(doc["channels"], nlohmann::json(tricky));
}

TEST(WriteLockfile, LeftOutSourcesAreNamedInAComment) {
    const std::string text = write_lockfile(rich_lockfile());
    EXPECT_NE(text.find("  - pip:\n      # not here, as pip cannot check them by hash: "
                        "toolkit-extras\n      - --require-hashes\n"),
              std::string::npos);
}

TEST(DefaultLockfilePath, IsLockYmlNeverDashLock) {
    EXPECT_EQ(default_lockfile_path("ai-toolkit"), "lockfiles/ai-toolkit.lock.yml");
    EXPECT_EQ(default_lockfile_path("conda-lock"), "lockfiles/conda-lock.lock.yml");
}

TEST(Lockfile, FindTargetAndPackage) {
    const Lockfile lock = rich_lockfile();
    const LockedTarget* cuda = lock.find_target("linux-x86_64-cu130");
    ASSERT_NE(cuda, nullptr);
    EXPECT_EQ(cuda->backend, "cu130");
    EXPECT_EQ(lock.find_target("windows-x86_64-cu130"), nullptr);
    ASSERT_NE(cuda->find("torch"), nullptr);
    EXPECT_EQ(cuda->find("torch")->version, "2.9.0+cu130");
    EXPECT_EQ(cuda->find("numpy"), nullptr);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
