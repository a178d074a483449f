#pragma once
// Choosing the torch backend that really runs here: the driver must be new enough for the
// build's CUDA family (cuda-drivers.yaml), the torch release must offer the build
// (torch-variants.yaml) and the build must carry kernels for every GPU's compute capability
// (cuda-archs.yaml). The answer is an ordered candidate list, the choice, and why, in words.
#include <optional>
#include <string>
#include <vector>

#include "aitk/pep/version.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/probe.hpp"
#include "aitk/platform/tables.hpp"

namespace aitk::platform {

struct BackendRequest {
    pep::Version torch;  // the torch version the manifest wants (default 2.13.0)
    // Backends in preference order (the manifest's, e.g. cu130, cu126). Empty: every CUDA build
    // the release offers, newest stable first, experimental last.
    std::vector<std::string> preferred;
    std::optional<std::string> forced;  // --backend / AITK_ENV_TORCH_BACKEND (validated name)
    std::string forced_by = "--backend";
    bool force = false;  // --force: accept a forced backend the hardware cannot run

    static BackendRequest ai_toolkit_default();  // torch 2.13.0, cu130 then cu126
};

struct BackendVerdict {
    std::string backend;
    bool runs = false;
    std::string why;  // "needs driver ≥ 580", "no kernels for sm_61 (GPU 0)", "runs"
};

struct BackendChoice {
    std::vector<std::string> candidates;  // runnable, best first; "cpu" (or "mps") last
    std::optional<std::string> backend;   // nullopt: refused
    std::string reason;                   // one paragraph
    std::string fix;                      // when refused or degraded: what to do
    bool forced = false;
    bool refused() const { return !backend.has_value(); }
    std::vector<BackendVerdict> verdicts;  // every backend considered, in order
};

BackendChoice choose_backend(const HostInfo& host, const HardwareProbe& probe,
                             const BackendRequest& request, const Tables& tables);

// "cu126" → 12 (the CUDA major family); nullopt for other backends.
std::optional<unsigned> cuda_family_of(std::string_view backend);

// Whether each GPU's capability is covered by `variant` for `torch`, in words per GPU.
struct CoverageReport {
    bool all_covered = true;
    bool unknown = false;  // a GPU's capability is unknown, or no arch data for this build
    std::vector<std::string> uncovered;  // "sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti)"
};
CoverageReport check_coverage(const std::vector<GpuDevice>& nvidia_gpus, std::string_view variant,
                              const ReleaseKey& torch, const ArchTable& archs);

}  // namespace aitk::platform
