#pragma once
// Helpers of the python layer's tests: fake interpreters that answer the probe as a given Python
// would, and the pyenv interpreters of this machine.
#include <filesystem>
#include <string>

#include "test_files.hpp"

namespace aitk::python::test {

namespace fs = std::filesystem;

// The shared temp folder and file helpers (tests/support/test_files.hpp).
using aitk::test::read_file;
using aitk::test::read_file_or_empty;
using aitk::test::TempDir;
using aitk::test::write_file;

// A shell script answering the probe: the marker, then JSON naming `version` and
// `executable` ("$0" makes it name itself, as a real interpreter binary does). `before` runs
// first (sleep, exit, count the runs).
inline void fake_python(const fs::path& p, const std::string& version,
                        const std::string& executable, const std::string& before = "") {
    write_file(p, "#!/bin/sh\n" + before +
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
