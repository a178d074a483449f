#include "aitk/project/manifest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/platform/tables.hpp"
#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::project;

Manifest builtin() {
    auto m = parse_manifest(builtin_manifest_text(), builtin_manifest_name());
    EXPECT_TRUE(m) << (m ? "" : m.error().describe());
    return m ? std::move(*m) : Manifest{};
}

// "file:line:column: message" and the hint of a manifest that must not parse.
std::pair<std::string, std::string> problem(std::string_view yaml) {
    auto m = parse_manifest(yaml, "m.yaml");
    EXPECT_FALSE(m) << yaml;
    if (m) return {};
    return {m.error().describe(), m.error().hint};
}

const BackendOption* backend(const Manifest& m, std::string_view name) {
    for (const auto& b : m.torch.backends) {
        if (b.name == name) return &b;
    }
    return nullptr;
}

std::vector<std::string> texts(const std::vector<ManifestRequirement>& list) {
    std::vector<std::string> out;
    for (const auto& r : list)
        out.push_back(r.text);
    return out;
}

TEST(BuiltinManifest, DescribesAiToolkit) {
    Manifest m = builtin();
    EXPECT_EQ(builtin_manifest_name(), "ai-toolkit.yaml");
    EXPECT_EQ(m.file, "ai-toolkit.yaml");
    EXPECT_EQ(m.name, "ai-toolkit");
    EXPECT_EQ(m.upstream, "ostris/ai-toolkit@main (2026-08)");
    EXPECT_EQ(m.python_requires, ">=3.10,<3.13");
    EXPECT_EQ(m.python_preferred, "3.12");
    EXPECT_EQ(m.torch.packages,
              (std::map<std::string, std::string>{
                  {"torch", "==2.13.0"}, {"torchvision", "==0.28.0"}, {"torchaudio", "==2.11.0"}}));
    std::vector<std::string> order;
    for (const auto& b : m.torch.backends)
        order.push_back(b.name);
    EXPECT_EQ(order, (std::vector<std::string>{"cu130", "cu126", "mps", "rocm7.1", "cpu"}));
    EXPECT_EQ(m.project_requirement_files, std::vector<std::string>{"requirements.txt"});
    EXPECT_EQ(m.profile_ram_gib, 32);
    EXPECT_EQ(m.profile_vram_gib, 24);
    ASSERT_EQ(m.hardware_profiles.size(), 1u);
    EXPECT_EQ(m.hardware_profiles[0].id, "flux-lora");
    EXPECT_EQ(m.default_targets,
              (std::vector<std::string>{"linux-x86_64-cu130", "linux-x86_64-cu126",
                                        "linux-aarch64-cu130", "windows-x86_64-cu130",
                                        "windows-x86_64-cu126", "macos-arm64-mps"}));
    EXPECT_FALSE(m.indexes.index_url);
    EXPECT_FALSE(m.indexes.torch_index_url);
    EXPECT_EQ(m.text, builtin_manifest_text());
}

TEST(BuiltinManifest, BackendRules) {
    Manifest m = builtin();
    const BackendOption* cu126 = backend(m, "cu126");
    ASSERT_NE(cu126, nullptr);
    EXPECT_EQ(cu126->refuse_compute_capability, ">=10.0");
    EXPECT_EQ(cu126->where.os, (std::vector<std::string>{"linux", "windows"}));
    EXPECT_FALSE(cu126->experimental);
    const BackendOption* rocm = backend(m, "rocm7.1");
    ASSERT_NE(rocm, nullptr);
    EXPECT_TRUE(rocm->experimental);
    EXPECT_EQ(rocm->where.os, std::vector<std::string>{"linux"});
    const BackendOption* mps = backend(m, "mps");
    ASSERT_NE(mps, nullptr);
    EXPECT_TRUE(mps->offered_on("macos", "arm64"));
    EXPECT_FALSE(mps->offered_on("macos", "x86_64"));
    EXPECT_FALSE(mps->offered_on("linux", "x86_64"));
    EXPECT_TRUE(backend(m, "cu130")->offered_on("windows", "x86_64"));
    EXPECT_FALSE(backend(m, "cu130")->offered_on("macos", "arm64"));
    EXPECT_FALSE(backend(m, "cu130")->offered_on("windows", "aarch64"));
    EXPECT_TRUE(backend(m, "cpu")->offered_on("windows", "aarch64"));
}

