#pragma once
// The setup benchmark's universe: a torch-sized set of real wheels (a ~900 MB "torch" with big
// native-library blobs and thousands of .py / .h files, a "triton", nvidia-* CUDA wheels that
// share the `nvidia/` top-level folder, and ~55 AI-Toolkit-style dependencies), published on a
// pypi-style "simple" index and a pytorch-style "whl/cu130" backend index.
//
// Generating 2 GB takes a while, so the mirror is kept on disk under a key made of the
// generator's parameters and reused by later runs.
#include <cstdint>
#include <filesystem>
#include <string>

namespace aitk::bench {

struct ScenarioParameters {
    std::uint64_t seed = 1;
    double scale = 1.0;  // multiplies every native blob's size (< 1 for quick trial runs)
};

struct ScenarioInfo {
    std::filesystem::path root;  // serve at "/": index /simple/, torch index /whl (cu130)
    std::string requirements;    // requirements.txt text naming every project
    std::size_t wheels = 0;
    std::size_t files = 0;  // members of all wheels (RECORD entries)
    std::uint64_t wheel_bytes = 0;
    std::uint64_t unpacked_bytes = 0;
    double built_seconds = -1;  // < 0: reused from the cache
};

// The mirror for `parameters` under `cache_dir` (made now when missing; an unfinished one from
// an interrupted run is replaced). Prints progress to stdout while generating.
ScenarioInfo ensure_scenario(const std::filesystem::path& cache_dir,
                             const ScenarioParameters& parameters);

}  // namespace aitk::bench
