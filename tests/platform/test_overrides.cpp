// Detection overrides (docs/cli.md): read, validated, and reported by variable name.
#include "aitk/platform/overrides.hpp"

#include <gtest/gtest.h>

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

TEST(Overrides, EmptyEnvironmentOverridesNothing) {
    auto o = read_overrides({{"PATH", "/bin"}});
    ASSERT_TRUE(o);
    EXPECT_FALSE(o->driver_version);
    EXPECT_FALSE(o->cuda_version);
    EXPECT_FALSE(o->compute_capabilities);
    EXPECT_FALSE(o->no_gpu);
    EXPECT_FALSE(o->torch_backend);
    EXPECT_TRUE(o->active.empty());
}

TEST(Overrides, ReadsEveryVariable) {
    auto o = read_overrides({{"AITK_ENV_CUDA_DRIVER_VERSION", "550.54.14"},
                             {"AITK_ENV_CUDA_VERSION", "12.4"},
                             {"AITK_ENV_GPU_COMPUTE_CAPABILITY", "8.6, 12.0"},
                             {"AITK_ENV_NO_GPU", "0"},
                             {"AITK_ENV_NVML_LIBRARY", "/x/libnvidia-ml.so.1"},
                             {"AITK_ENV_LIBCUDA_LIBRARY", "/x/libcuda.so.1"},
                             {"AITK_ENV_NVIDIA_SMI", "/x/nvidia-smi"},
                             {"AITK_ENV_TORCH_BACKEND", "CU128"},
                             {"AITK_ENV_PROBE_TIMEOUT", "2.5"}});
    ASSERT_TRUE(o) << o.error().describe();
    EXPECT_EQ(o->driver_version->text(), "550.54.14");
    EXPECT_EQ(o->cuda_version->to_string(), "12.4");
    ASSERT_EQ(o->compute_capabilities->size(), 2u);
    EXPECT_EQ(o->compute_capabilities->at(1).to_string(), "12.0");
    EXPECT_FALSE(o->no_gpu);
    EXPECT_EQ(o->nvml_library, "/x/libnvidia-ml.so.1");
    EXPECT_EQ(o->libcuda_library, "/x/libcuda.so.1");
    EXPECT_EQ(o->nvidia_smi, "/x/nvidia-smi");
    EXPECT_EQ(o->torch_backend, "cu128");
    EXPECT_EQ(o->probe_timeout_seconds, 2.5);
    EXPECT_EQ(o->active, (std::vector<std::string>{"AITK_ENV_CUDA_DRIVER_VERSION=550.54.14",
                                                   "AITK_ENV_CUDA_VERSION=12.4",
                                                   "AITK_ENV_GPU_COMPUTE_CAPABILITY=8.6, 12.0"}));
}

TEST(Overrides, AutoAndEmptyValuesMeanDetection) {
    auto o =
        read_overrides({{"AITK_ENV_TORCH_BACKEND", "auto"}, {"AITK_ENV_CUDA_DRIVER_VERSION", " "}});
    ASSERT_TRUE(o);
    EXPECT_FALSE(o->torch_backend);
    EXPECT_FALSE(o->driver_version);
}

TEST(Overrides, NoGpuFlagSpellings) {
    for (const char* yes : {"1", "true", "YES", "on"}) {
        EXPECT_TRUE(read_overrides({{"AITK_ENV_NO_GPU", yes}})->no_gpu) << yes;
    }
    for (const char* no : {"0", "false", "No", "off"}) {
        EXPECT_FALSE(read_overrides({{"AITK_ENV_NO_GPU", no}})->no_gpu) << no;
    }
    auto e = read_overrides({{"AITK_ENV_NO_GPU", "maybe"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "AITK_ENV_NO_GPU: expected 1 or 0 (true/false, yes/no, on/off)");
}

TEST(Overrides, InvalidValuesNameTheVariableAndColumn) {
    auto e = read_overrides({{"AITK_ENV_CUDA_DRIVER_VERSION", "550.x"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().describe(),
              "AITK_ENV_CUDA_DRIVER_VERSION: expected a number in the driver version (such as "
              "550.54.14) (at column 5 "
              "of '550.x')");
    e = read_overrides({{"AITK_ENV_GPU_COMPUTE_CAPABILITY", "8.6,86"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().describe(),
              "AITK_ENV_GPU_COMPUTE_CAPABILITY: expected '.' after the major compute capability "
              "(write 8.6, not 86) "
              "(at column 7 of '8.6,86')");
    e = read_overrides({{"AITK_ENV_CUDA_VERSION", "twelve"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("AITK_ENV_CUDA_VERSION: ", 0), 0u);
    e = read_overrides({{"AITK_ENV_TORCH_BACKEND", "cuda12"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "AITK_ENV_TORCH_BACKEND: \"cuda12\" is not a torch backend: cu must be followed by "
              "digits (expected cpu, "
              "cuXYZ such as cu126, rocmX.Y such as rocm6.3, xpu or mps)");
    e = read_overrides({{"AITK_ENV_PROBE_TIMEOUT", "-1"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(
        e.error().message,
        "AITK_ENV_PROBE_TIMEOUT: expected a number of seconds between 0 and 3600, such as 2.5");
}

TEST(Overrides, NvidiaSourcesList) {
    auto o = read_overrides({{"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi, NVML"}});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->nvidia_sources, (std::vector<std::string>{"nvidia-smi", "nvml"}));
    auto e = read_overrides({{"AITK_ENV_NVIDIA_SOURCES", "nvml,dcgm"}});
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message,
              "AITK_ENV_NVIDIA_SOURCES: unknown source \"dcgm\" (expected a comma-separated list "
              "of nvml, libcuda, "
              "sysfs, procfs, nvidia-smi)");
}

TEST(Overrides, WindowsNamesAreCaseInsensitive) {
    auto o = read_overrides({{"aitk_env_no_gpu", "1"}}, true);
    ASSERT_TRUE(o);
    EXPECT_TRUE(o->no_gpu);
    EXPECT_FALSE(read_overrides({{"aitk_env_no_gpu", "1"}}, false)->no_gpu);
}

TEST(BackendName, AcceptsIndexSpellings) {
    for (const char* ok :
         {"cpu", "cu118", "cu126", "cu130", "rocm6.2.4", "rocm7.2", "xpu", "mps", " CPU "}) {
        EXPECT_TRUE(parse_backend_name(ok)) << ok;
    }
    EXPECT_EQ(*parse_backend_name(" CPU "), "cpu");
    for (const char* bad :
         {"", "auto", "cuda", "cu1", "cu1234", "rocm", "rocm6", "rocm6.x", "tpu", "cu12a"}) {
        EXPECT_FALSE(parse_backend_name(bad)) << bad;
    }
    EXPECT_EQ(parse_backend_name("auto").error().message,
              "\"auto\" is not a torch backend: \"auto\" means detection, not a backend (expected "
              "cpu, cuXYZ such as "
              "cu126, rocmX.Y such as rocm6.3, xpu or mps)");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
