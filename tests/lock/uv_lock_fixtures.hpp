#pragma once
// Real uv.lock files (tests/data/realworld/uv, copied from /work/shared/realworld) and the
// environments of the targets the tests read them for, written out here: the lock layer's tests
// do not link the project layer that computes them for aitk-env.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/lock/uv_lock.hpp"
#include "aitk/lock/uv_lock_install.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/tags.hpp"
#include "test_data.hpp"
#include "test_files.hpp"

namespace aitk::lock::uv_test {

inline std::string data(const std::string& name) {
    return test::data_path("realworld/uv/" + name);
}

// The verbatim copies of /work/shared/realworld: ../shared beside the checkout (or beside the
// folder of worktrees it is in). A user's clone has none; the tests using them skip.
inline std::filesystem::path shared_realworld() {
    auto dir = std::filesystem::path(AITK_TEST_DATA_DIR).parent_path().parent_path();
    for (int up = 0; up < 2; ++up) {
        dir = dir.parent_path();
        std::error_code ec;
        if (std::filesystem::is_directory(dir / "shared" / "realworld", ec))
            return dir / "shared" / "realworld";
    }
    return std::filesystem::path(AITK_TEST_DATA_DIR).parent_path().parent_path().parent_path() /
           "shared" / "realworld";
}

inline UvLock read(const std::string& path) {
    auto parsed = parse_uv_lock(test::read_file(path), path);
    if (!parsed) throw std::runtime_error(parsed.error().describe());
    return std::move(*parsed);
}

// CPython `python` on os ("linux", "windows", "macos") and arch, as pip sees it there.
inline pep::MarkerEnvironment environment(const std::string& os, const std::string& arch,
                                          const std::string& python = "3.12.1") {
    using V = pep::MarkerVariable;
    pep::MarkerEnvironment env;
    const std::string minor = python.substr(0, python.rfind('.'));
    env.set(V::python_version, minor);
    env.set(V::python_full_version, python);
    env.set(V::implementation_name, "cpython");
    env.set(V::implementation_version, python);
    env.set(V::platform_python_implementation, "CPython");
    if (os == "linux") {
        env.set(V::sys_platform, "linux");
        env.set(V::platform_system, "Linux");
        env.set(V::os_name, "posix");
        env.set(V::platform_machine, arch);
    } else if (os == "windows") {
        env.set(V::sys_platform, "win32");
        env.set(V::platform_system, "Windows");
        env.set(V::os_name, "nt");
        env.set(V::platform_machine, arch == "x86_64" ? "AMD64" : "ARM64");
    } else {
        env.set(V::sys_platform, "darwin");
        env.set(V::platform_system, "Darwin");
        env.set(V::os_name, "posix");
        env.set(V::platform_machine, arch);
    }
    return env;
}

inline pep::TargetPlatform platform(const std::string& os, const std::string& arch,
                                    unsigned minor = 12) {
    pep::TargetPlatform t;
    t.python_minor = minor;
    t.arch = arch;
    if (os == "windows") t.os = pep::TargetOs::windows;
    if (os == "macos") {
        t.os = pep::TargetOs::macos;
        t.os_version = {14, 0};
    } else {
        t.os_version = {2, 28};
    }
    return t;
}

// "name==version" of every installed package of a walk, sorted (virtual packages left out).
inline std::vector<std::string> installed(const UvLock& lock, const UvInstallSet& set) {
    std::vector<std::string> out;
    for (const auto& s : set.packages) {
        const auto& p = lock.packages[s.package];
        if (p.source.kind == UvSource::Kind::virtual_) continue;
        out.push_back(p.name + "==" + p.version);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The lines of an expected-set file (bench/uv_lock_walk.py's output), without blank ones.
inline std::vector<std::string> expected(const std::string& name) {
    std::vector<std::string> out;
    const std::string text = test::read_file(data(name));
    std::size_t begin = 0;
    while (begin < text.size()) {
        auto end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(begin, end - begin);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) out.push_back(line);
        begin = end + 1;
    }
    return out;
}

}  // namespace aitk::lock::uv_test
