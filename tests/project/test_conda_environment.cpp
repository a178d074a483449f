// environment.yml reading and the conda → PyPI import: spec forms, the mapping table, version
// conversion, located YAML problems, and the two real `conda env export` files of
// tests/data/realworld.
#include "aitk/project/conda_environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "test_data.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

CondaEnvironment parse_ok(std::string_view yaml, const RequirementsReadOptions& options = {}) {
    auto env = parse_conda_environment(yaml, "env.yml", "/proj", options);
    EXPECT_TRUE(env) << (env ? "" : env.error().describe());
    return env ? *env : CondaEnvironment{};
}

InputProblem parse_error(std::string_view yaml) {
    auto env = parse_conda_environment(yaml, "env.yml", "/proj");
    EXPECT_FALSE(env) << "expected a problem for:\n" << yaml;
    return env ? InputProblem{} : env.error();
}

CondaImport import_ok(std::string_view yaml, bool skip_unmapped = false) {
    auto imported = import_conda_environment(parse_ok(yaml), skip_unmapped);
    EXPECT_TRUE(imported) << (imported ? "" : imported.error().describe());
    return imported ? *imported : CondaImport{};
}

std::vector<std::string> texts(const std::vector<RequirementLine>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines)
        out.push_back(line.text);
    return out;
}

bool has(const std::vector<std::string>& notes, const std::string& note) {
    return std::find(notes.begin(), notes.end(), note) != notes.end();
}

// --- the table ----------------------------------------------------------------------------------

TEST(CondaMappings, BuiltInTableRoles) {
    ASSERT_GT(conda_mappings().size(), 250u);
    const CondaMapping* pytorch = find_conda_mapping("pytorch");
    ASSERT_NE(pytorch, nullptr);
    EXPECT_EQ(pytorch->role, CondaRole::pypi);
    EXPECT_EQ(pytorch->pypi_name, "torch");
    EXPECT_EQ(find_conda_mapping("py-opencv")->pypi_name, "opencv-python");
    EXPECT_EQ(find_conda_mapping("tensorflow-gpu")->pypi_name, "tensorflow");
    EXPECT_EQ(find_conda_mapping("matplotlib-base")->pypi_name, "matplotlib");
    EXPECT_EQ(find_conda_mapping("ruamel_yaml")->pypi_name, "ruamel-yaml");
    EXPECT_EQ(find_conda_mapping("python")->role, CondaRole::interpreter);
    EXPECT_EQ(find_conda_mapping("cudatoolkit")->role, CondaRole::backend);
    EXPECT_EQ(find_conda_mapping("cudatoolkit")->backend, "");
    EXPECT_EQ(find_conda_mapping("cpuonly")->backend, "cpu");
    EXPECT_EQ(find_conda_mapping("openssl")->role, CondaRole::provided);
    EXPECT_EQ(find_conda_mapping("openssl")->note, "provided by the interpreter");
    EXPECT_EQ(find_conda_mapping("pip")->role, CondaRole::provided);
    EXPECT_EQ(find_conda_mapping("setuptools")->role, CondaRole::pypi);
    EXPECT_EQ(find_conda_mapping("ffmpeg")->role, CondaRole::unmappable);
    // Prefix rows: the longest wins, exact rows win over them.
    EXPECT_EQ(find_conda_mapping("cuda-nvrtc")->conda_name, "cuda-*");
    EXPECT_EQ(find_conda_mapping("libcublas-dev")->conda_name, "libcublas*");
    EXPECT_EQ(find_conda_mapping("cuda-version")->role, CondaRole::backend);
    EXPECT_EQ(find_conda_mapping("cuda-nvcc")->role, CondaRole::unmappable);
    EXPECT_EQ(find_conda_mapping("numpy"), nullptr);
}

