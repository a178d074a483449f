#include "aitk/app/source_metadata.hpp"

#include <map>

#include "aitk/app/build_environment.hpp"
#include "aitk/app/source_builds.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/build/build.hpp"
#include "aitk/build/source.hpp"
#include "aitk/build/wheel_cache.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/python/request.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

pep::CoreMetadata parsed_metadata(const std::string& text, const std::string& label) {
    auto parsed = pep::CoreMetadata::parse(text);
    if (!parsed) {
        throw util::Error(util::ExitCode::failure,
                          "the metadata of " + label +
                              " is not valid core metadata: " + parsed.error().describe(),
                          "the project's build backend made it; report it to the project");
    }
    return std::move(*parsed);
}

}  // namespace

bool static_dependencies(const pep::CoreMetadata& pkg_info) {
    auto version = pep::Version::parse(pkg_info.metadata_version);
    if (!version || *version < *pep::Version::parse("2.2")) return false;
    for (auto field : pkg_info.get_all("Dynamic")) {
        auto name = util::trim(field);
        if (util::iequals(name, "Requires-Dist") || util::iequals(name, "Provides-Extra")) {
            return false;
        }
    }
    return true;
}

std::optional<std::string> read_pkg_info(const std::filesystem::path& sdist) {
    auto reader = archive::Reader::open(sdist);
    while (const archive::Entry* entry = reader.next()) {
        std::string_view path = entry->path;
        if (path.starts_with("./")) path.remove_prefix(2);
        auto slash = path.find('/');
        if (slash == std::string_view::npos || path.substr(slash + 1) != "PKG-INFO") continue;
        return reader.read_all(1 << 20);
    }
    return std::nullopt;
}

struct HostSourceInspector::State {
    Session& session;
    SourceInspectorSettings settings;
    cache::Cache& cache;
    build::BuiltWheelCache wheels;
    std::optional<python::Interpreter> interpreter;
    std::unique_ptr<build::GitCache> git;
    std::unique_ptr<IndexBuildEnvironmentProvider> provider;
    std::map<std::string, InspectedSource> answers;

    State(Session& session_, SourceInspectorSettings s)
        : session(session_), settings(std::move(s)), cache(session.cache()), wheels(cache) {}

    const python::Interpreter& host_interpreter() {
        if (interpreter) return *interpreter;
        const std::string wanted = util::major_minor(settings.python);
        if (settings.interpreter) {
            if (settings.interpreter->major_minor() != wanted) {
                throw util::Error(util::ExitCode::failure,
                                  "reading the metadata of source packages needs Python " + wanted +
                                      " (the lock is for Python " + settings.python + "), but " +
                                      util::utf8_of(settings.interpreter->executable) +
                                      " is Python " + settings.interpreter->version,
                                  "give a Python " + wanted + " interpreter");
            }
            interpreter = settings.interpreter;
            return *interpreter;
        }
        auto found = python::find_interpreter(wanted, settings.discovery);
        if (!found) {
            throw util::Error(util::ExitCode::failure,
                              "reading the metadata of source packages (VCS, sdist-only, local "
                              "folders) runs their build backend with Python " +
                                  wanted + " on this machine (the lock is for Python " +
                                  settings.python + "), and none was found",
                              "install it (aitk-env python install " + wanted +
                                  "), or lock with --python set to a version this machine has");
        }
        interpreter = std::move(*found);
        return *interpreter;
    }

    build::GitCache& git_cache() {
        if (!git) {
            build::GitOptions options = settings.git;
            if (!options.environment && settings.environment) {
                options.environment = settings.environment;
            }
            git = std::make_unique<build::GitCache>(cache, options);
        }
        return *git;
    }

    build::BuildEnvironmentProvider& environments() {
        if (!provider) {
            BuildEnvironmentSettings s;
            s.routing = settings.routing;
            s.interpreter = host_interpreter();
            provider = std::make_unique<IndexBuildEnvironmentProvider>(session, std::move(s));
        }
        return *provider;
    }

