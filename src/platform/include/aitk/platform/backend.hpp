#pragma once
// Choosing the torch backend that really runs here: the driver must be new enough for the
// build's CUDA family (cuda-drivers.yaml), the torch release must offer the build
// (torch-variants.yaml) and the build must carry kernels for every GPU's compute capability
// (cuda-archs.yaml). The answer is an ordered candidate list, the choice, and why, in words.
#include <optional>
#include <string>
#include <vector>

#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/probe.hpp"
#include "aitk/platform/tables.hpp"

namespace aitk::platform {

struct BackendRequest {
    pep::Version torch;  // the torch version messages name when `releases` is empty (2.13.0)
    // The torch releases the inputs allow, best (newest) first: an exact pin gives one, a
    // specifier such as ">=2.5" every release that satisfies it. Empty: `torch`'s release.
    std::vector<ReleaseKey> releases;
    std::string torch_text;  // how the inputs ask for torch ("torch>=2.5"); for messages
    // Backends in preference order (the manifest's, e.g. cu130, cu126). Empty: every CUDA build
    // the release offers, newest stable first, experimental last.
    std::vector<std::string> preferred;
    // The one backend the inputs name: a local label of a pin (torch==2.7.0+cu128), an index
    // option of a requirements file (…/whl/cu128), a conda snapshot's cudatoolkit. No other
    // backend is considered; `fixed_by` says where it came from. A pin's label is `strict`:
    // --backend cannot replace it (that build exists only on its own index).
    std::optional<std::string> fixed;
    std::string fixed_by;
    bool fixed_strict = false;
    std::optional<std::string> forced;  // --backend / AITK_ENV_TORCH_BACKEND (validated name)
    std::string forced_by = "--backend";
    bool force = false;  // --force: accept a forced backend the hardware cannot run

    static BackendRequest ai_toolkit_default();  // torch 2.13.0, cu130 then cu126
};

struct BackendVerdict {
    std::string backend;
    bool runs = false;
    std::string why;  // "needs driver ≥ 580", "no kernels for sm_61 (GPU 0)", "runs"
    std::optional<ReleaseKey> release;  // the torch release judged
};

// A torch build this machine runs: a release and a backend.
struct BackendPair {
    ReleaseKey release;
    std::string backend;
    friend bool operator==(const BackendPair&, const BackendPair&) = default;
};

struct BackendChoice {
    // Backends this machine may use, best first, each once. "cpu" is listed only where CPU
    // torch may be chosen: no NVIDIA or AMD GPU (or AITK_ENV_NO_GPU), or --backend cpu.
    std::vector<std::string> candidates;
    std::vector<BackendPair> pairs;      // (release, backend) that run, best first
    std::optional<std::string> backend;  // nullopt: refused
    std::optional<ReleaseKey> release;   // the release of the chosen build
    std::string reason;                  // one paragraph
    std::string fix;                     // when refused or degraded: what to do
    bool forced = false;
    bool refused() const { return !backend.has_value(); }
    std::vector<BackendVerdict> verdicts;  // every build considered, in order

    // The releases `backend` runs for here, best first (from `pairs`).
    std::vector<ReleaseKey> releases_of(std::string_view backend) const;
};

// The backend choice for the torch the request allows: every (release, backend) pair the
// driver and every GPU support, best first (newest release, then the preference order: newest
// CUDA stable first, experimental last), the best of them, and why in words.
BackendChoice choose_backend(const HostInfo& host, const HardwareProbe& probe,
                             const BackendRequest& request, const Tables& tables);

// "cu126" → 12 (the CUDA major family); nullopt for other backends.
std::optional<unsigned> cuda_family_of(std::string_view backend);
// "cu126" → 12.6, "cu130" → 13.0 (the toolkit the build was made with); nullopt for others.
std::optional<CudaVersion> cuda_version_of(std::string_view backend);

// Whether this machine's driver runs CUDA build `backend` natively: it is at least the driver the
// build's toolkit shipped with (cuda-drivers.yaml `toolkit_drivers`; where that is not listed,
// the CUDA level the driver reports). A build of the driver's family that is not native runs only
// through CUDA minor-version compatibility. False for non-CUDA builds and unknown drivers.
bool runs_natively(const HostInfo& host, const HardwareProbe& probe, std::string_view backend,
                   const Tables& tables);

// The one rule that orders the builds that run here (data-sources.md §1): `builds`, best first by
// the caller's preference, reordered so that the CUDA builds the driver runs natively come first,
// in the caller's order, then those that run only through minor-version compatibility, the oldest
// CUDA first (the build nearest the driver leans least on compatibility). Other builds keep their
// places. Returns the indices of `builds` in the new order.
std::vector<std::size_t> rank_by_driver_fit(const std::vector<std::string>& builds,
                                            const HostInfo& host, const HardwareProbe& probe,
                                            const Tables& tables);

// Whether torch must use a GPU here: an NVIDIA GPU (or an overridden NVIDIA driver) or an AMD
// GPU, and AITK_ENV_NO_GPU is not set. On such a machine CPU torch is chosen only when asked
// for by name (--backend cpu).
bool has_usable_gpu(const HostInfo& host, const HardwareProbe& probe);

// One torch build (a locked torch's release and backend) judged on this machine, with the
// same rules as choose_backend. `cpu_forced`: CPU torch was asked for by name.
BackendVerdict judge_build(const HostInfo& host, const HardwareProbe& probe,
                           const ReleaseKey& release, std::string_view backend,
                           const Tables& tables, bool cpu_forced = false);

// The releases of `tables` that hold a version `specifier` allows, newest first (a release
// X.Y holds X.Y.0 … X.Y.99, with any local label the specifier names).
std::vector<ReleaseKey> releases_allowing(const pep::SpecifierSet& specifier, const Tables& tables);

// Whether each GPU's capability is covered by `variant` for `torch`, in words per GPU.
struct CoverageReport {
    bool all_covered = true;
    bool unknown = false;  // a GPU's capability is unknown, or no arch data for this build
    std::vector<std::string> uncovered;  // "sm_61 (GPU 0, NVIDIA GeForce GTX 1080 Ti)"
};
// `arch`: the machine's CPU architecture (aarch64 builds carry other kernels than x86_64's).
CoverageReport check_coverage(const std::vector<GpuDevice>& nvidia_gpus, std::string_view variant,
                              const ReleaseKey& torch, const ArchTable& archs,
                              std::string_view arch = "x86_64");

}  // namespace aitk::platform