// The inline list is AI Toolkit's requirements.txt and requirements_base.txt (2026-08), torch
// family aside, with diffusers named.
TEST(BuiltinManifest, CarriesAiToolkitsRequirements) {
    Manifest m = builtin();
    std::vector<std::string> expected;
    for (std::string file : {"requirements_base.txt", "requirements.txt"}) {
        std::ifstream in(std::string(AITK_TEST_DATA_DIR) + "/realworld/ostris_ai-toolkit/" + file);
        ASSERT_TRUE(in) << "tests/data/realworld/ostris_ai-toolkit/" << file;
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#' || line[0] == '-') continue;
            if (line.rfind("git+https://github.com/huggingface/diffusers", 0) == 0)
                line = "diffusers @ " + line;
            expected.push_back(line);
        }
    }
    EXPECT_EQ(texts(m.requirements), expected);
    EXPECT_EQ(texts(m.extra_requirements), std::vector<std::string>{"triton-windows"});
    EXPECT_EQ(m.extra_requirements[0].when.os, std::vector<std::string>{"windows"});
    EXPECT_EQ(m.extra_requirements[0].when.backends, std::vector<std::string>{"cuda"});
    // Every entry keeps its place in the manifest.
    EXPECT_EQ(m.requirements[0].where.file, "ai-toolkit.yaml");
    EXPECT_GT(m.requirements[0].where.line, 1u);
    EXPECT_EQ(m.requirements[0].where.column, 5u);
}

TEST(BuiltinManifest, EnvironmentVariables) {
    Manifest m = builtin();
    ASSERT_EQ(m.environment.size(), 3u);
    EXPECT_EQ(m.environment[0].name, "PYTORCH_CUDA_ALLOC_CONF");
    EXPECT_EQ(m.environment[0].value, "expandable_segments:True");
    EXPECT_EQ(m.environment[0].when.backends, std::vector<std::string>{"cuda"});
    EXPECT_EQ(m.environment[1].name, "PYTORCH_ENABLE_MPS_FALLBACK");
    EXPECT_EQ(m.environment[1].value, "1");
    EXPECT_EQ(m.environment[1].when.os, std::vector<std::string>{"macos"});
    EXPECT_EQ(m.environment[2].name, "PYTORCH_MPS_HIGH_WATERMARK_RATIO");
    EXPECT_EQ(m.environment[2].value, "0.0");
}

// doctor reads the same file through the platform layer's narrower reader.
TEST(BuiltinManifest, PlatformLayerReadsItsHardwareKeys) {
    auto hw = aitk::platform::parse_manifest_hardware(builtin_manifest_text(), "ai-toolkit.yaml");
    ASSERT_TRUE(hw) << hw.error().describe();
    EXPECT_EQ(hw->torch_version, "2.13.0");
    EXPECT_EQ(hw->preferred_backends,
              (std::vector<std::string>{"cu130", "cu126", "mps", "rocm7.1", "cpu"}));
    ASSERT_TRUE(hw->profiles);
    ASSERT_EQ(hw->profiles->size(), 1u);
    EXPECT_EQ((*hw->profiles)[0].min_ram_gib, 32);
    EXPECT_EQ((*hw->profiles)[0].min_vram_gib, 24);
}

TEST(BuiltinManifest, MatchesTheFileInManifests) {
    std::string on_disk =
        aitk::fs::read_file(std::string(AITK_TEST_DATA_DIR) + "/../../manifests/ai-toolkit.yaml");
    EXPECT_EQ(on_disk, builtin_manifest_text());
}

