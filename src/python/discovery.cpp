#include "aitk/python/discovery.hpp"

#include <algorithm>
#include <future>
#include <system_error>

#include "aitk/util/strings.hpp"

namespace aitk::python {

namespace {

constexpr std::string_view kMarker = "aitk-python-probe";

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
        n = n * 10 + (name[i] - '0');
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

std::vector<int> version_key(const std::string& name) {
    std::vector<int> key;
    for (auto part : util::split(name, '.')) {
        int n = 0;
        bool digits = !part.empty();
        for (char c : part) {
            if (!util::is_ascii_digit(c))
                digits = false;
            else
                n = n * 10 + (c - '0');
        }
        key.push_back(digits ? n : -1);
    }
    return key;
}

}  // namespace

std::string_view probe_script() {
    return "import sys, platform\n"
           "print('aitk-python-probe')\n"
           "print(platform.python_implementation())\n"
           "print('.'.join(map(str, sys.version_info[:3])))\n"
           "print(sys.executable or '')\n";
}

util::Expected<Interpreter, util::ParseError> parse_probe_output(std::string_view text) {
    auto fail = [&](std::string message) {
        return util::Unexpected(
            util::ParseError{std::move(message), std::string(text), util::ParseError::no_position});
    };
    std::vector<std::string_view> lines;
    for (auto line : util::split(text, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
    }
    if (lines.size() < 4 || lines[0] != kMarker) return fail("not the interpreter probe's output");
    Interpreter interp;
    interp.implementation = std::string(util::trim(lines[1]));
    interp.version = std::string(util::trim(lines[2]));
    interp.executable = std::filesystem::path(std::string(util::trim(lines[3])));
    if (interp.implementation.empty())
        return fail("the interpreter did not name its implementation");
    auto parts = util::split(interp.version, '.');
    bool numeric = parts.size() == 3;
    for (auto p : parts)
        numeric = numeric && !p.empty() && std::all_of(p.begin(), p.end(), util::is_ascii_digit);
    if (!numeric) return fail("the interpreter's version \"" + interp.version + "\" is not X.Y.Z");
    return interp;
}

std::vector<std::filesystem::path> interpreter_candidates(const DiscoveryOptions& options) {
    std::vector<std::filesystem::path> out;
    std::vector<std::filesystem::path> seen;
    auto add = [&](const std::filesystem::path& p) {
        if (out.size() >= options.max_candidates || !is_executable(p, options.windows)) return;
        std::error_code ec;
        auto real = std::filesystem::canonical(p, ec);
        if (ec) real = p;
        if (std::find(seen.begin(), seen.end(), real) != seen.end()) return;
        seen.push_back(real);
        out.push_back(p);
    };
    for (auto dir : util::split(options.path_value, options.windows ? ';' : ':')) {
        if (dir.empty()) continue;
        // The Microsoft Store's python.exe stubs open the Store instead of running Python.
        if (options.windows && util::to_lower(dir).find("windowsapps") != std::string::npos)
            continue;
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& entry :
             std::filesystem::directory_iterator(std::filesystem::path(std::string(dir)), ec)) {
            std::string name = entry.path().filename().string();
            if (is_interpreter_name(name, options.windows)) names.push_back(name);
        }
        std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
            return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
        });
        for (const auto& n : names)
            add(std::filesystem::path(std::string(dir)) / n);
    }
    std::filesystem::path root =
        options.pyenv_root.empty() ? options.home / ".pyenv" : options.pyenv_root;
    if (!options.home.empty() || !options.pyenv_root.empty()) {
        std::vector<std::filesystem::path> versions;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(root / "versions", ec)) {
            versions.push_back(entry.path());
        }
        std::sort(versions.begin(), versions.end(), [](const auto& a, const auto& b) {
            return version_key(a.filename().string()) > version_key(b.filename().string());
        });
        for (const auto& v : versions) {
            if (options.windows) {
                add(v / "python.exe");
            } else {
                add(v / "bin" / "python3");
                add(v / "bin" / "python");  // Python 2 builds have no python3
            }
        }
    }
    return out;
}

std::vector<Interpreter> discover_interpreters(const DiscoveryOptions& options) {
    auto candidates = interpreter_candidates(options);
    std::vector<std::future<std::optional<Interpreter>>> runs;
    for (const auto& candidate : candidates) {
        runs.push_back(
            std::async(std::launch::async, [&options, candidate]() -> std::optional<Interpreter> {
                util::ProcessRequest req;
                req.argv = {candidate.string(), "-E", "-s", "-c", std::string(probe_script())};
                req.environment = options.environment;
                req.timeout = options.timeout;
                req.output_limit = 16 * 1024;
                auto run = util::run_process(req);
                if (!run || !run->succeeded()) return std::nullopt;
                auto parsed = parse_probe_output(run->out);
                if (!parsed) return std::nullopt;
                parsed->path = candidate;
                std::error_code ec;
                if (parsed->executable.empty()) parsed->executable = candidate;
                auto real = std::filesystem::canonical(parsed->executable, ec);
                if (!ec) parsed->executable = real;
                return std::move(*parsed);
            }));
    }
    std::vector<Interpreter> out;
    for (auto& r : runs) {
        auto interp = r.get();
        if (!interp) continue;
        bool duplicate = std::any_of(out.begin(), out.end(), [&](const Interpreter& i) {
            return i.executable == interp->executable;
        });
        if (!duplicate) out.push_back(std::move(*interp));
    }
    return out;
}

}  // namespace aitk::python
