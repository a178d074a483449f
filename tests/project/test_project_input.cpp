#include "aitk/project/project_input.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::project;
namespace fs = std::filesystem;

Target target(std::string_view id) {
    return *Target::parse(id);
}

Manifest builtin() {
    auto m = parse_manifest(builtin_manifest_text(), builtin_manifest_name());
    EXPECT_TRUE(m) << (m ? "" : m.error().describe());
    return m ? std::move(*m) : Manifest{};
}

Manifest manifest(std::string_view yaml) {
    auto m = parse_manifest(yaml, "m.yaml");
    EXPECT_TRUE(m) << (m ? "" : m.error().describe());
    return m ? std::move(*m) : Manifest{};
}

ProjectInput input(const Manifest& m, const std::optional<fs::path>& project = std::nullopt,
                   const RequirementsReadOptions& options = {}) {
    auto in = from_manifest(m, project, options);
    EXPECT_TRUE(in) << (in ? "" : in.error().describe());
    return in ? std::move(*in) : ProjectInput{};
}

std::vector<std::string> names(const std::vector<const InputRequirement*>& list) {
    std::vector<std::string> out;
    for (const auto* r : list)
        out.push_back(r->line.name());
    return out;
}

bool has(const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string> backend_names(const std::vector<const BackendOption*>& list) {
    std::vector<std::string> out;
    for (const auto* b : list)
        out.push_back(b->name);
    return out;
}

TEST(FromManifest, BuiltinCarriesTheManifestsChoices) {
    Manifest m = builtin();
    ProjectInput in = input(m);
    EXPECT_EQ(in.name, "ai-toolkit");
    EXPECT_EQ(in.python_requires, ">=3.10,<3.13");
    EXPECT_EQ(in.python_preferred, "3.12");
    EXPECT_EQ(in.torch_packages.at("torch"), "==2.13.0");
    EXPECT_EQ(in.torch_packages.at("torchvision"), "==0.28.0");
    EXPECT_EQ(in.torch_packages.at("torchaudio"), "==2.11.0");
    EXPECT_EQ(in.default_targets.size(), 6u);
    EXPECT_FALSE(in.torch_index_url);
    EXPECT_TRUE(in.constraints.empty());
    ASSERT_EQ(in.hashed_inputs.size(), 1u);
    EXPECT_EQ(in.hashed_inputs[0].first, "manifest");
    EXPECT_EQ(in.hashed_inputs[0].second, builtin_manifest_text());
    // 42 inline lines and triton-windows.
    ASSERT_EQ(in.requirements.size(), 43u);
    const auto& diffusers = in.requirements[2].line;
    EXPECT_EQ(diffusers.name(), "diffusers");
    ASSERT_TRUE(diffusers.vcs);
    EXPECT_EQ(diffusers.vcs->revision, "c943837899b16cbae2f619b8dd4f7bb6f07dd81a");
    EXPECT_TRUE(diffusers.vcs->revision_is_commit());
    EXPECT_EQ(diffusers.where.file, "ai-toolkit.yaml");
    EXPECT_EQ(diffusers.where.line, m.requirements[2].where.line);
    EXPECT_EQ(diffusers.where.column, 5u);
}

TEST(FromManifest, RequirementsPerTarget) {
    ProjectInput in = input(builtin());
    auto windows_cuda = names(in.requirements_for(target("windows-x86_64-cu130")));
    EXPECT_EQ(windows_cuda.size(), 43u);
    EXPECT_EQ(windows_cuda.back(), "triton-windows");
    auto windows_cpu = names(in.requirements_for(target("windows-x86_64-cpu")));
    EXPECT_EQ(windows_cpu.size(), 42u);
    EXPECT_FALSE(has(windows_cpu, "triton-windows"));
    auto linux = names(in.requirements_for(target("linux-x86_64-cu126")));
    EXPECT_EQ(linux.size(), 42u);
    EXPECT_FALSE(has(linux, "triton-windows"));
    EXPECT_TRUE(has(linux, "scipy"));
    EXPECT_FALSE(has(names(in.requirements_for(target("macos-arm64-mps"))), "triton-windows"));
    EXPECT_TRUE(in.constraints_for(target("linux-x86_64-cu126")).empty());
}

TEST(FromManifest, EnvironmentPerTarget) {
    ProjectInput in = input(builtin());
    using Vars = std::map<std::string, std::string>;
    EXPECT_EQ(in.environment_for(target("linux-x86_64-cu130")),
              (Vars{{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}}));
    EXPECT_EQ(in.environment_for(target("windows-x86_64-cu126")),
              (Vars{{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}}));
    EXPECT_EQ(
        in.environment_for(target("macos-arm64-mps")),
        (Vars{{"PYTORCH_ENABLE_MPS_FALLBACK", "1"}, {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}}));
    EXPECT_EQ(in.environment_for(target("linux-x86_64-cpu")), Vars{});
    EXPECT_EQ(in.environment_for(target("linux-x86_64-rocm7.1")), Vars{});
}

TEST(FromManifest, LaterEnvironmentEntriesWin) {
    ProjectInput in =
        input(manifest("name: x\nenvironment:\n"
                       "  - {name: A, value: everywhere}\n"
                       "  - {name: A, value: on-windows, os: [windows]}\n"
                       "  - {name: B, value: cu126-only, backends: [cu126]}\n"));
    using Vars = std::map<std::string, std::string>;
    EXPECT_EQ(in.environment_for(target("linux-x86_64-cu126")),
              (Vars{{"A", "everywhere"}, {"B", "cu126-only"}}));
    EXPECT_EQ(in.environment_for(target("windows-x86_64-cu130")), (Vars{{"A", "on-windows"}}));
}

TEST(FromManifest, BackendsPerPlatform) {
    ProjectInput in = input(builtin());
    using Names = std::vector<std::string>;
    EXPECT_EQ(backend_names(in.backends_for("linux", "x86_64")),
              (Names{"cu130", "cu126", "rocm7.1", "cpu"}));
    EXPECT_EQ(backend_names(in.backends_for("windows", "x86_64")),
              (Names{"cu130", "cu126", "cpu"}));
    EXPECT_EQ(backend_names(in.backends_for("macos", "arm64")), (Names{"mps", "cpu"}));
    EXPECT_EQ(backend_names(in.backends_for("macos", "x86_64")), (Names{"cpu"}));
    EXPECT_EQ(backend_names(in.backends_for("linux", "aarch64")), (Names{"cu130", "cu126", "cpu"}));
    EXPECT_EQ(backend_names(in.backends_for("windows", "aarch64")), (Names{"cpu"}));
    auto linux = in.backends_for("linux", "x86_64");
    EXPECT_EQ(linux[1]->refuse_compute_capability, ">=10.0");  // cu126: not on Blackwell
    EXPECT_FALSE(linux[1]->note.empty());
    EXPECT_TRUE(linux[0]->refuse_compute_capability.empty());
    EXPECT_TRUE(linux[2]->experimental);
}

// AI Toolkit's layout: requirements.txt includes requirements_base.txt.
struct ProjectDir {
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("aitk-project-input");
    ProjectDir() {
        aitk::fs::write_file_atomic(dir.path() / "requirements.txt",
                                    "-r requirements_base.txt\nscipy==1.12.0\n");
        aitk::fs::write_file_atomic(
            dir.path() / "requirements_base.txt",
            "torchao==0.10.0\nsafetensors\n"
            "git+https://github.com/huggingface/diffusers.git@"
            "c943837899b16cbae2f619b8dd4f7bb6f07dd81a\n"
            "#pip install git+https://github.com/huggingface/diffusers.git@refs/pull/13432/head\n"
            "transformers==5.5.3\n--extra-index-url https://mirror.example.org/simple\n");
    }
    const fs::path& path() const { return dir.path(); }
};

TEST(FromManifest, ProjectDirectoryReplacesTheInlineList) {
    ProjectDir project;
    ProjectInput in = input(builtin(), project.path());
    std::vector<std::string> texts;
    for (const auto& r : in.requirements)
        texts.push_back(r.line.text);
    EXPECT_EQ(texts,
              (std::vector<std::string>{"torchao==0.10.0", "safetensors",
                                        "git+https://github.com/huggingface/diffusers.git@"
                                        "c943837899b16cbae2f619b8dd4f7bb6f07dd81a",
                                        "transformers==5.5.3", "scipy==1.12.0", "triton-windows"}));
    // The bare VCS line names no project; its commit is still known.
    EXPECT_EQ(in.requirements[2].line.name(), "");
    ASSERT_TRUE(in.requirements[2].line.vcs);
    EXPECT_EQ(in.requirements[2].line.where.line, 3u);
    EXPECT_EQ(in.requirements[4].line.where.line, 2u);
    EXPECT_TRUE(in.requirements[0].when.everywhere());
    EXPECT_EQ(in.requirements[5].when.os, std::vector<std::string>{"windows"});
    EXPECT_EQ(in.options.extra_index_urls,
              std::vector<std::string>{"https://mirror.example.org/simple"});
    // The manifest's pins and variables stay.
    EXPECT_EQ(in.torch_packages.at("torch"), "==2.13.0");
    EXPECT_EQ(in.environment_for(target("macos-arm64-mps")).size(), 2u);

    ASSERT_EQ(in.hashed_inputs.size(), 2u);
    EXPECT_EQ(in.hashed_inputs[0].first, "manifest");
    EXPECT_EQ(in.hashed_inputs[1].first, "project:requirements.txt");
    EXPECT_EQ(in.hashed_inputs[1].second,
              "torchao==0.10.0\nsafetensors\ngit+https://github.com/huggingface/diffusers.git@"
              "c943837899b16cbae2f619b8dd4f7bb6f07dd81a\ntransformers==5.5.3\nscipy==1.12.0\n"
              "--extra-index-url https://mirror.example.org/simple\n");
}

TEST(FromManifest, ProjectDirectoryProblems) {
    auto empty = aitk::fs::TempDir::create("aitk-project-input");
    auto missing = from_manifest(builtin(), empty.path());
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().describe().find("requirements.txt"), std::string::npos)
        << missing.error().describe();

    auto none = from_manifest(manifest("name: x\n"), empty.path());
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().describe(),
              "m.yaml: the manifest lists no project_requirement_files, so --project has nothing "
              "to read");
    EXPECT_EQ(none.error().hint,
              "add project_requirement_files: [requirements.txt] to the manifest, or leave out "
              "--project");
}

