// The built-in AI Toolkit manifest locked end to end: a mirror that offers every project it names
// (the torch family on pytorch-style backend indexes, the rest on a PyPI-style index), then
// `lock` with no input and no target, as a user on a fresh machine would run it.
#include <gtest/gtest.h>

#include <set>

#include "../index/index_test_support.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/project/manifest.hpp"
#include "app_calls.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

// One pure wheel per requirement of the manifest, at its pinned version (else 1.0.0), and the
// torch family for every backend the default targets use.
void build_ai_toolkit_mirror(const std::filesystem::path& root) {
    test::MirrorBuilder m(root);
    m.add_index("simple");
    for (const std::string backend : {"cu130", "cu126"}) {
        m.add_index("whl/" + backend, test::IndexOptions::pytorch());
    }
    auto manifest = project::parse_manifest(project::builtin_manifest_text(), "ai-toolkit.yaml");
    ASSERT_TRUE(manifest) << manifest.error().describe();
    const std::set<std::string> torch_family = {"torch", "torchvision", "torchaudio", "torchao",
                                                "torchcodec"};
    for (const auto& entry : manifest->requirements) {
        auto requirement = pep::Requirement::parse(entry.text);
        ASSERT_TRUE(requirement) << entry.text;
        if (requirement->url() || torch_family.count(requirement->canonical_name())) continue;
        std::string version = "1.0.0";
        for (const auto& spec : requirement->specifier().specifiers()) {
            if (spec.to_string().starts_with("==")) version = spec.to_string().substr(2);
            if (spec.to_string().starts_with(">=")) version = spec.to_string().substr(2);
        }
        test::WheelSpec w;
        w.name = requirement->name();
        w.version = version;
        m.add_wheel("simple", w);
    }
    test::WheelSpec triton_windows;
    triton_windows.name = "triton-windows";
    triton_windows.version = "3.5.1.post21";
    triton_windows.tag = "cp312-cp312-win_amd64";
    m.add_wheel("simple", triton_windows);

    const std::vector<std::pair<std::string, std::string>> family = {{"torch", "2.13.0"},
                                                                     {"torchvision", "0.28.0"},
                                                                     {"torchaudio", "2.11.0"},
                                                                     {"torchao", "0.10.0"},
                                                                     {"torchcodec", "0.9.1"}};
    for (const auto& [name, version] : family) {
        for (const std::string backend : {"cu130", "cu126"}) {
            for (const std::string platform :
                 {"manylinux_2_28_x86_64", "win_amd64", "manylinux_2_28_aarch64"}) {
                // As on download.pytorch.org, cu126 has no aarch64 wheels in this mirror.
                if (backend == "cu126" && platform.ends_with("aarch64")) continue;
                test::WheelSpec w;
                w.name = name;
                w.version = version + "+" + backend;
                w.tag = "cp312-cp312-" + platform;
                if (name != "torch") w.requires_dist = {"torch==2.13.0"};
                m.add_wheel("whl/" + backend, w);
            }
        }
        // macOS arm64 (mps): PyPI's own wheels, without a local label.
        test::WheelSpec mac;
        mac.name = name;
        mac.version = version;
        mac.tag = "cp312-cp312-macosx_14_0_arm64";
        if (name != "torch") mac.requires_dist = {"torch==2.13.0"};
        m.add_wheel("simple", mac);
    }
    m.write();
}

class LockManifestTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror = new fs::TempDir(fs::TempDir::create("aitk-lock-manifest"));
        build_ai_toolkit_mirror(mirror->path());
    }
    static void TearDownTestSuite() { delete mirror; }
    void SetUp() override { server.serve_directory(mirror->path()); }

    static inline fs::TempDir* mirror = nullptr;
    test::ClearProxyEnvironment no_proxy;
    test::HttpServer server;
    fs::TempDir work = fs::TempDir::create("aitk-lock-manifest-work");
};

TEST_F(LockManifestTest, TheDefaultManifestLocksForEveryDefaultTarget) {
    test::LockCall request;
    request.indexes.index_url = server.url("/simple/");
    request.indexes.torch_index_url = server.url("/whl");
    request.cache_root = work.path() / "cache";
    request.cwd = work.path();
    auto outcome = run_lock(request);

    EXPECT_EQ(outcome.path, work.path() / "lockfiles" / "ai-toolkit.lock.yml");
    const auto& lock = outcome.lockfile;
    EXPECT_EQ(lock.name, "ai-toolkit");
    EXPECT_EQ(lock.default_target, "linux-x86_64-cu130");
    std::vector<std::string> ids;
    for (const auto& t : lock.targets)
        ids.push_back(t.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"linux-aarch64-cu130", "linux-x86_64-cu126",
                                             "linux-x86_64-cu130", "macos-arm64-mps",
                                             "windows-x86_64-cu126", "windows-x86_64-cu130"}));

    for (const auto& target : lock.targets) {
        SCOPED_TRACE(target.id);
        EXPECT_TRUE(target.python.starts_with("3.12.")) << target.python;
        const auto* torch = target.find("torch");
        ASSERT_NE(torch, nullptr);
        const bool mps = target.backend == "mps";
        EXPECT_EQ(torch->version, mps ? "2.13.0" : "2.13.0+" + target.backend);
        EXPECT_EQ(torch->index, mps ? "primary" : "torch " + target.backend);
        EXPECT_EQ(target.find("torchcodec")->version, mps ? "0.9.1" : "0.9.1+" + target.backend);
        EXPECT_EQ(target.find("scipy")->version, "1.12.0");
        // diffusers is pinned by commit: a source node for the build step.
        const auto* diffusers = target.find("diffusers");
        ASSERT_NE(diffusers, nullptr);
        ASSERT_TRUE(diffusers->source);
        EXPECT_EQ(diffusers->source->kind, lock::SourceKind::vcs);
        EXPECT_EQ(diffusers->source->url, "git+https://github.com/huggingface/diffusers.git");
        EXPECT_EQ(diffusers->source->commit, "c943837899b16cbae2f619b8dd4f7bb6f07dd81a");
        // Windows CUDA targets add triton-windows; the others do not.
        EXPECT_EQ(target.find("triton-windows") != nullptr,
                  target.os == "windows" && target.backend.starts_with("cu"));
        if (mps) {
            EXPECT_EQ(target.variables.at("PYTORCH_ENABLE_MPS_FALLBACK"), "1");
            EXPECT_EQ(target.variables.at("PYTORCH_MPS_HIGH_WATERMARK_RATIO"), "0.0");
            EXPECT_EQ(target.variables.count("PYTORCH_CUDA_ALLOC_CONF"), 0u);
        } else {
            EXPECT_EQ(target.variables.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
            EXPECT_EQ(target.variables.count("PYTORCH_ENABLE_MPS_FALLBACK"), 0u);
        }
    }

    // The file is an environment.yml for the default target.
    auto text = fs::read_file(outcome.path);
    EXPECT_NE(text.find("name: ai-toolkit\n"), std::string::npos);
    // GH200, GB200, DGX Spark: the aarch64 wheels of cu130.
    EXPECT_NE(text.find("torch-2.13.0%2Bcu130-cp312-cp312-manylinux_2_28_aarch64.whl"),
              std::string::npos);
    auto variables = text.find("\nvariables:\n");
    ASSERT_NE(variables, std::string::npos);
    EXPECT_EQ(text.substr(variables, 74),
              "\nvariables:\n  PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\nx-aitk-env");
    auto parsed = lock::parse_lockfile(text, "ai-toolkit.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(*parsed, lock);
    EXPECT_NE(text.find("torch==2.13.0+cu130 --hash=sha256:"), std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
