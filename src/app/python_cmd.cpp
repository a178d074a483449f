#include "aitk/app/python_cmd.hpp"

#include <algorithm>
#include <cstdio>

#include "aitk/app/lock.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/platform/host.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/python/interpreter_cache.hpp"
#include "aitk/python/request.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

namespace {

bool windows_host() {
    return platform::host_os() == platform::OsKind::windows;
}

std::string env_or_empty(const util::Environment& env, std::string_view name) {
    return util::environment_lookup(env, name).value_or("");
}

const std::vector<python::StandaloneBuild>& table_of(const PythonOptions& options) {
    return options.builds ? *options.builds : python::standalone_builds();
}

python::StandalonePlatform platform_of(const Session& session, const PythonOptions& options) {
    if (options.platform) return *options.platform;
    platform::ProbeEnvironment probe;
    probe.env = session.environment();
    return python::standalone_platform(platform::probe_host(probe));
}

bool newer(const std::string& a, const std::string& b) {
    auto va = pep::Version::parse(a);
    auto vb = pep::Version::parse(b);
    if (va && vb) return *vb < *va;
    return a > b;
}

void sort_newest_first(std::vector<python::Interpreter>& found) {
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return newer(a.version, b.version); });
}

bool is_under(const std::filesystem::path& path, const std::filesystem::path& root) {
    if (root.empty()) return false;
    auto rel = path.lexically_normal().lexically_relative(root.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
}

std::filesystem::path standalone_dir(const std::filesystem::path& cache_root) {
    return cache::Cache(cache_root).base() / "python";
}

std::string padded(std::string text, std::size_t width) {
    if (text.size() < width) text.resize(width, ' ');
    return text;
}

std::string interpreter_line(const python::Interpreter& i) {
    std::string line = padded(i.version, 9) + padded(i.implementation, 9) + util::utf8_of(i.path);
    if (i.executable != i.path) line += " -> " + util::utf8_of(i.executable);
    return line + "\n";
}

python::StandaloneInstall install(Session& session, const PythonOptions& options,
                                  std::string_view version) {
    python::StandaloneInstallRequest request;
    request.version = std::string(version);
    request.platform = platform_of(session, options);
    request.mirror = env_or_empty(session.environment(), python::python_mirror_variable);
    request.rewrite = session.network().rewrite;
    request.offline = session.offline();
    request.probe_options = discovery_options(session, options);
    request.observer = session.observer();
    return python::install_standalone(request, table_of(options), session.cache(),
                                      session.downloader());
}

nlohmann::json install_json(const python::StandaloneInstall& s) {
    return {{"version", s.build.version},
            {"build", s.build.build},
            {"os", s.build.os},
            {"arch", s.build.arch},
            {"root", util::utf8_of(s.root)},
            {"path", util::utf8_of(s.interpreter.path)},
            {"executable", util::utf8_of(s.interpreter.executable)},
            {"downloaded", s.downloaded},
            {"unpacked", s.unpacked}};
}

}  // namespace

python::DiscoveryOptions discovery_options(const Session& session, const PythonOptions& options) {
    const auto& env = session.environment();
    python::DiscoveryOptions d;
    d.windows = windows_host();
    d.environment = env;
    d.path_value = env_or_empty(env, "PATH");
    d.home = env_or_empty(env, d.windows ? "USERPROFILE" : "HOME");
    d.pyenv_root = env_or_empty(env, "PYENV_ROOT");
    d.timeout = options.probe_timeout;
    d.system_dirs = options.system_dirs;
    if (!session.cache_root().empty()) {
        d.cache_file = python::default_interpreter_cache_file(session.cache_root());
        for (const auto& s : python::installed_standalone(cache::Cache(session.cache_root())))
            d.extra_candidates.push_back(s.executable);
    }
    return d;
}

nlohmann::json interpreter_json(const python::Interpreter& i,
                                const std::filesystem::path& cache_root) {
    nlohmann::json markers = pep::marker_map(i.markers);
    return {{"version", i.version},
            {"implementation", i.implementation},
            {"path", util::utf8_of(i.path)},
            {"executable", util::utf8_of(i.executable)},
            {"standalone", !cache_root.empty() && is_under(i.path, standalone_dir(cache_root))},
            {"sys_platform", i.sys_platform},
            {"machine", i.machine},
            {"libc", i.libc.empty() ? "" : i.libc + " " + i.libc_version},
            {"base_prefix", util::utf8_of(i.base_prefix)},
            {"markers", markers}};
}