// The example in manifests/README.md is a valid manifest using every key.
TEST(ManifestSchema, ReadmeExampleParses) {
    std::string readme =
        aitk::fs::read_file(std::string(AITK_TEST_DATA_DIR) + "/../../manifests/README.md");
    const std::string start = "<!-- example-manifest -->\n```yaml\n";
    auto from = readme.find(start);
    ASSERT_NE(from, std::string::npos);
    from += start.size();
    auto to = readme.find("```", from);
    ASSERT_NE(to, std::string::npos);
    auto m = parse_manifest(readme.substr(from, to - from), "README.md");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->name, "my-trainer");
    EXPECT_EQ(m->indexes.index_url, "https://pypi.org/simple");
    EXPECT_EQ(m->indexes.extra_index_urls,
              std::vector<std::string>{"https://mirror.example.org/simple"});
    EXPECT_EQ(m->indexes.torch_index_url, "https://download.pytorch.org/whl");
    EXPECT_EQ(m->torch.packages.at("torchvision"), ">=0.28,<0.29");
    EXPECT_EQ(m->requirements.size(), 4u);
    EXPECT_EQ(m->extra_requirements.size(), 2u);
    EXPECT_EQ(m->glibc, (aitk::pep::OsVersion{2, 28}));
}

TEST(Manifest, MinimalManifestHasDefaults) {
    auto m = parse_manifest("name: tiny\n", "tiny.yaml");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->name, "tiny");
    EXPECT_EQ(m->file, "tiny.yaml");
    EXPECT_TRUE(m->python_requires.empty());
    EXPECT_TRUE(m->python_preferred.empty());
    EXPECT_TRUE(m->torch.packages.empty());
    EXPECT_TRUE(m->torch.backends.empty());
    EXPECT_TRUE(m->requirements.empty());
    EXPECT_TRUE(m->default_targets.empty());
    EXPECT_EQ(m->profile_ram_gib, 0);
}

TEST(Manifest, KeysWithoutValuesAreLeftOut) {
    auto m = parse_manifest("name: tiny\nrequirements:\ndescription:\nenvironment: ~\n", "t.yaml");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_TRUE(m->requirements.empty());
    EXPECT_TRUE(m->description.empty());
}

TEST(Manifest, TorchPinsAndOptionLines) {
    auto m = parse_manifest(
        "name: t\n"
        "torch:\n"
        "  version: ==2.7.1\n"
        "  packages: {TorchVision: \">=0.22\", torchaudio: 2.7.1}\n"
        "  backends: [cu128, cpu]\n"
        "requirements:\n"
        "  - --pre\n"
        "  - \"  numpy>=2 \"\n"
        "  - -e git+https://github.com/org/repo.git@v1#egg=repo\n",
        "t.yaml");
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->torch.packages,
              (std::map<std::string, std::string>{
                  {"torch", "==2.7.1"}, {"torchvision", ">=0.22"}, {"torchaudio", "==2.7.1"}}));
    ASSERT_EQ(m->requirements.size(), 3u);
    EXPECT_EQ(m->requirements[1].text, "numpy>=2");
    // The text starts after the quote and the two spaces.
    EXPECT_EQ(m->requirements[1].where, (SourceLocation{"t.yaml", 8, 8}));
    EXPECT_TRUE(m->requirements[1].when.everywhere());
}

