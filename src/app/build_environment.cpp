#include "aitk/app/build_environment.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "aitk/app/index_source.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/index/client.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/project/target.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

// The interpreter's platform in the words of lock targets ("linux", "x86_64").
project::Target target_of(const python::Interpreter& interpreter) {
    project::Target target;
    const std::string& platform = interpreter.sys_platform;
    target.os = platform == "win32" ? "windows" : platform == "darwin" ? "macos" : "linux";
    std::string machine = util::to_lower(interpreter.machine);
    if (machine == "amd64" || machine == "x64") machine = "x86_64";
    if (machine == "arm64" || machine == "aarch64") {
        machine = target.os == "macos" ? "arm64" : "aarch64";
    }
    target.arch = machine.empty() ? std::string("x86_64") : machine;
    target.backend = "cpu";
    return target;
}

pep::Version version_of(const python::Interpreter& interpreter) {
    auto version = pep::Version::parse(interpreter.version);
    if (!version) {
        throw util::Error(util::ExitCode::failure,
                          "the interpreter " + util::utf8_of(interpreter.executable) +
                              " reports no usable version ('" + interpreter.version + "')");
    }
    return *version;
}

std::optional<pep::OsVersion> os_version(std::string_view text) {
    auto parts = util::split(text, '.');
    if (parts.size() < 2) return std::nullopt;
    unsigned values[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        if (parts[i].empty()) return std::nullopt;
        for (char c : parts[i]) {
            if (!util::is_ascii_digit(c)) return std::nullopt;
            values[i] = values[i] * 10 + static_cast<unsigned>(c - '0');
            if (values[i] > pep::max_target_version_part) return std::nullopt;
        }
    }
    return pep::OsVersion{values[0], values[1]};
}

// A requirement set as a key: the same requirements in any order are one environment.
std::string key_of(const std::vector<pep::Requirement>& requirements) {
    std::set<std::string> texts;
    for (const auto& r : requirements)
        texts.insert(r.to_string());
    return util::join(std::vector<std::string>(texts.begin(), texts.end()), "\n");
}

struct Wheel {
    std::string name;
    std::string version;
    std::string filename;
    std::string url;
    std::string sha256;  // empty when the index gives none
};

}  // namespace

pep::MarkerEnvironment interpreter_markers(const python::Interpreter& interpreter) {
    if (!interpreter.markers.get(pep::MarkerVariable::python_full_version).empty()) {
        return interpreter.markers;
    }
    auto env = project::marker_environment(target_of(interpreter), version_of(interpreter));
    if (interpreter.implementation == "PyPy") {
        env.set(pep::MarkerVariable::implementation_name, "pypy");
        env.set(pep::MarkerVariable::platform_python_implementation, "PyPy");
    }
    return env;
}

pep::TargetPlatform interpreter_platform(const python::Interpreter& interpreter) {
    // The wheels this machine's pip would take: the newest glibc first, up to the machine's
    // (torch's manylinux_2_28 where the interpreter does not say).
    project::TargetAssumptions assumptions;
    assumptions.glibc = pep::OsVersion{2, 28};
    assumptions.oldest_os_first = false;
    if (interpreter.libc == "glibc") {
        if (auto v = os_version(interpreter.libc_version)) assumptions.glibc = *v;
    }
    auto platform =
        project::tag_platform(target_of(interpreter), version_of(interpreter), assumptions);
    if (interpreter.implementation == "PyPy") platform.implementation = "pp";
    if (interpreter.free_threaded) platform.abi_flags = "t";
    if (interpreter.sys_platform == "linux" && interpreter.libc == "musl") {
        platform.os = pep::TargetOs::linux_musl;
        if (auto v = os_version(interpreter.libc_version)) platform.os_version = *v;
    }
    return platform;
}

