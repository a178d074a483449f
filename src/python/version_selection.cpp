// Which versions pyenv and asdf select, read from their files (see version_selection.hpp).
#include "version_selection.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "version_managers.hpp"

namespace aitk::python::detail {

namespace fs = std::filesystem;

namespace {

std::string env_value(const DiscoveryOptions& options, std::string_view name) {
    return util::environment_lookup(options.environment, name, options.windows).value_or("");
}

fs::path working_folder(const DiscoveryOptions& options) {
    if (!options.cwd.empty()) return options.cwd;
    std::error_code ec;
    auto cwd = fs::current_path(ec);
    return ec ? fs::path() : cwd;
}

// The first `name` in `dir` or a folder above it.
std::optional<fs::path> find_upwards(fs::path dir, const std::string& name) {
    if (dir.empty()) return std::nullopt;
    std::error_code ec;
    for (;;) {
        if (fs::is_regular_file(dir / name, ec)) return dir / name;
        if (!dir.has_relative_path()) return std::nullopt;  // the root was the last to look in
        dir = dir.parent_path();
    }
}

// The lines of a small settings file (a version file is a few bytes; more is not read).
std::vector<std::string> read_lines(const fs::path& file) {
    constexpr std::size_t kLimit = 64 * 1024;
    std::ifstream in(file, std::ios::binary);
    std::string text(kLimit, '\0');
    in.read(text.data(), static_cast<std::streamsize>(kLimit));
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    std::vector<std::string> out;
    for (auto line : util::split(text, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.emplace_back(line);
    }
    return out;
}

std::vector<std::string> words(std::string_view line) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && util::is_ascii_space(line[i]))
            ++i;
        std::size_t start = i;
        while (i < line.size() && !util::is_ascii_space(line[i]))
            ++i;
        if (i > start) out.emplace_back(line.substr(start, i - start));
    }
    return out;
}

// pyenv refuses names that would leave <root>/versions (CVE-2022-35861).
bool is_version_safe(const fs::path& versions, const std::string& name) {
    if (name != ".." && name.find('/') == std::string::npos) return true;
    std::error_code ec;
    auto inside = fs::weakly_canonical(versions / name, ec);
    if (ec) return false;
    auto base = fs::weakly_canonical(versions, ec);
    if (ec) return false;
    auto rel = inside.lexically_relative(base);
    return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// pyenv-version-file-read: the first word of each line, comments and empty lines skipped.
std::vector<std::string> read_pyenv_version_file(const fs::path& file, const fs::path& versions) {
    std::vector<std::string> out;
    for (const auto& line : read_lines(file)) {
        auto w = words(line);
        if (w.empty() || w[0][0] == '#' || !is_version_safe(versions, w[0])) continue;
        out.push_back(w[0]);
    }
    return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// "3.12rc1", "3.13.0b2": pyenv-latest never picks a pre-release.
bool is_prerelease(std::string_view name) {
    std::size_t i = name.size();
    while (i > 0 && util::is_ascii_digit(name[i - 1]))
        --i;
    if (i == name.size()) return false;
    std::string_view head = name.substr(0, i);
    return ends_with(head, "a") || ends_with(head, "b") || ends_with(head, "rc");
}

// pyenv-latest: the newest installed "<prefix>.x" or "<prefix>-x", without dev builds,
// pre-releases and (unless the prefix ends in "t") free-threaded builds.
std::optional<std::string> latest_installed(const fs::path& versions, std::string prefix) {
    std::string suffix;
    if (prefix.size() >= 2 && prefix.back() == 't' &&
        util::is_ascii_digit(prefix[prefix.size() - 2])) {
        suffix = "t";
        prefix.pop_back();
    }
    std::optional<std::string> best;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(versions, ec)) {
        if (!entry.is_directory(ec)) continue;
        std::string name = util::utf8_of(entry.path().filename());
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        if (name[prefix.size()] != '.' && name[prefix.size()] != '-') continue;
        if (!ends_with(name, suffix) || ends_with(name, "-dev") || ends_with(name, "-src") ||
            ends_with(name, "-latest") || is_prerelease(name)) {
            continue;
        }
        if (suffix.empty() && name.size() >= 2 && name.back() == 't' &&
            util::is_ascii_digit(name[name.size() - 2])) {
            continue;
        }
        if (!best || version_key(name) > version_key(*best)) best = name;
    }
    return best;
}

// pyenv-version-name's resolution of one selected name.
std::optional<std::string> resolve_pyenv_version(const fs::path& versions,
                                                 const std::string& name) {
    std::error_code ec;
    if (name == "system") return name;
    if (fs::is_directory(versions / name, ec)) return name;
    std::string normalised = name.rfind("python-", 0) == 0 ? name.substr(7) : name;
    if (!normalised.empty() && fs::is_directory(versions / normalised, ec)) return normalised;
    if (auto v = latest_installed(versions, name)) return v;
    if (normalised != name) return latest_installed(versions, normalised);
    return std::nullopt;
}

}  // namespace