PythonReport python_list(Session& session, const PythonOptions& options) {
    PythonReport r;
    auto found = python::discover_interpreters(discovery_options(session, options));
    sort_newest_first(found);
    auto installed = python::installed_standalone(session.cache());
    r.json = {{"interpreters", nlohmann::json::array()}, {"standalone", nlohmann::json::array()}};
    for (const auto& i : found) {
        r.json["interpreters"].push_back(interpreter_json(i, session.cache_root()));
        r.text += interpreter_line(i);
    }
    if (found.empty()) r.text += "no Python interpreter found\n";
    if (!installed.empty()) r.text += "standalone builds in the cache:\n";
    for (const auto& s : installed) {
        r.json["standalone"].push_back({{"version", s.version},
                                        {"build", s.build},
                                        {"os", s.os},
                                        {"arch", s.arch},
                                        {"root", util::utf8_of(s.root)},
                                        {"path", util::utf8_of(s.executable)}});
        r.text += "  " + padded(s.version, 9) + padded(s.build, 10) +
                  padded(s.os + "-" + s.arch, 15) + util::utf8_of(s.executable) + "\n";
    }
    return r;
}

PythonReport python_find(Session& session, std::string_view spec, const PythonOptions& options) {
    PythonReport r;
    auto found = python::find_interpreter(spec, discovery_options(session, options));
    if (!found) {
        auto request = python::parse_interpreter_request(spec);
        r.exit_code = 1;
        r.json = nullptr;
        r.error =
            "no Python interpreter matches " + (request ? request->describe() : std::string(spec));
        return r;
    }
    r.json = interpreter_json(*found, session.cache_root());
    r.text = util::utf8_of(found->path) + "\n";
    return r;
}

PythonReport python_install(Session& session, std::string_view version,
                            const PythonOptions& options) {
    PythonReport r;
    auto installed = install(session, options, version);
    r.json = install_json(installed);
    r.text = (installed.unpacked ? "installed CPython " : "CPython ") + installed.build.version +
             " (" + installed.build.build + ") " +
             (installed.unpacked ? "at " : "is installed at ") +
             util::utf8_of(installed.interpreter.path) + "\n";
    return r;
}

EnsuredPython ensure_python(Session& session, std::string_view spec, const PythonOptions& options) {
    auto request = python::parse_interpreter_request(spec);
    if (!request) throw util::InputError("--python " + request.error().message);
    auto discovery = discovery_options(session, options);
    EnsuredPython out;
    using Kind = python::InterpreterRequest::Kind;
    if (request->kind == Kind::path || request->kind == Kind::program) {
        auto found = python::find_interpreter(spec, discovery);
        if (!found) {
            throw util::InputError("--python " + request->text + ": no such program on PATH",
                                   "give a path, or a version such as 3.12");
        }
        out.interpreter = std::move(*found);
        return out;
    }
    // torch and most AI wheels are built for CPython only.
    for (auto& i : python::find_interpreters(*request, discovery)) {
        if (i.implementation != "CPython") continue;
        out.interpreter = std::move(i);
        return out;
    }
    const auto where = platform_of(session, options);
    std::vector<std::string> versions;
    for (const auto& b : table_of(options)) {
        if (b.os == where.os && b.arch == where.arch &&
            (where.libc.empty() || b.libc == where.libc) &&
            std::find(versions.begin(), versions.end(), b.version) == versions.end()) {
            versions.push_back(b.version);
        }
    }
    std::sort(versions.begin(), versions.end(), newer);
    auto match = std::find_if(versions.begin(), versions.end(),
                              [&](const std::string& v) { return request->specifier.contains(v); });
    if (match == versions.end()) {
        throw util::Error(
            util::ExitCode::unsatisfiable,
            "no CPython on this machine matches " + request->describe() +
                ", and no standalone build for " + where.os + "-" + where.arch +
                " does (known: " + (versions.empty() ? "none" : util::join(versions, ", ")) + ")",
            "install that Python and pass its path with --python");
    }
    out.standalone = install(session, options, *match);
    out.interpreter = out.standalone->interpreter;
    return out;
}

}  // namespace aitk::app
