// uv.lock text → lock::UvLock (uv_lock.hpp), with toml++ and its source positions.
#include <toml++/toml.h>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <unordered_map>

#include "aitk/lock/uv_lock.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

struct UvLockFailure {
    util::InputProblem problem;
};

const std::string newer_uv_hint = "aitk-env reads uv.lock version 1 (revisions up to " +
                                  std::to_string(uv_lock_known_revision) +
                                  "); regenerate it with `uv lock`, or update aitk-env";

class UvLockReader {
  public:
    explicit UvLockReader(std::string_view file) : file_(file) {}

    util::SourceLocation where(const toml::node& node) const {
        const auto& begin = node.source().begin;
        return {file_, begin.line, begin.column};
    }
    util::SourceLocation where(const toml::key& key) const {
        const auto& begin = key.source().begin;
        return {file_, begin.line, begin.column};
    }
    [[noreturn]] void fail(util::SourceLocation at, std::string message,
                           std::string hint = {}) const {
        throw UvLockFailure{util::InputProblem{std::move(at), std::move(message), std::move(hint)}};
    }
    [[noreturn]] void fail(const toml::node& at, std::string message, std::string hint = {}) const {
        fail(where(at), std::move(message), std::move(hint));
    }

    const toml::table& table(const toml::node& node, const std::string& path) const {
        const auto* t = node.as_table();
        if (t == nullptr) fail(node, util::backquoted(path) + " must be a table");
        return *t;
    }
    const toml::array& array(const toml::node& node, const std::string& path) const {
        const auto* a = node.as_array();
        if (a == nullptr) fail(node, util::backquoted(path) + " must be an array");
        return *a;
    }
    const std::string& string(const toml::node& node, const std::string& path) const {
        const auto* s = node.as_string();
        if (s == nullptr) fail(node, util::backquoted(path) + " must be a string");
        return s->get();
    }
    std::int64_t integer(const toml::node& node, const std::string& path) const {
        const auto* i = node.as_integer();
        if (i == nullptr) fail(node, util::backquoted(path) + " must be an integer");
        return i->get();
    }
    bool boolean(const toml::node& node, const std::string& path) const {
        const auto* b = node.as_boolean();
        if (b == nullptr) fail(node, util::backquoted(path) + " must be true or false");
        return b->get();
    }
    std::vector<std::string> strings(const toml::node& node, const std::string& path) const {
        std::vector<std::string> out;
        const auto& list = array(node, path);
        for (std::size_t i = 0; i < list.size(); ++i)
            out.push_back(string(*list.get(i), path + "[" + std::to_string(i) + "]"));
        return out;
    }
    // A project, extra or group name, normalised (PEP 503 / PEP 685).
    // Names repeat on every edge: each text is checked once.
    std::string name(const toml::node& node, const std::string& path) {
        const std::string& text = string(node, path);
        auto found = names_.find(text);
        if (found != names_.end()) return found->second;
        if (!pep::is_valid_name(text))
            fail(node,
                 util::backquoted(path) + " " + util::backquoted(text) + " is not a valid name");
        std::string normalised = pep::canonicalize_name(text);
        if (auto problem = util::path_name_problem(normalised)) {
            fail(node, util::backquoted(path) + " " + util::backquoted(text) +
                           " cannot name a file: " + *problem);
        }
        names_.emplace(text, normalised);
        return normalised;
    }
    std::vector<std::string> names(const toml::node& node, const std::string& path) {
        std::vector<std::string> out;
        const auto& list = array(node, path);
        for (std::size_t i = 0; i < list.size(); ++i)
            out.push_back(name(*list.get(i), path + "[" + std::to_string(i) + "]"));
        return out;
    }

    // Markers repeat thousands of times in a big lock: each text is parsed once.
    std::shared_ptr<const pep::Marker> marker(const toml::node& node, const std::string& path) {
        const std::string& text = string(node, path);
        auto found = markers_.find(text);
        if (found != markers_.end()) return found->second;
        auto parsed = pep::Marker::parse(text);
        if (!parsed) {
            fail(node, util::backquoted(path) + ": invalid marker " + util::backquoted(text) +
                           ": " + parsed.error().message);
        }
        auto shared = std::make_shared<const pep::Marker>(std::move(*parsed));
        markers_.emplace(text, shared);
        return shared;
    }

    const std::string& file() const noexcept { return file_; }

