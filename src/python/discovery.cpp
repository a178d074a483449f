#include "aitk/python/discovery.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <system_error>

#include "aitk/python/interpreter_cache.hpp"
#include "aitk/python/py_launcher.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "probe_answer.hpp"
#include "version_managers.hpp"
#include "version_selection.hpp"

namespace aitk::python {

namespace {

// "python", "python3", "python3.12" (plus ".exe" on Windows).
bool is_interpreter_name(std::string name, bool windows) {
    if (windows) {
        name = util::to_lower(name);
        if (name.size() <= 4 || name.substr(name.size() - 4) != ".exe") return false;
        name.resize(name.size() - 4);
    }
    if (name == "python" || name == "python3") return true;
    if (name.rfind("python3.", 0) != 0 || name.size() == 8) return false;
    return std::all_of(name.begin() + 8, name.end(),
                       [](char c) { return util::is_ascii_digit(c); });
}

// python3.12 before python3.9, then python3, then python: newest first within one folder.
int minor_of(const std::string& name) {
    std::size_t dot = name.find('.');
    if (dot == std::string::npos || name.rfind("python3.", 0) != 0) return -1;
    int n = 0;
    for (std::size_t i = dot + 1; i < name.size() && util::is_ascii_digit(name[i]); ++i)
        n = std::min(n * 10 + (name[i] - '0'), 999);  // capped: no overflow on odd names
    return n;
}

int rank(const std::string& name) {
    if (minor_of(name) >= 0) return 1000 - minor_of(name);
    if (util::istarts_with(name, "python3")) return 2000;
    return 3000;
}

bool is_executable(const std::filesystem::path& p, bool windows) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return false;
    if (windows) return true;
    auto perms = std::filesystem::status(p, ec).permissions();
    return (perms & (std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                     std::filesystem::perms::others_exec)) != std::filesystem::perms::none;
}

// Collects candidates in order, once per resolved file, up to the limit.
class CandidateList {
  public:
    explicit CandidateList(const DiscoveryOptions& options) : options_(options) {}

    void add(const std::filesystem::path& p) {
        if (out_.size() >= options_.max_candidates || !is_executable(p, options_.windows)) return;
        // The Microsoft Store's python.exe stubs open the Store instead of running Python.
        if (options_.windows &&
            util::to_lower(util::utf8_of(p)).find("windowsapps") != std::string::npos) {
            return;
        }
        std::error_code ec;
        auto real = std::filesystem::canonical(p, ec);
        if (ec) real = p;
        if (std::find(seen_.begin(), seen_.end(), real) != seen_.end()) return;
        // A link to a shim (or a shim in extra_candidates) would run the manager all the same.
        if (is_shim_folder(real.parent_path())) return;
        seen_.push_back(real);
        out_.push_back(p);
    }

    // python3.X (newest first), python3, python in one folder.
    void add_folder(const std::filesystem::path& dir) {
        if (options_.windows &&
            util::to_lower(util::utf8_of(dir)).find("windowsapps") != std::string::npos)
            return;
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
            std::string name = util::utf8_of(entry.path().filename());
            if (is_interpreter_name(name, options_.windows)) names.push_back(name);
        }
        std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
            return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
        });
        for (const auto& n : names)
            add(dir / n);
    }

    // The interpreter of an installation or environment root (pyenv version, conda env).
    void add_root(const std::filesystem::path& root) {
        if (options_.windows) {
            add(root / "python.exe");
        } else {
            add(root / "bin" / "python3");
            add(root / "bin" / "python");  // Python 2 builds have no python3
        }
    }

    // A PATH entry: a shim folder stands for the interpreters its shims would start.
    void add_path_entry(const std::filesystem::path& dir,
                        const std::vector<std::filesystem::path>& path_dirs) {
        auto shims = detail::recognise_shim_folder(dir, options_);
        if (!shims) {
            add_folder(dir);
            return;
        }
        auto behind = detail::behind_shims(*shims, options_);
        for (const auto& folder : behind.folders)
            add_folder(folder);
        // pyenv's and asdf's "system": what PATH finds once the shim folders are left out.
        if (behind.system) {
            for (const auto& other : path_dirs) {
                if (!is_shim_folder(other)) add_folder(other);
            }
        }
    }

    std::vector<std::filesystem::path> take() { return std::move(out_); }

  private:
    bool is_shim_folder(const std::filesystem::path& dir) {
        auto key = util::utf8_of(dir);
        auto it = shim_folders_.find(key);
        if (it != shim_folders_.end()) return it->second;
        bool shims = detail::recognise_shim_folder(dir, options_).has_value();
        shim_folders_.emplace(key, shims);
        return shims;
    }

    const DiscoveryOptions& options_;
    std::map<std::string, bool> shim_folders_;
    std::vector<std::filesystem::path> out_;
    std::vector<std::filesystem::path> seen_;
};