    // Metadata a backend made for `source` with this machine's interpreter: from the cache
    // when an earlier run built it, else from prepare_metadata_for_build_wheel.
    InspectedSource built_metadata(const build::BuildSource& source) {
        const auto& python = host_interpreter();
        std::string key;
        if (!source.id().empty()) {
            key =
                fs::sha256_hex("aitk-env built metadata\n" + source.id() + "\n" +
                               build::interpreter_tag(python) + "\n" + build::platform_key(python));
        }
        std::optional<std::string> text;
        if (!key.empty()) text = cache.find_metadata(key);
        if (!text) {
            build::BuildOptions options;
            options.environment = settings.environment;
            options.timeout = settings.timeout;
            options.work_dir = cache.temp_dir();
            std::filesystem::create_directories(options.work_dir);
            options.cache = &wheels;
            text = build::prepare_metadata(source, environments(), python, options).metadata;
            if (!key.empty()) cache.put_metadata(key, *text);
        }
        InspectedSource out;
        out.metadata = parsed_metadata(*text, source.label());
        out.built = true;
        out.built_with = "Python " + python.version;
        return out;
    }
};

HostSourceInspector::HostSourceInspector(Session& session, SourceInspectorSettings settings)
    : state_(std::make_unique<State>(session, std::move(settings))) {}

HostSourceInspector::~HostSourceInspector() = default;

const python::Interpreter& HostSourceInspector::interpreter() {
    return state_->host_interpreter();
}

InspectedSource HostSourceInspector::vcs(const std::string& name, const pep::VcsUrl& url,
                                         const std::string& locked_commit) {
    (void)name;
    const std::string memo = "vcs\n" + vcs_pin_key(url) + "\n" + locked_commit;
    if (auto it = state_->answers.find(memo); it != state_->answers.end()) return it->second;
    std::string commit;
    if (!locked_commit.empty()) {
        commit = util::to_lower(locked_commit);
    } else if (pep::is_full_commit_id(url.revision)) {
        commit = util::to_lower(url.revision);
    } else {
        if (state_->session.offline()) {
            throw util::Error(util::ExitCode::failure,
                              "offline: which commit " + util::redact_url(url.to_string()) +
                                  " names is known only to the repository",
                              "run once without --offline, or pin a full commit id");
        }
        commit = state_->git_cache().resolve(url);
    }
    auto answer = state_->built_metadata(build::BuildSource::git(state_->git_cache(), url, commit));
    answer.commit = commit;
    return state_->answers.emplace(memo, std::move(answer)).first->second;
}

InspectedSource HostSourceInspector::archive(const std::string& name,
                                             const index::DistributionFile& file) {
    (void)name;
    const std::string memo = "archive\n" + file.url;
    if (auto it = state_->answers.find(memo); it != state_->answers.end()) return it->second;
    std::string sha = file.sha256() ? util::to_lower(*file.sha256()) : std::string();
    auto fetched = fetch_source_archive(state_->session, file.url, file.filename, sha);
    InspectedSource answer;
    std::optional<pep::CoreMetadata> pkg_info;
    if (auto text = read_pkg_info(fetched.path)) {
        auto parsed = pep::CoreMetadata::parse(*text);
        if (parsed && static_dependencies(*parsed)) pkg_info = std::move(*parsed);
    }
    if (pkg_info) {
        answer.metadata = std::move(*pkg_info);
    } else {
        answer = state_->built_metadata(build::BuildSource::sdist(fetched.path, fetched.sha256));
    }
    answer.sha256 = fetched.sha256;
    answer.size = fetched.size;
    return state_->answers.emplace(memo, std::move(answer)).first->second;
}

InspectedSource HostSourceInspector::directory(const std::string& name,
                                               const std::filesystem::path& project) {
    (void)name;
    const std::string memo = "directory\n" + util::generic_utf8_of(project);
    if (auto it = state_->answers.find(memo); it != state_->answers.end()) return it->second;
    auto answer = state_->built_metadata(build::BuildSource::directory(project));
    return state_->answers.emplace(memo, std::move(answer)).first->second;
}

}  // namespace aitk::app
