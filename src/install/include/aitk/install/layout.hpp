#pragma once
// Where things go in a prefix (a venv-compatible directory): the scheme pip uses for a venv on
// each OS. Decisions for Windows are data here, so they are tested on Linux.
#include <filesystem>
#include <optional>
#include <string>

namespace aitk::install {

struct PrefixLayout {
    std::filesystem::path prefix;
    std::filesystem::path purelib;  // <prefix>/lib/python3.12/site-packages, <prefix>\Lib\site-packages
    std::filesystem::path platlib;  // the same folder in a venv
    std::filesystem::path scripts;  // <prefix>/bin, <prefix>\Scripts
    std::filesystem::path headers;  // <prefix>/include/site/python3.12/<dist>: base only here
    std::filesystem::path data;     // <prefix>
    std::filesystem::path python;   // <prefix>/bin/python, <prefix>\Scripts\python.exe
    std::filesystem::path state;    // <prefix>/.aitk-env (receipts, journal, trash)
    bool windows = false;
    std::string python_version;  // "3.12" (major.minor)

    // `python_version` "3.12" or "3.12.1".
    static PrefixLayout for_venv(const std::filesystem::path& prefix,
                                 const std::string& python_version, bool windows);
    // The layout of an existing venv, read from its pyvenv.cfg; nullopt when it is not one.
    static std::optional<PrefixLayout> read(const std::filesystem::path& prefix, bool windows);
};

}  // namespace aitk::install
