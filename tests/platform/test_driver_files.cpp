// The NVIDIA kernel module's files and the PCI list, from fake /sys and /proc trees.
#include "aitk/platform/driver_files.hpp"

#include <gtest/gtest.h>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::add_pci_device;
using aitk::test::TempDir;
using aitk::test::write_file;

// Recorded /proc/driver/nvidia/version files (proprietary and open kernel modules).
const char* kProprietary =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.154.05  Thu Dec 28 15:37:48 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
const char* kOpen =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Tue Jul 15 02:32:40 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";
const char* kAarch64 =
    "NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.133.20  Fri Mar 14 2025\n";

TEST(ProcDriverVersion, FindsTheVersionWord) {
    EXPECT_EQ(parse_proc_driver_version(kProprietary)->text(), "535.154.05");
    EXPECT_EQ(parse_proc_driver_version(kOpen)->text(), "580.65.06");
    EXPECT_EQ(parse_proc_driver_version(kAarch64)->text(), "570.133.20");
    auto e = parse_proc_driver_version("GCC version: 12\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "no \"NVRM version:\" line in /proc/driver/nvidia/version");
    e = parse_proc_driver_version("x\nNVRM version: NVIDIA UNIX Kernel Module\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the NVRM version line has no driver version");
    EXPECT_EQ(e.error().position, 2u);
}

TEST(SysfsDriverVersion, Parses) {
    EXPECT_EQ(parse_sysfs_driver_version("580.65.06\n")->text(), "580.65.06");
    auto e = parse_sysfs_driver_version("garbage\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message.rfind("/sys/module/nvidia/version: ", 0), 0u);
}

TEST(ProcGpuInformation, ReadsModelAndBus) {
    auto info = parse_proc_gpu_information(
        "Model: \t\t NVIDIA GeForce RTX 3090\nIRQ:   \t\t 130\nGPU UUID: \t GPU-3c5ae1f0\n"
        "Bus Location: \t 0000:01:00.0\nDevice Minor: \t 0\n");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->model, "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(info->bus_location, "0000:01:00.0");
    EXPECT_FALSE(parse_proc_gpu_information("IRQ: 5\n"));
}

TEST(Pci, ScansDisplayDevicesOnly) {
    TempDir root;
    add_pci_device(root.path, "0000:01:00.0", "0x10de", "0x2204", "0x030000");
    add_pci_device(root.path, "0000:00:02.0", "0x8086", "0x4680", "0x030000");  // integrated
    add_pci_device(root.path, "0000:03:00.0", "0x8086", "0x56a0", "0x030000");  // Arc A770
    add_pci_device(root.path, "0000:00:1f.3", "0x8086", "0x7ad0", "0x040300");  // audio
    add_pci_device(root.path, "0000:41:00.0", "0x10de", "0x2335", "0x030200");  // 3D controller
    auto env = aitk::test::isolated_environment(root.path);
    auto devices = scan_pci_display_devices(env);
    ASSERT_EQ(devices.size(), 4u);
    EXPECT_EQ(devices[0], (PciDisplayDevice{"0000:00:02.0", 0x8086, 0x4680, 0x030000}));
    EXPECT_EQ(devices[3], (PciDisplayDevice{"0000:41:00.0", 0x10de, 0x2335, 0x030200}));
    EXPECT_FALSE(is_intel_discrete(devices[0]));
    EXPECT_TRUE(is_intel_discrete(devices[2]));
    EXPECT_FALSE(is_intel_discrete(devices[1]));
}

TEST(DriverFiles, SysfsAnswersWithPciGpusNamedFromProc) {
    TempDir root;
    write_file(root.path / "sys/module/nvidia/version", "580.65.06\n");
    add_pci_device(root.path, "0000:01:00.0", "0x10de", "0x2204", "0x030000");
    add_pci_device(root.path, "0000:02:00.0", "0x10de", "0x2204", "0x030000");
    write_file(root.path / "proc/driver/nvidia/gpus/0000:01:00.0/information",
               "Model: \t\t NVIDIA GeForce RTX 3090\nBus Location: \t 0000:01:00.0\n");
    auto env = aitk::test::isolated_environment(root.path);
    auto r = probe_sysfs_driver(env);
    ASSERT_EQ(r.outcome, AttemptOutcome::answered) << r.detail;
    EXPECT_EQ(r.value->driver.text(), "580.65.06");
    ASSERT_EQ(r.value->gpus.size(), 2u);
    EXPECT_EQ(r.value->gpus[0].name, "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(r.value->gpus[0].pci_address, "0000:01:00.0");
    EXPECT_EQ(r.value->gpus[1].name, "");
    EXPECT_FALSE(r.value->gpus[0].compute_capability);
    EXPECT_EQ(r.detail, "/sys/module/nvidia/version: 580.65.06, 2 GPUs on PCI");
}

TEST(DriverFiles, ProcfsAloneStillNamesGpus) {
    TempDir root;
    write_file(root.path / "proc/driver/nvidia/version", kProprietary);
    write_file(root.path / "proc/driver/nvidia/gpus/0000:65:00.0/information",
               "Model: \t\t Tesla T4\n");
    auto env = aitk::test::isolated_environment(root.path);
    EXPECT_EQ(probe_sysfs_driver(env).outcome, AttemptOutcome::absent);
    auto r = probe_procfs_driver(env);
    ASSERT_TRUE(r.value);
    EXPECT_EQ(r.value->driver.text(), "535.154.05");
    ASSERT_EQ(r.value->gpus.size(), 1u);
    EXPECT_EQ(r.value->gpus[0].name, "Tesla T4");
    EXPECT_EQ(r.value->gpus[0].pci_address, "0000:65:00.0");
}

TEST(DriverFiles, BrokenFilesFail) {
    TempDir root;
    write_file(root.path / "sys/module/nvidia/version", "not a version\n");
    write_file(root.path / "proc/driver/nvidia/version", "nothing here\n");
    auto env = aitk::test::isolated_environment(root.path);
    EXPECT_EQ(probe_sysfs_driver(env).outcome, AttemptOutcome::failed);
    auto r = probe_procfs_driver(env);
    EXPECT_EQ(r.outcome, AttemptOutcome::failed);
    EXPECT_EQ(
        r.detail,
        "/proc/driver/nvidia/version: no \"NVRM version:\" line in /proc/driver/nvidia/version");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
