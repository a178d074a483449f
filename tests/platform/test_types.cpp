// Value types of the platform layer: parsing with precise errors, ordering, display forms.
#include "aitk/platform/types.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

TEST(ComputeCapability, ParsesAndPrints) {
    auto cc = ComputeCapability::parse(" 8.6 ");
    ASSERT_TRUE(cc);
    EXPECT_EQ(cc->major, 8u);
    EXPECT_EQ(cc->minor, 6u);
    EXPECT_EQ(cc->to_string(), "8.6");
    EXPECT_EQ(cc->sm(), "sm_86");
    EXPECT_EQ(ComputeCapability::parse("12.0")->sm(), "sm_120");
    EXPECT_LT(*ComputeCapability::parse("8.9"), *ComputeCapability::parse("9.0"));
    EXPECT_LT(*ComputeCapability::parse("9.0"), *ComputeCapability::parse("10.0"));
}

TEST(ComputeCapability, RejectsWithPreciseErrors) {
    auto e = ComputeCapability::parse("86");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "expected '.' after the major compute capability (write 8.6, not 86)");
    EXPECT_EQ(e.error().position, 2u);
    e = ComputeCapability::parse("sm_86");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().position, 0u);
    e = ComputeCapability::parse("8.6x");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "unexpected text after the compute capability");
    EXPECT_EQ(e.error().position, 3u);
    EXPECT_FALSE(ComputeCapability::parse(""));
    EXPECT_FALSE(ComputeCapability::parse("8."));
    EXPECT_FALSE(ComputeCapability::parse("123.0"));
    EXPECT_FALSE(ComputeCapability::parse("8.123"));
}

TEST(DriverVersion, ComparesNumericallyAndKeepsText) {
    auto v = DriverVersion::parse("535.154.05");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->text(), "535.154.05");
    EXPECT_EQ(v->major(), 535u);
    EXPECT_EQ(v->components(), (std::vector<std::uint32_t>{535, 154, 5}));
    EXPECT_LT(*DriverVersion::parse("525.60.12"), *DriverVersion::parse("525.60.13"));
    EXPECT_LT(*DriverVersion::parse("525.60.13"), *DriverVersion::parse("525.85"));
    EXPECT_EQ(*DriverVersion::parse("580"), *DriverVersion::parse("580.0.0"));
    EXPECT_GT(*DriverVersion::parse("580.65.06"), *DriverVersion::parse("580"));
    EXPECT_LT(*DriverVersion::parse("99.1"), *DriverVersion::parse("100"));
}

TEST(DriverVersion, RejectsWithPreciseErrors) {
    auto e = DriverVersion::parse("550.54a");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "unexpected character in the driver version (expected digits and dots)");
    EXPECT_EQ(e.error().position, 6u);
    e = DriverVersion::parse("550..1");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().position, 4u);
    e = DriverVersion::parse("1.2.3.4.5");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "a driver version has at most 4 parts");
    EXPECT_FALSE(DriverVersion::parse(""));
    EXPECT_FALSE(DriverVersion::parse("  "));
    EXPECT_FALSE(DriverVersion::parse("1234567890"));  // overflow guard: at most 9 digits
}

TEST(CudaVersion, FromApiNumberAndText) {
    EXPECT_EQ(CudaVersion::from_api_number(12040)->to_string(), "12.4");
    EXPECT_EQ(CudaVersion::from_api_number(13000)->to_string(), "13.0");
    EXPECT_EQ(CudaVersion::from_api_number(11080)->to_string(), "11.8");
    EXPECT_FALSE(CudaVersion::from_api_number(0));
    EXPECT_FALSE(CudaVersion::from_api_number(-5));
    EXPECT_EQ(CudaVersion::parse("12.4")->to_string(), "12.4");
    EXPECT_EQ(CudaVersion::parse("13")->to_string(), "13.0");
    auto e = CudaVersion::parse("12.4.1");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "unexpected text after the CUDA version");
    EXPECT_EQ(e.error().position, 4u);
    EXPECT_FALSE(CudaVersion::parse("0.1"));
    EXPECT_FALSE(CudaVersion::parse("v12"));
}

TEST(Arch, NormalisesMachineNames) {
    EXPECT_EQ(normalize_arch("AMD64", OsKind::windows), "x86_64");
    EXPECT_EQ(normalize_arch("x86_64", OsKind::linux_os), "x86_64");
    EXPECT_EQ(normalize_arch("arm64", OsKind::linux_os), "aarch64");
    EXPECT_EQ(normalize_arch("aarch64", OsKind::linux_os), "aarch64");
    EXPECT_EQ(normalize_arch("arm64", OsKind::macos), "arm64");
    EXPECT_EQ(normalize_arch("ARM64", OsKind::windows), "aarch64");
    EXPECT_EQ(normalize_arch("i686", OsKind::linux_os), "x86");
    EXPECT_EQ(normalize_arch("riscv64", OsKind::linux_os), "riscv64");
}

TEST(Names, RoundTrip) {
    for (OsKind os : {OsKind::linux_os, OsKind::windows, OsKind::macos}) {
        EXPECT_EQ(*parse_os_name(os_name(os)), os);
    }
    EXPECT_EQ(*parse_os_name("Darwin"), OsKind::macos);
    EXPECT_FALSE(parse_os_name("beos"));
    for (auto s : {NvidiaSource::override_env, NvidiaSource::nvml, NvidiaSource::libcuda,
                   NvidiaSource::sysfs, NvidiaSource::procfs, NvidiaSource::nvidia_smi}) {
        EXPECT_EQ(*parse_source_name(source_name(s)), s);
    }
    EXPECT_EQ(source_name(NvidiaSource::override_env), "override");
    EXPECT_EQ(source_name(NvidiaSource::nvidia_smi), "nvidia-smi");
#ifdef _WIN32
    EXPECT_EQ(host_os(), OsKind::windows);
#else
    EXPECT_EQ(host_os(), OsKind::linux_os);
#endif
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
