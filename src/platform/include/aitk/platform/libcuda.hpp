#pragma once
// libcuda (the CUDA driver API): cuInit, cuDriverGetVersion and each device's compute
// capability (attributes 75/76). cuInit fails on an empty or invalid CUDA_VISIBLE_DEVICES and a
// broken driver can crash or hang the caller, so it runs in a child process (the aitk-env binary
// itself, through libcuda_child_main) with CUDA_VISIBLE_DEVICES unset and a timeout.
#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/types.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

struct LibcudaReport {
    std::string library;
    std::optional<CudaVersion> cuda;  // cuDriverGetVersion works even when cuInit fails
    std::vector<GpuDevice> gpus;
    // The first call that failed ("cuInit", 100, "CUDA_ERROR_NO_DEVICE"); empty call when none.
    std::string failed_call;
    int failed_code = 0;
    std::string failed_name;
};

// Libraries to try, in order: `override_library` (AITK_ENV_LIBCUDA_LIBRARY), then Linux
// libcuda.so.1 and /usr/lib/wsl/lib/libcuda.so.1; Windows %SystemRoot%\System32\nvcuda.dll.
std::vector<std::string> libcuda_candidates(OsKind os, const util::Environment& env,
                                            const std::optional<std::string>& override_library);

// The child's side: loads the first candidate that opens, queries it and writes the report in
// a small line protocol to `out`. Returns the process exit code (0 whenever a report was
// written, even one that carries an error).
int libcuda_child_main(const std::vector<std::string>& candidates, std::ostream& out);

// Reads the child's report. The protocol starts with "aitk-libcuda-probe 1" and ends with "end",
// so output cut short by a crash is an error.
Parsed<LibcudaReport> parse_libcuda_report(std::string_view text);

// Runs `helper` + candidates as a child process with CUDA_VISIBLE_DEVICES removed from `env`.
SourceResult<LibcudaReport> probe_libcuda(const std::vector<std::string>& helper,
                                          const std::vector<std::string>& candidates,
                                          const util::Environment& env,
                                          std::chrono::milliseconds timeout);

}  // namespace aitk::platform