TEST(CondaMappings, TableProblemsAreLocated) {
    auto duplicate = parse_conda_mappings(
        "format: 1\npypi: {a: b}\ninterpreter: [python]\nbackend: []\n"
        "provided:\n  - note: x\n    names: [zlib, a]\nunmappable: []\n",
        "t.yaml");
    ASSERT_FALSE(duplicate);
    EXPECT_EQ(duplicate.error(), "t.yaml:7:19: conda name 'a' is listed twice");

    auto bad_name = parse_conda_mappings(
        "format: 1\npypi: {a: 'not a name'}\ninterpreter: []\nbackend: []\nprovided: []\n"
        "unmappable: []\n",
        "t.yaml");
    ASSERT_FALSE(bad_name);
    EXPECT_EQ(bad_name.error(), "t.yaml:2:11: 'not a name' is not a PyPI name");

    auto unknown = parse_conda_mappings("format: 1\nrenames: {}\n", "t.yaml");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error(),
              "t.yaml:2:1: unknown key 'renames' (expected format, pypi, interpreter, backend, "
              "provided, unmappable)");
}

// --- versions
// -------------------------------------------------------------------------------------

TEST(CondaVersions, ToPep440Specifiers) {
    std::vector<std::pair<std::string, std::string>> cases{
        {"1.9.0", "==1.9.0"},
        {"1.9.*", "==1.9.*"},
        {"1.9*", "==1.9.*"},
        {">=1.2", ">=1.2"},
        {">=1.2,<2", ">=1.2,<2"},
        {"1!2.0", "==1!2.0"},
        {"==1.0", "==1.0"},
        {"!=1.5.*", "!=1.5.*"},
        {">=1.2.*", ">=1.2"},
        {"", ""},
        {"*", ""},
        {"2021.7.5", "==2021.7.5"},
        {"1.0.0_1", "==1.0.0.1"},
        {"3.0.0a", "==3.0.0a"},
        {"=1.4", "==1.4.*"},
        {"~=2.1", "~=2.1"},
        {"3.10.0.2", "==3.10.0.2"},
        {"4.7.4.post0", "==4.7.4.post0"},
    };
    for (const auto& [conda, pep440] : cases) {
        auto converted = conda_version_to_specifier(conda);
        ASSERT_TRUE(converted) << conda << ": " << converted.error();
        EXPECT_EQ(*converted, pep440) << conda;
    }
    EXPECT_EQ(conda_version_to_specifier("1.1.1l").error(), "'1.1.1l' is not a PEP 440 version");
    EXPECT_EQ(conda_version_to_specifier("1.2|1.3").error(),
              "'1.2|1.3' allows one version or another ('|'), which a PEP 440 specifier cannot "
              "say");
    EXPECT_EQ(conda_version_to_specifier("~=2").error(),
              "'~=2' gives '~=2', which is not a PEP 440 specifier: "
              "'~=' needs a version with at least two release numbers, such as '~=1.4' "
              "(meaning >=1.4, ==1.*)");
}

// --- reading ------------------------------------------------------------------------------------

TEST(CondaEnvironmentFile, SpecForms) {
    auto env = parse_ok(
        "name: demo\n"
        "channels: [pytorch, conda-forge]\n"
        "dependencies:\n"
        "  - numpy=1.19\n"
        "  - absl-py=0.13.0=py36h06a4308_0\n"
        "  - scipy==1.5.3\n"
        "  - pandas>=1.2,<2\n"
        "  - conda-forge::Pillow=8.3.1\n"
        "  - x264=1!157.20191217=h7b6447c_0\n"
        "  - tqdm 4.62.2 pyhd3eb1b0_1\n"
        "  - h5py[version='>=3.1',build=py*]\n"
        "  - six\n"
        "  - \"idna=3.*\"\n");
    EXPECT_EQ(env.name, "demo");
    EXPECT_EQ(env.channels, (std::vector<std::string>{"pytorch", "conda-forge"}));
    ASSERT_EQ(env.conda.size(), 10u);
    auto row = [&](std::size_t i) {
        const CondaSpec& s = env.conda[i];
        return s.channel + "|" + s.name + "|" + s.version + "|" + s.build;
    };
    EXPECT_EQ(row(0), "|numpy|1.19.*|");
    EXPECT_EQ(row(1), "|absl-py|0.13.0|py36h06a4308_0");
    EXPECT_EQ(row(2), "|scipy|1.5.3|");
    EXPECT_EQ(row(3), "|pandas|>=1.2,<2|");
    EXPECT_EQ(row(4), "conda-forge|pillow|8.3.1.*|");
    EXPECT_EQ(row(5), "|x264|1!157.20191217|h7b6447c_0");
    EXPECT_EQ(row(6), "|tqdm|4.62.2|pyhd3eb1b0_1");
    EXPECT_EQ(row(7), "|h5py|>=3.1|py*");
    EXPECT_EQ(row(8), "|six||");
    EXPECT_EQ(row(9), "|idna|3.*|");
    EXPECT_EQ(env.conda[1].text, "absl-py=0.13.0=py36h06a4308_0");
    EXPECT_EQ(env.conda[1].where, (SourceLocation{"env.yml", 5, 5}));
    EXPECT_EQ(env.conda[9].where, (SourceLocation{"env.yml", 13, 5}));
}

