// The model name → compute capability table: the built-in rows resolve the names drivers print,
// the longest match wins, unknown names stay unknown, bad tables fail with file:line:column,
// and inferring marks what it filled in (and can be undone for the probe cache).
#include "aitk/platform/gpu_models.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

const GpuModelTable& builtin() {
    const auto& t = builtin_gpu_models();
    EXPECT_TRUE(t) << t.error().message;
    return *t;
}

std::string capability_of(const GpuModelTable& table, std::string_view name) {
    auto m = table.lookup(name);
    return m ? m->capability.to_string() : std::string("none");
}

GpuModelTable parse(std::string_view yaml) {
    auto t = parse_gpu_models(yaml, "t.yaml");
    EXPECT_TRUE(t) << t.error().message;
    return *t;
}

std::string error_of(std::string_view yaml) {
    auto t = parse_gpu_models(yaml, "t.yaml");
    return t ? std::string("parsed") : t.error().message;
}

TEST(GpuModels, BuiltinTableParses) {
    const auto& t = builtin();
    EXPECT_GT(t.rows().size(), 40u);
    EXPECT_EQ(t.name(), "manifests/gpu-models.yaml");
    for (const auto& row : t.rows()) {
        EXPECT_FALSE(row.source.empty()) << row.pattern;
        EXPECT_GT(row.line, 20u) << row.pattern;  // after the documented header
    }
}