// Sub-folders of `dir`, sorted by `less`.
template <class Less>
std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir, Less less) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_directory(ec)) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end(), less);
    return out;
}

// Where conda, mamba and micromamba install under a home folder.
constexpr std::string_view kCondaRoots[] = {"miniconda3", "anaconda3",  "miniforge3",
                                            "mambaforge", "micromamba", ".conda"};

}  // namespace

std::string Interpreter::major_minor() const {
    return util::major_minor(version);
}

std::vector<std::filesystem::path> default_system_dirs(bool windows) {
    if (windows) return {};  // the py launcher knows the installs; PATH has the rest
    return {"/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"};
}

std::vector<std::filesystem::path> interpreter_candidates(const DiscoveryOptions& options) {
    CandidateList list(options);
    std::vector<std::filesystem::path> path_dirs;
    for (auto dir : util::split(options.path_value, options.windows ? ';' : ':')) {
        if (!dir.empty()) path_dirs.emplace_back(std::string(dir));
    }
    for (const auto& dir : path_dirs)
        list.add_path_entry(dir, path_dirs);
    if (auto root = detail::pyenv_root(options); !root.empty()) {
        auto newest_first = [](const auto& a, const auto& b) {
            return detail::version_key(util::utf8_of(a.filename())) >
                   detail::version_key(util::utf8_of(b.filename()));
        };
        for (const auto& v : subfolders(root / "versions", newest_first))
            list.add_root(v);
    }
    for (const auto& manager : detail::installing_managers(options)) {
        for (const auto& bin : detail::installed_version_bins(manager))
            list.add_root(bin.parent_path());
    }
    if (auto conda = util::environment_lookup(options.environment, "CONDA_PREFIX", options.windows);
        conda && !conda->empty()) {
        list.add_root(std::filesystem::path(*conda));
    }
    if (!options.home.empty()) {
        auto by_name = [](const auto& a, const auto& b) { return a.filename() < b.filename(); };
        for (auto name : kCondaRoots) {
            auto root = options.home / std::string(name);
            list.add_root(root);
            for (const auto& env : subfolders(root / "envs", by_name))
                list.add_root(env);
        }
    }
    for (const auto& dir :
         options.system_dirs ? *options.system_dirs : default_system_dirs(options.windows)) {
        list.add_folder(dir);
    }
    for (const auto& p : options.extra_candidates)
        list.add(p);
    return list.take();
}

namespace {

// What `py -0p` lists (Windows only; nothing when there is no launcher).
std::vector<std::filesystem::path> py_launcher_interpreters(const DiscoveryOptions& options) {
    auto py = util::find_program("py", options.path_value, true,
                                 util::environment_lookup(options.environment, "PATHEXT", true)
                                     .value_or(".COM;.EXE;.BAT;.CMD"));
    if (!py) return {};
    util::ProcessRequest req;
    req.argv = {py->string(), "-0p"};
    req.environment = options.environment;
    req.timeout = options.timeout;
    req.output_limit = 64 * 1024;
    auto run = util::run_process(req);
    if (!run || !run->succeeded()) return {};
    std::vector<std::filesystem::path> out;
    for (auto& entry : parse_py_launcher_list(run->out))
        out.push_back(std::move(entry.path));
    return out;
}

}  // namespace

std::vector<Interpreter> discover_interpreters(const DiscoveryOptions& options) {
    std::vector<std::filesystem::path> candidates;
    if (options.windows && options.use_py_launcher) {
        DiscoveryOptions with_launcher = options;
        for (auto& p : py_launcher_interpreters(options))
            with_launcher.extra_candidates.push_back(std::move(p));
        candidates = interpreter_candidates(with_launcher);
    } else {
        candidates = interpreter_candidates(options);
    }
    InterpreterCache cache(options.cache_file);
    std::vector<std::optional<Interpreter>> answers(candidates.size());
    std::vector<std::pair<std::size_t, std::future<detail::Asked>>> runs;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (!options.refresh && (answers[i] = detail::cached(candidates[i], cache))) continue;
        runs.emplace_back(i, std::async(std::launch::async, [&options, &candidates, i] {
                              return detail::ask(candidates[i], options);
                          }));
    }
    for (auto& [index, run] : runs) {
        auto asked = run.get();
        detail::remember(cache, asked);
        if (asked.result) answers[index] = std::move(*asked.result);
    }
    cache.save();
    std::vector<Interpreter> out;
    for (auto& interp : answers) {
        if (!interp) continue;
        bool duplicate = std::any_of(out.begin(), out.end(), [&](const Interpreter& i) {
            return i.executable == interp->executable;
        });
        if (!duplicate) out.push_back(std::move(*interp));
    }
    return out;
}

}  // namespace aitk::python