TEST(CondaEnvironmentFile, PipSectionVariablesAndPrefix) {
    RequirementsReadOptions options;
    options.read =
        [](const std::filesystem::path& path) -> util::Expected<std::string, std::string> {
        if (path.generic_string() == "/proj/reqs/extra.txt") return std::string("extra==1\n");
        return util::Unexpected(std::string("No such file or directory"));
    };
    auto env = parse_ok(
        "name: demo\n"
        "dependencies:\n"
        "  - python=3.10\n"
        "  - pip:\n"
        "    - --extra-index-url https://download.pytorch.org/whl/cu121\n"
        "    - torch==2.1.0\n"
        "    - -r reqs/extra.txt\n"
        "    - \"pkg @ https://example.com/pkg-1.0.tar.gz#sha256=" +
            std::string(64, 'a') +
            "\"\n"
            "variables:\n"
            "  CUDA_MODULE_LOADING: LAZY\n"
            "  EMPTY:\n"
            "prefix: /opt/conda/envs/demo",
        options);
    EXPECT_EQ(env.pip.options.extra_index_urls,
              (std::vector<std::string>{"https://download.pytorch.org/whl/cu121"}));
    EXPECT_EQ(texts(env.pip.requirements),
              (std::vector<std::string>{
                  "torch==2.1.0", "extra==1",
                  "pkg @ https://example.com/pkg-1.0.tar.gz#sha256=" + std::string(64, 'a')}));
    EXPECT_EQ(env.pip.requirements[0].where, (SourceLocation{"env.yml", 6, 7}));
    EXPECT_EQ(env.pip.requirements[1].where, (SourceLocation{"/proj/reqs/extra.txt", 1, 1}));
    EXPECT_EQ(env.pip.requirements[2].hashes,
              (std::vector<std::string>{"sha256:" + std::string(64, 'a')}));
    EXPECT_EQ(env.pip.files, (std::vector<std::filesystem::path>{"/proj/reqs/extra.txt"}));
    EXPECT_EQ(env.variables,
              (std::map<std::string, std::string>{{"CUDA_MODULE_LOADING", "LAZY"}, {"EMPTY", ""}}));
    EXPECT_EQ(env.prefix, "/opt/conda/envs/demo");
}

TEST(CondaEnvironmentFile, ProblemsAreLocated) {
    auto yaml = parse_error("name: x\ndependencies:\n  - numpy\n - scipy\n");
    EXPECT_EQ(yaml.where.line, 4u);
    EXPECT_EQ(yaml.message.rfind("invalid YAML: ", 0), 0u) << yaml.message;

    EXPECT_EQ(parse_error("").describe(), "env.yml: the file is empty");
    EXPECT_EQ(parse_error("- a\n- b\n").describe(),
              "env.yml:1:1: expected a mapping with name, channels and dependencies");
    EXPECT_EQ(parse_error("name: x\nchannels: [a]\n").describe(),
              "env.yml: no `dependencies:` list");
    EXPECT_EQ(parse_error("dependencies:\n  - npm:\n    - left-pad\n").describe(),
              "env.yml:2:5: unknown installer 'npm'");
    EXPECT_EQ(parse_error("dependencies:\n  - pip:\n    - {a: 1}\n").describe(),
              "env.yml:3:7: a pip item must be a string");
    EXPECT_EQ(parse_error("dependencies:\n  - num/py=1\n").describe(),
              "env.yml:2:8: invalid conda dependency 'num/py=1': 'num/py' is not a conda package "
              "name");

    auto pip = parse_error("dependencies:\n  - pip:\n    - numpy\n    - torch=2.0\n");
    EXPECT_EQ(pip.where, (SourceLocation{"env.yml", 4, 12}));
    EXPECT_EQ(pip.hint, "= is not a valid operator. Did you mean == ?");
}

