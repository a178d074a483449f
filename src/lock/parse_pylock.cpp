// The strict reader of PEP 751 lock files. The keys and their types are the packaging
// specification's ("pylock.toml Specification"); every problem names file:line:column.
#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "aitk/lock/pylock.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

// Thrown inside this file only, caught by parse_pylock: the reader stops at the first problem.
struct PylockFailure {
    util::InputProblem problem;
};

const std::string spec_hint =
    "see the pylock.toml specification (https://packaging.python.org/en/latest/specifications/"
    "pylock-toml/)";

class PylockReader {
  public:
    PylockReader(std::string_view file, bool unknown_keys_are_errors,
                 std::vector<util::InputProblem>& warnings)
        : file_(file), strict_(unknown_keys_are_errors), warnings_(warnings) {}

    util::SourceLocation where(const toml::node& node) const {
        const auto& begin = node.source().begin;
        return {file_, static_cast<std::size_t>(begin.line),
                static_cast<std::size_t>(begin.column)};
    }
    util::SourceLocation where(const toml::key& key) const {
        const auto& begin = key.source().begin;
        return {file_, static_cast<std::size_t>(begin.line),
                static_cast<std::size_t>(begin.column)};
    }

    [[noreturn]] void fail(util::SourceLocation at, std::string message,
                           std::string hint = {}) const {
        throw PylockFailure{util::InputProblem{std::move(at), std::move(message),
                                               hint.empty() ? spec_hint : std::move(hint)}};
    }
    [[noreturn]] void fail(const toml::node& at, std::string message, std::string hint = {}) const {
        fail(where(at), std::move(message), std::move(hint));
    }

    // Keys the specification does not define: an error in 1.0, a warning in a newer minor.
    void check_keys(const toml::table& table, const std::string& path,
                    std::initializer_list<std::string_view> known) const {
        for (const auto& [key, value] : table) {
            if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
            const std::string name =
                path.empty() ? std::string(key.str()) : path + "." + std::string(key.str());
            std::string message = "unknown key " + util::backquoted(name);
            std::string hint = "the keys here are " + [&] {
                std::string list;
                for (std::string_view k : known)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                return list;
            }();
            if (strict_) fail(where(key), std::move(message), std::move(hint));
            warnings_.push_back(util::InputProblem{where(key),
                                                   message + " (ignored: written for a newer "
                                                             "lock-version 1.x)",
                                                   {}});
        }
    }

    void warn(const toml::node& at, std::string message) const {
        warnings_.push_back(util::InputProblem{where(at), std::move(message), {}});
    }

    const toml::table& table(const toml::node& node, const std::string& path) const {
        if (const auto* t = node.as_table()) return *t;
        fail(node, util::backquoted(path) + " must be a table");
    }
    const toml::array& array(const toml::node& node, const std::string& path) const {
        if (const auto* a = node.as_array()) return *a;
        fail(node, util::backquoted(path) + " must be an array");
    }
    std::string string(const toml::node& node, const std::string& path) const {
        if (const auto* s = node.as_string()) return s->get();
        fail(node, util::backquoted(path) + " must be a string");
    }
    std::string non_empty(const toml::node& node, const std::string& path) const {
        std::string text = string(node, path);
        if (text.empty()) fail(node, util::backquoted(path) + " must not be empty");
        return text;
    }
    bool boolean(const toml::node& node, const std::string& path) const {
        if (const auto* b = node.as_boolean()) return b->get();
        fail(node, util::backquoted(path) + " must be true or false");
    }
    std::uint64_t size(const toml::node& node, const std::string& path) const {
        const auto* i = node.as_integer();
        if (i == nullptr || i->get() < 0)
            fail(node, util::backquoted(path) + " must be a whole number");
        return static_cast<std::uint64_t>(i->get());
    }
    std::vector<std::string> strings(const toml::node& node, const std::string& path) const {
        std::vector<std::string> out;
        const auto& list = array(node, path);
        for (std::size_t i = 0; i < list.size(); ++i) {
            out.push_back(string(*list.get(i), path + "[" + std::to_string(i) + "]"));
        }
        return out;
    }
    // A list of extra or group names: normalised, each once.
    std::vector<std::string> names(const toml::node& node, const std::string& path) const {
        std::vector<std::string> out;
        const auto& list = array(node, path);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string item = path + "[" + std::to_string(i) + "]";
            const std::string name = pep::canonicalize_name(non_empty(*list.get(i), item));
            if (std::find(out.begin(), out.end(), name) != out.end()) {
                fail(*list.get(i), util::backquoted(item) + " repeats " + util::backquoted(name));
            }
            out.push_back(name);
        }
        return out;
    }
    pep::Marker marker(const toml::node& node, const std::string& path) const {
        const std::string text = non_empty(node, path);
        auto parsed = pep::Marker::parse(text);
        if (!parsed) {
            fail(node,
                 util::backquoted(path) + " is not a valid marker: " + parsed.error().describe(),
                 "write a PEP 508 marker; PEP 751 adds 'NAME' in extras and 'NAME' in "
                 "dependency_groups");
        }
        return std::move(*parsed);
    }
    pep::SpecifierSet specifier(const toml::node& node, const std::string& path) const {
        const std::string text = string(node, path);
        auto parsed = pep::SpecifierSet::parse(text);
        if (!parsed) {
            fail(node, util::backquoted(path) +
                           " is not a valid version specifier: " + parsed.error().describe());
        }
        return std::move(*parsed);
    }

    const std::string& file() const { return file_; }

  private:
    std::string file_;
    bool strict_;
    std::vector<util::InputProblem>& warnings_;
};