struct IndexBuildEnvironmentProvider::State {
    Session& session;
    BuildEnvironmentSettings settings;
    cache::Cache& cache;
    fs::FileLock hold;  // prune must not remove the environments or the trees they link to
    net::Downloader& downloader;
    std::map<std::string, build::BuildEnvironment> made;  // by key_of()
    std::vector<fs::TempDir> folders;
    std::size_t installed = 0;

    State(Session& session_, BuildEnvironmentSettings s)
        : session(session_),
          settings(std::move(s)),
          cache(session.cache()),
          hold(cache.hold()),
          downloader(session.downloader()) {}

    std::vector<Wheel> resolve_wheels(const std::vector<pep::Requirement>& requirements,
                                      const std::string& purpose);
    std::vector<std::filesystem::path> fetch(std::vector<Wheel>& wheels,
                                             const std::string& purpose);
    build::BuildEnvironment install(const std::vector<pep::Requirement>& requirements,
                                    const std::string& purpose);
};

std::vector<Wheel> IndexBuildEnvironmentProvider::State::resolve_wheels(
    const std::vector<pep::Requirement>& requirements, const std::string& purpose) {
    const auto& interpreter = settings.interpreter;
    index::ClientOptions client_options;
    client_options.offline = session.offline();
    client_options.trust_cached_for = std::chrono::seconds(600);
    index::IndexClient client(downloader, &cache, settings.routing, client_options);

    SourceTarget target;
    target.platform = interpreter_platform(interpreter);
    target.python = version_of(interpreter);
    // Build requirements from wheels only: an sdist among them would need a build of its own
    // (pip recurses; a backend whose own build needs building is rare and slow to find out).
    target.only_binary = {":all:"};
    IndexPackageSource source(client, target);

    resolve::ResolveOptions options;
    options.environment = interpreter_markers(interpreter);
    std::vector<resolve::RootRequirement> roots;
    for (const auto& r : requirements)
        roots.push_back({r, purpose});
    resolve::Resolution resolution;
    try {
        resolution = resolve::resolve(source, roots, options);
    } catch (const resolve::Unsatisfiable& e) {
        throw resolve::Unsatisfiable("cannot install the " + purpose + " for Python " +
                                     interpreter.version + ":\n" + e.what());
    } catch (const resolve::SourceFailure& e) {
        throw util::Error(util::ExitCode::failure,
                          "cannot install the " + purpose + ": " + std::string(e.what()));
    }
    std::vector<Wheel> wheels;
    for (const auto& package : resolution.packages) {
        auto chosen = source.chosen_file(package.name, package.version);
        if (package.url || !chosen || !chosen->file->is_wheel()) {
            throw util::Error(util::ExitCode::failure,
                              "cannot install the " + purpose + ": " + package.name +
                                  " is not available as a wheel for Python " + interpreter.version,
                              "build requirements are installed from wheels only");
        }
        const auto& file = *chosen->file;
        wheels.push_back({package.name, package.version.to_string(), file.filename, file.url,
                          file.sha256() ? std::string(*file.sha256()) : std::string()});
    }
    return wheels;
}