// --- import
// ---------------------------------------------------------------------------------------

TEST(CondaImportTest, RenamesInterpreterBackendAndNotes) {
    auto imported = import_ok(
        "dependencies:\n"
        "  - python=3.8.5=h7579374_1\n"
        "  - pytorch=1.9.0=py3.8_cuda10.2_cudnn7.6.5_0\n"
        "  - cudatoolkit=11.8.0=h6a678d5_0\n"
        "  - pytorch-cuda=12.1=ha16c6d3_5\n"
        "  - py-opencv=4.5.3=py38h1234567_0\n"
        "  - matplotlib=3.3.4=py38h06a4308_0\n"
        "  - matplotlib-base=3.3.4=py38h62a2d02_0\n"
        "  - openssl=1.1.1k=h27cfd23_0\n"
        "  - cuda-nvrtc=12.1.105=0\n"
        "  - pip=23.2.1=py38h06a4308_0\n"
        "  - newthing=0.1=pypi_0\n"
        "  - handwritten\n");
    EXPECT_EQ(imported.python, "3.8.5");
    EXPECT_EQ(imported.backend, "cu121");
    EXPECT_EQ(texts(imported.requirements),
              (std::vector<std::string>{"torch==1.9.0", "opencv-python==4.5.3", "matplotlib==3.3.4",
                                        "newthing==0.1", "handwritten"}));
    EXPECT_EQ(imported.requirements[0].where, (SourceLocation{"env.yml", 3, 5}));
    EXPECT_EQ(imported.notes,
              (std::vector<std::string>{
                  "pytorch-cuda=12.1 selects the cu121 backend",
                  "cudatoolkit=11.8.0 overrides pytorch=1.9.0=py3.8_cuda10.2_cudnn7.6.5_0",
                  "pytorch-cuda=12.1 overrides cudatoolkit=11.8.0",
                  "skipped openssl=1.1.1k: provided by the interpreter",
                  "skipped cuda-nvrtc=12.1.105: part of the CUDA runtime that PyTorch wheels "
                  "bundle",
                  "skipped pip=23.2.1: installed into every environment"}));
}

TEST(CondaImportTest, BackendsFromSelectorsAndBuildStrings) {
    EXPECT_EQ(import_ok("dependencies: [cudatoolkit=10.2.89=hfd86e86_1]\n").backend, "cu102");
    EXPECT_EQ(import_ok("dependencies: [cudatoolkit=11.8]\n").backend, "cu118");
    EXPECT_EQ(import_ok("dependencies: [pytorch, cpuonly]\n").backend, "cpu");
    EXPECT_EQ(import_ok("dependencies: [pytorch=1.12.1=py3.9_cuda11.3_cudnn8.3.2_0]\n").backend,
              "cu113");
    EXPECT_EQ(import_ok("dependencies: [pytorch=2.0.0=cuda112py39h1234567_200]\n").backend,
              "cu112");
    EXPECT_EQ(import_ok("dependencies: [pytorch=1.9.0=py3.9_cpu_0]\n").backend, "cpu");
    auto unversioned = import_ok("dependencies: [pytorch-cuda]\n");
    EXPECT_FALSE(unversioned.backend);
    EXPECT_EQ(
        unversioned.notes,
        (std::vector<std::string>{
            "pytorch-cuda names no CUDA MAJOR.MINOR version; the backend is left to detection"}));
}

TEST(CondaImportTest, PythonVersionForms) {
    EXPECT_EQ(import_ok("dependencies: [python=3.10]\n").python, "3.10");
    EXPECT_EQ(import_ok("dependencies: [python=3.6.13=h12debd9_1]\n").python, "3.6.13");
    EXPECT_EQ(import_ok("dependencies: ['python>=3.8,<3.11']\n").python, ">=3.8,<3.11");
    EXPECT_FALSE(import_ok("dependencies: [python]\n").python);
}

