#pragma once
// nvidia-smi, the last resort: `--query-gpu=driver_version,name,memory.total,compute_cap
// --format=csv,noheader`, one line per GPU. Old drivers (470) do not know compute_cap; the query
// is then repeated without it. The banner is never scraped (its wording changed over releases).
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/types.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

struct SmiReport {
    std::string program;
    DriverVersion driver;
    std::vector<GpuDevice> gpus;
    bool compute_cap_queried = true;  // false when the driver did not know the field
};

// Parses the CSV lines. With `with_compute_cap`, each line is
// "580.65.06, NVIDIA H200, 143771 MiB, 9.0", else the first three fields. Values may be
// "[N/A]" or "[Not Supported]". Commas inside a GPU name are kept (the name is everything between
// the first and the last fields).
Parsed<SmiReport> parse_nvidia_smi_csv(std::string_view text, bool with_compute_cap);

// The query arguments (after the program name).
std::vector<std::string> nvidia_smi_query_arguments(bool with_compute_cap);

// Where nvidia-smi is looked for, in order: `override_program` (AITK_ENV_NVIDIA_SMI), then
// PATH; on Linux /usr/lib/wsl/lib/nvidia-smi (WSL2); on Windows, where it is often off PATH,
// %SystemRoot%\System32\nvidia-smi.exe, %ProgramFiles%\NVIDIA Corporation\NVSMI\nvidia-smi.exe
// and %SystemRoot%\System32\DriverStore\FileRepository\nv*\nvidia-smi.exe. Only existing files
// are returned.
std::vector<std::filesystem::path> nvidia_smi_candidates(
    OsKind os, const util::Environment& env, const std::optional<std::string>& override_program);

// Runs the first candidate. "No devices were found" (exit 6) is reported as absent; a hang is
// killed at `timeout` and reported as timed_out.
SourceResult<SmiReport> probe_nvidia_smi(const std::vector<std::filesystem::path>& candidates,
                                         const util::Environment& env,
                                         std::chrono::milliseconds timeout);

}  // namespace aitk::platform