fs::path pyenv_root(const DiscoveryOptions& options) {
    if (!options.pyenv_root.empty()) return options.pyenv_root;
    return options.home.empty() ? fs::path() : options.home / ".pyenv";
}

fs::path asdf_root(const DiscoveryOptions& options) {
    if (auto dir = env_value(options, "ASDF_DATA_DIR"); !dir.empty()) return dir;
    return options.home.empty() ? fs::path() : options.home / ".asdf";
}

fs::path mise_root(const DiscoveryOptions& options) {
    if (auto dir = env_value(options, "MISE_DATA_DIR"); !dir.empty()) return dir;
    if (auto xdg = env_value(options, "XDG_DATA_HOME"); !xdg.empty()) return fs::path(xdg) / "mise";
    return options.home.empty() ? fs::path() : options.home / ".local/share/mise";
}

std::vector<std::string> pyenv_selected_versions(const fs::path& root,
                                                 const DiscoveryOptions& options) {
    const fs::path versions = root / "versions";
    std::vector<std::string> names;
    if (auto value = env_value(options, "PYENV_VERSION"); !value.empty()) {
        for (auto part : util::split(value, ':'))
            names.emplace_back(part);
    } else {
        // pyenv-version-file: PYENV_DIR (the working folder when unset) and above, then the
        // working folder and above, then the global file.
        const fs::path cwd = working_folder(options);
        const fs::path pyenv_dir = env_value(options, "PYENV_DIR");
        std::optional<fs::path> file =
            find_upwards(pyenv_dir.empty() ? cwd : pyenv_dir, ".python-version");
        if (!file && !pyenv_dir.empty()) file = find_upwards(cwd, ".python-version");
        names = read_pyenv_version_file(file ? *file : root / "version", versions);
    }
    names.erase(std::remove(names.begin(), names.end(), std::string()), names.end());
    if (names.empty() || names == std::vector<std::string>{"system"}) return {"system"};
    std::vector<std::string> out;
    for (const auto& name : names) {
        if (auto v = resolve_pyenv_version(versions, name)) out.push_back(*v);
    }
    return out;
}

std::vector<std::string> asdf_selected_versions(const fs::path& root,
                                                const DiscoveryOptions& options) {
    std::vector<std::string> names;
    if (auto value = env_value(options, "ASDF_PYTHON_VERSION"); !value.empty()) {
        names = words(value);
    } else {
        std::string name = env_value(options, "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME");
        if (name.empty()) name = ".tool-versions";
        auto python_line = [](const fs::path& file) {
            std::vector<std::string> found;
            for (const auto& line : read_lines(file)) {
                auto w = words(line.substr(0, line.find('#')));
                if (w.empty() || w[0] != "python") continue;
                found.assign(w.begin() + 1, w.end());
                break;
            }
            return found;
        };
        // The nearest file that names python wins; one that names other tools only does not.
        for (fs::path dir = working_folder(options); !dir.empty(); dir = dir.parent_path()) {
            if (auto file = find_upwards(dir, name)) {
                names = python_line(*file);
                if (!names.empty()) break;
                dir = file->parent_path();
            } else {
                break;
            }
            if (!dir.has_relative_path()) break;
        }
        if (names.empty() && !options.home.empty()) names = python_line(options.home / name);
    }
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& v : names) {
        if (v == "system" || fs::is_directory(root / "installs/python" / v, ec)) out.push_back(v);
    }
    return out;
}

}  // namespace aitk::python::detail
