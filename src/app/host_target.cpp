#include "aitk/app/host_target.hpp"

#include "aitk/platform/types.hpp"

namespace aitk::app {

HostTarget detect_host_target(DoctorOptions options) {
    options.discover_pythons = false;
    auto report = run_doctor(options);
    HostTarget out;
    std::string os(platform::os_name(report.host.os));
    if (os == "other") {
        out.reason = "this operating system is not a supported target";
        return out;
    }
    std::string arch = report.host.arch;
    if (os == "macos" && arch == "aarch64") arch = "arm64";
    out.os = os;
    out.arch = arch;
    out.backends = report.choice.candidates;
    if (out.backends.empty()) out.backends.push_back("cpu");
    std::string backend = report.choice.backend.value_or("cpu");
    out.id = os + "-" + arch + "-" + backend;
    out.reason = report.choice.refused()
                     ? "no GPU backend runs here (" + report.choice.reason + "); locking for cpu"
                     : report.choice.reason;
    return out;
}

}  // namespace aitk::app
