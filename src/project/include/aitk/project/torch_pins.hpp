#pragma once
// What the inputs say about torch, for the backend choice: the specifier torch must satisfy
// (which releases are candidates), and the one build they name, if any: the local label of a
// pin (torch==2.7.0+cu128), an index option of a requirements file (…/whl/cu128) or the CUDA
// packages of a conda snapshot. Pure: no I/O.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/project/project_input.hpp"

namespace aitk::project {

// An index URL whose last path segment names a torch backend: "https://host/whl/cu128" is
// base "https://host/whl", backend "cu128".
struct BackendIndexUrl {
    std::string base;
    std::string backend;
};
std::optional<BackendIndexUrl> backend_index_url(std::string_view url);

struct TorchPins {
    // torch's specifier as the inputs write it (torch, torchvision and torchaudio pins only
    // constrain torch through their own metadata); empty: the inputs do not pin torch.
    std::string torch_specifier;
    std::optional<std::string> backend;  // the build the inputs name ("cu128")
    std::string backend_by;              // "torch==2.7.0+cu128 (requirements.txt:4)"
    bool backend_strict = false;         // a pin's local label: no other build can satisfy it
    // Backends named by index options, in their order (several: a preference, not a choice).
    std::vector<std::string> index_backends;
    // The base of the first index option that names a backend: the torch index the inputs use.
    std::optional<std::string> index_base;
};

// Problems are input errors: pins of the torch family that name two different builds.
Loaded<TorchPins> torch_pins(const ProjectInput& input);

}  // namespace aitk::project