// "1.0" → {1, 0}; nothing for text that is not MAJOR.MINOR.
std::optional<std::pair<int, int>> parse_lock_version(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
    auto number = [](std::string_view part) -> std::optional<int> {
        if (part.empty() || part.size() > 6) return std::nullopt;
        int value = 0;
        for (char c : part) {
            if (!util::is_ascii_digit(c)) return std::nullopt;
            value = value * 10 + (c - '0');
        }
        return value;
    };
    auto major = number(text.substr(0, dot));
    auto minor = number(text.substr(dot + 1));
    if (!major || !minor) return std::nullopt;
    return std::make_pair(*major, *minor);
}

std::string url_last_segment(std::string_view text) {
    text = text.substr(0, text.find_first_of("?#"));
    const auto slash = text.find_last_of("/\\");
    return std::string(slash == std::string_view::npos ? text : text.substr(slash + 1));
}

// A wheel, sdist or archive table: `url` and/or `path`, `size`, `upload-time`, `hashes` (with a
// sha256), and `subdirectory` for an archive.
PylockFile read_file(const PylockReader& reader, const toml::node& node, const std::string& path,
                     const std::string& package, bool archive) {
    const auto& t = reader.table(node, path);
    if (archive) {
        reader.check_keys(t, path,
                          {"url", "path", "size", "upload-time", "hashes", "subdirectory"});
    } else {
        reader.check_keys(t, path, {"name", "url", "path", "size", "upload-time", "hashes"});
    }
    PylockFile file;
    file.where = reader.where(node);
    if (const auto* url = t.get("url")) file.url = reader.non_empty(*url, path + ".url");
    if (const auto* p = t.get("path")) file.path = reader.non_empty(*p, path + ".path");
    if (file.url.empty() && file.path.empty()) {
        reader.fail(node,
                    util::backquoted(path) + " of " + package + " has neither `url` nor `path`",
                    "give the file's URL, or its path relative to the lock file");
    }
    if (const auto* name = t.get("name")) {
        file.name = reader.non_empty(*name, path + ".name");
    } else {
        file.name = file.path.empty() ? util::percent_decode(url_last_segment(file.url))
                                      : url_last_segment(file.path);
    }
    if (const auto* size = t.get("size")) file.size = reader.size(*size, path + ".size");
    if (const auto* time = t.get("upload-time"); time != nullptr && !time->is_date_time()) {
        reader.fail(*time,
                    util::backquoted(path + ".upload-time") + " must be a TOML date-time (UTC)");
    }
    if (const auto* sub = t.get("subdirectory")) {
        file.subdirectory = reader.non_empty(*sub, path + ".subdirectory");
    }
    const auto* hashes_node = t.get("hashes");
    if (hashes_node == nullptr) {
        reader.fail(
            node, package + ": " + util::backquoted(path) + " (" + file.name + ") has no `hashes`",
            "every file of a pylock.toml needs its hashes (the specification requires "
            "them); lock again with a tool that records them");
    }
    const auto& hashes = reader.table(*hashes_node, path + ".hashes");
    if (hashes.empty()) {
        reader.fail(*hashes_node, package + ": " + util::backquoted(path + ".hashes") + " (" +
                                      file.name +
                                      ") is empty; the specification requires at least one hash");
    }
    for (const auto& [algorithm, value] : hashes) {
        const std::string key = path + ".hashes." + std::string(algorithm.str());
        const std::string digest = reader.non_empty(value, key);
        if (util::to_lower(algorithm.str()) == "sha256") {
            if (!util::is_sha256_hex(util::to_lower(digest))) {
                reader.fail(value, util::backquoted(key) + " must be 64 hex digits, got " +
                                       util::backquoted(digest));
            }
            file.sha256 = util::to_lower(digest);
        }
    }
    if (file.sha256.empty()) {
        reader.fail(*hashes_node,
                    package + ": " + util::backquoted(path + ".hashes") + " (" + file.name +
                        ") has no sha256",
                    "aitk-env checks every file by its sha256: lock again with a tool that "
                    "records it (the specification recommends sha256)");
    }
    return file;
}

