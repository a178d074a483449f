#pragma once
// Lockfiles for the lock tests: a small one (the golden text) and a rich one that uses every
// field, several indexes and targets, and values YAML would misread if written plainly.
#include <cstdint>
#include <optional>
#include <string>

#include "aitk/lock/lockfile.hpp"

namespace aitk::test {

inline std::string hex64(char c) {
    return std::string(64, c);
}

inline lock::LockedPackage wheel_package(std::string name, std::string version, std::string index,
                                         std::string url, char hash,
                                         std::optional<std::uint64_t> size) {
    lock::LockedPackage p;
    p.name = std::move(name);
    p.version = std::move(version);
    p.index = std::move(index);
    std::string filename = url.substr(url.rfind('/') + 1);
    filename = filename.substr(0, filename.find('#'));
    if (const auto plus = filename.find("%2B"); plus != std::string::npos) {
        filename.replace(plus, 3, "+");
    }
    p.wheel = lock::LockedFile{filename, url, hex64(hash), size};
    return p;
}

// One target, two packages from one index.
inline lock::Lockfile small_lockfile() {
    lock::Lockfile lock;
    lock.name = "demo";
    lock.generator = "aitk-env 0.1.0";
    lock.input_hash = "sha256:" + hex64('1');
    lock.python_requires = ">=3.10";
    lock.indexes = {{"primary", "https://pypi.org/simple", lock::IndexKind::simple}};
    lock.default_target = "linux-x86_64-cpu";

    lock::LockedTarget t;
    t.id = "linux-x86_64-cpu";
    t.os = "linux";
    t.arch = "x86_64";
    t.backend = "cpu";
    t.python = "3.12.3";
    t.marker_environment = {
        {"python_full_version", "3.12.3"}, {"python_version", "3.12"}, {"sys_platform", "linux"}};
    t.variables = {{"HF_HOME", "/data/hf"}};
    auto six = wheel_package("six", "1.10", "primary",
                             "https://files.example/six-1.10-py2.py3-none-any.whl", 'a', 10);
    auto app = wheel_package("app", "2.0", "primary",
                             "https://files.example/app-2.0-py3-none-any.whl", 'b', 2000);
    app.requested = true;
    app.dependencies = {"six"};
    t.packages = {app, six};
    lock.targets = {t};
    return lock;
}

// Two targets, four kinds of origin (index, backend index, find-links, direct, VCS, sdist),
// extras, variables and values that need quoting.
inline lock::Lockfile rich_lockfile() {
    lock::Lockfile lock;
    lock.name = "ai toolkit: train";
    lock.channels = {"conda-forge", "nvidia"};
    lock.generator = "aitk-env 0.1.0";
    lock.input_hash = "sha256:" + hex64('2');
    lock.python_requires = ">=3.10,<3.13";
    lock.indexes = {
        {"primary", "https://pypi.org/simple", lock::IndexKind::simple},
        {"extra-index 1", "https://mirror.example/simple", lock::IndexKind::simple},
        {"torch cu130", "https://download.pytorch.org/whl/cu130", lock::IndexKind::torch_backend},
        {"torch cpu", "https://download.pytorch.org/whl/cpu", lock::IndexKind::torch_backend},
        {"find-links", "https://wheels.example/flat/", lock::IndexKind::find_links}};
    lock.default_target = "linux-x86_64-cu130";

    lock::LockedTarget cuda;
    cuda.id = "linux-x86_64-cu130";
    cuda.os = "linux";
    cuda.arch = "x86_64";
    cuda.backend = "cu130";
    cuda.python = "3.12.3";
    cuda.marker_environment = {
        {"implementation_name", "cpython"}, {"os_name", "posix"},
        {"platform_machine", "x86_64"},     {"platform_release", "6.1.0-18-amd64"},
        {"platform_system", "Linux"},       {"python_full_version", "3.12.3"},
        {"python_version", "3.12"},         {"sys_platform", "linux"}};
    cuda.variables = {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                      {"NO", "yes"},
                      {"EMPTY", ""},
                      {"QUOTE", "say \"hi\" # not a comment"},
                      {"UNICODE", "caf\xC3\xA9 \xE2\x80\xA8 line"}};
    auto torch = wheel_package("torch", "2.9.0+cu130", "torch cu130",
                               "https://download.pytorch.org/whl/cu130/"
                               "torch-2.9.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl",
                               'c', 900000000);
    torch.requested = true;
    torch.dependencies = {"filelock", "nvidia-cublas", "sympy"};
    auto filelock =
        wheel_package("filelock", "3.13.1", "primary",
                      "https://files.example/filelock-3.13.1-py3-none-any.whl", 'd', 11000);
    auto cublas = wheel_package(
        "nvidia-cublas", "13.0.0.19", "extra-index 1",
        "https://mirror.example/files/nvidia_cublas-13.0.0.19-py3-none-manylinux_2_27_x86_64.whl",
        'e', 500000000);
    auto sympy = wheel_package("sympy", "1.10", "primary",
                               "https://files.example/sympy-1.10-py3-none-any.whl", 'f', 7000);
    sympy.dependencies = {"mpmath"};
    // A find-links page, like every HTML page, gives no size.
    auto mpmath =
        wheel_package("mpmath", "1e3", "find-links",
                      "https://wheels.example/flat/mpmath-1e3-py3-none-any.whl", '0', std::nullopt);
    auto requests =
        wheel_package("requests", "2.0", "",
                      "https://direct.example/requests-2.0-py3-none-any.whl#egg=x", '3', 60000);
    requests.requested = true;
    requests.extras = {"security", "socks"};
    auto vcs = lock::LockedPackage{};
    vcs.name = "toolkit-extras";
    vcs.requested = true;
    vcs.source = lock::LockedSource{lock::SourceKind::vcs,
                                    "git+https://github.com/example/extras.git",
                                    "0123456789abcdef0123456789abcdef01234567",
                                    "",
                                    std::nullopt,
                                    "pkg"};
    auto sdist = lock::LockedPackage{};
    sdist.name = "oldpkg";
    sdist.version = "0.9";
    sdist.index = "primary";
    sdist.requested = true;
    sdist.source = lock::LockedSource{lock::SourceKind::sdist,
                                      "https://files.example/oldpkg-0.9.tar.gz",
                                      "",
                                      hex64('4'),
                                      1234,
                                      ""};
    cuda.packages = {filelock, mpmath, cublas, sdist, requests, sympy, vcs, torch};  // by name

    lock::LockedTarget cpu;
    cpu.id = "linux-aarch64-cpu";
    cpu.os = "linux";
    cpu.arch = "aarch64";
    cpu.backend = "cpu";
    cpu.python = "3.12.3";
    auto torch_cpu = wheel_package("torch", "2.9.0+cpu", "torch cpu",
                                   "https://download.pytorch.org/whl/cpu/"
                                   "torch-2.9.0%2Bcpu-cp312-cp312-manylinux_2_28_aarch64.whl",
                                   '5', 150000000);
    torch_cpu.requested = true;
    torch_cpu.dependencies = {"filelock"};
    cpu.packages = {filelock, torch_cpu};

    lock.targets = {cpu, cuda};
    return lock;
}

}  // namespace aitk::test