TEST(Manifest, ApplicabilityMatching) {
    Applicability a;
    EXPECT_TRUE(a.applies("linux", "x86_64", "cu130"));
    a.os = {"windows"};
    a.backends = {"cuda"};
    EXPECT_TRUE(a.applies("windows", "x86_64", "cu130"));
    EXPECT_TRUE(a.applies("windows", "x86_64", "cu118"));
    EXPECT_FALSE(a.applies("windows", "x86_64", "cpu"));
    EXPECT_FALSE(a.applies("linux", "x86_64", "cu130"));
    EXPECT_TRUE(a.applies("windows", "x86_64", ""));  // not asked about the backend
    Applicability exact;
    exact.backends = {"rocm", "cu126"};
    EXPECT_TRUE(exact.applies("linux", "x86_64", "rocm7.1"));
    EXPECT_TRUE(exact.applies("linux", "x86_64", "cu126"));
    EXPECT_FALSE(exact.applies("linux", "x86_64", "cu130"));
    Applicability arm;
    arm.arch = {"aarch64"};
    EXPECT_TRUE(arm.applies("macos", "arm64", "mps"));  // one architecture, two names
    EXPECT_FALSE(arm.applies("macos", "x86_64", "cpu"));
}

TEST(Manifest, ReadsAFileAndNamesItInProblems) {
    auto dir = aitk::fs::TempDir::create("aitk-manifest-test");
    auto path = dir.path() / "mine.yaml";
    aitk::fs::write_file_atomic(path, "name: mine\nbogus: 1\n");
    auto m = read_manifest(path);
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().describe(), path.string() + ":2:1: unknown key \"bogus\" at the top level");
    auto missing = read_manifest(dir.path() / "nope.yaml");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().where.file, (dir.path() / "nope.yaml").string());
    EXPECT_EQ(missing.error().hint, "pass an existing manifest file with -m");
}

// ---- every kind of problem, with its exact position ------------------------------------------

TEST(ManifestProblems, UnknownKeys) {
    EXPECT_EQ(problem("name: x\npyhton:\n  requires: \">=3.10\"\n"),
              std::make_pair(std::string("m.yaml:2:1: unknown key \"pyhton\" at the top level"),
                             std::string("did you mean \"python\"? known keys: format, name, "
                                         "description, upstream, python, torch, requirements, "
                                         "project_requirement_files, extra_requirements, "
                                         "environment, hardware_profiles, indexes, "
                                         "default_targets, glibc")));
    EXPECT_EQ(problem("name: x\npython:\n  require: \">=3.10\"\n"),
              std::make_pair(std::string("m.yaml:3:3: unknown key \"require\" in python"),
                             std::string("did you mean \"requires\"? known keys: requires, "
                                         "preferred")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backend_options:\n"
                      "    cpu: {when: [linux]}\n  backends: [cpu]\n")
                  .first,
              "m.yaml:5:11: unknown key \"when\" in torch.backend_options.cpu");
    EXPECT_EQ(problem("name: x\nname: y\n"),
              std::make_pair(std::string("m.yaml:2:1: duplicate key \"name\" (first on line 1)"),
                             std::string("keep one of them")));
}

TEST(ManifestProblems, WrongTypes) {
    EXPECT_EQ(problem("name: x\npython:\n  requires: [3.10]\n"),
              std::make_pair(std::string("m.yaml:3:13: python.requires: expected text, got a list"),
                             std::string("write a PEP 440 specifier such as \">=3.10,<3.13\"")));
    EXPECT_EQ(problem("name: x\nrequirements:\n  - {line: foo, os: [windows]}\n"),
              std::make_pair(
                  std::string("m.yaml:3:5: requirements[0]: expected text, got a mapping"),
                  std::string("write one requirement per item, such as \"numpy>=1.26\"; per-OS "
                              "requirements go under extra_requirements")));
    EXPECT_EQ(problem("name: x\nextra_requirements:\n  - os: windows\n    requirements: [a]\n"),
              std::make_pair(
                  std::string("m.yaml:3:9: extra_requirements[0].os: expected a list, got text"),
                  std::string("write a list: [windows]")));
    EXPECT_EQ(problem("name: x\nhardware_profiles:\n  - id: a\n    min_ram_gib: lots\n"
                      "    min_vram_gib: 2\n"),
              std::make_pair(std::string("m.yaml:4:18: hardware_profiles[0].min_ram_gib: expected "
                                         "a non-negative number, got \"lots\""),
                             std::string("write a number such as 24")));
    EXPECT_EQ(problem("name: x\ntorch: 2.13.0\n"),
              std::make_pair(std::string("m.yaml:2:8: torch: expected a mapping, got text"),
                             std::string("write torch: {version: \"2.13.0\", backends: [cu130, "
                                         "cpu]}")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backends: [cpu]\n"
                      "  backend_options:\n    cpu: {experimental: yes}\n")
                  .first,
              "m.yaml:6:25: torch.backend_options.cpu.experimental: expected true or false, got "
              "\"yes\"");
    EXPECT_EQ(problem("- name: x\n"),
              std::make_pair(std::string("m.yaml:1:1: expected a mapping, got a list"),
                             std::string("a manifest is a mapping of keys such as name:, python:, "
                                         "torch:")));
    EXPECT_EQ(problem("name: [x]\n").first, "m.yaml:1:7: name: expected text, got a list");
}

