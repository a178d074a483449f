#pragma once
// Building blocks for fake machines: temporary folders, fake /sys and /proc trees, and copies of
// the fake NVML / libcuda (built by tests/platform/fakes) with their configs beside them.
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/platform/probe_environment.hpp"
#include "test_files.hpp"

namespace aitk::test {

namespace stdfs = std::filesystem;

// TempDir, write_file and read_file come from tests/support/test_files.hpp.

// Copies a built fake library to dir/name and writes its config to dir/name.conf.
inline stdfs::path install_fake_library(const stdfs::path& built, const stdfs::path& dir,
                                        const std::string& name, const std::string& config) {
    stdfs::create_directories(dir);
    stdfs::path target = dir / name;
    stdfs::copy_file(built, target, stdfs::copy_options::overwrite_existing);
    write_file(stdfs::path(target.string() + ".conf"), config);
    return target;
}

#ifdef AITK_FAKE_NVML
inline stdfs::path install_fake_nvml(const stdfs::path& dir, const std::string& config) {
    return install_fake_library(AITK_FAKE_NVML, dir, "libnvidia-ml.so.1", config);
}
#endif
#ifdef AITK_FAKE_LIBCUDA
inline stdfs::path install_fake_libcuda(const stdfs::path& dir, const std::string& config) {
    return install_fake_library(AITK_FAKE_LIBCUDA, dir, "libcuda.so.1", config);
}
#endif

// A probe environment that sees nothing of the real machine: /sys and /proc under `root`, an
// empty PATH folder, no NVML or libcuda candidates, no libcuda helper, short timeouts.
inline platform::ProbeEnvironment isolated_environment(const stdfs::path& root) {
    platform::ProbeEnvironment env;
    env.root = root;
    env.os = platform::OsKind::linux_os;
    stdfs::create_directories(root / "bin");
    env.env = {{"PATH", (root / "bin").string()}, {"HOME", root.string()}};
    env.nvml_candidates = std::vector<std::string>{};
    env.libcuda_candidates = std::vector<std::string>{};
    env.timeouts = platform::ProbeTimeouts::all(std::chrono::milliseconds(5000));
    return env;
}

// /sys/bus/pci/devices/<address>/{vendor,device,class}
inline void add_pci_device(const stdfs::path& root, const std::string& address,
                           const std::string& vendor, const std::string& device,
                           const std::string& cls) {
    stdfs::path dir = root / "sys/bus/pci/devices" / address;
    write_file(dir / "vendor", vendor + "\n");
    write_file(dir / "device", device + "\n");
    write_file(dir / "class", cls + "\n");
}

}  // namespace aitk::test
