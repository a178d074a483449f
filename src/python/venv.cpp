#include "aitk/python/venv.hpp"

#include <algorithm>
#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::python {

namespace fsys = std::filesystem;

namespace {

struct MajorMinor {
    unsigned major = 0;
    unsigned minor = 0;
};

// "3.12.1" → {3, 12}; {0, 0} when it is not a version.
MajorMinor major_minor_of(std::string_view version) {
    MajorMinor out;
    auto parts = util::split(version, '.');
    auto number = [](std::string_view p) {
        unsigned n = 0;
        if (p.empty() || p.size() > 6) return 0u;
        for (char c : p) {
            if (!util::is_ascii_digit(c)) return 0u;
            n = n * 10 + static_cast<unsigned>(c - '0');
        }
        return n;
    };
    if (parts.size() >= 2) {
        out.major = number(parts[0]);
        out.minor = number(parts[1]);
    }
    return out;
}

bool at_least(const MajorMinor& v, unsigned major, unsigned minor) {
    return v.major > major || (v.major == major && v.minor >= minor);
}

// "python3.12" or "python3.13t": the folder name under lib/ and include/.
std::string lib_name(const Interpreter& interp) {
    MajorMinor v = major_minor_of(interp.version);
    return "python" + std::to_string(v.major) + "." + std::to_string(v.minor) +
           (interp.free_threaded ? "t" : "");
}

// Python's repr() of a str, as venv writes the prompt.
std::string python_repr(std::string_view s) {
    char quote = (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos)
                     ? '"'
                     : '\'';
    std::string out(1, quote);
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '\\' || c == quote) {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u == 0x7f) {
            out += "\\x";
            util::append_hex_byte(out, u);
        } else {
            out += c;
        }
    }
    out += quote;
    return out;
}

bool host_is_macos() {
#ifdef __APPLE__
    return true;
#else
    return false;
#endif
}

// venv makes lib64 → lib on 64-bit POSIX systems other than macOS.
bool wants_lib64(const VenvRequest& request) {
    if (request.windows || !request.interpreter.is_64bit) return false;
    const std::string& platform = request.interpreter.sys_platform;
    if (platform.empty()) return !host_is_macos();
    return platform != "darwin" && platform != "win32" && platform != "cygwin";
}

constexpr std::string_view kGitignore =
    "# Created by venv; see https://docs.python.org/3/library/venv.html\n*\n";

[[noreturn]] void fail(const std::string& what, const fsys::path& path, const std::error_code& ec) {
    throw util::Error(util::ExitCode::failure,
                      "cannot " + what + " " + util::utf8_of(path) + ": " + ec.message());
}

// Replaces whatever is at `path` with a symlink, in one rename.
void place_symlink(const fsys::path& path, const fsys::path& target) {
    std::error_code ec;
    if (fsys::is_symlink(fsys::symlink_status(path, ec)) && fsys::read_symlink(path, ec) == target)
        return;
    fsys::path temp = fs::unique_temp_path(path.parent_path(), util::utf8_of(path.filename()));
    fsys::create_symlink(target, temp, ec);
    if (ec) fail("create the link", path, ec);
    fsys::rename(temp, path, ec);
    if (ec) {
        std::error_code ignored;
        fsys::remove(temp, ignored);
        fail("replace", path, ec);
    }
}

void place_copy(const fsys::path& source, const fsys::path& path) {
    std::error_code ec;
    fsys::path temp = fs::unique_temp_path(path.parent_path(), util::utf8_of(path.filename()));
    fsys::copy_file(source, temp, ec);
    if (!ec) fsys::rename(temp, path, ec);
    if (ec) {
        std::error_code ignored;
        fsys::remove(temp, ignored);
        fail("copy " + util::utf8_of(source) + " to", path, ec);
    }
}

// A copy of the interpreter itself (no venv launcher) finds its DLLs only beside it.
void copy_interpreter_dlls(const fsys::path& home, const fsys::path& scripts) {
    std::error_code ec;
    for (const auto& entry : fsys::directory_iterator(home, ec)) {
        std::string name = util::to_lower(util::utf8_of(entry.path().filename()));
        bool dll = name.size() > 4 && name.substr(name.size() - 4) == ".dll";
        if (dll && (name.rfind("python", 0) == 0 || name.rfind("vcruntime", 0) == 0)) {
            place_copy(entry.path(), scripts / entry.path().filename());
        }
    }
}