TEST(ManifestProblems, BadRequirementStrings) {
    auto [where, hint] = problem("name: x\nrequirements:\n  - numpy>=1.0\n  - \"torch>==\"\n");
    EXPECT_EQ(where,
              "m.yaml:4:11: requirements[1]: invalid requirement 'torch>==': expected the end of "
              "the requirement, or ';' and a marker (after the name 'torch', which has no valid "
              "version)");
    EXPECT_FALSE(hint.empty());
    EXPECT_EQ(problem("name: x\nrequirements:\n  - numpy>=1.0\n  - foo bar\n").first,
              "m.yaml:4:9: requirements[1]: invalid requirement 'foo bar': expected the end of the "
              "requirement, or ';' and a marker (after the name 'foo', which has no valid "
              "version)");
    EXPECT_EQ(problem("name: x\nextra_requirements:\n  - os: [linux]\n    requirements:\n"
                      "      - \"ok\"\n      - \"bad==\"\n")
                  .first,
              "m.yaml:6:13: extra_requirements[0].requirements[1]: invalid requirement 'bad==': "
              "expected the end of the requirement, or ';' and a marker (after the name 'bad', "
              "which has no valid version)");
    EXPECT_EQ(problem("name: x\nrequirements:\n  - -r other.txt\n"),
              std::make_pair(std::string("m.yaml:3:5: requirements[0]: a manifest requirement "
                                         "cannot include another file"),
                             std::string("list requirement files under project_requirement_files "
                                         "and pass --project DIR")));
    EXPECT_EQ(problem("name: x\nrequirements:\n  - \"# comment\"\n").first,
              "m.yaml:3:5: requirements[0]: the item is only a comment");
    EXPECT_EQ(problem("name: x\nrequirements:\n  - \"\"\n").first,
              "m.yaml:3:5: requirements[0]: empty requirement");
    EXPECT_EQ(problem("name: x\nrequirements:\n  - |\n    a\n    b\n").first,
              "m.yaml:3:5: requirements[0]: a requirement item must be one line");
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\nrequirements:\n  - torch==2.5\n"),
              std::make_pair(std::string("m.yaml:5:5: requirements[0]: \"torch\" is pinned by the "
                                         "torch section (torch==2.13.0)"),
                             std::string("remove this line, or change torch.version")));
}

