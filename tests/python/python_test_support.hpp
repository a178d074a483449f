#pragma once
// Helpers of the python layer's tests: a self-removing temp folder, fake interpreters that
// answer the probe as a given Python would, and the pyenv interpreters of this machine.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace aitk::python::test {

namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir() {
        static int n = 0;
        path = fs::temp_directory_path() /
               ("aitk-python-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// A shell script answering the probe: the marker, then JSON naming `version` and
// `executable` ("$0" makes it name itself, as a real interpreter binary does). `before` runs
// first (sleep, exit, count the runs).
inline void fake_python(const fs::path& p, const std::string& version,
                        const std::string& executable, const std::string& before = "") {
    write_text(p, "#!/bin/sh\n" + before +
                      "echo aitk-python-probe\n"
                      "echo '{\"implementation\": \"CPython\", \"version\": \"" +
                      version + "\", \"executable\": \"'\"" + executable + "\"'\"}'\n");
    fs::permissions(p, fs::perms::owner_all);
}

inline const fs::path pyenv_versions = "/root/.pyenv/versions";
inline fs::path pyenv_python(const std::string& version) {
    return pyenv_versions / version / "bin" / "python3";
}

}  // namespace aitk::python::test