// Names as drivers print them (NVML, nvidia-smi, /proc/driver/nvidia/gpus/*/information).
TEST(GpuModels, EveryFamilyResolves) {
    struct Case {
        const char* name;
        const char* capability;
    };
    const Case cases[] = {
        {"NVIDIA GB10", "12.1"},
        {"NVIDIA GeForce RTX 5090", "12.0"},
        {"NVIDIA GeForce RTX 5090 D", "12.0"},
        {"NVIDIA GeForce RTX 5060 Ti", "12.0"},
        {"NVIDIA GeForce RTX 5070 Laptop GPU", "12.0"},
        {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"},
        {"NVIDIA RTX PRO 4000 Blackwell SFF Edition", "12.0"},
        {"NVIDIA B300 SXM6 AC", "10.3"},
        {"NVIDIA GB300", "10.3"},
        {"NVIDIA B200", "10.0"},
        {"NVIDIA GB200", "10.0"},
        {"NVIDIA B100", "10.0"},
        {"NVIDIA H200", "9.0"},
        {"NVIDIA H200 NVL", "9.0"},
        {"NVIDIA GH200 480GB", "9.0"},
        {"NVIDIA H100 80GB HBM3", "9.0"},
        {"NVIDIA H100 PCIe", "9.0"},
        {"NVIDIA H800", "9.0"},
        {"NVIDIA GeForce RTX 4090", "8.9"},
        {"NVIDIA GeForce RTX 4060 Laptop GPU", "8.9"},
        {"NVIDIA L4", "8.9"},
        {"NVIDIA L40", "8.9"},
        {"NVIDIA L40S", "8.9"},
        {"NVIDIA RTX 6000 Ada Generation", "8.9"},
        {"NVIDIA RTX 4000 SFF Ada Generation", "8.9"},
        {"NVIDIA RTX 2000 Ada Generation", "8.9"},
        {"Orin (nvgpu)", "8.7"},
        {"NVIDIA GeForce RTX 3090", "8.6"},
        {"NVIDIA GeForce RTX 3050 Ti Laptop GPU", "8.6"},
        {"NVIDIA A10", "8.6"},
        {"NVIDIA A10G", "8.6"},
        {"NVIDIA A16", "8.6"},
        {"NVIDIA A2", "8.6"},
        {"NVIDIA A40", "8.6"},
        {"NVIDIA RTX A6000", "8.6"},
        {"NVIDIA RTX A2000 12GB", "8.6"},
        {"NVIDIA A100-SXM4-80GB", "8.0"},
        {"NVIDIA A100 80GB PCIe", "8.0"},
        {"NVIDIA A30", "8.0"},
        {"NVIDIA A800 80GB PCIe", "8.0"},
        {"Tesla T4", "7.5"},
        {"NVIDIA T1000 8GB", "7.5"},
        {"NVIDIA GeForce RTX 2080 Ti", "7.5"},
        {"NVIDIA GeForce GTX 1660 SUPER", "7.5"},
        {"NVIDIA GeForce GTX 1650", "7.5"},
        {"Quadro RTX 6000", "7.5"},
        {"NVIDIA TITAN RTX", "7.5"},
        {"Xavier", "7.2"},
        {"Tesla V100-SXM2-16GB", "7.0"},
        {"NVIDIA TITAN V", "7.0"},
        {"Quadro GV100", "7.0"},
        {"Tesla P100-PCIE-16GB", "6.0"},
        {"Quadro GP100", "6.0"},
        {"Tesla P40", "6.1"},
        {"Tesla P4", "6.1"},
        {"Quadro P4000", "6.1"},
        {"NVIDIA GeForce GTX 1080 Ti", "6.1"},
        {"NVIDIA GeForce GTX 1050", "6.1"},
        {"NVIDIA TITAN Xp", "6.1"},
        {"TITAN X (Pascal)", "6.1"},
        {"GeForce GTX TITAN X", "5.2"},
        {"NVIDIA GeForce GTX 970", "5.2"},
        {"Tesla M60", "5.2"},
        {"Tesla M40 24GB", "5.2"},
        {"Quadro M6000", "5.2"},
        {"NVIDIA GeForce GTX 750 Ti", "5.0"},
        {"Tesla K80", "3.7"},
    };
    for (const auto& c : cases)
        EXPECT_EQ(capability_of(builtin(), c.name), c.capability) << c.name;
}

TEST(GpuModels, MatchingIgnoresCaseAndSpacing) {
    EXPECT_EQ(capability_of(builtin(), "nvidia geforce rtx 5090"), "12.0");
    EXPECT_EQ(capability_of(builtin(), "  NVIDIA \t H200  "), "9.0");
    EXPECT_EQ(capability_of(builtin(), "NVIDIA  GeForce\tRTX   4090"), "8.9");
}

TEST(GpuModels, TheMostSpecificRowWins) {
    // Names that share words with other rows of different capabilities.
    struct Case {
        const char* name;
        const char* capability;
        const char* pattern;
    };
    const Case cases[] = {
        {"GeForce GTX TITAN X", "5.2", "GTX TITAN X"},  // also matches "TITAN X" (6.1)
        {"TITAN X (Pascal)", "6.1", "TITAN X"},
        {"NVIDIA RTX A6000", "8.6", R"(\bRTX A\d{3,4}\b)"},
        {"NVIDIA RTX 6000 Ada Generation", "8.9", R"(\bRTX \d{4}( SFF)? Ada\b)"},
        {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0",
         R"(\bRTX PRO \d{4} Blackwell\b)"},
        {"Quadro RTX 6000", "7.5", R"(\bQuadro RTX \d{4}\b)"},
        {"NVIDIA A100-SXM4-40GB", "8.0", "A100"},  // "A10" must not match inside "A100"
        {"NVIDIA A10G", "8.6", "A10G"},
        {"NVIDIA GH200 480GB", "9.0", "GH200"},  // "H200" must not match inside "GH200"
        {"NVIDIA L40S", "8.9", "L40S"},
    };
    for (const auto& c : cases) {
        auto m = builtin().lookup(c.name);
        ASSERT_TRUE(m) << c.name;
        EXPECT_EQ(m->capability.to_string(), c.capability) << c.name;
        EXPECT_EQ(m->row->pattern, c.pattern) << c.name;
    }

    // The longest match wins wherever the rows are listed; equal lengths go to the first row.
    const char* general = R"(  - {regex: '\bRTX 50\d0\b', capability: "12.0", source: s}
)";
    const char* specific = R"(  - {name: "RTX 5090 D", capability: "8.0", source: s}
)";
    const char* same_length = R"(  - {name: "RTX 5090", capability: "9.0", source: s}
)";
    for (bool specific_first : {false, true}) {
        std::string yaml = std::string("format: 1\nmodels:\n") +
                           (specific_first ? specific : general) +
                           (specific_first ? general : specific) + same_length;
        auto t = parse(yaml);
        EXPECT_EQ(capability_of(t, "NVIDIA GeForce RTX 5090 D"), "8.0");
        EXPECT_EQ(capability_of(t, "NVIDIA GeForce RTX 5090"), "12.0");  // tie: listed first
        EXPECT_EQ(capability_of(t, "NVIDIA GeForce RTX 5080"), "12.0");
        EXPECT_EQ(t.lookup("NVIDIA GeForce RTX 5090 D")->row->line, specific_first ? 3u : 4u);
    }
}