std::vector<std::filesystem::path> IndexBuildEnvironmentProvider::State::fetch(
    std::vector<Wheel>& wheels, const std::string& purpose) {
    // Wheels the index gives no sha256 for are hashed as they download (the torch index omits
    // it at times); the rest come through the cache like any wheel.
    std::vector<std::size_t> unhashed;
    for (std::size_t i = 0; i < wheels.size(); ++i) {
        if (wheels[i].sha256.empty()) unhashed.push_back(i);
    }
    std::vector<std::string> errors;
    if (!unhashed.empty()) {
        if (session.offline()) {
            throw util::Error(util::ExitCode::failure,
                              "offline: the index gives no sha256 for " +
                                  wheels[unhashed.front()].filename + " (" + purpose +
                                  "), and hashing it needs a download",
                              "run once without --offline");
        }
        std::vector<net::FileRequest> requests;
        for (std::size_t i : unhashed) {
            net::FileRequest r;
            r.url = wheels[i].url;
            r.destination = cache.staging_path(wheels[i].filename);
            requests.push_back(std::move(r));
        }
        auto outcomes = downloader.download(requests, session.observer());
        for (std::size_t k = 0; k < unhashed.size(); ++k) {
            auto& wheel = wheels[unhashed[k]];
            if (!outcomes[k]) {
                errors.push_back(wheel.filename + ": " + outcomes[k].error().message);
                continue;
            }
            wheel.sha256 = outcomes[k]->sha256;
            cache.insert_artifact(requests[k].destination, wheel.sha256, wheel.filename,
                                  wheel.sha256, util::redact_url(wheel.url));
        }
    }
    if (!errors.empty()) {
        throw util::Error(util::ExitCode::failure,
                          "cannot download the " + purpose + ":\n  " + util::join(errors, "\n  "));
    }
    std::vector<cache::ArtifactRef> refs;
    for (const auto& w : wheels)
        refs.push_back({w.sha256, w.filename, w.url});
    auto fetched =
        index::fetch_artifacts(cache, downloader, refs, session.offline(), session.observer());
    std::vector<std::filesystem::path> paths;
    for (const auto& r : fetched.results) {
        if (r.path.empty() && !r.error.empty()) errors.push_back(r.error);
        paths.push_back(r.path);
    }
    if (!errors.empty()) {
        throw util::Error(util::ExitCode::failure,
                          "cannot download the " + purpose + ":\n  " + util::join(errors, "\n  "));
    }
    return paths;
}

build::BuildEnvironment IndexBuildEnvironmentProvider::State::install(
    const std::vector<pep::Requirement>& requirements, const std::string& purpose) {
    auto wheels = resolve_wheels(requirements, purpose);
    auto paths = fetch(wheels, purpose);

    const auto& interpreter = settings.interpreter;
    folders.push_back(fs::TempDir::create_in(cache.temp_dir(), "build-env"));
    auto layout = install::PrefixLayout::for_venv(folders.back().path(), interpreter.major_minor(),
                                                  interpreter.sys_platform == "win32");
    // Console scripts (ninja, cmake, cython) run with the backend's interpreter: the folder has
    // none of its own.
    layout.python = interpreter.executable.empty() ? interpreter.path : interpreter.executable;
    for (std::size_t i = 0; i < wheels.size(); ++i) {
        const auto& wheel = wheels[i];
        auto tree = cache.ensure_unpacked(
            wheel.sha256,
            [&](const std::filesystem::path& dest) { install::unpack_wheel(paths[i], dest); },
            paths[i]);
        if (tree.changed()) {
            std::cerr << tree.change_notice(wheel.filename) + "\n" << std::flush;
        }
        install::WheelInstallRequest request;
        request.unpacked = tree.path();
        request.name = wheel.name;
        request.version = wheel.version;
        request.label = wheel.filename;
        install::install_wheel(layout, request);
    }
    ++installed;
    return build::BuildEnvironment{{layout.purelib}, {layout.scripts}};
}

IndexBuildEnvironmentProvider::IndexBuildEnvironmentProvider(Session& session,
                                                             BuildEnvironmentSettings settings)
    : state_(std::make_unique<State>(session, std::move(settings))) {}

IndexBuildEnvironmentProvider::~IndexBuildEnvironmentProvider() = default;

build::BuildEnvironment IndexBuildEnvironmentProvider::prepare(
    const std::vector<pep::Requirement>& requirements, const std::string& purpose) {
    if (requirements.empty()) return {};
    auto key = key_of(requirements);
    if (auto it = state_->made.find(key); it != state_->made.end()) return it->second;
    auto env = state_->install(requirements, purpose);
    state_->made.emplace(key, env);
    return env;
}

std::size_t IndexBuildEnvironmentProvider::environments_made() const noexcept {
    return state_->installed;
}

}  // namespace aitk::app
