#include "aitk/install/layout.hpp"

#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;

// The value of `key` in pyvenv.cfg text ("key = value" lines; keys compared case-insensitively).
std::string cfg_value(std::string_view text, std::string_view key) {
    for (std::string_view line : util::split(text, '\n')) {
        std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        if (util::iequals(util::trim(line.substr(0, eq)), key)) {
            return std::string(util::trim(line.substr(eq + 1)));
        }
    }
    return {};
}

// A POSIX venv without a version in pyvenv.cfg: its one lib/python3.X/site-packages.
std::string version_from_lib(const stdfs::path& prefix) {
    std::error_code ec;
    std::string found;
    for (const auto& entry : stdfs::directory_iterator(prefix / "lib", ec)) {
        std::string name = util::utf8_of(entry.path().filename());
        if (!name.starts_with("python")) continue;
        std::string version = util::numeric_major_minor(std::string_view(name).substr(6));
        if (version.empty() || !stdfs::is_directory(entry.path() / "site-packages", ec)) continue;
        if (!found.empty()) return {};  // two candidates: not ours to guess
        found = version;
    }
    return found;
}

}  // namespace

PrefixLayout PrefixLayout::for_venv(const std::filesystem::path& prefix,
                                    const std::string& python_version, bool windows) {
    std::string xy = util::numeric_major_minor(python_version);
    if (xy.empty()) {
        throw util::InputError("'" + python_version +
                               "' is not a Python version (expected major.minor, like 3.12)");
    }
    PrefixLayout layout;
    layout.prefix = prefix;
    layout.windows = windows;
    layout.python_version = xy;
    if (windows) {
        layout.purelib = prefix / "Lib" / "site-packages";
        layout.scripts = prefix / "Scripts";
        layout.headers = prefix / "Include" / "site" / ("python" + xy);
        layout.python = layout.scripts / "python.exe";
    } else {
        layout.purelib = prefix / "lib" / ("python" + xy) / "site-packages";
        layout.scripts = prefix / "bin";
        // pip's historical header folder inside a virtual environment.
        layout.headers = prefix / "include" / "site" / ("python" + xy);
        layout.python = layout.scripts / "python";
    }
    layout.platlib = layout.purelib;
    layout.data = prefix;
    layout.state = prefix / ".aitk-env";
    return layout;
}

std::optional<PrefixLayout> PrefixLayout::read(const std::filesystem::path& prefix, bool windows) {
    std::error_code ec;
    const stdfs::path cfg = prefix / "pyvenv.cfg";
    if (!stdfs::is_regular_file(cfg, ec)) return std::nullopt;
    std::string text;
    try {
        text = fs::read_file(cfg);
    } catch (const util::Error&) {
        return std::nullopt;
    }
    // `version` (venv), `version_info` (virtualenv: "3.12.1.final.0"), else the folder.
    std::string version = util::numeric_major_minor(cfg_value(text, "version"));
    if (version.empty()) version = util::numeric_major_minor(cfg_value(text, "version_info"));
    if (version.empty() && !windows) version = version_from_lib(prefix);
    if (version.empty()) return std::nullopt;
    return for_venv(prefix, version, windows);
}

}  // namespace aitk::install