TEST(ManifestProblems, BadNamesAndValues) {
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backends: [cu130, cuda126]\n"),
              std::make_pair(std::string("m.yaml:4:21: torch.backends[1]: unknown backend "
                                         "\"cuda126\" (expected cpu, cuXYZ such as cu130, rocmX.Y "
                                         "such as rocm7.1, xpu or mps)"),
                             std::string("did you mean \"cu126\"?")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backends: [cpu, cpu]\n").first,
              "m.yaml:4:19: torch.backends[1]: \"cpu\" is listed twice");
    EXPECT_EQ(problem("name: x\nenvironment:\n  - name: A\n    value: \"1\"\n    os: [darwin]\n"),
              std::make_pair(std::string("m.yaml:5:10: environment[0].os[0]: unknown OS \"darwin\" "
                                         "(expected linux, windows or macos)"),
                             std::string("did you mean \"macos\"?")));
    EXPECT_EQ(problem("name: x\nenvironment:\n  - {name: A, value: \"1\", arch: [amd64]}\n").first,
              "m.yaml:3:34: environment[0].arch[0]: unknown architecture \"amd64\" (expected "
              "x86_64, aarch64 or arm64)");
    EXPECT_EQ(
        problem("name: x\nenvironment:\n  - {name: A, value: \"1\", backends: [gpu]}\n").first,
        "m.yaml:3:38: environment[0].backends[0]: unknown backend \"gpu\" (expected cpu, "
        "cuXYZ such as cu130, rocmX.Y such as rocm7.1, xpu or mps); kinds cuda and rocm "
        "match every build of theirs");
    EXPECT_EQ(problem("name: x\nenvironment:\n  - {name: 1A, value: \"1\"}\n").first,
              "m.yaml:3:12: environment[0].name: \"1A\" is not a variable name");
    EXPECT_EQ(problem("name: x\nenvironment:\n  - {name: PATH, value: /x}\n").first,
              "m.yaml:3:12: environment[0].name: PATH is managed by aitk-env's launch scripts");
    EXPECT_EQ(problem("name: x\nenvironment:\n  - {name: A}\n"),
              std::make_pair(std::string("m.yaml:3:5: environment[0]: missing key \"value\""),
                             std::string("write value: \"\" for an empty value")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  packages:\n"
                      "    torchvision: \"=0.28\"\n")
                  .first,
              "m.yaml:5:19: torch.packages.torchvision: \"=0.28\" is not a PEP 440 specifier: '=' "
              "is not an operator; did you mean '=='?");
    EXPECT_EQ(
        problem("name: x\ntorch:\n  version: \"2.13.0\"\n  packages: {torch: \"2.1\"}\n").first,
        "m.yaml:4:14: torch.packages.torch: torch's own pin is torch.version");
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \">=2.9\"\n"),
              std::make_pair(std::string("m.yaml:3:12: torch.version: \">=2.9\" is not a torch "
                                         "release version"),
                             std::string("write the torch release such as \"2.13.0\"")));
    EXPECT_EQ(problem("name: x\ntorch:\n  backends: [cpu]\n"),
              std::make_pair(std::string("m.yaml:3:3: torch: missing key \"version\""),
                             std::string("name the torch release, such as version: \"2.13.0\"")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backends: [cpu]\n"
                      "  backend_options:\n    cu126: {os: [linux]}\n"),
              std::make_pair(std::string("m.yaml:6:5: torch.backend_options.cu126: \"cu126\" is "
                                         "not in torch.backends"),
                             std::string("add it to torch.backends (in preference order) or "
                                         "remove its options")));
    EXPECT_EQ(problem("name: x\ntorch:\n  version: \"2.13.0\"\n  backends: [cpu]\n"
                      "  backend_options:\n    cpu: {refuse_compute_capability: \"~10\"}\n")
                  .first,
              "m.yaml:6:39: torch.backend_options.cpu.refuse_compute_capability: \"~10\" is not a "
              "PEP 440 specifier: '~' is not an operator; did you mean '~='?");
    EXPECT_EQ(problem("name: x\npython:\n  preferred: \"3\"\n").first,
              "m.yaml:3:14: python.preferred: \"3\" is not a Python version (expected "
              "MAJOR.MINOR[.MICRO])");
    EXPECT_EQ(problem("name: x\npython:\n  requires: \">=3.13\"\n  preferred: \"3.12\"\n"),
              std::make_pair(std::string("m.yaml:4:14: python.preferred: Python 3.12 is outside "
                                         "python.requires \">=3.13\""),
                             std::string("prefer a version that python.requires allows")));
    // The column points at the bad character inside the quoted specifier.
    EXPECT_EQ(problem("name: x\npython:\n  requires: \">=3.1O\"\n").first,
              "m.yaml:3:19: python.requires: \">=3.1O\" is not a PEP 440 specifier: invalid "
              "version after '>=': unexpected character 'O'");
    EXPECT_EQ(problem("name: ../x\n").first, "m.yaml:1:7: name: \"../x\" cannot name a lockfile");
    EXPECT_EQ(problem("description: x\n"),
              std::make_pair(std::string("m.yaml:1:1: missing key \"name\""),
                             std::string("add name: my-project")));
    EXPECT_EQ(problem("format: 2\nname: x\n").first,
              "m.yaml:1:9: format: unsupported format \"2\" (this aitk-env reads 1)");
    EXPECT_EQ(problem("name: x\nproject_requirement_files: [/abs/req.txt]\n").first,
              "m.yaml:2:29: project_requirement_files[0]: \"/abs/req.txt\" is an absolute path");
    EXPECT_EQ(problem("name: x\nindexes:\n  index_url: \"not a url\"\n").first,
              "m.yaml:3:14: indexes.index_url: \"not a url\" is not a URL");
    EXPECT_EQ(problem("name: x\nhardware_profiles:\n  - {id: a, min_ram_gib: 1, min_vram_gib: 1}\n"
                      "  - {id: a, min_ram_gib: 2, min_vram_gib: 2}\n")
                  .first,
              "m.yaml:4:10: hardware_profiles[1].id: duplicate profile id \"a\"");
}