  private:
    std::string file_;
    std::unordered_map<std::string, std::shared_ptr<const pep::Marker>> markers_;
    std::unordered_map<std::string, std::string> names_;
};

// The keys of one table: only those listed are accepted.
class UvLockFields {
  public:
    UvLockFields(const UvLockReader& reader, const toml::table& table, std::string path)
        : reader_(reader), table_(table), path_(std::move(path)) {}

    void check(std::initializer_list<std::string_view> allowed) const {
        for (auto&& [key, value] : table_) {
            if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
            std::string known;
            for (auto k : allowed)
                known += (known.empty() ? "" : ", ") + std::string(k);
            reader_.fail(reader_.where(key),
                         "unknown key " + util::backquoted(child(key.str())) +
                             " (known here: " + known + ")",
                         newer_uv_hint);
        }
    }
    const toml::node* optional(std::string_view key) const { return table_.get(key); }
    const toml::node& required(std::string_view key) const {
        const toml::node* node = table_.get(key);
        if (node == nullptr) {
            reader_.fail(reader_.where(table_),
                         util::backquoted(path_.empty() ? "the file" : path_) + " lacks " +
                             util::backquoted(key));
        }
        return *node;
    }
    std::string child(std::string_view key) const {
        return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    }
    const toml::table& table() const noexcept { return table_; }

  private:
    const UvLockReader& reader_;
    const toml::table& table_;
    std::string path_;
};

std::string item(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

// The last segment of a URL or path, without query and fragment, percent-decoded.
std::string decoded_last_segment(std::string_view text) {
    text = text.substr(0, text.find_first_of("?#"));
    const auto slash = text.find_last_of("/\\");
    const std::string_view segment =
        slash == std::string_view::npos ? text : text.substr(slash + 1);
    return util::percent_decode(segment);
}

UvSource read_source(UvLockReader& reader, const toml::node& node, const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"registry", "git", "url", "path", "directory", "editable", "virtual", "subdirectory"});
    static const std::pair<std::string_view, UvSource::Kind> kinds[] = {
        {"registry", UvSource::Kind::registry},
        {"git", UvSource::Kind::git},
        {"url", UvSource::Kind::url},
        {"path", UvSource::Kind::path},
        {"directory", UvSource::Kind::directory},
        {"editable", UvSource::Kind::editable},
        {"virtual", UvSource::Kind::virtual_},
    };
    UvSource source;
    int found = 0;
    for (const auto& [key, kind] : kinds) {
        if (const auto* value = f.optional(key)) {
            source.kind = kind;
            source.location = reader.string(*value, f.child(key));
            ++found;
        }
    }
    if (found != 1) {
        reader.fail(node, util::backquoted(path) +
                              " must name exactly one of registry, git, url, path, directory, "
                              "editable or virtual");
    }
    if (source.location.empty())
        reader.fail(node, util::backquoted(path) + " names an empty location");
    if (const auto* sub = f.optional("subdirectory")) {
        if (source.kind != UvSource::Kind::url)
            reader.fail(
                *sub, util::backquoted(f.child("subdirectory")) + " belongs to `url` sources only");
        source.subdirectory = reader.string(*sub, f.child("subdirectory"));
    }
    if (source.kind == UvSource::Kind::git) {
        auto git = parse_uv_git_url(source.location);
        if (!git) reader.fail(node, util::backquoted(path) + ": " + git.error());
    }
    return source;
}

// "sha256:<64 hex>" (uv writes sha256; other algorithms are refused: every file we install is
// checked by its sha256).
std::string read_hash(const UvLockReader& reader, const toml::node& node, const std::string& path) {
    std::string text = reader.string(node, path);
    const auto colon = text.find(':');
    if (colon == std::string::npos || text.substr(0, colon) != "sha256" ||
        !util::is_hex(std::string_view(text).substr(colon + 1)) || text.size() - colon - 1 != 64) {
        reader.fail(node,
                    util::backquoted(path) + " " + util::backquoted(text) + " is not a sha256 hash",
                    "uv writes `sha256:<64 hex digits>`");
    }
    return "sha256:" + util::to_lower(std::string_view(text).substr(colon + 1));
}

