#include "aitk/app/mirror.hpp"

#include <algorithm>
#include <set>

#include "aitk/app/lock.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/index/url.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

// PEP 629 for the HTML pages; PEP 700 (sizes, versions) makes the JSON pages 1.1.
constexpr const char* api_version = "1.1";

std::string html_page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html>\n  <head>\n"
           "    <meta name=\"pypi:repository-version\" content=\"" +
           std::string(api_version) + "\">\n    <title>" + util::html_escape(title) +
           "</title>\n  </head>\n  <body>\n    <h1>" + util::html_escape(title) + "</h1>\n" + body +
           "  </body>\n</html>\n";
}

// Where a project page links to: "../../files/<p>/<f>" (relative to simple/<p>/), or absolute.
std::string file_link(const std::optional<std::string>& base, const MirrorFile& file) {
    std::string path = "files/" + file.project + "/" + index::percent_encode_path(file.filename);
    return base ? *base + "/" + path : "../../" + path;
}

std::string project_link(const std::optional<std::string>& base, const std::string& project) {
    return base ? *base + "/simple/" + project + "/" : project + "/";
}

std::vector<std::string> sorted_versions(const std::vector<const MirrorFile*>& files) {
    std::set<std::string> texts;
    for (const auto* f : files)
        if (!f->version.empty()) texts.insert(f->version);
    std::vector<std::string> out(texts.begin(), texts.end());
    // Version order where every version parses (it does for locks we wrote), else text order.
    std::vector<std::pair<pep::Version, std::string>> parsed;
    for (const auto& t : out) {
        auto v = pep::Version::parse(t);
        if (!v) return out;
        parsed.emplace_back(*v, t);
    }
    std::stable_sort(parsed.begin(), parsed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    out.clear();
    for (auto& [v, t] : parsed)
        out.push_back(t);
    return out;
}

void render_project(const std::string& project, const std::vector<const MirrorFile*>& files,
                    const std::optional<std::string>& base,
                    std::map<std::string, std::string>& pages) {
    std::string body;
    nlohmann::json json_files = nlohmann::json::array();
    for (const auto* f : files) {
        auto href = file_link(base, *f);
        body += "    <a href=\"" + util::html_escape(href + "#sha256=" + f->sha256) + "\"";
        if (!f->requires_python.empty()) {
            body += " data-requires-python=\"" + util::html_escape(f->requires_python) + "\"";
        }
        if (f->metadata_sha256) {
            // PEP 714 renamed the attribute; older pip reads only the PEP 658 one.
            auto value = "sha256=" + *f->metadata_sha256;
            body +=
                " data-dist-info-metadata=\"" + value + "\" data-core-metadata=\"" + value + "\"";
        }
        body += ">" + util::html_escape(f->filename) + "</a><br>\n";

        nlohmann::json entry = {{"filename", f->filename},
                                {"url", href},
                                {"hashes", {{"sha256", f->sha256}}},
                                {"size", f->size}};
        if (!f->requires_python.empty()) entry["requires-python"] = f->requires_python;
        if (f->metadata_sha256) {
            nlohmann::json meta = {{"sha256", *f->metadata_sha256}};
            entry["core-metadata"] = meta;
            entry["dist-info-metadata"] = meta;
        }
        json_files.push_back(std::move(entry));
    }
    pages["simple/" + project + "/index.html"] = html_page("Links for " + project, body);
    nlohmann::json json = {{"meta", {{"api-version", api_version}}},
                           {"name", project},
                           {"versions", sorted_versions(files)},
                           {"files", json_files}};
    pages["simple/" + project + "/index.json"] = json.dump(2) + "\n";
}

// The base URL as the pages write it: without a trailing slash, and without credentials,
// which every reader of the mirror would see.
std::optional<std::string> trimmed_base(const std::optional<std::string>& base) {
    if (!base) return std::nullopt;
    std::string b = util::strip_credentials(*base);
    while (!b.empty() && b.back() == '/')
        b.pop_back();
    return b;
}

// Writes `content` unless the file already holds exactly that; true when it wrote.
bool write_if_changed(const std::filesystem::path& path, std::string_view content) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) &&
        std::filesystem::file_size(path, ec) == content.size() && !ec &&
        fs::read_file(path) == content) {
        return false;
    }
    std::filesystem::create_directories(path.parent_path());
    fs::write_file_atomic(path, content);
    return true;
}

