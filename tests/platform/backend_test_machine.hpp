#pragma once
// Machines for the backend-choice tests, described in a line: the driver (or only the CUDA level
// it reports) and one GPU as "name|capability", on an OS and CPU architecture.
#include <string>

#include "aitk/platform/backend.hpp"
#include "aitk/platform/tables.hpp"

namespace aitk::test {

inline const platform::Tables& backend_tables() {
    static const platform::Tables t = *platform::builtin_tables();
    return t;
}

struct BackendMachine {
    platform::OsKind os = platform::OsKind::linux_os;
    const char* arch = "x86_64";
    const char* driver = nullptr;  // nullptr with cuda == nullptr: no NVIDIA driver
    const char* cuda = nullptr;
    const char* gpu = nullptr;  // "name|cc"
};

inline platform::HostInfo host_of(const BackendMachine& m) {
    platform::HostInfo h;
    h.os = m.os;
    h.arch = m.arch;
    return h;
}

inline platform::HardwareProbe probe_of(const BackendMachine& m) {
    platform::HardwareProbe p;
    if (m.driver || m.cuda) {
        platform::NvidiaDriver d;
        if (m.driver) d.driver_version = *platform::DriverVersion::parse(m.driver);
        if (m.cuda) d.cuda_version = *platform::CudaVersion::parse(m.cuda);
        d.source = platform::NvidiaSource::nvml;
        p.nvidia = d;
    }
    if (m.gpu) {
        std::string text = m.gpu;
        platform::GpuDevice g;
        g.name = text.substr(0, text.find('|'));
        g.compute_capability = *platform::ComputeCapability::parse(text.substr(text.find('|') + 1));
        p.gpus.push_back(g);
    }
    return p;
}

}  // namespace aitk::test