PylockVcs read_vcs(const PylockReader& reader, const toml::node& node, const std::string& package) {
    const auto& t = reader.table(node, "vcs");
    reader.check_keys(t, "packages.vcs",
                      {"type", "url", "path", "requested-revision", "commit-id", "subdirectory"});
    PylockVcs vcs;
    vcs.where = reader.where(node);
    const auto required = [&](const char* key) -> const toml::node& {
        if (const auto* found = t.get(key)) return *found;
        reader.fail(node, package + ": `vcs` has no `" + std::string(key) + "`");
    };
    vcs.type = reader.non_empty(required("type"), "vcs.type");
    if (vcs.type != "git" && vcs.type != "hg" && vcs.type != "svn" && vcs.type != "bzr") {
        reader.fail(*t.get("type"), package + ": `vcs.type` " + util::backquoted(vcs.type) +
                                        " is not a registered VCS (git, hg, svn, bzr)");
    }
    if (const auto* url = t.get("url")) vcs.url = reader.non_empty(*url, "vcs.url");
    if (const auto* p = t.get("path")) vcs.path = reader.non_empty(*p, "vcs.path");
    if (vcs.url.empty() && vcs.path.empty()) {
        reader.fail(node, package + ": `vcs` has neither `url` nor `path`");
    }
    if (const auto* r = t.get("requested-revision")) {
        vcs.requested_revision = reader.non_empty(*r, "vcs.requested-revision");
    }
    vcs.commit_id = reader.non_empty(required("commit-id"), "vcs.commit-id");
    if (const auto* sub = t.get("subdirectory")) {
        vcs.subdirectory = reader.non_empty(*sub, "vcs.subdirectory");
    }
    return vcs;
}

PylockDirectory read_directory(const PylockReader& reader, const toml::node& node,
                               const std::string& package) {
    const auto& t = reader.table(node, "directory");
    reader.check_keys(t, "packages.directory", {"path", "editable", "subdirectory"});
    PylockDirectory directory;
    directory.where = reader.where(node);
    const auto* p = t.get("path");
    if (p == nullptr) reader.fail(node, package + ": `directory` has no `path`");
    directory.path = reader.non_empty(*p, "directory.path");
    if (const auto* e = t.get("editable"))
        directory.editable = reader.boolean(*e, "directory.editable");
    if (const auto* sub = t.get("subdirectory")) {
        directory.subdirectory = reader.non_empty(*sub, "directory.subdirectory");
    }
    return directory;
}