TEST(FromManifest, OptionsFromIndexesAndLines) {
    Manifest m = manifest(
        "name: x\n"
        "indexes:\n"
        "  index_url: https://pypi.example.org/simple\n"
        "  extra_index_urls: [https://one.example.org/simple]\n"
        "  torch_index_url: https://torch.example.org/whl\n"
        "requirements:\n"
        "  - --pre\n"
        "  - --extra-index-url ${MIRROR}/simple\n"
        "  - numpy\n");
    RequirementsReadOptions options;
    options.environment = {{"MIRROR", "https://two.example.org"}};
    ProjectInput in = input(m, std::nullopt, options);
    EXPECT_EQ(in.options.index_url, "https://pypi.example.org/simple");
    EXPECT_EQ(in.options.extra_index_urls,
              (std::vector<std::string>{"https://one.example.org/simple",
                                        "https://two.example.org/simple"}));
    EXPECT_TRUE(in.options.pre);
    EXPECT_EQ(in.torch_index_url, "https://torch.example.org/whl");
    ASSERT_EQ(in.requirements.size(), 1u);
    EXPECT_EQ(in.requirements[0].line.where, (SourceLocation{"m.yaml", 9, 5}));
}

TEST(FromRequirements, KeepsEveryLineAndCopiesTorchPins) {
    RequirementsReadOptions options;
    options.read = [](const fs::path& p) -> aitk::util::Expected<std::string, std::string> {
        if (p.filename() == "c.txt") return std::string("numpy<2\n");
        return aitk::util::Unexpected<std::string>(std::string("no such file"));
    };
    auto file = parse_requirements_text(
        "torch==2.5.1\n"
        "torchvision>=0.20 ; sys_platform == 'linux'\n"
        "torchaudio\n"
        "numpy\n"
        "-c c.txt\n",
        "/nowhere/reqs.txt", options);
    ASSERT_TRUE(file) << file.error().describe();
    ProjectInput in = from_requirements(*file, "reqs");
    EXPECT_EQ(in.name, "reqs");
    EXPECT_EQ(in.requirements.size(), 4u);
    ASSERT_EQ(in.constraints.size(), 1u);
    EXPECT_EQ(in.constraints[0].line.text, "numpy<2");
    EXPECT_EQ(in.constraints_for(target("linux-x86_64-cpu")).size(), 1u);
    EXPECT_EQ(in.torch_packages,
              (std::map<std::string, std::string>{{"torch", "==2.5.1"}, {"torchaudio", ""}}));
    EXPECT_TRUE(in.python_requires.empty());
    EXPECT_TRUE(in.backends.empty());
    EXPECT_EQ(in.requirements_for(target("windows-x86_64-cu126")).size(), 4u);
    ASSERT_EQ(in.hashed_inputs.size(), 1u);
    EXPECT_EQ(in.hashed_inputs[0].first, "requirements");
    EXPECT_EQ(in.hashed_inputs[0].second,
              "torch==2.5.1\ntorchvision>=0.20 ; sys_platform == 'linux'\ntorchaudio\nnumpy\n"
              "-c numpy<2\n");
}

