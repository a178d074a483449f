#pragma once
// The environment a program in a prefix runs with — what the shims (and `aitk-env run`) do:
// PATH and VIRTUAL_ENV for the prefix, the lock's variables (PYTORCH_* and others) unless the
// user already set them, variables that would make Python or pip look elsewhere scrubbed, and
// library-path entries holding CUDA / cuDNN / NCCL / OpenMP runtimes dropped, because they
// would shadow the ones the torch wheels bundle. Pure: tested as data for every OS.
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/subprocess.hpp"

namespace aitk::shim {

enum class ShimOs { posix, windows };

struct PrefixEnvironment {
    std::filesystem::path prefix;
    std::filesystem::path scripts;                 // <prefix>/bin or <prefix>\Scripts
    std::map<std::string, std::string> variables;  // from the lock target
    ShimOs os = ShimOs::posix;
    // Windows: folders os.add_dll_directory should add beside torch\lib, nvidia\*\bin and
    // <prefix>\Library\bin (which the site-packages module finds by itself).
    std::vector<std::filesystem::path> dll_directories;
};

// The prefix as UTF-8 text, and its scripts folder: `scripts` when absolute, else
// <prefix><separator><scripts> (bin / Scripts when empty), joined by the prefix's OS convention,
// so Windows prefixes render the same on every host.
std::string prefix_text(const PrefixEnvironment& prefix);
std::string scripts_text(const PrefixEnvironment& prefix);

// Names every shell can set: ASCII letters, digits and '_', not starting with a digit.
bool is_portable_variable_name(std::string_view name);

// Why a lock variable is not applied (not a portable name; PATH, LD_LIBRARY_PATH or a scrubbed
// name, which the shim manages; an empty value on Windows, which cannot hold one), or nullopt.
std::optional<std::string> lock_variable_problem(std::string_view name, std::string_view value,
                                                 ShimOs os);

// The variables removed: PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE, PIP_* (any),
// VIRTUAL_ENV (set again), CONDA_PREFIX, CONDA_DEFAULT_ENV, PYENV_VERSION. Exact (upper) case;
// "PIP_*" means PIP_ followed by portable name characters, the names a POSIX shell can unset.
// prefix_environment compares Windows names upper-cased.
bool is_scrubbed_variable(std::string_view name);

// Whether a PATH / LD_LIBRARY_PATH entry holds runtimes that shadow the wheels' own: a CUDA
// toolkit (".../cuda/lib64", "...\\CUDA\\v12.4\\bin"), cuDNN, NCCL or an OpenMP runtime folder.
// Decided from the path text only (the shim cannot afford to look inside folders): with '\\'
// read as '/', ASCII case ignored and the entry wrapped in '/', it contains one of
// shadowing_needles() and none of keeping_needles() ("/compat/": CUDA forward-compatibility
// drivers must stay). The shims are rendered from the same needles.
bool is_shadowing_library_dir(std::string_view entry);
std::span<const std::string_view> shadowing_needles();
std::span<const std::string_view> keeping_needles();
// The fixed scrubbed names (PIP_* aside), for the shims.
std::span<const std::string_view> scrubbed_variable_names();

struct EnvironmentChange {
    util::EnvironmentChanges changes;  // what to set / remove
    std::vector<std::string> notes;    // "dropped /usr/local/cuda/lib64 from LD_LIBRARY_PATH"
};

// What to change in `current` to run inside the prefix:
// - every scrubbed variable unset; VIRTUAL_ENV = the prefix;
// - PATH = the scripts folder, then the old entries except the scripts folder itself (POSIX keeps
//   empty entries; Windows drops them, removes '"' from entries and drops shadowing folders);
//   an unset or empty PATH becomes the scripts folder alone;
// - POSIX: LD_LIBRARY_PATH without empty entries and shadowing folders (unset when none is left;
//   untouched when nothing was dropped);
// - each lock variable unless `current` has it (Windows: any case) or lock_variable_problem.
// Windows names are compared case-insensitively and existing spellings ("Path") are kept.
EnvironmentChange prefix_environment(const PrefixEnvironment& prefix,
                                     const util::Environment& current);

}  // namespace aitk::shim