TEST(ManifestProblems, DefaultTargets) {
    EXPECT_EQ(problem("name: x\ndefault_targets: [linux-arm64-cpu]\n"),
              std::make_pair(std::string("m.yaml:2:19: default_targets[0]: target "
                                         "\"linux-arm64-cpu\": \"arm64\" is not a linux "
                                         "architecture (expected x86_64 or aarch64); did you mean "
                                         "\"aarch64\"? linux calls 64-bit ARM aarch64"),
                             std::string("targets are OS-ARCH-BACKEND, such as linux-x86_64-cu130 "
                                         "or macos-arm64-mps")));
    EXPECT_EQ(problem("name: x\ndefault_targets: [linux-x86_64-cu130]\ntorch:\n"
                      "  version: \"2.13.0\"\n  backends: [cu126, cpu]\n"),
              std::make_pair(std::string("m.yaml:2:19: default_targets[0]: backend cu130 is not "
                                         "offered on linux-x86_64 by torch.backends"),
                             std::string("add it to torch.backends (and its backend_options) or "
                                         "drop this target")));
    EXPECT_EQ(problem("name: x\ndefault_targets: [linux-x86_64-cpu, linux-x86_64-cpu]\n").first,
              "m.yaml:2:37: default_targets[1]: \"linux-x86_64-cpu\" is listed twice");
}

TEST(ManifestProblems, NotYaml) {
    EXPECT_EQ(problem("name: x\n  bad: [\n"),
              std::make_pair(std::string("m.yaml:2:6: not valid YAML: illegal map value"),
                             std::string("check the indentation and quoting around this place")));
    EXPECT_EQ(problem(""), std::make_pair(std::string("m.yaml:1:1: the manifest is empty"),
                                          std::string("start with name: my-project")));
    EXPECT_EQ(problem("# only a comment\n").first, "m.yaml:1:1: the manifest is empty");
}

TEST(ManifestProblems, SurvivesHostileInput) {
    std::string deep(5000, '[');
    EXPECT_FALSE(parse_manifest(deep, "deep.yaml"));
    EXPECT_FALSE(parse_manifest("name: x\nrequirements: *nope\n", "a.yaml"));
    EXPECT_FALSE(parse_manifest("name: &a [*a]\n", "a.yaml"));
    EXPECT_FALSE(parse_manifest(std::string("name: x\0y\n", 10), "nul.yaml"));
    EXPECT_FALSE(parse_manifest("? [a, b]\n: c\n", "key.yaml"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