UvFile read_file_entry(UvLockReader& reader, const toml::node& node, const std::string& path,
                       bool wheel) {
    const UvLockFields f(reader, reader.table(node, path), path);
    if (wheel) {
        f.check({"url", "path", "filename", "hash", "size", "upload-time", "upload_time", "zstd"});
    } else {
        f.check({"url", "path", "hash", "size", "upload-time", "upload_time"});
    }
    UvFile file;
    file.where = reader.where(node);
    if (const auto* url = f.optional("url")) file.url = reader.string(*url, f.child("url"));
    if (const auto* p = f.optional("path")) file.path = reader.string(*p, f.child("path"));
    if (!file.url.empty() && !file.path.empty())
        reader.fail(node, util::backquoted(path) + " gives both `url` and `path`");
    if (const auto* name = f.optional("filename")) {
        file.filename = reader.string(*name, f.child("filename"));
    } else if (!file.url.empty() || !file.path.empty()) {
        file.filename = decoded_last_segment(file.url.empty() ? file.path : file.url);
    }
    if (const auto* hash = f.optional("hash"))
        file.hash = read_hash(reader, *hash, f.child("hash"));
    if (const auto* size = f.optional("size")) {
        const auto bytes = reader.integer(*size, f.child("size"));
        if (bytes < 0)
            reader.fail(*size, util::backquoted(f.child("size")) + " must not be negative");
        file.size = static_cast<std::uint64_t>(bytes);
    }
    if (const auto* zstd = f.optional("zstd")) {  // compressed metadata: not used here
        const UvLockFields z(reader, reader.table(*zstd, f.child("zstd")), f.child("zstd"));
        z.check({"hash", "size"});
    }
    if (!file.filename.empty()) {
        if (auto problem = util::path_name_problem(file.filename)) {
            reader.fail(node, util::backquoted(path) + " names the file " +
                                  util::backquoted(file.filename) +
                                  ", which cannot name a file: " + *problem);
        }
    }
    return file;
}

std::optional<UvConflictItem> read_conflict_item(UvLockReader& reader, const toml::node& node,
                                                 const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"package", "extra", "group"});
    UvConflictItem out;
    if (const auto* p = f.optional("package")) out.package = reader.name(*p, f.child("package"));
    if (const auto* e = f.optional("extra")) out.extra = reader.name(*e, f.child("extra"));
    if (const auto* g = f.optional("group")) out.group = reader.name(*g, f.child("group"));
    if (!out.extra.empty() && !out.group.empty())
        reader.fail(node, util::backquoted(path) + " gives both an extra and a group");
    if (out.package.empty()) reader.fail(node, util::backquoted(path) + " lacks `package`");
    return out;
}

UvRequirement read_requirement(UvLockReader& reader, const toml::node& node,
                               const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"name", "extras", "groups", "marker", "specifier", "index", "conflict", "git", "url",
             "path", "directory", "editable", "virtual", "subdirectory"});
    UvRequirement r;
    r.where = reader.where(node);
    r.name = reader.name(f.required("name"), f.child("name"));
    if (const auto* e = f.optional("extras")) r.extras = reader.names(*e, f.child("extras"));
    if (const auto* g = f.optional("groups")) r.groups = reader.names(*g, f.child("groups"));
    if (const auto* m = f.optional("marker")) {
        r.marker = reader.string(*m, f.child("marker"));
        reader.marker(*m, f.child("marker"));  // checked
    }
    auto text = [&](std::string_view key, std::string& into) {
        if (const auto* v = f.optional(key)) into = reader.string(*v, f.child(key));
    };
    text("specifier", r.specifier);
    text("index", r.index);
    text("git", r.git);
    text("url", r.url);
    text("path", r.path);
    text("directory", r.directory);
    text("editable", r.editable);
    text("virtual", r.virtual_);
    text("subdirectory", r.subdirectory);
    if (const auto* c = f.optional("conflict"))
        r.conflict = read_conflict_item(reader, *c, f.child("conflict"));
    return r;
}

std::vector<UvRequirement> read_requirements(UvLockReader& reader, const toml::node& node,
                                             const std::string& path) {
    std::vector<UvRequirement> out;
    const auto& list = reader.array(node, path);
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(read_requirement(reader, *list.get(i), item(path, i)));
    return out;
}

