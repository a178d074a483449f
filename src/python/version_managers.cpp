// Recognising version managers' shim folders and listing the interpreters behind them.
#include "version_managers.hpp"

#include <algorithm>
#include <system_error>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "version_selection.hpp"

namespace aitk::python::detail {

namespace fs = std::filesystem;

namespace {

// Symlinks and "..", a trailing separator resolved, so "~/.pyenv/shims/" on PATH matches.
fs::path normal(const fs::path& p) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(p, ec);
    if (ec) out = p.lexically_normal();
    if (!out.has_filename() && out.has_parent_path() && out != out.root_path()) {
        out = out.parent_path();
    }
    return out;
}

bool same(const fs::path& a, const fs::path& b) {
    return !a.empty() && !b.empty() && normal(a) == normal(b);
}

bool is_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_pyenv_root(const fs::path& root, const DiscoveryOptions& options) {
    std::error_code ec;
    return same(root, pyenv_root(options)) || fs::is_regular_file(root / "libexec/pyenv", ec);
}

}  // namespace

std::optional<ShimFolder> recognise_shim_folder(const fs::path& dir,
                                                const DiscoveryOptions& options) {
    if (options.windows || dir.empty()) return std::nullopt;
    const fs::path d = normal(dir);
    const fs::path parent = d.parent_path();
    if (d.filename() == "condabin") {
        // conda's own folder holds `conda`, a script; the base interpreter is <root>/bin.
        if (is_dir(parent / "conda-meta")) return ShimFolder{ShimManager::conda, parent};
        return std::nullopt;
    }
    if (d.filename() != "shims") return std::nullopt;
    if (is_pyenv_root(parent, options) || parent.filename() == ".pyenv") {
        return ShimFolder{ShimManager::pyenv, parent};
    }
    if (parent.parent_path().filename() == "plugins" &&
        is_pyenv_root(parent.parent_path().parent_path(), options)) {
        return ShimFolder{ShimManager::pyenv_plugin, parent};
    }
    if (same(parent, asdf_root(options)) || parent.filename() == ".asdf") {
        return ShimFolder{ShimManager::asdf, parent};
    }
    if (same(parent, mise_root(options))) return ShimFolder{ShimManager::mise, parent};
    return std::nullopt;
}

BehindShims behind_shims(const ShimFolder& shims, const DiscoveryOptions& options) {
    BehindShims out;
    auto add_versions = [&](const std::vector<std::string>& versions, const fs::path& dir) {
        for (const auto& v : versions) {
            if (v == "system") {
                out.system = true;
            } else {
                out.folders.push_back(dir / v / "bin");
            }
        }
    };
    switch (shims.manager) {
        case ShimManager::pyenv:
            add_versions(pyenv_selected_versions(shims.root, options), shims.root / "versions");
            break;
        case ShimManager::pyenv_plugin:
            break;
        case ShimManager::asdf:
            add_versions(asdf_selected_versions(shims.root, options),
                         shims.root / "installs/python");
            break;
        case ShimManager::mise:
            // mise's configuration (mise.toml and friends) is not read: every installed version,
            // newest first, stands in for the one it would pick.
            out.folders = installed_version_bins(shims);
            break;
        case ShimManager::conda:
            out.folders.push_back(shims.root / "bin");
            break;
    }
    return out;
}

std::optional<fs::path> behind_shim(const fs::path& shim, const DiscoveryOptions& options) {
    auto shims = recognise_shim_folder(shim.parent_path(), options);
    if (!shims) return std::nullopt;
    auto behind = behind_shims(*shims, options);
    const fs::path name = shim.filename();
    std::error_code ec;
    for (const auto& folder : behind.folders) {
        if (fs::is_regular_file(folder / name, ec)) return folder / name;
    }
    if (!behind.system) return std::nullopt;
    std::string path_value = options.path_value;
    if (path_value.empty()) {
        path_value = util::environment_lookup(options.environment, "PATH", false).value_or("");
    }
    for (auto dir : util::split(path_value, ':')) {
        fs::path folder{std::string(dir)};
        if (dir.empty() || recognise_shim_folder(folder, options)) continue;
        if (fs::is_regular_file(folder / name, ec)) return folder / name;
    }
    return std::nullopt;
}

std::vector<fs::path> installed_version_bins(const ShimFolder& shims) {
    std::vector<fs::path> versions;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(shims.root / "installs/python", ec)) {
        if (entry.is_directory(ec)) versions.push_back(entry.path());
    }
    std::sort(versions.begin(), versions.end(), [](const fs::path& a, const fs::path& b) {
        return version_key(util::utf8_of(a.filename())) > version_key(util::utf8_of(b.filename()));
    });
    for (auto& v : versions)
        v /= "bin";
    return versions;
}

std::vector<ShimFolder> installing_managers(const DiscoveryOptions& options) {
    std::vector<ShimFolder> out;
    if (options.windows) return out;
    if (auto root = asdf_root(options); !root.empty() && is_dir(root / "installs/python")) {
        out.push_back({ShimManager::asdf, root});
    }
    if (auto root = mise_root(options); !root.empty() && is_dir(root / "installs/python")) {
        out.push_back({ShimManager::mise, root});
    }
    return out;
}

std::vector<int> version_key(const std::string& name) {
    std::vector<int> key;
    for (auto part : util::split(name, '.')) {
        int n = 0;
        bool digits = !part.empty();
        for (char c : part) {
            if (!util::is_ascii_digit(c))
                digits = false;
            else
                n = std::min(n * 10 + (c - '0'), 1'000'000);  // capped: no overflow
        }
        key.push_back(digits ? n : -1);
    }
    return key;
}

}  // namespace aitk::python::detail