// Comments and layout do not decide the lock; the lines, expanded variables and options do.
TEST(FromRequirements, HashCoversWhatDecidesTheLock) {
    auto hashed = [](std::string_view text, const aitk::util::Environment& env = {}) {
        RequirementsReadOptions options;
        options.environment = env;
        auto file = parse_requirements_text(text, "/nowhere/r.txt", options);
        EXPECT_TRUE(file) << text;
        return file ? from_requirements(*file, "r").hashed_inputs
                    : decltype(ProjectInput::hashed_inputs){};
    };
    EXPECT_EQ(hashed("numpy\n"), hashed("# pinned below\nnumpy   # the array library\n"));
    EXPECT_NE(hashed("numpy\n"), hashed("numpy\n--pre\n"));
    EXPECT_NE(hashed("numpy==${V}\n", {{"V", "1.0"}}), hashed("numpy==${V}\n", {{"V", "2.0"}}));
}

TEST(FromRequirements, ReadsIncludedFiles) {
    ProjectDir project;
    auto file = read_requirements_file(project.path() / "requirements.txt");
    ASSERT_TRUE(file) << file.error().describe();
    ProjectInput in = from_requirements(*file, "requirements");
    EXPECT_EQ(in.requirements.size(), 5u);
    EXPECT_EQ(in.options.extra_index_urls,
              std::vector<std::string>{"https://mirror.example.org/simple"});
    EXPECT_EQ(in.torch_packages.size(), 0u);
}