std::map<std::string, std::vector<UvRequirement>> read_requirement_groups(UvLockReader& reader,
                                                                          const toml::node& node,
                                                                          const std::string& path) {
    std::map<std::string, std::vector<UvRequirement>> out;
    for (auto&& [key, value] : reader.table(node, path)) {
        const std::string group = pep::canonicalize_name(key.str());
        if (!out.emplace(group,
                         read_requirements(reader, value, path + "." + std::string(key.str())))
                 .second) {
            reader.fail(reader.where(key), "group " + util::backquoted(key.str()) +
                                               " appears twice in " + util::backquoted(path));
        }
    }
    return out;
}

UvDependency read_dependency(UvLockReader& reader, const toml::node& node,
                             const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"name", "version", "source", "extra", "marker"});
    UvDependency d;
    d.where = reader.where(node);
    d.name = reader.name(f.required("name"), f.child("name"));
    if (const auto* v = f.optional("version")) d.version = reader.string(*v, f.child("version"));
    if (const auto* s = f.optional("source")) d.source = read_source(reader, *s, f.child("source"));
    if (const auto* e = f.optional("extra")) d.extras = reader.names(*e, f.child("extra"));
    if (const auto* m = f.optional("marker")) {
        d.marker_text = reader.string(*m, f.child("marker"));
        d.marker = reader.marker(*m, f.child("marker"));
    }
    return d;
}

std::vector<UvDependency> read_dependencies(UvLockReader& reader, const toml::node& node,
                                            const std::string& path) {
    std::vector<UvDependency> out;
    const auto& list = reader.array(node, path);
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(read_dependency(reader, *list.get(i), item(path, i)));
    return out;
}

std::map<std::string, std::vector<UvDependency>> read_dependency_map(UvLockReader& reader,
                                                                     const toml::node& node,
                                                                     const std::string& path) {
    std::map<std::string, std::vector<UvDependency>> out;
    for (auto&& [key, value] : reader.table(node, path)) {
        const std::string name = pep::canonicalize_name(key.str());
        if (!out.emplace(name,
                         read_dependencies(reader, value, path + "." + std::string(key.str())))
                 .second) {
            reader.fail(reader.where(key), util::backquoted(key.str()) + " appears twice in " +
                                               util::backquoted(path));
        }
    }
    return out;
}

UvPackageMetadata read_metadata(UvLockReader& reader, const toml::node& node,
                                const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"requires-dist", "requires-dev", "dependency-groups", "provides-extras"});
    UvPackageMetadata m;
    m.present = true;
    if (const auto* r = f.optional("requires-dist"))
        m.requires_dist = read_requirements(reader, *r, f.child("requires-dist"));
    for (std::string_view key : {"requires-dev", "dependency-groups"}) {
        if (const auto* r = f.optional(key))
            m.requires_dev = read_requirement_groups(reader, *r, f.child(key));
    }
    if (const auto* p = f.optional("provides-extras")) {
        m.provides_extras = reader.names(*p, f.child("provides-extras"));
        m.provides_extras_given = true;
    }
    return m;
}

UvPackage read_package(UvLockReader& reader, const toml::node& node, const std::string& path) {
    const UvLockFields f(reader, reader.table(node, path), path);
    f.check({"name", "version", "source", "resolution-markers", "sdist", "wheels", "dependencies",
             "optional-dependencies", "dev-dependencies", "dependency-groups", "metadata"});
    UvPackage p;
    p.where = reader.where(node);
    p.name = reader.name(f.required("name"), f.child("name"));
    if (const auto* v = f.optional("version")) {
        p.version = reader.string(*v, f.child("version"));
        if (p.version.empty()) reader.fail(*v, util::backquoted(f.child("version")) + " is empty");
    }
    p.source = read_source(reader, f.required("source"), f.child("source"));
    if (p.version.empty() && !p.source.local() && p.source.kind != UvSource::Kind::git &&
        p.source.kind != UvSource::Kind::url) {
        reader.fail(node,
                    "package " + util::backquoted(p.name) + " from a registry has no `version`");
    }
    if (const auto* m = f.optional("resolution-markers")) {
        p.resolution_markers = reader.strings(*m, f.child("resolution-markers"));
        const auto& list = reader.array(*m, f.child("resolution-markers"));
        for (std::size_t i = 0; i < list.size(); ++i)
            reader.marker(*list.get(i), item(f.child("resolution-markers"), i));
    }
    if (const auto* s = f.optional("sdist"))
        p.sdist = read_file_entry(reader, *s, f.child("sdist"), false);
    if (const auto* w = f.optional("wheels")) {
        const auto& list = reader.array(*w, f.child("wheels"));
        p.wheels.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i)
            p.wheels.push_back(
                read_file_entry(reader, *list.get(i), item(f.child("wheels"), i), true));
    }
    if (const auto* d = f.optional("dependencies"))
        p.dependencies = read_dependencies(reader, *d, f.child("dependencies"));
    if (const auto* d = f.optional("optional-dependencies"))
        p.optional_dependencies = read_dependency_map(reader, *d, f.child("optional-dependencies"));
    for (std::string_view key : {"dev-dependencies", "dependency-groups"}) {
        if (const auto* d = f.optional(key))
            p.dependency_groups = read_dependency_map(reader, *d, f.child(key));
    }
    if (const auto* m = f.optional("metadata"))
        p.metadata = read_metadata(reader, *m, f.child("metadata"));
    return p;
}

