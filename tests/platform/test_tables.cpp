// The compiled-in tables match the reference facts (docs/data-sources.md §1-3), and the loaders
// report malformed tables with file:line:column.
#include "aitk/platform/tables.hpp"

#include <gtest/gtest.h>

#include <map>

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

const Tables& tables() {
    static const Tables t = [] {
        auto loaded = builtin_tables();
        if (!loaded) throw std::runtime_error(loaded.error().describe());
        return *loaded;
    }();
    return t;
}

std::vector<std::string> texts(const std::vector<ComputeCapability>& ccs) {
    std::vector<std::string> out;
    for (const auto& c : ccs)
        out.push_back(c.to_string());
    return out;
}

TEST(DriverTable, MinorVersionCompatibilityMinimums) {
    const auto& d = tables().drivers;
    ASSERT_EQ(d.families.size(), 3u);
    EXPECT_EQ(d.families[0].cuda_major, 13u);  // newest first
    EXPECT_EQ(d.family(13)->linux_min_driver.text(), "580");
    EXPECT_EQ(d.family(13)->windows_min_driver.text(), "580");
    EXPECT_EQ(d.family(13)->unverified, std::vector<std::string>{"windows"});
    EXPECT_EQ(d.family(12)->linux_min_driver.text(), "525.60.13");
    EXPECT_EQ(d.family(12)->windows_min_driver.text(), "528.33");
    EXPECT_EQ(d.family(11)->linux_min_driver.text(), "450.80.02");
    EXPECT_EQ(d.family(11)->windows_min_driver.text(), "452.39");
    EXPECT_EQ(d.family(10), nullptr);
    for (const auto& f : d.families)
        EXPECT_FALSE(f.source.empty());
}

TEST(DriverTable, NewestFamilyPerDriver) {
    const auto& d = tables().drivers;
    auto fam = [&](const char* v, OsKind os) {
        return d.newest_family(*DriverVersion::parse(v), os);
    };
    EXPECT_EQ(fam("580.65.06", OsKind::linux_os), 13u);
    EXPECT_EQ(fam("575.51.03", OsKind::linux_os), 12u);
    EXPECT_EQ(fam("525.60.13", OsKind::linux_os), 12u);
    EXPECT_EQ(fam("525.60.12", OsKind::linux_os), 11u);
    EXPECT_EQ(fam("528.24", OsKind::windows), 11u);  // 12.x needs 528.33 on Windows
    EXPECT_EQ(fam("528.33", OsKind::windows), 12u);
    EXPECT_EQ(fam("450.80.02", OsKind::linux_os), 11u);
    EXPECT_EQ(fam("418.87", OsKind::linux_os), std::nullopt);
}

TEST(DriverTable, ToolkitDrivers) {
    std::map<std::string, std::pair<std::string, std::string>> expected{
        {"11.8", {"520.61.05", "520.06"}}, {"12.1", {"530.30.02", "531.14"}},
        {"12.4", {"550.54.14", "551.61"}}, {"12.6", {"560.28.03", "560.76"}},
        {"12.8", {"570.26", "570.65"}},    {"12.9", {"575.51.03", "576.02"}},
        {"13.0", {"580.65.06", ""}},
    };
    const auto& rows = tables().drivers.toolkit_drivers;
    ASSERT_EQ(rows.size(), expected.size());
    for (const auto& r : rows) {
        auto it = expected.find(r.cuda.to_string());
        ASSERT_NE(it, expected.end()) << r.cuda.to_string();
        EXPECT_EQ(r.linux_driver->text(), it->second.first);
        EXPECT_EQ(r.windows_driver ? r.windows_driver->text() : "", it->second.second);
    }
}