// The X.Y of an existing venv's pyvenv.cfg (`version`, or `version_info` as uv and virtualenv
// write it); nothing when the file has neither.
std::optional<std::string> venv_python_of(const fsys::path& cfg) {
    std::string text;
    try {
        text = fs::read_file(cfg);
    } catch (const util::Error&) {
        return std::nullopt;
    }
    for (auto line : util::split(text, '\n')) {
        auto eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        auto key = util::trim(line.substr(0, eq));
        if (key != "version" && key != "version_info") continue;
        MajorMinor v = major_minor_of(util::trim(line.substr(eq + 1)));
        if (v.major == 0) continue;
        return std::to_string(v.major) + "." + std::to_string(v.minor);
    }
    return std::nullopt;
}

bool is_empty_folder(const fsys::path& dir) {
    std::error_code ec;
    return fsys::directory_iterator(dir, ec) == fsys::directory_iterator();
}

// Refuses a prefix that is not ours to fill.
void check_prefix(const VenvRequest& request) {
    const fsys::path& prefix = request.prefix;
    const char separator = request.windows ? ';' : ':';
    std::string text = util::utf8_of(prefix);
    // A PATH entry cannot hold its own separator: the venv's bin could never be on PATH.
    if (text.find(separator) != std::string::npos) {
        throw util::InputError("cannot make a venv at " + text + ": the path contains '" +
                                   std::string(1, separator) + "', the PATH separator",
                               "choose a prefix path without it");
    }
    std::error_code ec;
    auto status = fsys::status(prefix, ec);
    if (!fsys::exists(status)) return;
    if (!fsys::is_directory(status)) {
        throw util::InputError(text + " exists and is not a folder",
                               "remove it or choose another prefix");
    }
    fsys::path cfg = prefix / "pyvenv.cfg";
    if (!fsys::exists(cfg, ec)) {
        if (is_empty_folder(prefix)) return;
        throw util::InputError(text + " exists and is not a venv (it has no pyvenv.cfg)",
                               "choose a new or empty folder as the prefix");
    }
    auto existing = venv_python_of(cfg);
    std::string wanted = request.interpreter.major_minor();
    if (existing && *existing != wanted) {
        throw util::InputError(text + " is a venv of Python " + *existing + ", not of Python " +
                                   wanted + " (" + util::utf8_of(request.interpreter.executable) +
                                   ")",
                               "remove the prefix to recreate it with Python " + wanted +
                                   ", or choose another prefix");
    }
}

}  // namespace

VenvPaths venv_paths(const VenvRequest& request) {
    VenvPaths p;
    const fsys::path& prefix = request.prefix;
    p.config = prefix / "pyvenv.cfg";
    if (request.windows) {
        p.bin = prefix / "Scripts";
        p.python = p.bin / "python.exe";
        p.site_packages = prefix / "Lib" / "site-packages";
        p.include = prefix / "Include";
        return p;
    }
    std::string lib = lib_name(request.interpreter);
    p.bin = prefix / "bin";
    p.python = p.bin / "python";
    p.site_packages = prefix / "lib" / lib / "site-packages";
    // venv took the include folder from sysconfig's venv scheme from 3.11 on.
    p.include = at_least(major_minor_of(request.interpreter.version), 3, 11)
                    ? prefix / "include" / lib
                    : prefix / "include";
    return p;
}

std::string pyvenv_cfg_text(const VenvRequest& request) {
    const Interpreter& interp = request.interpreter;
    std::string out;
    out += "home = " + util::utf8_of(interp.executable.parent_path()) + "\n";
    out += "include-system-site-packages = false\n";
    out += "version = " + interp.version + "\n";
    if (!request.prompt.empty()) out += "prompt = " + python_repr(request.prompt) + "\n";
    // venv records these from 3.11 on: the interpreter and the command that makes the same venv.
    if (at_least(major_minor_of(interp.version), 3, 11)) {
        out += "executable = " + util::utf8_of(interp.executable) + "\n";
        out += "command = " + util::utf8_of(interp.executable) + " -m venv --without-pip ";
        if (!request.prompt.empty()) out += "--prompt=\"" + request.prompt + "\" ";
        out += util::utf8_of(request.prefix) + "\n";
    }
    return out;
}