void read_manifest(UvLockReader& reader, const toml::node& node, UvManifest& manifest) {
    const UvLockFields f(reader, reader.table(node, "manifest"), "manifest");
    f.check({"members", "requirements", "dependency-groups", "constraints", "overrides",
             "build-constraints", "excludes", "dependency-metadata"});
    if (const auto* m = f.optional("members"))
        manifest.members = reader.names(*m, "manifest.members");
    if (const auto* r = f.optional("requirements"))
        manifest.requirements = read_requirements(reader, *r, "manifest.requirements");
    if (const auto* g = f.optional("dependency-groups"))
        manifest.dependency_groups =
            read_requirement_groups(reader, *g, "manifest.dependency-groups");
    if (const auto* c = f.optional("constraints"))
        manifest.constraints = read_requirements(reader, *c, "manifest.constraints");
    if (const auto* o = f.optional("overrides"))
        manifest.overrides = read_requirements(reader, *o, "manifest.overrides");
    if (const auto* b = f.optional("build-constraints"))
        manifest.build_constraints = read_requirements(reader, *b, "manifest.build-constraints");
    if (const auto* e = f.optional("excludes"))
        manifest.excludes = reader.names(*e, "manifest.excludes");
    if (const auto* d = f.optional("dependency-metadata")) {
        const auto& list = reader.array(*d, "manifest.dependency-metadata");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string path = item("manifest.dependency-metadata", i);
            const UvLockFields m(reader, reader.table(*list.get(i), path), path);
            m.check({"name", "version", "requires-dist", "requires-python", "provides-extras"});
            UvDependencyMetadata entry;
            entry.name = reader.name(m.required("name"), m.child("name"));
            if (const auto* v = m.optional("version"))
                entry.version = reader.string(*v, m.child("version"));
            if (const auto* r = m.optional("requires-dist"))
                entry.requires_dist = reader.strings(*r, m.child("requires-dist"));
            if (const auto* r = m.optional("requires-python"))
                entry.requires_python = reader.string(*r, m.child("requires-python"));
            if (const auto* p = m.optional("provides-extras"))
                entry.provides_extras = reader.names(*p, m.child("provides-extras"));
            manifest.dependency_metadata.push_back(std::move(entry));
        }
    }
}

void read_options(UvLockReader& reader, const toml::node& node) {
    const UvLockFields f(reader, reader.table(node, "options"), "options");
    // How uv resolved: it decides nothing about what a frozen install takes.
    f.check({"resolution-mode", "prerelease-mode", "prerelease-package", "fork-strategy",
             "exclude-newer", "exclude-newer-span", "exclude-newer-package"});
}

bool same_location(std::string_view a, std::string_view b) {
    while (!a.empty() && a.back() == '/')
        a.remove_suffix(1);
    while (!b.empty() && b.back() == '/')
        b.remove_suffix(1);
    return a == b;
}

bool same_source(const UvSource& a, const UvSource& b) {
    return a.kind == b.kind && same_location(a.location, b.location) &&
           a.subdirectory == b.subdirectory;
}

