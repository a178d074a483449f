#include <string>

#include <gtest/gtest.h>

#include "aitk/lock/lockfile.hpp"
#include "lock_fixtures.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using test::hex64;

// The small lockfile's text (see test_lockfile_write.cpp for all of it). Lines used below:
//  3 name: demo             13       - six==1.10 --hash=...   17   format: 1
//  7   - python=3.12.3      15   HF_HOME: /data/hf            21   default-target: ...
// 39         - name: app    43           dependencies: [six]   47             sha256: bbbb...
const std::string small = write_lockfile(test::small_lockfile());

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("not in the text: " + from);
    return text.replace(at, from.size(), to);
}

struct Problem {
    std::string where_and_what;
    std::string hint;
};

Problem problem_of(const std::string& text) {
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    if (parsed) return {"parsed without a problem", ""};
    return {parsed.error().describe(), parsed.error().hint};
}

const std::string relock =
    "the environment.yml part was edited by hand: re-run `aitk-env lock` (aitk-env installs "
    "what `x-aitk-env` says)";

#define EXPECT_PROBLEM(text, message, expected_hint)          \
    do {                                                      \
        const Problem p = problem_of(text);                   \
        EXPECT_EQ(p.where_and_what, message);                 \
        EXPECT_EQ(p.hint, expected_hint) << p.where_and_what; \
    } while (0)

TEST(ParseLockfile, NewerFormat) {
    EXPECT_PROBLEM(replaced(small, "format: 1", "format: 2"),
                   "env.lock.yml:17:11: lock format 2 was written by a newer aitk-env (this one "
                   "reads format 1)",
                   "upgrade aitk-env, or re-lock the inputs with this one (`aitk-env lock`)");
    // Keys of the newer format are not what the reader complains about.
    EXPECT_PROBLEM(replaced(small, "  format: 1\n", "  format: 7\n  signatures: []\n"),
                   "env.lock.yml:17:11: lock format 7 was written by a newer aitk-env (this one "
                   "reads format 1)",
                   "upgrade aitk-env, or re-lock the inputs with this one (`aitk-env lock`)");
    EXPECT_PROBLEM(replaced(small, "format: 1", "format: 0"),
                   "env.lock.yml:17:11: unknown lock format 0 (this aitk-env reads format 1)", "");
    EXPECT_PROBLEM(replaced(small, "format: 1", "format: \"1\""),
                   "env.lock.yml:17:11: `x-aitk-env.format` must be a whole number", "");
}

TEST(ParseLockfile, PlainEnvironmentYml) {
    const std::string plain =
        "name: base\nchannels: [conda-forge]\ndependencies:\n"
        "  - python=3.11\n  - pip\n  - pip:\n      - numpy\n";
    EXPECT_PROBLEM(plain, "env.lock.yml: no `x-aitk-env` key: not an aitk-env lockfile",
                   "this is a plain environment.yml: use `aitk-env setup -f env.lock.yml`");
}

TEST(ParseLockfile, YamlSyntaxAndDocumentProblems) {
    EXPECT_PROBLEM(replaced(small, "name: demo", "name: [demo"),
                   "env.lock.yml:4:9: invalid YAML: end of sequence flow not found", "");
    EXPECT_PROBLEM(replaced(small, "name: demo", "name: demo\n bad: : x"),
                   "env.lock.yml:4:5: invalid YAML: illegal map value", "");
    EXPECT_PROBLEM("", "env.lock.yml: the file is empty", "");
    EXPECT_PROBLEM("# only a comment\n", "env.lock.yml: the file is empty", "");
    EXPECT_PROBLEM(small + "---\nname: x\n",
                   "env.lock.yml:57:1: a second YAML document (after `---`)",
                   "a lockfile holds one document: remove the second");
    EXPECT_PROBLEM(replaced(small, "name: demo", "name: de\xFFmo"),
                   "env.lock.yml:3:7: invalid UTF-8", "save the file as UTF-8");
    EXPECT_PROBLEM("- a\n", "env.lock.yml:1:1: expected a mapping at the top level", "");
    EXPECT_PROBLEM(replaced(replaced(small, "name: demo", "name: &n demo"),
                            "python-requires: \">=3.10\"", "python-requires: *n"),
                   "env.lock.yml:20:20: YAML aliases (`*name`) are not allowed in a lockfile",
                   "write the value out in full");
    EXPECT_PROBLEM(replaced(small, "sys_platform: linux",
                            "sys_platform: " + std::string(40, '[') + std::string(40, ']')),
                   "env.lock.yml:35:50: nesting deeper than 32 levels",
                   "a lockfile needs only a few levels");
}