std::vector<VenvStep> venv_plan(const VenvRequest& request) {
    const Interpreter& interp = request.interpreter;
    VenvPaths paths = venv_paths(request);
    auto rel = [&](const fsys::path& p) { return p.lexically_relative(request.prefix); };
    auto directory = [](fsys::path p) {
        VenvStep s;
        s.kind = VenvStep::Kind::directory;
        s.path = std::move(p);
        return s;
    };
    std::vector<VenvStep> steps;
    steps.push_back(directory(rel(paths.include)));
    steps.push_back(directory(rel(paths.site_packages)));
    if (wants_lib64(request)) {
        steps.push_back({VenvStep::Kind::symlink, "lib64", "lib", {}, {}, true});
    }
    steps.push_back(directory(rel(paths.bin)));
    steps.push_back({VenvStep::Kind::file, "pyvenv.cfg", {}, {}, pyvenv_cfg_text(request), false});
    const fsys::path home = interp.executable.parent_path();
    fsys::path bin = rel(paths.bin);
    if (request.windows) {
        const fsys::path nt = home / "Lib" / "venv" / "scripts" / "nt";
        std::string t = interp.free_threaded ? "t" : "";
        steps.push_back({VenvStep::Kind::copy,
                         bin / "python.exe",
                         {},
                         {nt / ("venvlauncher" + t + ".exe"), nt / "python.exe",
                          home / ("venvlauncher" + t + ".exe"), home / "python.exe"},
                         {},
                         false});
        steps.push_back({VenvStep::Kind::copy,
                         bin / "pythonw.exe",
                         {},
                         {nt / ("venvwlauncher" + t + ".exe"), nt / "pythonw.exe",
                          home / ("venvwlauncher" + t + ".exe"), home / "pythonw.exe"},
                         {},
                         false});
    } else {
        // As venv: the interpreter's own name links to it, the usual names link to that.
        std::string exe_name = util::utf8_of(interp.executable.filename());
        steps.push_back(
            {VenvStep::Kind::symlink, bin / exe_name, interp.executable, {}, {}, false});
        MajorMinor v = major_minor_of(interp.version);
        for (std::string name :
             {std::string("python"), std::string("python3"),
              "python" + std::to_string(v.major) + "." + std::to_string(v.minor)}) {
            if (name == exe_name) continue;
            steps.push_back({VenvStep::Kind::symlink, bin / name, exe_name, {}, {}, false});
        }
    }
    if (at_least(major_minor_of(interp.version), 3, 13)) {
        steps.push_back(
            {VenvStep::Kind::file, ".gitignore", {}, {}, std::string(kGitignore), true});
    }
    return steps;
}

void create_venv(const VenvRequest& request) {
    if (request.interpreter.executable.empty() ||
        major_minor_of(request.interpreter.version).major == 0) {
        throw util::Error(util::ExitCode::failure,
                          "cannot make a venv at " + util::utf8_of(request.prefix) +
                              ": the interpreter's executable and version are not known");
    }
    check_prefix(request);
    std::error_code ec;
    fsys::create_directories(request.prefix, ec);
    if (ec) fail("create", request.prefix, ec);
    const fsys::path home = request.interpreter.executable.parent_path();
    for (const VenvStep& step : venv_plan(request)) {
        fsys::path path = request.prefix / step.path;
        switch (step.kind) {
            case VenvStep::Kind::directory:
                fsys::create_directories(path, ec);
                if (ec) fail("create", path, ec);
                break;
            case VenvStep::Kind::symlink:
                if (step.keep_existing && fsys::exists(fsys::symlink_status(path, ec))) break;
                place_symlink(path, step.target);
                break;
            case VenvStep::Kind::file:
                if (step.keep_existing && fsys::exists(path, ec)) break;
                fs::write_file_atomic(path, step.content);
                break;
            case VenvStep::Kind::copy: {
                auto source =
                    std::find_if(step.sources.begin(), step.sources.end(), [](const fsys::path& p) {
                        std::error_code e;
                        return fsys::is_regular_file(p, e);
                    });
                if (source == step.sources.end()) {
                    throw util::Error(util::ExitCode::failure,
                                      "cannot make " + util::utf8_of(path) + ": none of " +
                                          util::utf8_of(step.sources.front()) + " ... " +
                                          util::utf8_of(step.sources.back()) + " exists");
                }
                place_copy(*source, path);
                if (source->parent_path() == home &&
                    util::istarts_with(util::utf8_of(source->filename()), "python")) {
                    copy_interpreter_dlls(home, path.parent_path());
                }
                break;
            }
        }
    }
}

}  // namespace aitk::python
