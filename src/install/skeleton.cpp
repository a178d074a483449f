#include "aitk/install/skeleton.hpp"

#include <algorithm>
#include <array>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;

// The files beside the interpreter that activate a prefix: aitk-env's (activate, activate.fish,
// Activate.ps1), and those a venv or virtualenv writes (a prefix made by them keeps its own).
constexpr std::array<std::string_view, 9> activation_names = {
    "activate",     "activate.bat", "activate.csh",     "activate.fish", "activate.nu",
    "activate.ps1", "activate.xsh", "activate_this.py", "deactivate.bat"};

// aitk-env's launchers in the scripts folder (shim::render_shims).
constexpr std::array<std::string_view, 2> launcher_names = {"aitk-run", "aitk-run.cmd"};

// The shims' pair in site-packages that sets the DLL search path on Windows
// (shim::site_packages_shim_files); aitk-env's names on every OS.
constexpr std::array<std::string_view, 2> site_packages_names = {"aitk_env_dll_paths.pth",
                                                                 "_aitk_env_dll_paths.py"};

template <std::size_t N>
bool one_of(std::string_view name, const std::array<std::string_view, N>& names) {
    for (std::string_view n : names) {
        if (n == name) return true;
    }
    return false;
}

// One component as a case-insensitive filesystem resolves it: "Python.EXE. " and
// "python.exe::$DATA" name python.exe on NTFS.
std::string fold_component(std::string_view part) {
    part = part.substr(0, part.find(':'));
    while (!part.empty() && (part.back() == '.' || part.back() == ' ')) {
        part.remove_suffix(1);
    }
    std::string out(part);
    for (char& c : out)
        c = util::to_ascii_lower(c);
    return out;
}

// '/'-separated, each component folded; "." and empty components dropped.
std::string fold_path(std::string_view path) {
    std::string out;
    for (std::string_view part : util::split(path, '/')) {
        if (part.empty() || part == ".") continue;
        if (!out.empty()) out += '/';
        out += fold_component(part);
    }
    return out;
}

// python, python3, python3.12, python3.13t, pythonw, python_d, pypy3.10 (".exe" on Windows):
// every name a venv gives its interpreter.
bool is_interpreter_name(std::string_view name) {
    if (name.ends_with(".exe")) name.remove_suffix(4);
    if (name.starts_with("python")) {
        name.remove_prefix(6);
    } else if (name.starts_with("pypy")) {
        name.remove_prefix(4);
    } else {
        return false;
    }
    if (name.starts_with("w")) name.remove_prefix(1);
    while (!name.empty() && (util::is_ascii_digit(name.front()) || name.front() == '.')) {
        name.remove_prefix(1);
    }
    if (name.starts_with("t")) name.remove_prefix(1);
    if (name.starts_with("_d")) name.remove_prefix(2);
    return name.empty();
}

}  // namespace

PrefixSkeleton::PrefixSkeleton(const PrefixLayout& layout)
    : prefix_(stdfs::absolute(layout.prefix).lexically_normal()) {
    auto inside = [&](const stdfs::path& folder) -> std::string {
        const stdfs::path rel =
            stdfs::absolute(folder).lexically_normal().lexically_relative(prefix_);
        if (rel.empty() || *rel.begin() == "..") return {};
        return fold_path(util::generic_utf8_of(rel));
    };
    scripts_ = inside(layout.scripts);
    site_packages_ = inside(layout.purelib);
    state_ = inside(layout.state);
    auto depth_of = [](const std::string& folder) {
        return folder.empty()
                   ? 0
                   : 1 + static_cast<std::size_t>(std::count(folder.begin(), folder.end(), '/'));
    };
    max_depth_ = 1 + std::max(depth_of(scripts_), depth_of(site_packages_));
}

std::optional<std::string> PrefixSkeleton::describe(std::string_view relative) const {
    // Most paths (a package's modules, deep in site-packages) are ruled out by their depth and
    // first component alone, without folding anything: install_wheel asks for every file.
    std::size_t depth = 0;
    std::string_view first;
    for (std::size_t start = 0; start <= relative.size();) {
        const std::size_t end = std::min(relative.find('/', start), relative.size());
        const std::string_view part = relative.substr(start, end - start);
        if (!part.empty() && part != "." && ++depth == 1) first = part;
        start = end + 1;
    }
    if (depth > max_depth_ && fold_component(first) != state_) return std::nullopt;
    const std::string folded = fold_path(relative);
    const std::size_t slash = folded.rfind('/');
    const std::string_view parent =
        slash == std::string::npos ? std::string_view() : std::string_view(folded).substr(0, slash);
    const std::string_view name = slash == std::string::npos
                                      ? std::string_view(folded)
                                      : std::string_view(folded).substr(slash + 1);
    const std::string shown(relative);
    if (!state_.empty() &&
        (folded == state_ || (folded.starts_with(state_) && folded[state_.size()] == '/'))) {
        return "state file " + shown;
    }
    if (parent.empty()) {
        if (name == "pyvenv.cfg") return std::string("pyvenv.cfg");
        if (name == "lib64") return std::string("lib64 link");
        if (name == ".gitignore") return std::string(".gitignore");
    }
    if (!scripts_.empty() && parent == scripts_) {
        if (is_interpreter_name(name)) return "interpreter " + shown;
        if (one_of(name, activation_names)) return "activation script " + shown;
        if (one_of(name, launcher_names)) return "launcher " + shown;
    }
    if (!site_packages_.empty() && parent == site_packages_ && one_of(name, site_packages_names)) {
        return "DLL search path file " + shown;
    }
    return std::nullopt;
}

std::optional<std::string> PrefixSkeleton::describe_path(const std::filesystem::path& path) const {
    const stdfs::path rel = stdfs::absolute(path).lexically_normal().lexically_relative(prefix_);
    if (rel.empty() || *rel.begin() == "..") return std::nullopt;
    return describe(util::generic_utf8_of(rel));
}

std::string PrefixSkeleton::refusal(const std::string& what) {
    return "would replace the prefix's " + what + "; aitk-env owns it";
}

std::string PrefixSkeleton::hint() {
    return "no package may install over a prefix's pyvenv.cfg, interpreter, activation scripts, "
           "shims or .aitk-env/: leave this package out of the lock (or ask its maintainers to "
           "move the file)";
}

}  // namespace aitk::install
