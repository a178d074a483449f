#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/strings.hpp"
#include "lock_text.hpp"
#include "yaml_tree.hpp"

namespace aitk::lock {
namespace {

using detail::YamlNode;

const std::string relock_hint =
    "the environment.yml part was edited by hand: re-run `aitk-env lock` (aitk-env installs "
    "what `x-aitk-env` says)";

// Thrown inside this file only, caught by parse_lockfile: the reader stops at the first problem.
struct LockfileFailure {
    util::InputProblem problem;
};

std::string child_path(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string item_path(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::string in_path(const std::string& path) {
    return path.empty() ? "at the top level" : "in " + util::backquoted(path);
}

// "foo-bar" from "Foo_Bar" (PEP 503), to tell the user what to write.
std::string normalised_name(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (c == '-' || c == '_' || c == '.') {
            if (!out.empty() && out.back() != '-') out += '-';
        } else {
            out += util::to_ascii_lower(c);
        }
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out;
}

class LockfileReader {
  public:
    explicit LockfileReader(std::string_view file) : file_(file) {}

    [[noreturn]] void fail(const YamlNode& at, std::string message, std::string hint = {}) const {
        throw LockfileFailure{util::InputProblem{util::SourceLocation{file_, at.line, at.column},
                                                 std::move(message), std::move(hint)}};
    }

    std::string string(const YamlNode& node, const std::string& path) const {
        if (!node.is_scalar()) fail(node, util::backquoted(path) + " must be a string");
        return node.text;
    }
    std::string non_empty_string(const YamlNode& node, const std::string& path) const {
        std::string text = string(node, path);
        if (text.empty()) fail(node, util::backquoted(path) + " must not be empty");
        return text;
    }
    bool boolean(const YamlNode& node, const std::string& path) const {
        if (node.is_scalar() && node.plain && node.text == "true") return true;
        if (node.is_scalar() && node.plain && node.text == "false") return false;
        fail(node, util::backquoted(path) + " must be true or false");
    }
    std::uint64_t whole_number(const YamlNode& node, const std::string& path) const {
        const auto bad = [&] { fail(node, util::backquoted(path) + " must be a whole number"); };
        if (!node.is_scalar() || !node.plain || node.text.empty()) bad();
        std::uint64_t value = 0;
        for (const char c : node.text) {
            if (!util::is_ascii_digit(c)) bad();
            const auto digit = static_cast<std::uint64_t>(c - '0');
            if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
                fail(node, util::backquoted(path) + " is too large");
            }
            value = value * 10 + digit;
        }
        return value;
    }
    std::string sha256(const YamlNode& node, const std::string& path) const {
        std::string text = string(node, path);
        if (!util::is_sha256_hex(text)) {
            fail(node, util::backquoted(path) + " must be 64 lower-case hex digits, got " +
                           util::backquoted(text));
        }
        return text;
    }
    // A name that becomes a path component where the lock is used (a target id, a file name):
    // util::path_name_problem's rule.
    std::string path_name(const YamlNode& node, const std::string& path) const {
        std::string text = non_empty_string(node, path);
        if (auto problem = util::path_name_problem(text)) {
            fail(node,
                 util::backquoted(path) + " " + util::backquoted(text) +
                     " cannot name a file: " + *problem,
                 std::string(util::path_name_rule) + "; lock again with `aitk-env lock`");
        }
        return text;
    }
    const YamlNode& sequence(const YamlNode& node, const std::string& path) const {
        if (!node.is_sequence()) fail(node, util::backquoted(path) + " must be a list");
        return node;
    }

    // A list of distinct strings, sorted.
    std::vector<std::string> string_set(const YamlNode& node, const std::string& path) const {
        std::vector<std::string> out;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < sequence(node, path).items.size(); ++i) {
            const YamlNode& item = node.items[i];
            std::string text = non_empty_string(item, item_path(path, i));
            if (!seen.insert(text).second)
                fail(item, "duplicate " + util::backquoted(text) + " " + in_path(path));
            out.push_back(std::move(text));
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    std::map<std::string, std::string> string_map(const YamlNode& node, const std::string& path,
                                                  bool variables) const;

    const std::string& file() const noexcept { return file_; }

  private:
    std::string file_;
};

// The keys of one mapping: unknown and repeated keys are problems, found when check() runs.
class LockfileFields {
  public:
    LockfileFields(const LockfileReader& reader, const YamlNode& map, std::string path)
        : reader_(reader), map_(map), path_(std::move(path)) {
        if (!map.is_mapping()) {
            reader.fail(map, path_.empty() ? "expected a mapping at the top level"
                                           : util::backquoted(path_) + " must be a mapping");
        }
    }

    void check(std::initializer_list<std::string_view> allowed) const {
        std::set<std::string_view> seen;
        for (const auto& entry : map_.entries) {
            if (!entry.key.is_scalar()) {
                reader_.fail(entry.key, "a key that is not a string " + in_path(path_));
            }
            const std::string& key = entry.key.text;
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string names;
                for (const auto name : allowed) {
                    names += (names.empty() ? "" : ", ") + std::string(name);
                }
                reader_.fail(entry.key,
                             "unknown key " + util::backquoted(key) + " " + in_path(path_),
                             "the keys here are: " + names);
            }
            if (!seen.insert(key).second) {
                reader_.fail(entry.key,
                             "duplicate key " + util::backquoted(key) + " " + in_path(path_));
            }
        }
    }

    const YamlNode* optional(std::string_view key) const {
        for (const auto& entry : map_.entries) {
            if (entry.key.is_scalar() && entry.key.text == key) return &entry.value;
        }
        return nullptr;
    }
    const YamlNode& required(std::string_view key) const {
        const YamlNode* value = optional(key);
        if (value == nullptr)
            reader_.fail(map_, "missing " + util::backquoted(key) + " " + in_path(path_));
        return *value;
    }
    std::string path(std::string_view key) const { return child_path(path_, key); }

    std::string string(std::string_view key) const {
        return reader_.string(required(key), path(key));
    }
    std::string non_empty(std::string_view key) const {
        return reader_.non_empty_string(required(key), path(key));
    }
    std::string optional_string(std::string_view key) const {
        const YamlNode* value = optional(key);
        return value == nullptr ? std::string() : reader_.non_empty_string(*value, path(key));
    }

    const YamlNode& node() const noexcept { return map_; }

  private:
    const LockfileReader& reader_;
    const YamlNode& map_;
    std::string path_;
};

std::map<std::string, std::string> LockfileReader::string_map(const YamlNode& node,
                                                              const std::string& path,
                                                              bool variables) const {
    LockfileFields fields(*this, node, path);
    std::map<std::string, std::string> out;
    for (const auto& entry : node.entries) {
        if (!entry.key.is_scalar()) {
            fail(entry.key, "a key that is not a string " + in_path(path));
        }
        const std::string& key = entry.key.text;
        if (key.empty()) fail(entry.key, "an empty key " + in_path(path));
        if (variables && detail::reserved_variable(key)) {
            fail(entry.key,
                 util::backquoted(path) + " may not set " + util::backquoted(key) +
                     " (conda reserves it)",
                 "set search paths in the manifest's environment section instead");
        }
        std::string value = string(entry.value, child_path(path, key));
        if (!out.emplace(key, std::move(value)).second) {
            fail(entry.key, "duplicate key " + util::backquoted(key) + " " + in_path(path));
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// x-aitk-env
// ---------------------------------------------------------------------------------------------

int read_format(const LockfileReader& reader, const LockfileFields& ext) {
    const YamlNode& node = ext.required("format");
    const std::string path = ext.path("format");
    const std::uint64_t format = reader.whole_number(node, path);
    if (format > static_cast<std::uint64_t>(lock_format_version)) {
        reader.fail(node,
                    "lock format " + node.text +
                        " was written by a newer aitk-env (this one reads "
                        "format " +
                        std::to_string(lock_format_version) + ")",
                    "upgrade aitk-env, or re-lock the inputs with this one (`aitk-env lock`)");
    }
    if (format < 1) {
        reader.fail(node, "unknown lock format " + node.text + " (this aitk-env reads format " +
                              std::to_string(lock_format_version) + ")");
    }
    return static_cast<int>(format);
}

std::string read_input_hash(const LockfileReader& reader, const LockfileFields& ext) {
    std::string text = ext.string("input-hash");
    constexpr std::string_view prefix = "sha256:";
    if (text.rfind(prefix, 0) != 0 ||
        !util::is_sha256_hex(std::string_view(text).substr(prefix.size()))) {
        reader.fail(ext.required("input-hash"),
                    util::backquoted(ext.path("input-hash")) +
                        " must be `sha256:` and 64 lower-case hex digits, got " +
                        util::backquoted(text));
    }
    return text;
}

std::vector<LockedIndex> read_indexes(const LockfileReader& reader, const LockfileFields& ext) {
    std::vector<LockedIndex> out;
    const YamlNode* list = ext.optional("indexes");
    if (list == nullptr) return out;
    const std::string path = ext.path("indexes");
    reader.sequence(*list, path);
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        const LockfileFields f(reader, list->items[i], item_path(path, i));
        f.check({"name", "url", "kind"});
        LockedIndex index{f.non_empty("name"), f.non_empty("url")};
        const std::string kind = f.non_empty("kind");
        if (!names.insert(index.name).second) {
            reader.fail(f.required("name"), "duplicate index " + util::backquoted(index.name));
        }
        if (auto known = parse_index_kind(kind)) {
            index.kind = *known;
        } else {
            reader.fail(f.required("kind"),
                        util::backquoted(f.path("kind")) +
                            " must be simple, find-links or torch-backend, got " +
                            util::backquoted(kind));
        }
        out.push_back(std::move(index));
    }
    return out;
}

LockedFile read_wheel(const LockfileReader& reader, const YamlNode& node, const std::string& path) {
    const LockfileFields f(reader, node, path);
    f.check({"filename", "url", "sha256", "size"});
    LockedFile file;
    file.filename = reader.path_name(f.required("filename"), f.path("filename"));
    file.url = f.non_empty("url");
    file.sha256 = reader.sha256(f.required("sha256"), f.path("sha256"));
    if (const YamlNode* size = f.optional("size"))
        file.size = detail::known_size(reader.whole_number(*size, f.path("size")));
    return file;
}

LockedSource read_source(const LockfileReader& reader, const YamlNode& node,
                         const std::string& path) {
    const LockfileFields f(reader, node, path);
    f.check({"kind", "url", "commit", "sha256", "size", "subdirectory", "revision", "editable"});
    LockedSource source;
    const std::string kind = f.non_empty("kind");
    if (auto known = parse_source_kind(kind)) {
        source.kind = *known;
    } else {
        reader.fail(f.required("kind"), util::backquoted(f.path("kind")) +
                                            " must be vcs, sdist, url or directory, got " +
                                            util::backquoted(kind));
    }
    source.url = f.non_empty("url");
    source.commit = f.optional_string("commit");
    if (const YamlNode* sha = f.optional("sha256"))
        source.sha256 = reader.sha256(*sha, f.path("sha256"));
    if (const YamlNode* size = f.optional("size"))
        source.size = detail::known_size(reader.whole_number(*size, f.path("size")));
    source.subdirectory = f.optional_string("subdirectory");
    source.revision = f.optional_string("revision");
    if (const YamlNode* editable = f.optional("editable"))
        source.editable = reader.boolean(*editable, f.path("editable"));
    return source;
}

struct ReadPackage {
    LockedPackage package;
    const YamlNode* dependencies = nullptr;  // where to point at a dangling dependency
};

ReadPackage read_package(const LockfileReader& reader, const YamlNode& node,
                         const std::string& path, const std::set<std::string>& index_names) {
    const LockfileFields f(reader, node, path);
    f.check({"name", "version", "requested", "index", "extras", "dependencies", "wheel", "source"});
    ReadPackage read;
    LockedPackage& p = read.package;
    p.name = reader.path_name(f.required("name"), f.path("name"));
    if (normalised_name(p.name) != p.name) {
        reader.fail(f.required("name"),
                    "package name " + util::backquoted(p.name) + " is not normalised",
                    "write " + util::backquoted(normalised_name(p.name)));
    }
    p.version = f.optional_string("version");
    if (const YamlNode* r = f.optional("requested"))
        p.requested = reader.boolean(*r, f.path("requested"));
    if (const YamlNode* index = f.optional("index")) {
        p.index = reader.non_empty_string(*index, f.path("index"));
        if (index_names.count(p.index) == 0) {
            reader.fail(*index, util::backquoted(f.path("index")) + " names " +
                                    util::backquoted(p.index) +
                                    ", which is not in `x-aitk-env.indexes`");
        }
    }
    if (const YamlNode* extras = f.optional("extras"))
        p.extras = reader.string_set(*extras, f.path("extras"));
    if (const YamlNode* deps = f.optional("dependencies")) {
        p.dependencies = reader.string_set(*deps, f.path("dependencies"));
        read.dependencies = deps;
    }
    if (const YamlNode* wheel = f.optional("wheel"))
        p.wheel = read_wheel(reader, *wheel, f.path("wheel"));
    if (const YamlNode* source = f.optional("source"))
        p.source = read_source(reader, *source, f.path("source"));
    if (!p.wheel && !p.source) {
        reader.fail(node, "package " + util::backquoted(p.name) + " " + in_path(path) +
                              " has neither `wheel` nor `source`");
    }
    return read;
}

// "2.28": a version as the floor fields write it.
std::string os_version(const LockfileReader& reader, const YamlNode& node,
                       const std::string& path) {
    std::string text = reader.non_empty_string(node, path);
    if (!pep::parse_os_version(text)) {
        reader.fail(node, util::backquoted(path) + " must be MAJOR.MINOR such as 2.28, got " +
                              util::backquoted(text));
    }
    return text;
}

// `glibc:` of a Linux target, `macos:` of a macOS one: the cap and the floor as written (absent
// in locks older than them). Returns the node, for check_floor.
const YamlNode* read_floor(const LockfileReader& reader, const LockfileFields& f,
                           LockedTarget& target) {
    const YamlNode* found = nullptr;
    for (const std::string_view key : {"glibc", "macos"}) {
        const YamlNode* node = f.optional(key);
        if (node == nullptr) continue;
        if (floor_key(target.os) != key) {
            reader.fail(*node,
                        util::backquoted(f.path(key)) + " belongs to " +
                            (key == "glibc" ? "Linux" : "macOS") + " targets, not to " +
                            util::backquoted(target.id),
                        relock_hint);
        }
        found = node;
        const LockfileFields g(reader, *node, f.path(key));
        g.check({"cap", "floor", "set-by"});
        if (const YamlNode* cap = g.optional("cap"))
            target.os_cap = os_version(reader, *cap, g.path("cap"));
        const YamlNode* floor = g.optional("floor");
        const YamlNode* set_by = g.optional("set-by");
        if ((floor == nullptr) != (set_by == nullptr)) {
            reader.fail(*node, util::backquoted(f.path(key)) +
                                   " needs both `floor` and `set-by`, or neither");
        }
        if (floor != nullptr) {
            target.os_floor = LockedFloor{os_version(reader, *floor, g.path("floor")),
                                          reader.string_set(*set_by, g.path("set-by"))};
        }
    }
    return found;
}

std::string floor_text(const std::optional<LockedFloor>& floor) {
    if (!floor) return "no floor";
    std::string names;
    for (const auto& name : floor->packages)
        names += (names.empty() ? "" : ", ") + name;
    return floor->version + " (set by " + names + ")";
}

// The floor as written must be the one the target's wheels set, and within the cap: a machine
// is checked against the wheels, and a hand edit here would only mislead.
void check_floor(const LockfileReader& reader, const YamlNode* node, const std::string& path,
                 const LockedTarget& target) {
    if (node == nullptr) return;
    const std::string key(floor_key(target.os));
    const auto computed = floor_of(target);
    if (computed != target.os_floor) {
        reader.fail(*node,
                    util::backquoted(child_path(path, key)) + " says " +
                        floor_text(target.os_floor) + ", but the target's wheels need " +
                        floor_text(computed),
                    relock_hint);
    }
    if (!target.os_cap.empty() && target.os_floor) {
        const auto cap = pep::parse_os_version(target.os_cap);
        const auto floor = pep::parse_os_version(target.os_floor->version);
        if (cap && floor && *cap < *floor) {
            reader.fail(*node,
                        util::backquoted(child_path(path, key)) + ": floor " +
                            target.os_floor->version + " is above the cap " + target.os_cap,
                        relock_hint);
        }
    }
}

LockedTarget read_target(const LockfileReader& reader, const YamlNode& node,
                         const std::string& path, const std::set<std::string>& index_names) {
    const LockfileFields f(reader, node, path);
    f.check({"id", "os", "arch", "backend", "python", "glibc", "macos", "marker-environment",
             "variables", "packages"});
    LockedTarget target;
    target.id = reader.path_name(f.required("id"), f.path("id"));
    target.os = f.non_empty("os");
    target.arch = f.non_empty("arch");
    target.backend = f.non_empty("backend");
    target.python = f.non_empty("python");
    const YamlNode* floor = read_floor(reader, f, target);
    if (const YamlNode* env = f.optional("marker-environment")) {
        target.marker_environment = reader.string_map(*env, f.path("marker-environment"), false);
    }
    if (const YamlNode* vars = f.optional("variables")) {
        target.variables = reader.string_map(*vars, f.path("variables"), true);
    }
    const YamlNode* list = f.optional("packages");
    if (list == nullptr) {
        check_floor(reader, floor, path, target);
        return target;
    }
    const std::string packages_path = f.path("packages");
    reader.sequence(*list, packages_path);
    std::vector<ReadPackage> read;
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        const std::string package_path = item_path(packages_path, i);
        read.push_back(read_package(reader, list->items[i], package_path, index_names));
        if (!names.insert(read.back().package.name).second) {
            reader.fail(list->items[i], "duplicate package " +
                                            util::backquoted(read.back().package.name) +
                                            " in target " + util::backquoted(target.id));
        }
    }
    for (std::size_t i = 0; i < read.size(); ++i) {
        for (const auto& dependency : read[i].package.dependencies) {
            if (names.count(dependency) == 0) {
                reader.fail(
                    *read[i].dependencies,
                    util::backquoted(child_path(item_path(packages_path, i), "dependencies")) +
                        " names " + util::backquoted(dependency) +
                        ", which is not a package of target " + util::backquoted(target.id));
            }
        }
        target.packages.push_back(std::move(read[i].package));
    }
    std::sort(target.packages.begin(), target.packages.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    check_floor(reader, floor, path, target);
    return target;
}

void read_extension(const LockfileReader& reader, const YamlNode& node, Lockfile& lock) {
    const LockfileFields ext(reader, node, std::string(extension_key));
    // The format first: a newer file may hold keys this version has never heard of.
    lock.format = read_format(reader, ext);
    ext.check({"format", "generator", "input-hash", "python-requires", "default-target", "indexes",
               "targets"});
    lock.generator = ext.non_empty("generator");
    lock.input_hash = read_input_hash(reader, ext);
    lock.python_requires = ext.optional_string("python-requires");
    lock.default_target = ext.non_empty("default-target");
    lock.indexes = read_indexes(reader, ext);
    std::set<std::string> index_names;
    for (const auto& index : lock.indexes)
        index_names.insert(index.name);

    const YamlNode& list = ext.required("targets");
    const std::string path = ext.path("targets");
    reader.sequence(list, path);
    std::set<std::string> ids;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        lock.targets.push_back(read_target(reader, list.items[i], item_path(path, i), index_names));
        if (!ids.insert(lock.targets.back().id).second) {
            reader.fail(list.items[i],
                        "duplicate target " + util::backquoted(lock.targets.back().id));
        }
    }
    std::sort(lock.targets.begin(), lock.targets.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    if (lock.find_target(lock.default_target) == nullptr) {
        reader.fail(ext.required("default-target"), "default target " +
                                                        util::backquoted(lock.default_target) +
                                                        " is not among the targets");
    }
}

// ---------------------------------------------------------------------------------------------
// The environment.yml part must say what x-aitk-env says
// ---------------------------------------------------------------------------------------------

// Compares `found` (list items with their nodes) with `expected`, naming the first difference.
void compare_items(const LockfileReader& reader, const YamlNode& list, std::string_view what,
                   const std::vector<const YamlNode*>& found,
                   const std::vector<std::string>& expected) {
    const std::string prefix = std::string(what) + " does not match `x-aitk-env`: ";
    for (std::size_t i = 0; i < std::max(found.size(), expected.size()); ++i) {
        if (i >= found.size()) {
            reader.fail(list, prefix + "missing " + util::backquoted(expected[i]), relock_hint);
        }
        if (i >= expected.size()) {
            reader.fail(*found[i], prefix + "unexpected " + util::backquoted(found[i]->text),
                        relock_hint);
        }
        if (found[i]->text != expected[i]) {
            reader.fail(*found[i],
                        prefix + "expected " + util::backquoted(expected[i]) + ", found " +
                            util::backquoted(found[i]->text),
                        relock_hint);
        }
    }
}

void check_dependencies(const LockfileReader& reader, const LockfileFields& root,
                        const Lockfile& lock) {
    const LockedTarget& target = *lock.find_target(lock.default_target);
    const YamlNode& list = reader.sequence(root.required("dependencies"), "dependencies");
    std::vector<const YamlNode*> conda;
    const YamlNode* pip = nullptr;
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        const YamlNode& item = list.items[i];
        const std::string path = item_path("dependencies", i);
        if (item.is_scalar()) {
            conda.push_back(&item);
            continue;
        }
        const LockfileFields f(reader, item, path);
        f.check({"pip"});
        if (pip != nullptr) reader.fail(item, "a second `pip:` list in `dependencies`");
        pip = &reader.sequence(f.required("pip"), f.path("pip"));
    }
    compare_items(reader, list, "`dependencies`", conda, {"python=" + target.python, "pip"});

    const std::vector<std::string> expected = pip_section(lock, target).lines;
    if (pip == nullptr) {
        if (!expected.empty()) {
            reader.fail(list, "`dependencies` does not match `x-aitk-env`: no `pip:` list",
                        relock_hint);
        }
        return;
    }
    std::vector<const YamlNode*> lines;
    for (std::size_t i = 0; i < pip->items.size(); ++i) {
        const YamlNode& item = pip->items[i];
        reader.string(item, item_path("dependencies.pip", i));
        lines.push_back(&item);
    }
    compare_items(reader, *pip, "the `pip:` list", lines, expected);
}

void check_variables(const LockfileReader& reader, const LockfileFields& root,
                     const Lockfile& lock) {
    const LockedTarget& target = *lock.find_target(lock.default_target);
    const YamlNode* node = root.optional("variables");
    const auto found = node == nullptr ? std::map<std::string, std::string>{}
                                       : reader.string_map(*node, "variables", true);
    if (found == target.variables) return;
    const YamlNode& at = node == nullptr ? root.node() : *node;
    for (const auto& [name, value] : target.variables) {
        const auto it = found.find(name);
        if (it == found.end()) {
            reader.fail(
                at,
                "`variables` lacks " + util::backquoted(name) + ", which the default target sets",
                relock_hint);
        }
        if (it->second != value) {
            reader.fail(at,
                        "`variables` sets " + util::backquoted(name) + " to " +
                            util::backquoted(it->second) + ", the default target to " +
                            util::backquoted(value),
                        relock_hint);
        }
    }
    for (const auto& [name, value] : found) {
        if (target.variables.count(name) == 0) {
            reader.fail(at,
                        "`variables` sets " + util::backquoted(name) +
                            ", which the default target does not",
                        relock_hint);
        }
    }
}

Lockfile read_lockfile(const LockfileReader& reader, const YamlNode& root_node) {
    const LockfileFields root(reader, root_node, "");
    const YamlNode* ext = root.optional(extension_key);
    if (ext == nullptr) {
        throw LockfileFailure{util::InputProblem{
            util::SourceLocation{reader.file(), 0, 0},
            "no `" + std::string(extension_key) + "` key: not an aitk-env lockfile",
            "this is a plain environment.yml: use `aitk-env setup -f " + reader.file() + "`"}};
    }
    Lockfile lock;
    read_extension(reader, *ext, lock);
    root.check({"name", "channels", "dependencies", "variables", extension_key});
    lock.name = root.non_empty("name");
    lock.channels.clear();
    const YamlNode& channels = reader.sequence(root.required("channels"), "channels");
    for (std::size_t i = 0; i < channels.items.size(); ++i) {
        lock.channels.push_back(
            reader.non_empty_string(channels.items[i], item_path("channels", i)));
    }
    check_dependencies(reader, root, lock);
    check_variables(reader, root, lock);
    return lock;
}

}  // namespace

util::Loaded<Lockfile> parse_lockfile(std::string_view yaml, std::string_view file) {
    auto tree = detail::load_yaml_tree(yaml, file);
    if (!tree) return util::Unexpected(std::move(tree.error()));
    const LockfileReader reader(file);
    try {
        return read_lockfile(reader, *tree);
    } catch (LockfileFailure& failure) {
        return util::Unexpected(std::move(failure.problem));
    }
}

}  // namespace aitk::lock
