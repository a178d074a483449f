// The real pyproject.toml files of tests/data/realworld (Dia and fifteen other uv projects): every
// one parses, and converts either to an input or to a refusal naming a uv key that aitk-env does
// not act on and that would change what gets installed.
#include <gtest/gtest.h>

#include <set>

#include "pyproject_test_support.hpp"
#include "test_data.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

using namespace pyproject_test;

Pyproject real(const std::string& name) {
    const std::string path = aitk::test::data_path("realworld/" + name);
    auto p = read_pyproject(path, name);
    EXPECT_TRUE(p) << (p ? "" : p.error().describe());
    return p ? std::move(*p) : Pyproject{};
}

TEST(PyprojectRealWorld, DiaBecomesCu126OnLinuxAndWindows) {
    auto p = real("nari-labs_dia/pyproject.toml");
    EXPECT_EQ(p.name, "nari-tts");
    EXPECT_TRUE(p.has_build_system);
    auto in = converted(p);
    EXPECT_EQ(backends_on(in, "linux", "x86_64"), std::vector<std::string>{"cu126"});
    EXPECT_EQ(backends_on(in, "windows", "x86_64"), std::vector<std::string>{"cu126"});
    EXPECT_TRUE(backends_on(in, "macos", "arm64").empty());
    EXPECT_EQ(in.torch_packages.at("torch"), "==2.6.0");
    auto lines = lines_for(in, "linux-x86_64-cu126");
    EXPECT_TRUE(has(lines, "ninja>=1.11.1.4"));  // the dev group, uv's default
    EXPECT_TRUE(has(
        lines, "-e nari-tts @ " + file_url_of(aitk::test::data_path("realworld/nari-labs_dia"))));
    // tool.ruff and tool.hatch are other tools' tables: not looked at.
    EXPECT_TRUE(in.notes.empty()) << (in.notes.empty() ? "" : in.notes.front());
}

TEST(PyprojectRealWorld, EveryUvProjectParsesAndConvertsOrNamesTheKey) {
    // What each refusal names: keys that change what gets installed, which aitk-env does not do.
    const std::map<std::string, std::string> refused = {
        {"NVIDIA-NeMo_Automodel", "tool.uv.extra-build-dependencies is not supported"},
        {"NVIDIA-NeMo_RL", "tool.uv.exclude-dependencies is not supported"},
        {"NovaSky-AI_SkyRL", "tool.uv.extra-build-dependencies is not supported"},
        {"PrimeIntellect-ai_prime-rl", "tool.uv.exclude-newer is not supported"},
        {"allenai_open-instruct", "tool.uv.extra-build-dependencies is not supported"},
        {"index-tts_index-tts", "tool.uv.extra-build-dependencies is not supported"},
        {"m-bain_whisperX", "tool.uv.exclude-newer is not supported"},
        // (NeMo Curator, InvokeAI and pyvideotrans convert: their index-strategy =
        // "unsafe-best-match" is followed since issue 34.)
        // Its path source is a git submodule the copy does not hold.
        {"bmaltais_kohya_ss", "tool.uv.sources.library: the path sd-scripts does not exist"},
    };
    const std::set<std::string> all = {
        "NVIDIA-NeMo_Automodel",     "NVIDIA-NeMo_Curator",        "NVIDIA-NeMo_RL",
        "NovaSky-AI_SkyRL",          "PrimeIntellect-ai_prime-rl", "allenai_open-instruct",
        "bmaltais_kohya_ss",         "fishaudio_fish-speech",      "huggingface_lerobot",
        "inclusionAI_AReaL",         "index-tts_index-tts",        "invoke-ai_InvokeAI",
        "jianchang512_pyvideotrans", "karpathy_nanochat",          "m-bain_whisperX"};
    for (const auto& project : all) {
        SCOPED_TRACE(project);
        auto p = real(project + "/pyproject.toml");
        ASSERT_TRUE(p.has_project);
        auto in = from_pyproject(p, {});
        auto it = refused.find(project);
        if (it == refused.end()) {
            EXPECT_TRUE(in) << in.error().describe();
            continue;
        }
        ASSERT_FALSE(in) << "expected a refusal";
        EXPECT_NE(in.error().message.find(it->second), std::string::npos) << in.error().describe();
        EXPECT_GT(in.error().where.line, 0u);
    }
}

TEST(PyprojectRealWorld, TheirIndexStrategyIsKept) {
    for (const char* project :
         {"NVIDIA-NeMo_Curator", "invoke-ai_InvokeAI", "jianchang512_pyvideotrans"}) {
        EXPECT_EQ(converted(real(std::string(project) + "/pyproject.toml")).index_strategy,
                  "unsafe-best-match")
            << project;
    }
    EXPECT_EQ(converted(real("fishaudio_fish-speech/pyproject.toml")).index_strategy,
              "first-index");
}

TEST(PyprojectRealWorld, FishSpeechAndNanochatChooseTheirExtraByBackend) {
    auto fish = converted(real("fishaudio_fish-speech/pyproject.toml"));
    EXPECT_EQ(backends_on(fish, "linux", "x86_64"),
              (std::vector<std::string>{"cu129", "cu128", "cu126", "cpu"}));
    auto nanochat = converted(real("karpathy_nanochat/pyproject.toml"));
    EXPECT_EQ(backends_on(nanochat, "linux", "x86_64"), (std::vector<std::string>{"cu128", "cpu"}));
    // Its cpu extra adds setuptools, for the cpu build only.
    EXPECT_TRUE(has(lines_for(nanochat, "linux-x86_64-cpu"), "setuptools>=65.0.0"));
    EXPECT_FALSE(has(lines_for(nanochat, "linux-x86_64-cu128"), "setuptools>=65.0.0"));
    for (const auto& b : nanochat.backends) {
        if (b.name == "cu128") {
            EXPECT_NE(b.note.find("extra 'gpu' of"), std::string::npos);
        }
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