TEST(FromConda, CarriesTheImport) {
    auto pip = parse_requirements_text("torch==1.8.0\nalbumentations==0.5.2\n", "/nowhere/env.yml");
    ASSERT_TRUE(pip) << pip.error().describe();
    CondaEnvironment env;
    env.file = "/nowhere/env.yml";
    env.name = "lama";
    env.pip.constraints = {};
    CondaImport import;
    import.python = "3.6.13";
    import.backend = "cu102";
    import.requirements = pip->requirements;
    import.notes = {"skipped openssl=1.1.1k: provided by the interpreter"};
    import.variables = {{ "LAMA_HOME", "/opt/lama" }};
    ProjectInput in = from_conda(import, env);
    EXPECT_EQ(in.name, "lama");
    EXPECT_EQ(in.python_requires, "==3.6.*");
    EXPECT_EQ(in.python_preferred, "3.6.13");  // the snapshot's exact interpreter
    ASSERT_EQ(in.backends.size(), 1u);
    EXPECT_EQ(in.backends[0].name, "cu102");
    EXPECT_EQ(in.requirements.size(), 2u);
    EXPECT_EQ(in.torch_packages, (std::map<std::string, std::string>{{"torch", "==1.8.0"}}));
    EXPECT_EQ(in.notes, import.notes);
    EXPECT_EQ(in.environment_for(target("linux-x86_64-cu126")),
              (std::map<std::string, std::string>{{"LAMA_HOME", "/opt/lama"}}));
    ASSERT_EQ(in.hashed_inputs.size(), 1u);
    EXPECT_EQ(in.hashed_inputs[0].first, "environment");
    EXPECT_EQ(in.hashed_inputs[0].second,
              "torch==1.8.0\nalbumentations==0.5.2\nLAMA_HOME=/opt/lama\n");

    env.name.clear();
    import.python.reset();
    import.backend.reset();
    ProjectInput unnamed = from_conda(import, env);
    EXPECT_EQ(unnamed.name, "env");
    EXPECT_TRUE(unnamed.python_requires.empty());
    EXPECT_TRUE(unnamed.backends.empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
