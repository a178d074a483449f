#pragma once
// The environment a program in a prefix runs with — what the shims (and `aitk-env run`) do:
// PATH and VIRTUAL_ENV for the prefix, the lock's variables (PYTORCH_* and others) unless the
// user already set them, variables that would make Python or pip look elsewhere scrubbed, and
// library-path entries holding CUDA / cuDNN / NCCL / OpenMP runtimes dropped, because they
// would shadow the ones the torch wheels bundle. Pure: tested as data for every OS.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "aitk/util/subprocess.hpp"

namespace aitk::shim {

enum class ShimOs { posix, windows };

struct PrefixEnvironment {
    std::filesystem::path prefix;
    std::filesystem::path scripts;                  // <prefix>/bin or <prefix>\Scripts
    std::map<std::string, std::string> variables;  // from the lock target
    ShimOs os = ShimOs::posix;
};

// The variables removed: PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE, PIP_* (any),
// VIRTUAL_ENV (set again), CONDA_PREFIX, CONDA_DEFAULT_ENV, PYENV_VERSION.
bool is_scrubbed_variable(std::string_view name);

// Whether a PATH / LD_LIBRARY_PATH entry holds runtimes that shadow the wheels' own: a CUDA
// toolkit (".../cuda/lib64", "...\\CUDA\\v12.4\\bin"), cuDNN, NCCL or an OpenMP runtime folder.
// Decided from the path text only (the shim cannot afford to look inside folders).
bool is_shadowing_library_dir(std::string_view entry);

struct EnvironmentChange {
    util::EnvironmentChanges changes;  // what to set / remove
    std::vector<std::string> notes;    // "dropped /usr/local/cuda/lib64 from LD_LIBRARY_PATH"
};

// What to change in `current` to run inside the prefix.
EnvironmentChange prefix_environment(const PrefixEnvironment& prefix,
                                     const util::Environment& current);

}  // namespace aitk::shim