TEST(TorchReleases, MatchTheReleaseMatrix) {
    struct Row {
        const char* torch;
        std::vector<std::string> cuda, experimental, rocm;
    };
    const std::vector<Row> expected{
        {"2.0", {"cu117"}, {"cu118"}, {"5.4.2"}},
        {"2.1", {"cu118"}, {"cu121"}, {"5.6"}},
        {"2.2", {"cu118"}, {"cu121"}, {"5.7"}},
        {"2.3", {"cu118"}, {"cu121"}, {"6.0"}},
        {"2.4", {"cu118", "cu121"}, {"cu124"}, {"6.1"}},
        {"2.5", {"cu118", "cu121", "cu124"}, {}, {"6.2"}},
        {"2.6", {"cu118", "cu124"}, {"cu126"}, {"6.2.4"}},
        {"2.7", {"cu118", "cu126"}, {"cu128"}, {"6.3"}},
        {"2.8", {"cu126", "cu128"}, {"cu129"}, {"6.4"}},
        {"2.9", {"cu126", "cu128"}, {"cu130"}, {"6.4"}},
        {"2.10", {"cu126", "cu128"}, {"cu130"}, {"7.1"}},
        {"2.11", {"cu126", "cu128", "cu130"}, {}, {"7.2"}},
        {"2.12", {"cu126", "cu130"}, {"cu132"}, {"7.2"}},
        {"2.13", {"cu126", "cu130"}, {"cu132"}, {"7.2"}},
        // Planned (unverified): CUDA 13.2 by default in 2.14; 2.15 drops CUDA 12.6.
        {"2.14", {"cu126", "cu130", "cu132"}, {}, {"7.2"}},
        {"2.15", {"cu130", "cu132"}, {}, {"7.2"}},
    };
    const auto& releases = tables().releases;
    ASSERT_EQ(releases.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE(expected[i].torch);
        EXPECT_EQ(releases[i].torch.to_string(), expected[i].torch);
        EXPECT_EQ(releases[i].cuda, expected[i].cuda);
        EXPECT_EQ(releases[i].cuda_experimental, expected[i].experimental);
        EXPECT_EQ(releases[i].rocm, expected[i].rocm);
    }
    EXPECT_EQ(tables().torch_index_url, "https://download.pytorch.org/whl");
    const TorchRelease* r213 = tables().release(*ReleaseKey::parse("2.13"));
    ASSERT_TRUE(r213);
    EXPECT_TRUE(r213->offers("cu130"));
    EXPECT_TRUE(r213->offers("cu132"));
    EXPECT_TRUE(r213->offers("rocm7.2"));
    EXPECT_TRUE(r213->offers("cpu"));
    EXPECT_FALSE(r213->offers("cu128"));
    EXPECT_FALSE(r213->offers("rocm6.3"));
    EXPECT_EQ(tables().release(*ReleaseKey::parse("1.13")), nullptr);
}

