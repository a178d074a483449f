#pragma once
// `aitk-env export`: one lock target written in another tool's format. Pure text formatters: no
// files, no clock, no environment; the app layer chooses the target and writes the result.
//
// A lock target was resolved for one environment (OS, machine, Python X.Y.Z, backend), so an
// export of one target carries no environment markers on its packages: every listed package is
// installed. Markers would only be needed to merge several targets into one file, which no
// format here does.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/lock/lockfile.hpp"

namespace aitk::lock {

enum class ExportFormat { env_yml, requirements, pylock, dockerfile };

// "env-yml", "requirements", "pylock", "dockerfile"; nullopt for anything else.
std::optional<ExportFormat> parse_export_format(std::string_view name) noexcept;
std::string_view export_format_name(ExportFormat format) noexcept;
// "env-yml, requirements, pylock, dockerfile" (for messages and --help).
std::string export_format_list();

// Where the text came from, for the header comments: "lockfiles/demo.lock.yml".
struct ExportSource {
    std::string label;
};

// An environment.yml for `target` alone: name, channels, `python=X.Y.Z`, pip in hash-checking
// mode (pip_section), the target's variables. No `x-aitk-env` key: conda and micromamba read it
// as a plain environment file, and aitk-env reads it back with `setup -f`/`lock -f`.
std::string export_env_yml(const Lockfile& lock, const LockedTarget& target,
                           const ExportSource& source);

// A requirements file that `pip install --require-hashes -r FILE` installs exactly: index
// options as the lock's indexes, `name==version --hash=sha256:…` per package, direct references
// as `name @ url#sha256=…` with the same hash as a `--hash` option. Packages pip cannot check by
// hash (VCS checkouts, local folders) are left out and named in a comment and in `left_out`.
struct RequirementsExport {
    std::string text;
    std::vector<std::string> left_out;
};
RequirementsExport export_requirements(const Lockfile& lock, const LockedTarget& target,
                                       const ExportSource& source);

// A PEP 751 pylock.toml (lock-version 1.0) for `target`: `environments` holds one marker for the
// target's platform, `requires-python` its Python X.Y, every package its files with size and
// sha256 (wheels from an index or find-links, `sdist` for an index sdist, `archive` for a direct
// URL, `vcs` with the locked commit, `directory` with `editable`), `[tool.aitk-env]` what
// markers cannot say (the target id and its backend).
std::string export_pylock(const Lockfile& lock, const LockedTarget& target,
                          const ExportSource& source);

// The marker `environments` gets: "sys_platform == 'linux' and platform_machine == 'x86_64'".
std::string target_environment_marker(const LockedTarget& target);

// The Docker base image for a Linux target's backend: a published CUDA runtime image for cuXYZ,
// plain Ubuntu for cpu (and for rocm/xpu, whose torch wheels carry their own runtime).
struct DockerBase {
    std::string image;      // "nvidia/cuda:12.8.1-runtime-ubuntu24.04"
    std::string platform;   // "linux/amd64"
    std::string run_flags;  // "--gpus all " (what `docker run` needs to reach the device)
    std::string note;       // why this image, for the Dockerfile's header
};
// Throws util::InputError for a target no Linux image can run (windows/macos, mps) and for a
// CUDA backend the table does not know (the message lists those it knows).
DockerBase docker_base_for(const LockedTarget& target);
// "cu118, cu121, …": the CUDA backends docker_base_for knows.
std::vector<std::string> known_docker_cuda_backends();

struct DockerfileOptions {
    std::string lock_path;  // the lockfile inside the build context, POSIX separators
    std::string prefix = "/opt/venv";
    // Paths (relative to the build context, POSIX) the .dockerignore keeps out beyond its
    // defaults, and files it keeps in although they lie below one of them.
    std::vector<std::string> ignore;
    std::vector<std::string> keep;
};

// `dockerfile_template` is templates/Dockerfile.in with its @NAME@ placeholders; the result has
// none left. Layer order: aitk-env built in a builder stage; the final stage copies the lockfile,
// runs `aitk-env setup` on it, and only then copies the application, so editing the application
// does not rebuild the environment.
std::string export_dockerfile(const Lockfile& lock, const LockedTarget& target,
                              const ExportSource& source, const DockerfileOptions& options,
                              std::string_view dockerfile_template);
std::string export_dockerignore(const DockerfileOptions& options,
                                std::string_view dockerignore_template);

}  // namespace aitk::lock