// Copies `from` to `to` through a temporary file beside `to` and a rename: a reader of the
// mirror (a server answering while it is refreshed) never sees half a wheel.
void copy_atomic(const std::filesystem::path& from, const std::filesystem::path& to) {
    std::filesystem::create_directories(to.parent_path());
    // A folder of its own beside `to`, so two mirror runs never share a temporary name.
    auto staging = fs::TempDir::create_in(to.parent_path(), "mirror");
    auto temp = staging.path() / to.filename();
    std::filesystem::copy_file(from, temp);
    std::filesystem::rename(temp, to);
}

bool file_matches(const std::filesystem::path& path, std::uintmax_t size,
                  const std::string& sha256) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    if (std::filesystem::file_size(path, ec) != size || ec) return false;
    return fs::sha256_file_hex(path) == sha256;
}

}  // namespace

std::map<std::string, std::string> render_mirror_pages(const std::vector<MirrorFile>& files,
                                                       const std::optional<std::string>& base_url) {
    auto base = trimmed_base(base_url);
    std::map<std::string, std::vector<const MirrorFile*>> by_project;
    for (const auto& f : files)
        by_project[f.project].push_back(&f);
    std::map<std::string, std::string> pages;
    std::string body;
    nlohmann::json projects = nlohmann::json::array();
    for (auto& [project, list] : by_project) {
        std::sort(list.begin(), list.end(), [](const MirrorFile* a, const MirrorFile* b) {
            return a->filename < b->filename;
        });
        body += "    <a href=\"" + util::html_escape(project_link(base, project)) + "\">" +
                util::html_escape(project) + "</a><br>\n";
        projects.push_back({{"name", project}});
        render_project(project, list, base, pages);
    }
    pages["simple/index.html"] = html_page("Simple index", body);
    nlohmann::json root = {{"meta", {{"api-version", api_version}}}, {"projects", projects}};
    pages["simple/index.json"] = root.dump(2) + "\n";
    return pages;
}

std::vector<LockedArtifact> locked_artifacts(const lock::Lockfile& lock,
                                             const std::vector<std::string>& targets) {
    std::vector<const lock::LockedTarget*> chosen;
    if (targets.empty()) {
        for (const auto& t : lock.targets)
            chosen.push_back(&t);
    } else {
        for (const auto& id : targets) {
            const auto* t = lock.find_target(id);
            if (!t) {
                std::vector<std::string> ids;
                for (const auto& known : lock.targets)
                    ids.push_back(known.id);
                throw util::InputError("--target " + id + ": the lockfile has no such target",
                                       "it has " + util::join(ids, ", "));
            }
            chosen.push_back(t);
        }
    }
    std::map<std::pair<std::string, std::string>, LockedArtifact> by_file;  // (project, file)
    auto add = [&](LockedArtifact artifact) {
        auto key = std::make_pair(artifact.project, artifact.filename);
        auto [it, inserted] = by_file.emplace(key, artifact);
        if (!inserted && it->second.sha256 != artifact.sha256) {
            throw util::InputError("the lockfile has " + artifact.filename + " with two hashes: " +
                                       it->second.sha256 + " and " + artifact.sha256,
                                   "lock again");
        }
    };
    for (const auto* target : chosen) {
        for (const auto& p : target->packages) {
            if (p.wheel) {
                add({p.name, p.version, p.wheel->filename, p.wheel->url, p.wheel->sha256});
            } else if (p.source && p.source->kind == lock::SourceKind::sdist &&
                       !p.source->sha256.empty()) {
                add({p.name, p.version, index::url_filename(p.source->url), p.source->url,
                     p.source->sha256});
            }
        }
    }
    std::vector<LockedArtifact> out;
    for (auto& [key, artifact] : by_file)
        out.push_back(std::move(artifact));
    return out;
}