PylockPackage read_package(const PylockReader& reader, const toml::node& node, std::size_t index) {
    const std::string path = "packages[" + std::to_string(index) + "]";
    const auto& t = reader.table(node, path);
    reader.check_keys(
        t, "packages",
        {"name", "version", "marker", "requires-python", "dependencies", "index", "vcs",
         "directory", "archive", "sdist", "wheels", "attestation-identities", "tool"});
    PylockPackage package;
    package.where = reader.where(node);
    const auto* name = t.get("name");
    if (name == nullptr) reader.fail(node, util::backquoted(path) + " has no `name`");
    const std::string written = reader.non_empty(*name, path + ".name");
    if (!pep::is_valid_name(written)) {
        reader.fail(*name, util::backquoted(path + ".name") + " " + util::backquoted(written) +
                               " is not a valid project name");
    }
    package.name = pep::canonicalize_name(written);
    const std::string label = "package " + package.name;
    if (const auto* v = t.get("version")) {
        package.version = reader.non_empty(*v, path + ".version");
        if (!pep::Version::parse(package.version)) {
            reader.fail(*v, label + ": `version` " + util::backquoted(package.version) +
                                " is not a valid PEP 440 version");
        }
    }
    if (const auto* m = t.get("marker")) {
        package.marker = reader.marker(*m, path + ".marker");
        package.marker_where = reader.where(*m);
    }
    if (const auto* r = t.get("requires-python")) {
        package.requires_python = reader.specifier(*r, path + ".requires-python");
        package.requires_python_text = reader.string(*r, path + ".requires-python");
    }
    if (const auto* deps = t.get("dependencies")) {
        package.has_dependencies = true;
        const auto& list = reader.array(*deps, path + ".dependencies");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string item = path + ".dependencies[" + std::to_string(i) + "]";
            // Any keys that tell the entries apart may be here; only the name is used.
            const auto& entry = reader.table(*list.get(i), item);
            const auto* dep_name = entry.get("name");
            if (dep_name == nullptr)
                reader.fail(*list.get(i), util::backquoted(item) + " has no `name`");
            package.dependencies.push_back(
                pep::canonicalize_name(reader.non_empty(*dep_name, item + ".name")));
        }
    }
    if (const auto* i = t.get("index")) package.index = reader.non_empty(*i, path + ".index");
    if (const auto* vcs = t.get("vcs")) package.vcs = read_vcs(reader, *vcs, label);
    if (const auto* dir = t.get("directory")) {
        package.directory = read_directory(reader, *dir, label);
    }
    if (const auto* archive = t.get("archive")) {
        package.archive = read_file(reader, *archive, "archive", label, true);
    }
    if (const auto* sdist = t.get("sdist")) {
        package.sdist = read_file(reader, *sdist, "sdist", label, false);
    }
    if (const auto* wheels = t.get("wheels")) {
        const auto& list = reader.array(*wheels, path + ".wheels");
        for (std::size_t i = 0; i < list.size(); ++i) {
            package.wheels.push_back(
                read_file(reader, *list.get(i), "wheels[" + std::to_string(i) + "]", label, false));
        }
        if (list.empty()) reader.fail(*wheels, label + ": `wheels` is empty");
    }
    if (const auto* attestations = t.get("attestation-identities")) {
        (void)reader.array(*attestations, path + ".attestation-identities");
    }
    if (const auto* tool = t.get("tool")) (void)reader.table(*tool, path + ".tool");

    // vcs, directory and archive exclude every other source; sdist and wheels go together.
    std::vector<std::string> kinds;
    for (const char* key : {"vcs", "directory", "archive", "sdist", "wheels"}) {
        if (t.get(key) != nullptr) kinds.emplace_back(key);
    }
    const bool tree_or_archive = package.vcs || package.directory || package.archive;
    if (kinds.empty()) {
        reader.fail(node, label +
                              " has no source: give one of `wheels` (and/or `sdist`), "
                              "`vcs`, `directory` or `archive`");
    }
    if (tree_or_archive && kinds.size() > 1) {
        reader.fail(node, label + " has conflicting sources: " + util::join(kinds, ", ") +
                              " (vcs, directory and archive exclude every other source)");
    }
    if ((package.vcs || package.directory) && !package.version.empty()) {
        // The specification forbids it (the tree may build another version); the version the
        // build makes is what gets installed.
        reader.warn(*t.get("version"),
                    label + ": the `version` of a source tree (" + kinds.front() + ") is ignored");
        package.version.clear();
    }
    return package;
}