TEST(ParseLockfile, KeysAndTypes) {
    const std::string x_keys =
        "the keys here are: format, generator, input-hash, python-requires, default-target, "
        "indexes, targets";
    EXPECT_PROBLEM(replaced(small, "  format: 1\n", "  format: 1\n  colour: blue\n"),
                   "env.lock.yml:18:3: unknown key `colour` in `x-aitk-env`", x_keys);
    EXPECT_PROBLEM(small + "prefix: /opt/env\n",
                   "env.lock.yml:57:1: unknown key `prefix` at the top level",
                   "the keys here are: name, channels, dependencies, variables, x-aitk-env");
    EXPECT_PROBLEM(replaced(small, "  format: 1\n", "  format: 1\n  generator: x\n"),
                   "env.lock.yml:19:3: duplicate key `generator` in `x-aitk-env`", "");
    EXPECT_PROBLEM(replaced(small, "  format: 1\n", "  format: 1\n  ? [a]\n  : b\n"),
                   "env.lock.yml:18:5: a key that is not a string in `x-aitk-env`", "");
    EXPECT_PROBLEM(replaced(small, "name: demo", "name:"),
                   "env.lock.yml:3:1: `name` must be a string", "");
    EXPECT_PROBLEM(replaced(small, "name: demo", "name: \"\""),
                   "env.lock.yml:3:7: `name` must not be empty", "");
    EXPECT_PROBLEM(replaced(small, "name: demo\n", ""),
                   "env.lock.yml:3:1: missing `name` at the top level", "");
    EXPECT_PROBLEM(replaced(small, "channels:\n  - conda-forge", "channels: {a: b}"),
                   "env.lock.yml:4:11: `channels` must be a list", "");
    EXPECT_PROBLEM(small.substr(0, small.find("x-aitk-env:\n")) + "x-aitk-env: 3\n",
                   "env.lock.yml:16:13: `x-aitk-env` must be a mapping", "");
    EXPECT_PROBLEM(small.substr(0, small.find("  targets:\n")),
                   "env.lock.yml:17:3: missing `targets` in `x-aitk-env`", "");
    EXPECT_PROBLEM(replaced(small, "requested: true", "requested: yes"),
                   "env.lock.yml:41:22: `x-aitk-env.targets[0].packages[0].requested` must be true "
                   "or false",
                   "");
    EXPECT_PROBLEM(replaced(small, "size: 2000", "size: -1"),
                   "env.lock.yml:48:19: `x-aitk-env.targets[0].packages[0].wheel.size` must be a "
                   "whole number",
                   "");
    EXPECT_PROBLEM(
        replaced(small, "size: 2000", "size: 99999999999999999999"),
        "env.lock.yml:48:19: `x-aitk-env.targets[0].packages[0].wheel.size` is too large", "");
}

// A size the index did not give is left out; `size: 0`, which earlier versions wrote for it,
// reads back as unknown (no wheel is empty), so a re-lock drops it.
TEST(ParseLockfile, AWheelSizeIsOptionalAndZeroMeansUnknown) {
    const auto full = parse_lockfile(small, "env.lock.yml");
    ASSERT_TRUE(full) << full.error().describe();
    EXPECT_EQ(full->targets[0].packages[0].wheel->size, std::optional<std::uint64_t>(2000));
    for (const std::string& text : {replaced(small, "            size: 2000\n", ""),
                                    replaced(small, "size: 2000", "size: 0")}) {
        const auto parsed = parse_lockfile(text, "env.lock.yml");
        ASSERT_TRUE(parsed) << parsed.error().describe();
        const auto& wheel = *parsed->targets[0].packages[0].wheel;
        EXPECT_FALSE(wheel.size.has_value());
        EXPECT_EQ(write_lockfile(*parsed), replaced(small, "            size: 2000\n", ""));
    }
}