TEST(CondaImportTest, PipItemsReplaceCondaPackagesAndFollowThem) {
    RequirementsReadOptions options;
    options.read = [](const std::filesystem::path&) -> util::Expected<std::string, std::string> {
        return std::string("six<2\n");
    };
    auto env = parse_conda_environment(
        "dependencies:\n  - numpy=1.19.5=py38h1\n  - six=1.16.0=pyhd3eb1b0_0\n  - pip:\n"
        "    - numpy==1.24.4\n    - -c constraints.txt\n    - --pre\n",
        "env.yml", "/proj", options);
    ASSERT_TRUE(env) << env.error().describe();
    auto result = import_conda_environment(*env, false);
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_EQ(texts(result->requirements),
              (std::vector<std::string>{"six==1.16.0", "numpy==1.24.4"}));
    EXPECT_EQ(texts(result->constraints), (std::vector<std::string>{"six<2"}));
    EXPECT_TRUE(result->pip_options.pre);
    EXPECT_EQ(result->notes,
              (std::vector<std::string>{"numpy==1.19.5 from conda (line 2) gives way to the pip "
                                        "item for numpy (pip installs after conda)"}));
}

TEST(CondaImportTest, UnmappedNamesInOneProblemOrSkipped) {
    const std::string yaml =
        "dependencies:\n"
        "  - numpy=1.19.5=py38h1\n"
        "  - git=2.40.1=h1234567_0\n"
        "  - libfoo=1.0=h0000000_1\n"
        "  - ffmpeg\n";
    auto env = parse_ok(yaml);
    auto refused = import_conda_environment(env, false);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().describe(),
              "env.yml:3:5: 3 conda packages have no PyPI equivalent:\n"
              "  git=2.40.1=h1234567_0 (line 3): a program, not a Python package; install it with "
              "the system's package manager\n"
              "  libfoo=1.0=h0000000_1 (line 4)\n"
              "  ffmpeg (line 5): a program, not a Python package; install it with the system's "
              "package manager");
    EXPECT_EQ(refused.error().hint,
              "install them another way (the system's package manager) and pass "
              "--skip-unmapped to import the rest");

    auto skipped = import_conda_environment(env, true);
    ASSERT_TRUE(skipped) << skipped.error().describe();
    EXPECT_EQ(texts(skipped->requirements), (std::vector<std::string>{"numpy==1.19.5"}));
    ASSERT_EQ(skipped->unmapped.size(), 3u);
    EXPECT_EQ(skipped->unmapped[1].name, "libfoo");
    EXPECT_EQ(skipped->notes[1], "skipped libfoo=1.0 (line 4): no PyPI equivalent");
}

TEST(CondaImportTest, UnusableVersionNamesTheLine) {
    auto env = parse_ok("dependencies:\n  - six=1.16.0\n  - weird=1.1.1l=py38_0\n");
    auto imported = import_conda_environment(env, false);
    ASSERT_FALSE(imported);
    EXPECT_EQ(imported.error().describe(),
              "env.yml:3:5: the version of weird cannot be used: '1.1.1l' is not a PEP 440 "
              "version");
    EXPECT_EQ(imported.error().hint,
              "pin weird with a PEP 440 version in the `pip:` list instead, or drop the version");
}

// --- real files -------------------------------------------------------------------------------

