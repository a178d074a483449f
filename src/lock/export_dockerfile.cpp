#include <array>
#include <map>
#include <string>

#include "aitk/lock/exporters.hpp"
#include "aitk/util/error.hpp"

namespace aitk::lock {
namespace {

// One published nvidia/cuda runtime image per CUDA backend PyTorch ships wheels for: the last
// patch release of that CUDA minor, on the newest Ubuntu NVIDIA builds it for (24.04 images
// start with CUDA 12.5, so the older backends get 22.04). Each tag was seen in use on Docker
// Hub when this table was written; the torch wheels carry their own CUDA libraries, so the
// image only has to match the minor version the driver must support.
struct CudaImage {
    std::string_view backend;
    std::string_view cuda;
    std::string_view ubuntu;
};
constexpr std::array<CudaImage, 8> cuda_images = {{
    {"cu118", "11.8.0", "22.04"},
    {"cu121", "12.1.1", "22.04"},
    {"cu124", "12.4.1", "22.04"},
    {"cu126", "12.6.3", "24.04"},
    {"cu128", "12.8.1", "24.04"},
    {"cu129", "12.9.1", "24.04"},
    {"cu130", "13.0.1", "24.04"},
    {"cu132", "13.2.1", "24.04"},
}};

constexpr std::string_view plain_ubuntu = "ubuntu:24.04";

std::string docker_platform(const LockedTarget& target) {
    if (target.arch == "x86_64") return "linux/amd64";
    if (target.arch == "aarch64" || target.arch == "arm64") return "linux/arm64";
    throw util::InputError(
        "no Docker platform for the machine '" + target.arch + "' of " + target.id,
        "export a linux-x86_64-… or linux-aarch64-… target");
}

std::string fill(std::string_view text, const std::map<std::string, std::string>& values) {
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto at = text.find('@', pos);
        if (at == std::string_view::npos) break;
        const auto end = text.find('@', at + 1);
        if (end == std::string_view::npos) break;
        const auto found = values.find(std::string(text.substr(at + 1, end - at - 1)));
        if (found == values.end()) {
            // Not a placeholder: keep the '@' and look again from the next character.
            out.append(text.substr(pos, at + 1 - pos));
            pos = at + 1;
            continue;
        }
        out.append(text.substr(pos, at - pos));
        out += found->second;
        pos = end + 1;
    }
    out.append(text.substr(pos));
    return out;
}

std::string file_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::vector<std::string> known_docker_cuda_backends() {
    std::vector<std::string> out;
    for (const auto& image : cuda_images)
        out.emplace_back(image.backend);
    return out;
}

DockerBase docker_base_for(const LockedTarget& target) {
    if (target.os != "linux") {
        throw util::InputError(
            "a Docker image runs Linux; the target " + target.id + " is for " + target.os,
            "export a linux-… target of the lock (--target)");
    }
    DockerBase base;
    base.platform = docker_platform(target);
    const std::string& backend = target.backend;
    if (backend.starts_with("cu")) {
        for (const auto& image : cuda_images) {
            if (image.backend != backend) continue;
            base.image = "nvidia/cuda:" + std::string(image.cuda) + "-runtime-ubuntu" +
                         std::string(image.ubuntu);
            base.run_flags = "--gpus all ";
            base.note = "the CUDA " + std::string(image.cuda) + " runtime image for " + backend +
                        " (the host needs the NVIDIA driver and the NVIDIA Container Toolkit)";
            return base;
        }
        std::string known;
        for (const auto& name : known_docker_cuda_backends())
            known += (known.empty() ? "" : ", ") + name;
        throw util::InputError(
            "no CUDA runtime image is known for the backend " + backend + " (known: " + known + ")",
            "export a target with one of those backends, or write the FROM "
            "lines of the exported Dockerfile by hand");
    }
    base.image = std::string(plain_ubuntu);
    if (backend == "cpu") {
        base.note = "plain Ubuntu: the cpu target needs no device libraries";
    } else if (backend.starts_with("rocm")) {
        base.run_flags = "--device /dev/kfd --device /dev/dri --group-add video ";
        base.note = "plain Ubuntu: the " + backend +
                    " torch wheels carry the ROCm libraries; the host needs the amdgpu driver";
    } else if (backend == "xpu") {
        base.run_flags = "--device /dev/dri ";
        base.note =
            "plain Ubuntu: the xpu torch wheels carry their runtime; the host needs the "
            "Intel GPU driver";
    } else {
        throw util::InputError(
            "the backend " + backend + " of " + target.id + " does not run in a Linux container",
            "export a cpu, cuXYZ, rocmX.Y or xpu target (--target)");
    }
    return base;
}

std::string export_dockerfile(const Lockfile& lock, const LockedTarget& target,
                              const ExportSource& source, const DockerfileOptions& options,
                              std::string_view dockerfile_template) {
    const DockerBase base = docker_base_for(target);
    const std::map<std::string, std::string> values = {
        {"SOURCE", source.label},
        {"TARGET", target.id},
        {"BACKEND", target.backend},
        {"PYTHON", target.python},
        {"NAME", lock.name},
        {"BASE_IMAGE", base.image},
        {"BASE_NOTE", base.note},
        {"PLATFORM", base.platform},
        {"RUN_FLAGS", base.run_flags},
        {"LOCK_PATH", options.lock_path},
        {"LOCK_NAME", file_name(options.lock_path)},
        {"PREFIX", options.prefix},
    };
    return fill(dockerfile_template, values);
}

std::string export_dockerignore(const DockerfileOptions& options,
                                std::string_view dockerignore_template) {
    // One line each, exceptions last (a later line wins); no newline after the last one, as
    // the template's own line ends there.
    std::string ignore;
    for (const auto& path : options.ignore)
        ignore += (ignore.empty() ? "" : "\n") + path;
    for (const auto& path : options.keep)
        ignore += (ignore.empty() ? "!" : "\n!") + path;
    return fill(dockerignore_template, {{"IGNORE", ignore}});
}

}  // namespace aitk::lock