// Every edge gets the package it means: the only one of its name, else the one of its version
// and source (uv writes them where the name alone is ambiguous).
void link_dependencies(const UvLockReader& reader, UvLock& lock) {
    std::unordered_map<std::string, std::vector<std::size_t>> by_name;
    for (std::size_t i = 0; i < lock.packages.size(); ++i)
        by_name[lock.packages[i].name].push_back(i);
    auto link = [&](const UvPackage& from, UvDependency& d) {
        auto found = by_name.find(d.name);
        if (found == by_name.end()) {
            reader.fail(d.where,
                        "package " + util::backquoted(from.label()) + " depends on " +
                            util::backquoted(d.name) + ", which is not a package of the lock",
                        "regenerate the lock with `uv lock`");
        }
        std::vector<std::size_t> matches;
        for (auto i : found->second) {
            const auto& p = lock.packages[i];
            if (!d.version.empty() && p.version != d.version) continue;
            if (d.source && !same_source(*d.source, p.source)) continue;
            matches.push_back(i);
        }
        if (matches.size() != 1) {
            std::string what = d.name + (d.version.empty() ? "" : " " + d.version) +
                               (d.source ? " from " + util::redact_url(d.source->location) : "");
            reader.fail(d.where,
                        "package " + util::backquoted(from.label()) + " depends on " +
                            util::backquoted(what) + ", which names " +
                            (matches.empty() ? "no package" : "several packages") + " of the lock",
                        "regenerate the lock with `uv lock`");
        }
        d.package = matches.front();
    };
    for (auto& p : lock.packages) {
        for (auto& d : p.dependencies)
            link(p, d);
        for (auto& [extra, list] : p.optional_dependencies)
            for (auto& d : list)
                link(p, d);
        for (auto& [group, list] : p.dependency_groups)
            for (auto& d : list)
                link(p, d);
    }
}

UvLock read_lock(UvLockReader& reader, const toml::table& root) {
    UvLock lock;
    lock.file = reader.file();
    const UvLockFields top(reader, root, "");
    // The version first: a newer format may hold keys this reader has never heard of.
    const auto& version_node = top.required("version");
    lock.version = reader.integer(version_node, "version");
    if (lock.version != uv_lock_major_version) {
        reader.fail(version_node,
                    "uv.lock version " + std::to_string(lock.version) +
                        (lock.version > uv_lock_major_version ? " is newer than" : " is not") +
                        " the version this aitk-env reads (" +
                        std::to_string(uv_lock_major_version) + ")",
                    newer_uv_hint);
    }
    top.check({"version", "revision", "requires-python", "resolution-markers", "supported-markers",
               "required-markers", "conflicts", "options", "manifest", "package", "distribution"});
    if (const auto* r = top.optional("revision")) lock.revision = reader.integer(*r, "revision");
    lock.requires_python = reader.string(top.required("requires-python"), "requires-python");
    if (const auto* m = top.optional("resolution-markers")) {
        lock.resolution_markers = reader.strings(*m, "resolution-markers");
        const auto& list = reader.array(*m, "resolution-markers");
        for (std::size_t i = 0; i < list.size(); ++i)
            reader.marker(*list.get(i), item("resolution-markers", i));
    }
    if (const auto* m = top.optional("supported-markers")) {
        const auto& list = reader.array(*m, "supported-markers");
        for (std::size_t i = 0; i < list.size(); ++i) {
            lock.supported_marker_texts.push_back(
                reader.string(*list.get(i), item("supported-markers", i)));
            lock.supported_markers.push_back(
                reader.marker(*list.get(i), item("supported-markers", i)));
        }
    }
    if (const auto* m = top.optional("required-markers")) {
        lock.required_markers = reader.strings(*m, "required-markers");
    }
    if (const auto* c = top.optional("conflicts")) {
        const auto& sets = reader.array(*c, "conflicts");
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const auto& set = reader.array(*sets.get(i), item("conflicts", i));
            std::vector<UvConflictItem> items;
            for (std::size_t j = 0; j < set.size(); ++j)
                items.push_back(
                    *read_conflict_item(reader, *set.get(j), item(item("conflicts", i), j)));
            lock.conflicts.push_back(std::move(items));
        }
    }
    if (const auto* o = top.optional("options")) read_options(reader, *o);
    if (const auto* m = top.optional("manifest")) read_manifest(reader, *m, lock.manifest);
    const toml::node* packages = top.optional("package");
    if (packages == nullptr) packages = top.optional("distribution");
    if (packages != nullptr) {
        const auto& list = reader.array(*packages, "package");
        lock.packages.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i)
            lock.packages.push_back(read_package(reader, *list.get(i), item("package", i)));
    }
    // (name, version, source) identifies a package.
    std::set<std::tuple<std::string, std::string, std::string, std::string>> ids;
    for (const auto& p : lock.packages) {
        if (!ids.emplace(p.name, p.version, std::string(to_string(p.source.kind)),
                         p.source.location)
                 .second) {
            reader.fail(p.where,
                        "package " + util::backquoted(p.label()) + " from " +
                            util::redact_url(p.source.location) + " appears twice",
                        "regenerate the lock with `uv lock`");
        }
    }
    link_dependencies(reader, lock);
    return lock;
}

}  // namespace