TEST(ParseLockfile, Values) {
    EXPECT_PROBLEM(replaced(small, "sha256: bbbb", "sha256: BBBB"),
                   "env.lock.yml:47:21: `x-aitk-env.targets[0].packages[0].wheel.sha256` must be "
                   "64 lower-case hex digits, got `BBBB" +
                       std::string(60, 'b') + "`",
                   "");
    EXPECT_PROBLEM(replaced(small, "input-hash: sha256:", "input-hash: md5:"),
                   "env.lock.yml:19:15: `x-aitk-env.input-hash` must be `sha256:` and 64 "
                   "lower-case hex digits, got `md5:" +
                       hex64('1') + "`",
                   "");
    EXPECT_PROBLEM(replaced(small, "kind: simple", "kind: conda"),
                   "env.lock.yml:25:13: `x-aitk-env.indexes[0].kind` must be simple, find-links or "
                   "torch-backend, got `conda`",
                   "");
    Lockfile svn = test::small_lockfile();
    svn.targets[0].packages[0].source =
        LockedSource{SourceKind::vcs, "svn://x", "", "", std::nullopt, ""};
    EXPECT_PROBLEM(replaced(write_lockfile(svn), "kind: vcs", "kind: svn"),
                   "env.lock.yml:50:19: `x-aitk-env.targets[0].packages[0].source.kind` must be "
                   "vcs, sdist, url or directory, got `svn`",
                   "");
    EXPECT_PROBLEM(replaced(small, "- name: six", "- name: Six_Pkg"),
                   "env.lock.yml:49:17: package name `Six_Pkg` is not normalised",
                   "write `six-pkg`");
    EXPECT_PROBLEM(replaced(small, "        HF_HOME: /data/hf\n",
                            "        HF_HOME: /data/hf\n        PATH: /x\n"),
                   "env.lock.yml:38:9: `x-aitk-env.targets[0].variables` may not set `PATH` "
                   "(conda reserves it)",
                   "set search paths in the manifest's environment section instead");
    Lockfile bare = test::small_lockfile();
    bare.targets[0].packages[0].wheel.reset();
    EXPECT_PROBLEM(write_lockfile(bare),
                   "env.lock.yml:39:11: package `app` in `x-aitk-env.targets[0].packages[0]` has "
                   "neither `wheel` nor `source`",
                   "");
}

TEST(ParseLockfile, References) {
    EXPECT_PROBLEM(replaced(small, "index: primary\n          dependencies",
                            "index: mirror\n          dependencies"),
                   "env.lock.yml:42:18: `x-aitk-env.targets[0].packages[0].index` names `mirror`, "
                   "which is not in `x-aitk-env.indexes`",
                   "");
    EXPECT_PROBLEM(replaced(small, "[six]", "[six, seven]"),
                   "env.lock.yml:43:25: `x-aitk-env.targets[0].packages[0].dependencies` names "
                   "`seven`, which is not a package of target `linux-x86_64-cpu`",
                   "");
    EXPECT_PROBLEM(replaced(small, "[six]", "[six, six]"),
                   "env.lock.yml:43:31: duplicate `six` in "
                   "`x-aitk-env.targets[0].packages[0].dependencies`",
                   "");
    EXPECT_PROBLEM(replaced(small, "- name: six", "- name: app"),
                   "env.lock.yml:49:11: duplicate package `app` in target `linux-x86_64-cpu`", "");
    EXPECT_PROBLEM(
        replaced(small, "default-target: linux-x86_64-cpu", "default-target: linux-x86_64-cu130"),
        "env.lock.yml:21:19: default target `linux-x86_64-cu130` is not among the "
        "targets",
        "");
    Lockfile twice = test::small_lockfile();
    twice.targets.push_back(twice.targets[0]);
    EXPECT_PROBLEM(write_lockfile(twice), "env.lock.yml:57:7: duplicate target `linux-x86_64-cpu`",
                   "");
}

TEST(ParseLockfile, EnvironmentYmlPartMustMatchTheExtension) {
    const std::string six_line = "six==1.10 --hash=sha256:" + hex64('a');
    EXPECT_PROBLEM(replaced(small, "six==1.10", "six==1.11"),
                   "env.lock.yml:13:9: the `pip:` list does not match `x-aitk-env`: expected `" +
                       six_line + "`, found `six==1.11 --hash=sha256:" + hex64('a') + "`",
                   relock);
    EXPECT_PROBLEM(replaced(small, "variables:\n  HF", "      - extra==1\nvariables:\n  HF"),
                   "env.lock.yml:14:9: the `pip:` list does not match `x-aitk-env`: unexpected "
                   "`extra==1`",
                   relock);
    EXPECT_PROBLEM(replaced(small, "      - " + six_line + "\n", ""),
                   "env.lock.yml:10:7: the `pip:` list does not match `x-aitk-env`: missing `" +
                       six_line + "`",
                   relock);
    EXPECT_PROBLEM(replaced(small, "python=3.12.3", "python=3.11"),
                   "env.lock.yml:7:5: `dependencies` does not match `x-aitk-env`: expected "
                   "`python=3.12.3`, found `python=3.11`",
                   relock);
    EXPECT_PROBLEM(replaced(small, "  - pip\n", "  - pip\n  - numpy\n"),
                   "env.lock.yml:9:5: `dependencies` does not match `x-aitk-env`: unexpected "
                   "`numpy`",
                   relock);
    EXPECT_PROBLEM(
        replaced(small, "  HF_HOME: /data/hf\nx-aitk-env", "  HF_HOME: /tmp\nx-aitk-env"),
        "env.lock.yml:15:3: `variables` sets `HF_HOME` to `/tmp`, the default target "
        "to `/data/hf`",
        relock);
    EXPECT_PROBLEM(replaced(small, "variables:\n  HF_HOME: /data/hf\nx-aitk-env", "x-aitk-env"),
                   "env.lock.yml:3:1: `variables` lacks `HF_HOME`, which the default target sets",
                   relock);
    EXPECT_PROBLEM(replaced(small, "  HF_HOME: /data/hf\nx-aitk-env",
                            "  HF_HOME: /data/hf\n  X: y\nx-aitk-env"),
                   "env.lock.yml:15:3: `variables` sets `X`, which the default target does not",
                   relock);
}