MirrorOutcome run_mirror(Session& session, const MirrorRequest& request) {
    const auto parsed = read_lockfile(request.lockfile);
    auto artifacts = locked_artifacts(parsed, request.targets);
    for (const auto& target : parsed.targets) {
        const auto& ids = request.targets;
        if (ids.empty() || std::find(ids.begin(), ids.end(), target.id) != ids.end()) {
            check_local_files(target, request.sources);
        }
    }

    MirrorOutcome outcome;
    outcome.output = request.output;
    if (request.base_url && util::has_credentials(*request.base_url)) {
        outcome.warnings.push_back(
            "--base-url " + util::redact_url(*request.base_url) +
            ": its credentials were left out of the pages (anyone who reads the mirror reads "
            "them); give them to the clients instead (`--index-url "
            "https://USER:TOKEN@HOST/…/simple`, or .netrc)");
    }
    auto& cache = session.cache();
    auto hold = cache.hold();
    std::vector<cache::ArtifactRef> refs;
    std::vector<std::string> projects;
    for (const auto& a : artifacts) {
        refs.push_back({a.sha256, a.filename, a.url});
        projects.push_back(a.project);
    }
    locate_artifacts(session, refs, projects, {&request.sources, {}});
    auto fetched = index::fetch_artifacts(cache, session.downloader(), refs, session.offline(),
                                          session.observer());
    outcome.downloaded += downloads_or_throw(fetched, "artifacts");

    std::vector<MirrorFile> files;
    std::set<std::string> names;
    for (std::size_t i = 0; i < artifacts.size(); ++i) {
        const auto& a = artifacts[i];
        const auto& stored = fetched.results[i].path;
        MirrorFile file;
        file.project = a.project;
        file.version = a.version;
        file.filename = a.filename;
        file.sha256 = a.sha256;
        file.size = std::filesystem::file_size(stored);
        auto dest = request.output / "files" / a.project / a.filename;
        if (file_matches(dest, file.size, a.sha256)) {
            ++outcome.unchanged;
        } else {
            copy_atomic(stored, dest);
            ++outcome.written;
        }
        if (a.filename.ends_with(".whl")) {
            auto metadata = archive::read_wheel_metadata(stored).content;
            file.metadata_sha256 = fs::sha256_hex(metadata);
            if (auto core = pep::CoreMetadata::parse(metadata)) {
                file.requires_python = core->requires_python;
            }
            auto meta_path = dest;
            meta_path += ".metadata";
            (write_if_changed(meta_path, metadata) ? outcome.written : outcome.unchanged) += 1;
        }
        names.insert(a.project);
        files.push_back(std::move(file));
    }
    for (const auto& [path, content] : render_mirror_pages(files, request.base_url)) {
        (write_if_changed(request.output / path, content) ? outcome.written : outcome.unchanged) +=
            1;
    }
    outcome.projects = names.size();
    outcome.files = files.size();
    return outcome;
}

nlohmann::json MirrorOutcome::to_json() const {
    return {{"output", util::utf8_of(output)},
            {"projects", projects},
            {"files", files},
            {"downloaded", downloaded},
            {"written", written},
            {"unchanged", unchanged},
            {"index_url", util::utf8_of(output / "simple")},
            {"warnings", warnings}};
}

std::string MirrorOutcome::summary() const {
    return "mirror   " + util::utf8_of(output) + ": " + std::to_string(files) + " files of " +
           std::to_string(projects) + " projects (" + std::to_string(downloaded) + " downloaded, " +
           std::to_string(written) + " written, " + std::to_string(unchanged) +
           " unchanged)\nserve    " + util::utf8_of(output) +
           " with any static web server; install with `aitk-env --index-url <its URL>/simple "
           "setup -l LOCK`\n";
}

}  // namespace aitk::app