std::string_view to_string(UvSource::Kind kind) noexcept {
    switch (kind) {
        case UvSource::Kind::registry:
            return "registry";
        case UvSource::Kind::git:
            return "git";
        case UvSource::Kind::url:
            return "url";
        case UvSource::Kind::path:
            return "path";
        case UvSource::Kind::directory:
            return "directory";
        case UvSource::Kind::editable:
            return "editable";
        case UvSource::Kind::virtual_:
            return "virtual";
    }
    return "registry";
}

util::Expected<UvGitUrl, std::string> parse_uv_git_url(std::string_view text) {
    UvGitUrl out;
    const auto hash = text.find('#');
    if (hash == std::string_view::npos) {
        return util::Unexpected<std::string>("git source " +
                                             util::backquoted(util::redact_url(text)) +
                                             " names no commit (uv writes `#<commit>`)");
    }
    out.commit = util::to_lower(text.substr(hash + 1));
    if (!util::is_hex(out.commit) || (out.commit.size() != 40 && out.commit.size() != 64)) {
        return util::Unexpected<std::string>(
            "git source " + util::backquoted(util::redact_url(text)) + " ends in " +
            util::backquoted(out.commit) + ", which is not a full commit");
    }
    std::string_view url = text.substr(0, hash);
    const auto question = url.find('?');
    out.repository = std::string(url.substr(0, question));
    if (question != std::string_view::npos) {
        for (auto pair : util::split(url.substr(question + 1), '&')) {
            const auto eq = pair.find('=');
            const std::string_view key = pair.substr(0, eq);
            const std::string value = util::percent_decode(
                eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
            if (key == "rev" || key == "tag" || key == "branch") {
                out.reference = value;
            } else if (key == "subdirectory") {
                out.subdirectory = value;
            } else if (key != "lfs") {
                return util::Unexpected<std::string>(
                    "git source " + util::backquoted(util::redact_url(text)) +
                    " has the unknown query key " + util::backquoted(key));
            }
        }
    }
    if (out.repository.empty())
        return util::Unexpected<std::string>(
            "git source " + util::backquoted(util::redact_url(text)) + " names no repository");
    return out;
}

std::string uv_conflict_extra(const UvConflictItem& item) {
    const std::string length = std::to_string(item.package.size());
    if (!item.extra.empty()) return "extra-" + length + "-" + item.package + "-" + item.extra;
    if (!item.group.empty()) return "group-" + length + "-" + item.package + "-" + item.group;
    return "project-" + length + "-" + item.package;
}

std::string UvPackage::label() const {
    return version.empty() ? name : name + " " + version;
}

std::vector<std::size_t> UvLock::find(std::string_view name) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < packages.size(); ++i)
        if (packages[i].name == name) out.push_back(i);
    return out;
}

std::vector<std::size_t> UvLock::roots() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < packages.size(); ++i) {
        const auto& s = packages[i].source;
        if ((s.kind == UvSource::Kind::editable || s.kind == UvSource::Kind::virtual_ ||
             s.kind == UvSource::Kind::directory) &&
            same_location(s.location, ".")) {
            out.push_back(i);
        }
    }
    if (!out.empty()) return out;
    for (const auto& member : manifest.members) {
        for (auto i : find(member)) {
            if (packages[i].source.local()) out.push_back(i);
        }
    }
    return out;
}

util::Loaded<UvLock> parse_uv_lock(std::string_view text, std::string_view file) {
    UvLockReader reader(file);
    toml::table document;
    try {
        document = toml::parse(text, file);
    } catch (const toml::parse_error& e) {
        const auto& begin = e.source().begin;
        return util::input_problem({std::string(file), begin.line, begin.column},
                                   "invalid TOML: " + std::string(e.description()),
                                   "uv.lock is written by `uv lock`; regenerate it");
    }
    try {
        return read_lock(reader, document);
    } catch (UvLockFailure& failure) {
        return util::Unexpected(std::move(failure.problem));
    }
}

}  // namespace aitk::lock