TEST(GpuModels, UnknownNamesStayUnknown) {
    for (const char* name : {"", "NVIDIA Mystery GPU", "Matrox G200eW", "NVIDIA GeForce RTX 2050",
                             "NVIDIA GeForce GTX 960M", "NVIDIA A1", "NVIDIA H1000"}) {
        EXPECT_FALSE(builtin().lookup(name)) << name;
    }
    auto t = parse("format: 1\nmodels:\n  - {name: \"A10\", capability: \"8.6\", source: s}\n");
    EXPECT_FALSE(t.lookup("NVIDIA A100"));
    EXPECT_FALSE(t.lookup("NVIDIA A10G"));
    EXPECT_EQ(capability_of(t, "NVIDIA A10-24Q"), "8.6");
}

TEST(GpuModels, BadTablesNameTheLine) {
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - {name: A10, capability: \"86\", source: s}\n"),
              "t.yaml:3:29: models[0].capability: expected '.' after the major compute "
              "capability (write 8.6, not 86)");
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - {name: A10, source: s}\n"),
              "t.yaml:3:5: models[0]: missing key \"capability\"");
    EXPECT_EQ(
        error_of(
            "format: 1\nmodels:\n  - {name: A10, regex: A1, capability: \"8.6\", source: s}\n"),
        "t.yaml:3:5: models[0]: expected exactly one of \"name\" and \"regex\"");
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - {source: s, capability: \"8.6\"}\n"),
              "t.yaml:3:5: models[0]: expected exactly one of \"name\" and \"regex\"");
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - {name: A10, capabilty: \"8.6\", source: s}\n"),
              "t.yaml:3:17: models[0]: unknown key \"capabilty\" (expected name or regex, "
              "capability, source, unverified)");
    EXPECT_EQ(
        error_of("format: 1\nmodels:\n  - {name: \"A10 \", capability: \"8.6\", source: s}\n"),
        "t.yaml:3:12: models[0].name: \"A10 \" must have single spaces between words and "
        "none around them");
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - {regex: 'x*', capability: \"8.6\", source: s}\n"),
              "t.yaml:3:13: models[0].regex: matches an empty name, so it would match any");
    std::string bad_regex =
        error_of("format: 1\nmodels:\n  - {regex: 'RTX (50', capability: \"8.6\", source: s}\n");
    EXPECT_EQ(bad_regex.rfind("t.yaml:3:13: models[0].regex: invalid regular expression \"RTX "
                              "(50\": ",
                              0),
              0u)
        << bad_regex;
    EXPECT_EQ(error_of("format: 1\nmodels:\n"
                       "  - {name: A10, capability: \"8.6\", source: s}\n"
                       "  - {name: a10, capability: \"8.0\", source: s}\n"),
              "t.yaml:4:5: models[1]: \"a10\" repeats the row at line 3");
    EXPECT_EQ(error_of("format: 2\nmodels: []\n"),
              "t.yaml:1:9: format: unsupported format (this aitk-env reads format 1)");
    EXPECT_EQ(error_of("format: 1\n"), "t.yaml:1:1: missing key \"models\"");
    EXPECT_EQ(error_of("format: 1\nmodels: {}\n"), "t.yaml:2:9: models: expected a list");
    EXPECT_EQ(error_of("format: 1\nmodels:\n  - [A10]\n"),
              "t.yaml:3:5: models[0]: expected a mapping");
    std::string syntax = error_of("format: 1\nmodels:\n  - {name: A10\n");
    EXPECT_EQ(syntax.rfind("t.yaml:4:", 0), 0u) << syntax;
}