// Edits that change only the form (comments, quoting, key order, flow style, list order,
// Windows line ends, a byte-order mark) read back as the same lockfile.
TEST(ParseLockfile, AcceptsFormChanges) {
    const std::string edited =
        "\xEF\xBB\xBF# my comment\r\n" +
        std::string(
            R"(x-aitk-env:
  targets:
    - packages:
        - {name: six, version: '1.10', index: primary, wheel: {size: 10, sha256: ")" +
            hex64('a') +
            R"(", url: "https://files.example/six-1.10-py2.py3-none-any.whl", filename: six-1.10-py2.py3-none-any.whl}}
        - name: app   # the app
          dependencies:
            - six
          requested: true
          version: "2.0"
          index: "primary"
          wheel:
            filename: app-2.0-py3-none-any.whl
            url: https://files.example/app-2.0-py3-none-any.whl
            sha256: )" +
            hex64('b') + R"(
            size: 2000
      variables: {HF_HOME: /data/hf}
      id: linux-x86_64-cpu
      os: linux
      arch: x86_64
      backend: cpu
      python: '3.12.3'
      marker-environment: {sys_platform: linux, python_version: "3.12", python_full_version: 3.12.3}
  indexes: [{name: primary, url: "https://pypi.org/simple", kind: simple}]
  default-target: linux-x86_64-cpu
  python-requires: '>=3.10'
  input-hash: "sha256:)" +
            hex64('1') + R"("
  generator: aitk-env 0.1.0
  format: 1
variables:
  HF_HOME: "/data/hf"
dependencies: [python=3.12.3, pip, {pip: [--require-hashes, "--index-url https://pypi.org/simple", "app==2.0 --hash=sha256:)" +
            hex64('b') + R"(", "six==1.10 --hash=sha256:)" + hex64('a') +
            R"("]}]
channels: [conda-forge]
name: 'demo'
)");
    const auto parsed = parse_lockfile(edited, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, test::small_lockfile());
    EXPECT_EQ(write_lockfile(*parsed), small);
}

TEST(ParseLockfile, RequestedDefaultsToFalseAndOptionalFieldsToEmpty) {
    const auto parsed = parse_lockfile(small, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    const LockedPackage* six = parsed->targets[0].find("six");
    ASSERT_NE(six, nullptr);
    EXPECT_FALSE(six->requested);
    EXPECT_TRUE(six->extras.empty());
    EXPECT_TRUE(six->dependencies.empty());
    EXPECT_FALSE(six->source.has_value());
    EXPECT_EQ(parsed->channels, std::vector<std::string>{"conda-forge"});
}

TEST(LockKinds, EveryKindRoundTripsThroughItsWord) {
    for (auto kind : {IndexKind::simple, IndexKind::find_links, IndexKind::torch_backend})
        EXPECT_EQ(parse_index_kind(to_string(kind)), kind);
    for (auto kind : {SourceKind::vcs, SourceKind::sdist, SourceKind::url, SourceKind::directory})
        EXPECT_EQ(parse_source_kind(to_string(kind)), kind);
    EXPECT_EQ(to_string(IndexKind::find_links), "find-links");
    EXPECT_EQ(to_string(IndexKind::torch_backend), "torch-backend");
    EXPECT_EQ(to_string(SourceKind::directory), "directory");
    EXPECT_FALSE(parse_index_kind("conda"));
    EXPECT_FALSE(parse_index_kind("find_links"));
    EXPECT_FALSE(parse_source_kind("svn"));
    EXPECT_FALSE(parse_source_kind("VCS"));
    EXPECT_FALSE(parse_source_kind(""));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