TEST(CondaRealWorld, LamaExport) {
    auto env = read_conda_environment(test::data_path("realworld/advimman_lama/conda_env.yml"));
    ASSERT_TRUE(env) << env.error().describe();
    EXPECT_EQ(env->name, "lama");
    EXPECT_EQ(env->channels, (std::vector<std::string>{"defaults", "conda-forge"}));
    EXPECT_EQ(env->conda.size(), 150u);
    EXPECT_EQ(env->pip.requirements.size(), 9u);
    auto x264 = std::find_if(env->conda.begin(), env->conda.end(),
                             [](const CondaSpec& s) { return s.name == "x264"; });
    ASSERT_NE(x264, env->conda.end());
    EXPECT_EQ(x264->version, "1!157.20191217");
    EXPECT_EQ(x264->build, "h7b6447c_0");

    auto refused = import_conda_environment(*env, false);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().where.line, 38u);
    EXPECT_EQ(refused.error().message,
              "1 conda package has no PyPI equivalent:\n  ffmpeg=4.2.2=h20bf706_0 (line 38): a "
              "program, not a Python package; install it with the system's package manager");

    auto imported = import_conda_environment(*env, true);
    ASSERT_TRUE(imported) << imported.error().describe();
    EXPECT_EQ(imported->python, "3.6.13");
    EXPECT_EQ(imported->backend, "cu102");
    ASSERT_EQ(imported->requirements.size(), 92u);
    auto find = [&](const std::string& name) -> const RequirementLine* {
        for (const auto& line : imported->requirements) {
            if (line.name() == name) return &line;
        }
        return nullptr;
    };
    EXPECT_EQ(find("antlr4-python3-runtime")->text, "antlr4-python3-runtime==4.8");
    EXPECT_EQ(find("antlr4-python3-runtime")->where.line, 10u);
    EXPECT_EQ(find("dask")->text, "dask==1.1.4");
    EXPECT_EQ(find("pyqt5")->text, "pyqt5==5.9.2");
    EXPECT_EQ(find("typing-extensions")->text, "typing-extensions==3.10.0.2");
    EXPECT_EQ(find("setuptools")->text, "setuptools==58.0.4");
    EXPECT_EQ(find("pip"), nullptr);
    EXPECT_EQ(find("openssl"), nullptr);
    EXPECT_EQ(std::count_if(imported->requirements.begin(), imported->requirements.end(),
                            [](const RequirementLine& l) { return l.name() == "matplotlib"; }),
              1);
    const RequirementLine& last = imported->requirements.back();
    EXPECT_EQ(last.text, "wldhx-yadisk-direct==0.0.6");
    EXPECT_EQ(last.where.line, 165u);
    EXPECT_EQ(last.where.column, 7u);
    EXPECT_EQ(imported->notes.front(), "cudatoolkit=10.2.89 selects the cu102 backend");
    EXPECT_TRUE(has(imported->notes, "skipped openssl=1.1.1l: provided by the interpreter"));
    EXPECT_TRUE(has(imported->notes,
                    "skipped x264=1!157.20191217: a native library that the "
                    "wheels needing it bundle"));
    EXPECT_TRUE(has(imported->notes,
                    "skipped mkl=2021.3.0: a math library that numpy, scipy and torch wheels "
                    "bundle"));
    EXPECT_EQ(imported->notes.back(),
              "skipped ffmpeg=4.2.2 (line 38): no PyPI equivalent: a program, not a Python "
              "package; install it with the system's package manager");
    EXPECT_EQ(imported->notes.size(), 64u);
}

TEST(CondaRealWorld, MagicAnimateExportWithPrefixAndNoFinalNewline) {
    auto env = read_conda_environment(
        test::data_path("realworld/magic-research_magic-animate/environment.yaml"));
    ASSERT_TRUE(env) << env.error().describe();
    EXPECT_EQ(env->name, "manimate");
    EXPECT_EQ(env->prefix, "/home/tiger/miniconda3/envs/manimate");
    EXPECT_EQ(env->channels, (std::vector<std::string>{"conda-forge", "defaults"}));

    auto imported = import_conda_environment(*env, false);
    ASSERT_TRUE(imported) << imported.error().describe();
    EXPECT_EQ(imported->python, "3.8.5");
    EXPECT_FALSE(imported->backend);  // torch==2.0.1 comes from PyPI via pip
    ASSERT_EQ(imported->requirements.size(), 160u);
    EXPECT_EQ(imported->requirements.front().text, "asttokens==2.2.1");
    auto count = [&](const std::string& name) {
        return std::count_if(imported->requirements.begin(), imported->requirements.end(),
                             [&](const RequirementLine& l) { return l.name() == name; });
    };
    EXPECT_EQ(count("prompt-toolkit"), 1);
    EXPECT_EQ(count("typing-extensions"), 1);
    EXPECT_EQ(count("backports"), 0);
    auto decord = std::find_if(imported->requirements.begin(), imported->requirements.end(),
                               [](const RequirementLine& l) { return l.name() == "decord"; });
    ASSERT_NE(decord, imported->requirements.end());
    EXPECT_TRUE(decord->requirement->specifier().empty());
    EXPECT_EQ(decord->where, (SourceLocation{env->file, 175, 9}));
    EXPECT_EQ(imported->requirements.back().text, "diffusers==0.21.4");
    EXPECT_EQ(imported->requirements.back().where.line, 188u);
    EXPECT_EQ(imported->notes.size(), 20u);
    EXPECT_TRUE(has(imported->notes,
                    "skipped backports=1.0: the backports namespace, which each backports.* "
                    "package brings"));
    EXPECT_TRUE(has(imported->notes,
                    "skipped zeromq=4.3.4: a native library that the wheels needing it bundle"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