Pylock read_pylock(const toml::table& root, std::string_view file,
                   std::vector<util::InputProblem>& warnings) {
    Pylock lock;
    lock.file = std::string(file);
    // lock-version first: it decides how strictly the rest is read.
    const auto* version_node = root.get("lock-version");
    if (version_node == nullptr) {
        throw PylockFailure{util::InputProblem{util::SourceLocation{lock.file, 1, 1},
                                               "no `lock-version`: not a pylock.toml", spec_hint}};
    }
    const PylockReader loose(file, true, warnings);
    lock.lock_version = loose.non_empty(*version_node, "lock-version");
    const auto version = parse_lock_version(lock.lock_version);
    if (!version) {
        loose.fail(*version_node, "`lock-version` " + util::backquoted(lock.lock_version) +
                                      " is not MAJOR.MINOR (this file format is \"1.0\")");
    }
    if (version->first != pylock_major_version) {
        loose.fail(*version_node,
                   "`lock-version` " + util::backquoted(lock.lock_version) +
                       " is a format aitk-env does "
                       "not read (it reads lock-version " +
                       std::to_string(pylock_major_version) + ".x)",
                   "lock with a tool that writes lock-version 1.0, or use an aitk-env that "
                   "reads lock-version " +
                       std::to_string(version->first));
    }
    const PylockReader reader(file, version->second == 0, warnings);
    reader.check_keys(root, "",
                      {"lock-version", "environments", "requires-python", "extras",
                       "dependency-groups", "default-groups", "created-by", "packages", "tool"});
    if (const auto* env = root.get("environments")) {
        lock.environments_where = reader.where(*env);
        const auto& list = reader.array(*env, "environments");
        for (std::size_t i = 0; i < list.size(); ++i) {
            lock.environments.push_back(
                reader.marker(*list.get(i), "environments[" + std::to_string(i) + "]"));
        }
    }
    if (const auto* r = root.get("requires-python")) {
        lock.requires_python = reader.specifier(*r, "requires-python");
        lock.requires_python_text = reader.string(*r, "requires-python");
    }
    if (const auto* e = root.get("extras")) lock.extras = reader.names(*e, "extras");
    if (const auto* g = root.get("dependency-groups")) {
        lock.dependency_groups = reader.names(*g, "dependency-groups");
    }
    if (const auto* d = root.get("default-groups")) {
        lock.default_groups = reader.names(*d, "default-groups");
    }
    const auto* created_by = root.get("created-by");
    if (created_by == nullptr) {
        reader.fail(util::SourceLocation{lock.file, 1, 1}, "no `created-by` (a required key)");
    }
    lock.created_by = reader.non_empty(*created_by, "created-by");
    if (const auto* tool = root.get("tool")) (void)reader.table(*tool, "tool");
    const auto* packages = root.get("packages");
    if (packages == nullptr) {
        reader.fail(util::SourceLocation{lock.file, 1, 1}, "no `[[packages]]` (a required key)");
    }
    const auto& list = reader.array(*packages, "packages");
    for (std::size_t i = 0; i < list.size(); ++i) {
        lock.packages.push_back(read_package(reader, *list.get(i), i));
    }
    return lock;
}

}  // namespace

bool is_pylock_file_name(std::string_view filename) noexcept {
    constexpr std::string_view prefix = "pylock.";
    constexpr std::string_view suffix = "toml";
    if (!filename.starts_with(prefix) || !filename.ends_with(suffix)) return false;
    std::string_view middle = filename.substr(prefix.size());
    middle.remove_suffix(suffix.size());
    if (middle.empty()) return true;  // "pylock.toml"
    // "NAME." with no other dot.
    return middle.size() >= 2 && middle.back() == '.' &&
           middle.substr(0, middle.size() - 1).find('.') == std::string_view::npos;
}

util::Loaded<Pylock> parse_pylock(std::string_view toml_text, std::string_view file) {
    toml::table document;
    try {
        document = toml::parse(toml_text, file);
    } catch (const toml::parse_error& e) {
        const auto& begin = e.source().begin;
        return util::input_problem(
            util::SourceLocation{std::string(file), static_cast<std::size_t>(begin.line),
                                 static_cast<std::size_t>(begin.column)},
            "not valid TOML: " + std::string(e.description()), "fix the syntax (https://toml.io)");
    }
    std::vector<util::InputProblem> warnings;
    try {
        Pylock lock = read_pylock(document, file, warnings);
        lock.warnings = std::move(warnings);
        return lock;
    } catch (PylockFailure& failure) {
        return util::Unexpected(std::move(failure.problem));
    }
}

}  // namespace aitk::lock
