#include "aitk/app/artifact_locations.hpp"

#include <map>
#include <set>

#include "aitk/app/index_routing.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {

net::UrlRewriteRules parse_rewrite_options(const std::vector<std::string>& values) {
    auto rules = net::UrlRewriteRules::parse(values);
    if (!rules) {
        throw util::InputError(
            "--rewrite-url " + rules.error().input + ": " + rules.error().message,
            "write it as --rewrite-url https://files.example.org/=https://"
            "mirror.example.org/files/");
    }
    return std::move(*rules);
}

util::Expected<std::string, std::string> find_locked_file(const index::ProjectFiles& page,
                                                          const std::string& filename,
                                                          const std::string& sha256) {
    for (const auto& file : page.files) {
        if (file.filename != filename) continue;
        auto listed = file.sha256();
        if (listed && *listed != sha256) {
            return util::Unexpected(filename + ": " + page.page_url + " lists it with sha256 " +
                                    std::string(*listed) + ", the lock has " + sha256);
        }
        return file.url;
    }
    return util::Unexpected(filename + ": not on " + page.page_url);
}

namespace {

std::string index_names(const index::IndexRouting& routing, const std::string& project) {
    std::vector<std::string> urls;
    for (const auto& location : routing.candidates(project))
        urls.push_back(util::redact_url(location.url));
    return urls.empty() ? std::string("no index") : util::join(urls, ", ");
}

}  // namespace

void locate_artifacts(Session& session, std::vector<cache::ArtifactRef>& refs,
                      const std::vector<std::string>& projects, const LocateRequest& request) {
    const auto& sources = *request.sources;
    if (sources.indexes && !session.offline()) {
        // Only what must be downloaded is looked up: a no-op or cached setup asks no index.
        std::vector<std::size_t> wanted;
        std::set<std::string> names;
        for (std::size_t i = 0; i < refs.size(); ++i) {
            if (session.cache().find_artifact(refs[i].sha256, refs[i].filename)) continue;
            wanted.push_back(i);
            names.insert(projects[i]);
        }
        if (!wanted.empty()) {
            auto routing = routing_from_settings(*sources.indexes, request.backend);
            index::ClientOptions options;
            options.rewrite = sources.rewrite;
            index::IndexClient client(session.downloader(), &session.cache(), routing, options);
            std::vector<std::string> ordered(names.begin(), names.end());
            auto outcomes = client.projects(ordered);
            std::map<std::string, const index::ProjectOutcome*> by_name;
            for (std::size_t i = 0; i < ordered.size(); ++i)
                by_name[ordered[i]] = &outcomes[i];
            std::vector<std::string> errors;
            for (auto i : wanted) {
                const auto& outcome = *by_name[projects[i]];
                if (!outcome) {
                    const auto& error = outcome.error();
                    errors.push_back(refs[i].filename + ": " +
                                     (error.kind == index::IndexError::Kind::not_found
                                          ? "project " + projects[i] + " is not on " +
                                                index_names(routing, projects[i])
                                          : error.message));
                    continue;
                }
                auto url = find_locked_file(*outcome, refs[i].filename, refs[i].sha256);
                if (!url) {
                    errors.push_back(url.error());
                    continue;
                }
                refs[i].url = *url;
            }
            if (!errors.empty()) {
                throw util::Error(
                    util::ExitCode::failure,
                    std::to_string(errors.size()) +
                        (errors.size() == 1 ? " locked file is" : " locked files are") +
                        " not available from the given indexes:\n  " + util::join(errors, "\n  "),
                    "mirror the lock there (`aitk-env mirror -l LOCK -o DIR`), or "
                    "drop --index-url to fetch from the lock's own URLs");
            }
        }
    }
    if (!sources.rewrite.empty()) {
        for (auto& ref : refs)
            ref.url = sources.rewrite.apply(ref.url);
    }
}

void check_local_files(const lock::LockedTarget& target, const ArtifactSources& sources) {
    if (!sources.local_files) return;
    std::vector<const lock::LockedPackage*> packages;
    for (const auto& package : target.packages)
        packages.push_back(&package);
    refuse_foreign_local_files(
        *sources.local_files,
        lock_urls_opened(packages, sources.indexes.has_value(), sources.rewrite));
}

std::size_t downloads_or_throw(const index::ArtifactFetch& fetched, std::string_view what) {
    std::vector<std::string> errors;
    std::size_t downloaded = 0;
    for (const auto& r : fetched.results) {
        if (r.path.empty()) errors.push_back(r.error);
        if (r.downloaded) ++downloaded;
    }
    if (!errors.empty()) {
        throw util::Error(util::ExitCode::failure,
                          std::to_string(errors.size()) + " of " +
                              std::to_string(fetched.results.size()) + " " + std::string(what) +
                              " could not be had:\n  " + util::join(errors, "\n  "));
    }
    return downloaded;
}

}  // namespace aitk::app