TEST(ArchTable, MatchesTheBuildArchLists) {
    auto row = [](const char* v, const char* torch) {
        const ArchRow* r = tables().archs.find(v, *ReleaseKey::parse(torch));
        if (!r) throw std::runtime_error(std::string("no row for ") + v + " " + torch);
        return r;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(texts(row("cu118", "2.7")->sass),
              (V{"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}));
    EXPECT_EQ(texts(row("cu121", "2.4")->sass),
              (V{"5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"}));
    EXPECT_EQ(texts(row("cu124", "2.5")->sass),
              (V{"5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"}));
    EXPECT_EQ(texts(row("cu126", "2.13")->sass),
              (V{"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}));
    EXPECT_TRUE(row("cu126", "2.13")->ptx.empty());
    EXPECT_EQ(texts(row("cu128", "2.7")->sass), (V{"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_EQ(texts(row("cu128", "2.8")->sass),
              (V{"7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_EQ(texts(row("cu129", "2.8")->ptx), (V{"12.0"}));
    EXPECT_EQ(texts(row("cu130", "2.13")->sass), (V{"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_EQ(texts(row("cu130", "2.13")->ptx), (V{"12.0"}));
    EXPECT_EQ(texts(row("cu132", "2.13")->ptx), (V{"12.0"}));
}

TEST(ArchTable, EveryOfferedCudaBuildHasArchitectureData) {
    for (const auto& rel : tables().releases) {
        std::vector<std::string> builds = rel.cuda;
        builds.insert(builds.end(), rel.cuda_experimental.begin(), rel.cuda_experimental.end());
        for (const auto& b : builds) {
            EXPECT_NE(tables().archs.find(b, rel.torch), nullptr)
                << b << " in torch " << rel.torch.to_string();
        }
    }
}

TEST(Coverage, SassSameMajorMinorNotAboveAndPtxJit) {
    ArchRow cu130 = *tables().archs.find("cu130", *ReleaseKey::parse("2.13"));
    ArchRow cu126 = *tables().archs.find("cu126", *ReleaseKey::parse("2.13"));
    auto cc = [](const char* t) { return *ComputeCapability::parse(t); };
    EXPECT_EQ(coverage(cu126, cc("8.9")), Coverage::sass);   // 8.6 SASS runs on 8.9
    EXPECT_EQ(coverage(cu126, cc("6.1")), Coverage::sass);   // Pascal via 6.0
    EXPECT_EQ(coverage(cu126, cc("12.0")), Coverage::none);  // no Blackwell in cu126
    EXPECT_EQ(coverage(cu126, cc("3.7")), Coverage::none);
    EXPECT_EQ(coverage(cu130, cc("6.1")), Coverage::none);   // Pascal gone from cu130
    EXPECT_EQ(coverage(cu130, cc("7.0")), Coverage::none);   // Volta gone from cu130
    EXPECT_EQ(coverage(cu130, cc("10.3")), Coverage::sass);  // 10.0 SASS runs on 10.3
    EXPECT_EQ(coverage(cu130, cc("12.1")), Coverage::sass);
    EXPECT_EQ(coverage(cu130, cc("13.0")), Coverage::ptx);   // a newer major through PTX
    EXPECT_EQ(coverage(cu130, cc("11.0")), Coverage::none);  // below the PTX arch, no SASS
}

TEST(HardwareProfiles, AiToolkitMatrix) {
    const auto& hw = tables().hardware;
    ASSERT_GE(hw.profiles.size(), 2u);
    EXPECT_EQ(hw.profiles[0].id, "flux-lora");
    EXPECT_EQ(hw.profiles[0].min_ram_gib, 32);
    EXPECT_EQ(hw.profiles[0].min_vram_gib, 24);
    EXPECT_EQ(hw.profiles[1].id, "flux-lora-low-vram");
    EXPECT_LT(hw.profiles[1].min_vram_gib, hw.profiles[0].min_vram_gib);
    EXPECT_EQ(hw.platforms.at("linux").status, "ok");
    EXPECT_EQ(hw.platforms.at("windows").status, "warn");
    EXPECT_NE(hw.platforms.at("windows").message.find("limited"), std::string::npos);
    EXPECT_NE(hw.platforms.at("macos").message.find("needs adaptation"), std::string::npos);
    EXPECT_LT(hw.disk_fail_below_gib, hw.disk_warn_below_gib);
}

TEST(TableErrors, NameFileLineAndColumn) {
    auto e = parse_driver_table(
        "format: 1\nfamilies:\n  - cuda_major: 13\n    min_driver: {linux: \"58x\", windows: "
        "\"580\"}\n    source: s\n",
        "t.yaml");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "t.yaml:4:25: families[0].min_driver.linux: unexpected character in the driver "
              "version (expected "
              "digits and dots)");
    e = parse_driver_table("format: 1\nfamilies: {}\n", "t.yaml");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "t.yaml:2:11: families: expected a list");
    e = parse_driver_table("format: 2\nfamilies: []\n", "t.yaml");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "t.yaml:1:9: format: unsupported format (this aitk-env reads format 1)");
    e = parse_driver_table("families: [\n", "t.yaml");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("t.yaml:", 0), 0u);

    auto r = parse_torch_releases(
        "format: 1\nindex_url: x\nreleases:\n  - {torch: \"2.2\", cuda: [cu118], source: s}\n  - "
        "{torch: \"2.1\", "
        "cuda: [cu118], source: s}\n",
        "r.yaml");
    ASSERT_FALSE(r);
    EXPECT_EQ(
        r.error().message,
        "r.yaml:5:5: releases[1]: releases must be listed in ascending order without repeats");
    r = parse_torch_releases(
        "format: 1\nindex_url: x\nreleases:\n  - {torch: \"2.2\", cuda: [cuda118], source: s}\n",
        "r.yaml");
    ASSERT_FALSE(r);
    EXPECT_EQ(
        r.error().message,
        "r.yaml:4:5: releases[0]: \"cuda118\" is not a CUDA backend name (cuXYZ, e.g. cu126)");

    auto a = parse_arch_table(
        "format: 1\nvariants:\n  - {variant: cu126, torch_from: \"2.6\", sass: [\"5.0\"], ptx: [], "
        "source: s}\n"
        "  - {variant: cu126, torch_from: \"2.8\", sass: [\"8.6\"], ptx: [], source: s}\n",
        "a.yaml");
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().message, "a.yaml:4:5: variants[1]: overlaps another row for cu126");

    auto h = parse_hardware_profiles(
        "format: 1\nprofiles:\n  - {id: x, min_ram_gib: lots, min_vram_gib: 1}\n"
        "platforms: {}\ndisk: {warn_below_gib: 1, fail_below_gib: 0}\n",
        "h.yaml");
    ASSERT_FALSE(h);
    EXPECT_EQ(h.error().message,
              "h.yaml:3:26: profiles[0].min_ram_gib: expected a non-negative number, got \"lots\"");
}

TEST(ManifestHardware, ReadsTorchBackendsAndProfiles) {
    auto m = parse_manifest_hardware(
        "name: demo\ntorch:\n  version: \"==2.12.0\"\n  backends: [cu130, "
        "cu126]\nhardware_profiles:\n"
        "  - {id: small, min_ram_gib: 8, min_vram_gib: 6}\nunknown: ignored\n",
        "m.yaml");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->torch_version, "2.12.0");
    EXPECT_EQ(m->preferred_backends, (std::vector<std::string>{"cu130", "cu126"}));
    ASSERT_TRUE(m->profiles);
    EXPECT_EQ(m->profiles->at(0).id, "small");
    EXPECT_EQ(m->profiles->at(0).description, "small");

    auto plain = parse_manifest_hardware("torch: 2.11.0\n", "m.yaml");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->torch_version, "2.11.0");
    EXPECT_FALSE(plain->profiles);

    auto empty = parse_manifest_hardware("", "m.yaml");
    ASSERT_TRUE(empty);
    EXPECT_FALSE(empty->torch_version);

    auto bad = parse_manifest_hardware("torch:\n  backends: cu130\n", "m.yaml");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "m.yaml:2:13: torch.backends: expected a list");
    EXPECT_FALSE(parse_manifest_hardware("- a\n- b\n", "m.yaml"));
    EXPECT_FALSE(parse_manifest_hardware("a: [\n", "m.yaml"));
}

TEST(ReleaseKey, Parses) {
    EXPECT_EQ(ReleaseKey::parse("2.13")->to_string(), "2.13");
    EXPECT_EQ(ReleaseKey::parse("2.13.1")->to_string(), "2.13");
    EXPECT_FALSE(ReleaseKey::parse("2"));
    EXPECT_FALSE(ReleaseKey::parse("2.x"));
    EXPECT_LT(*ReleaseKey::parse("2.9"), *ReleaseKey::parse("2.10"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