GpuDevice nvidia(const char* name, const char* cc = nullptr) {
    GpuDevice g;
    g.name = name;
    if (cc) g.compute_capability = *ComputeCapability::parse(cc);
    return g;
}

TEST(GpuModels, InferringFillsOnlyWhatNoProbeSaidAndCanBeUndone) {
    HardwareProbe probe;
    probe.gpus = {nvidia("NVIDIA H200"), nvidia("NVIDIA RTX A6000", "8.0"), nvidia(""),
                  nvidia("NVIDIA Mystery GPU"), nvidia("Tesla K80")};
    GpuDevice amd;
    amd.vendor = GpuVendor::amd;
    amd.name = "AMD Radeon RX 7900 XTX";
    amd.gfx_target = "gfx1100";
    probe.gpus.push_back(amd);
    probe.attempts.push_back(ProbeAttempt{"sysfs", AttemptOutcome::answered, "x"});
    const HardwareProbe original = probe;

    infer_compute_capabilities(probe, builtin());
    EXPECT_EQ(probe.gpus[0].compute_capability->to_string(), "9.0");
    EXPECT_EQ(probe.gpus[0].compute_capability_source, CapabilitySource::model_name_table);
    EXPECT_EQ(probe.gpus[1].compute_capability->to_string(), "8.0");  // a probe's value wins
    EXPECT_EQ(probe.gpus[1].compute_capability_source, CapabilitySource::reported);
    EXPECT_FALSE(probe.gpus[2].compute_capability);
    EXPECT_FALSE(probe.gpus[3].compute_capability);
    EXPECT_EQ(probe.gpus[3].compute_capability_source, CapabilitySource::reported);
    EXPECT_EQ(probe.gpus[4].compute_capability->to_string(), "3.7");
    EXPECT_EQ(probe.gpus[5], original.gpus[5]);
    ASSERT_EQ(probe.attempts.size(), 2u);
    EXPECT_EQ(probe.attempts[1].source, "model-name-table");
    EXPECT_EQ(probe.attempts[1].outcome, AttemptOutcome::answered);
    const auto line = [](std::string_view pattern) {
        for (const auto& r : builtin().rows()) {
            if (r.pattern == pattern) return std::to_string(r.line);
        }
        return std::string("?");
    };
    EXPECT_EQ(probe.attempts[1].detail,
              "GPU 0 (NVIDIA H200): 9.0 from \"H200\" (manifests/gpu-models.yaml:" + line("H200") +
                  "); GPU 3 (NVIDIA Mystery GPU): no row matches the name; GPU 4 (Tesla K80): "
                  "3.7 from \"K80\" (manifests/gpu-models.yaml:" +
                  line("K80") + ")");
    EXPECT_EQ(capability_source_name(probe.gpus[0].compute_capability_source), "model-name-table");
    EXPECT_EQ(capability_source_name(CapabilitySource::reported), "reported");

    forget_inferred_capabilities(probe);
    EXPECT_EQ(probe, original);

    // Nothing to look up: no attempt is recorded.
    HardwareProbe reported;
    reported.gpus = {nvidia("NVIDIA H200", "9.0"), nvidia("")};
    infer_compute_capabilities(reported, builtin());
    EXPECT_TRUE(reported.attempts.empty());

    // Only unknown names: the lookup is recorded as absent.
    HardwareProbe unknown;
    unknown.gpus = {nvidia("NVIDIA Mystery GPU")};
    infer_compute_capabilities(unknown, builtin());
    ASSERT_EQ(unknown.attempts.size(), 1u);
    EXPECT_EQ(unknown.attempts[0].outcome, AttemptOutcome::absent);
    EXPECT_FALSE(unknown.gpus[0].compute_capability);
}

TEST(GpuModels, UnverifiedRowsSaySoInTheRecord) {
    HardwareProbe probe;
    probe.gpus = {nvidia("NVIDIA A800 80GB PCIe")};
    infer_compute_capabilities(probe, builtin());
    ASSERT_EQ(probe.attempts.size(), 1u);
    EXPECT_NE(probe.attempts[0].detail.find(", unverified)"), std::string::npos)
        << probe.attempts[0].detail;
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
