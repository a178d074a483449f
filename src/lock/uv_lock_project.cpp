// pyproject.toml against the uv.lock made from it (uv_lock_project.hpp).
#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "aitk/lock/uv_lock_project.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

struct UvProjectFailure {
    util::InputProblem problem;
};

class UvProjectReader {
  public:
    explicit UvProjectReader(std::string_view file) : file_(file) {}
    [[noreturn]] void fail(const toml::node& at, std::string message) const {
        const auto& begin = at.source().begin;
        throw UvProjectFailure{
            util::InputProblem{{file_, begin.line, begin.column}, std::move(message), {}}};
    }
    const std::string& string(const toml::node& node, std::string_view path) const {
        const auto* s = node.as_string();
        if (s == nullptr) fail(node, "`" + std::string(path) + "` must be a string");
        return s->get();
    }
    std::vector<std::string> strings(const toml::node& node, std::string_view path) const {
        const auto* list = node.as_array();
        if (list == nullptr) fail(node, "`" + std::string(path) + "` must be an array of strings");
        std::vector<std::string> out;
        for (const auto& item : *list)
            out.push_back(string(item, path));
        return out;
    }
    const toml::table* table(const toml::node* node, std::string_view path) const {
        if (node == nullptr) return nullptr;
        const auto* t = node->as_table();
        if (t == nullptr) fail(*node, "`" + std::string(path) + "` must be a table");
        return t;
    }

  private:
    std::string file_;
};

// PEP 735 groups with `{include-group = "…"}` expanded (a cycle is refused).
std::vector<std::string> expand_group(const UvProjectReader& reader, const toml::table& groups,
                                      const std::string& name, std::vector<std::string>& stack) {
    std::vector<std::string> out;
    const toml::node* node = nullptr;
    for (auto&& [key, value] : groups) {
        if (pep::canonicalize_name(key.str()) == name) node = &value;
    }
    if (node == nullptr) return out;
    if (std::find(stack.begin(), stack.end(), name) != stack.end())
        reader.fail(*node, "dependency group `" + name + "` includes itself");
    stack.push_back(name);
    const auto* list = node->as_array();
    if (list == nullptr) reader.fail(*node, "dependency group `" + name + "` must be an array");
    for (const auto& item : *list) {
        if (const auto* text = item.as_string()) {
            out.push_back(text->get());
        } else if (const auto* include = item.as_table()) {
            const auto* target = include->get("include-group");
            if (target == nullptr || include->size() != 1)
                reader.fail(item, "a dependency group entry must be a string or {include-group}");
            auto more = expand_group(
                reader, groups, pep::canonicalize_name(reader.string(*target, "include-group")),
                stack);
            out.insert(out.end(), more.begin(), more.end());
        } else {
            reader.fail(item, "a dependency group entry must be a string or {include-group}");
        }
    }
    stack.pop_back();
    return out;
}

UvProject read_project(const UvProjectReader& reader, const toml::table& root) {
    UvProject out;
    if (const auto* project = reader.table(root.get("project"), "project")) {
        if (const auto* n = project->get("name"))
            out.name = pep::canonicalize_name(reader.string(*n, "project.name"));
        if (const auto* v = project->get("version"))
            out.version = reader.string(*v, "project.version");
        if (const auto* r = project->get("requires-python"))
            out.requires_python = reader.string(*r, "project.requires-python");
        if (const auto* d = project->get("dependencies"))
            out.dependencies = reader.strings(*d, "project.dependencies");
        if (const auto* o = reader.table(project->get("optional-dependencies"),
                                         "project.optional-dependencies")) {
            for (auto&& [key, value] : *o) {
                out.optional[pep::canonicalize_name(key.str())] =
                    reader.strings(value, "project.optional-dependencies");
            }
        }
    }
    if (const auto* groups = reader.table(root.get("dependency-groups"), "dependency-groups")) {
        for (auto&& [key, value] : *groups) {
            std::vector<std::string> stack;
            const auto name = pep::canonicalize_name(key.str());
            out.groups[name] = expand_group(reader, *groups, name, stack);
        }
    }
    const auto* tool = reader.table(root.get("tool"), "tool");
    const auto* uv = tool ? reader.table(tool->get("uv"), "tool.uv") : nullptr;
    if (uv != nullptr) {
        if (const auto* dev = uv->get("dev-dependencies")) {
            auto& group = out.groups["dev"];
            auto legacy = reader.strings(*dev, "tool.uv.dev-dependencies");
            group.insert(group.end(), legacy.begin(), legacy.end());
        }
        if (const auto* sources = reader.table(uv->get("sources"), "tool.uv.sources")) {
            for (auto&& [key, value] : *sources)
                out.sourced.push_back(pep::canonicalize_name(key.str()));
        }
        if (const auto* defaults = uv->get("default-groups")) {
            if (const auto* all = defaults->as_string()) {
                if (all->get() != "all")
                    reader.fail(*defaults, "`tool.uv.default-groups` must be a list or \"all\"");
                out.all_default_groups = true;
                out.default_groups.clear();
            } else {
                out.default_groups.clear();
                for (const auto& g : reader.strings(*defaults, "tool.uv.default-groups"))
                    out.default_groups.push_back(pep::canonicalize_name(g));
            }
        }
    }
    return out;
}

// The environments a marker is judged on: what it selects there is what it means here.
const std::vector<pep::MarkerEnvironment>& judging_environments() {
    static const std::vector<pep::MarkerEnvironment> all = [] {
        struct Os {
            const char *sys_platform, *platform_system, *os_name;
            std::vector<const char*> machines;
        };
        const std::vector<Os> systems = {{"linux", "Linux", "posix", {"x86_64", "aarch64"}},
                                         {"win32", "Windows", "nt", {"AMD64", "ARM64"}},
                                         {"darwin", "Darwin", "posix", {"arm64", "x86_64"}}};
        std::vector<pep::MarkerEnvironment> out;
        for (const auto& os : systems) {
            for (const auto* machine : os.machines) {
                for (int minor = 8; minor <= 14; ++minor) {
                    pep::MarkerEnvironment env;
                    using V = pep::MarkerVariable;
                    env.set(V::sys_platform, os.sys_platform);
                    env.set(V::platform_system, os.platform_system);
                    env.set(V::os_name, os.os_name);
                    env.set(V::platform_machine, machine);
                    env.set(V::python_version, "3." + std::to_string(minor));
                    env.set(V::python_full_version, "3." + std::to_string(minor) + ".1");
                    env.set(V::implementation_name, "cpython");
                    env.set(V::implementation_version, "3." + std::to_string(minor) + ".1");
                    env.set(V::platform_python_implementation, "CPython");
                    out.push_back(std::move(env));
                }
            }
        }
        return out;
    }();
    return all;
}

std::string canonical_specifier(std::string_view text) {
    auto parsed = pep::SpecifierSet::parse(text);
    return parsed ? parsed->to_string() : std::string(text);
}

// One requirement of either side.
struct Entry {
    std::string name;
    std::vector<std::string> extras;
    std::string specifier;  // canonical
    std::string url;        // a direct reference ("git+https://…@rev", an archive URL)
    const pep::Marker* marker = nullptr;
    std::string marker_text;  // the same, as text: the key of what it selects
    std::string only_extra;   // an optional dependency of this extra
    bool registry = true;     // not from a git, URL or local source
};

// What one side asks for: requirements of names that `[tool.uv.sources]` does not redirect
// exactly (name, extras, specifier, URL, and what the marker selects: a bit per environment and
// extra); a redirected name as a whole (uv writes one entry per source, each with its marker):
// its extras, where it applies at all (a bit per extra), and its specifiers where it comes from
// an index (uv drops them for a git, URL or path source).
using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;

struct Redirected {
    std::set<std::string> extras;
    std::string applies;
    std::set<std::string> specifiers;
    bool registry = false;
};

struct Asked {
    std::set<Key> exact;
    std::map<std::string, Redirected> redirected;
};

class Judge {
  public:
    Judge(std::vector<std::string> extras, std::set<std::string> sourced)
        : extras_(std::move(extras)), sourced_(std::move(sourced)) {}

    void add(Asked& side, const Entry& e) const {
        std::vector<std::string> extras;
        for (const auto& x : e.extras)
            extras.push_back(pep::canonicalize_name(x));
        std::sort(extras.begin(), extras.end());
        if (!sourced_.count(e.name)) {
            side.exact.insert(
                {e.name, util::join(extras, ","), e.specifier, e.url, selection(e, false)});
            return;
        }
        const std::string bits = selection(e, true);
        // An entry for environments no real machine has (Windows reporting "x86_64"): uv
        // splits markers exhaustively; nothing to compare.
        if (bits.find('1') == std::string::npos) return;
        auto& r = side.redirected[e.name];
        r.extras.insert(extras.begin(), extras.end());
        if (r.applies.empty()) r.applies.assign(bits.size(), '0');
        for (std::size_t i = 0; i < bits.size(); ++i)
            if (bits[i] == '1') r.applies[i] = '1';
        if (e.registry && !e.specifier.empty()) r.specifiers.insert(e.specifier);
        r.registry |= e.registry;
    }

  private:
    // What the entry's marker selects; markers repeat (every optional dependency of an extra
    // has `extra == '…'`), so each is judged once.
    const std::string& selection(const Entry& e, bool coarse) const {
        std::string key = e.marker_text;
        key += '\0';
        key += e.only_extra;
        key += coarse ? 'c' : 'f';
        auto found = judged_.find(key);
        if (found != judged_.end()) return found->second;
        return judged_.emplace(std::move(key), judge(e.marker, e.only_extra, coarse)).first->second;
    }

    std::string judge(const pep::Marker* marker, const std::string& only_extra, bool coarse) const {
        std::string bits;
        for (const auto& extra : extras_) {
            const bool in_scope = only_extra.empty() || extra == only_extra;
            std::vector<std::string> active;
            if (!extra.empty()) active.push_back(extra);
            bool anywhere = false;
            for (const auto& env : judging_environments()) {
                bool holds = in_scope;
                if (holds && marker != nullptr) {
                    auto r = marker->evaluate(env, active);
                    holds = r && *r;
                }
                anywhere |= holds;
                if (!coarse) bits += holds ? '1' : '0';
            }
            if (coarse) bits += anywhere ? '1' : '0';
        }
        return bits;
    }

    std::vector<std::string> extras_;  // "" first, then the project's extras
    std::set<std::string> sourced_;
    mutable std::unordered_map<std::string, std::string> judged_;
};

std::string describe(const Key& key) {
    std::string text = std::get<0>(key);
    if (!std::get<1>(key).empty()) text += "[" + std::get<1>(key) + "]";
    text += std::get<2>(key);
    if (!std::get<3>(key).empty()) text += " @ " + std::get<3>(key);
    return text;
}

// "adds x; the lock has y" between what the lock recorded and what the project says now.
std::optional<std::string> compare(const Asked& locked, const Asked& now, const std::string& what) {
    std::vector<std::string> parts;
    for (const auto& k : now.exact)
        if (!locked.exact.count(k)) parts.push_back("adds or changes " + describe(k));
    for (const auto& k : locked.exact)
        if (!now.exact.count(k)) parts.push_back("the lock has " + describe(k));
    std::set<std::string> names;
    for (const auto& [name, r] : locked.redirected)
        names.insert(name);
    for (const auto& [name, r] : now.redirected)
        names.insert(name);
    for (const auto& name : names) {
        auto a = locked.redirected.find(name);
        auto b = now.redirected.find(name);
        if (a == locked.redirected.end()) {
            parts.push_back("adds " + name);
            continue;
        }
        if (b == now.redirected.end()) {
            parts.push_back("the lock has " + name);
            continue;
        }
        const auto& was = a->second;
        const auto& is = b->second;
        if (was.registry && was.specifiers != is.specifiers) {
            parts.push_back(
                name + " is " + util::join({is.specifiers.begin(), is.specifiers.end()}, " or ") +
                " now, " + util::join({was.specifiers.begin(), was.specifiers.end()}, " or ") +
                " in the lock");
        } else if (was.extras != is.extras || was.applies != is.applies) {
            parts.push_back(name + " is asked for with other extras or under other extras");
        }
    }
    if (parts.empty()) return std::nullopt;
    return what + ": " + util::join(parts, "; ");
}

// A requirement of pyproject.toml; uv also accepts "name @ url; marker" without the space PEP 508
// wants before the ';'.
std::optional<pep::Requirement> requirement_of(const std::string& text) {
    auto parsed = pep::Requirement::parse(text);
    if (parsed) return std::move(*parsed);
    const auto at = text.find(" @ ");
    const auto semicolon = text.find(';', at == std::string::npos ? 0 : at);
    if (at != std::string::npos && semicolon != std::string::npos) {
        auto spaced = text.substr(0, semicolon) + " " + text.substr(semicolon);
        auto again = pep::Requirement::parse(spaced);
        if (again) return std::move(*again);
    }
    return std::nullopt;
}

Entry entry_of(const pep::Requirement& r, const std::string& only_extra) {
    Entry e;
    e.name = r.canonical_name();
    e.extras = r.extras();
    e.specifier = r.specifier().to_string();
    e.url = r.url().value_or("");
    e.marker = r.marker() ? &*r.marker() : nullptr;
    e.marker_text = r.marker() ? r.marker()->to_string() : std::string();
    e.only_extra = only_extra;
    return e;
}

// The lock's requirement as pyproject.toml would spell its direct reference.
Entry entry_of(const UvRequirement& r, const pep::Marker* marker) {
    Entry e;
    e.name = r.name;
    e.extras = r.extras;
    e.specifier = canonical_specifier(r.specifier);
    e.marker = marker;
    e.marker_text = r.marker;
    if (!r.git.empty()) {
        auto git = parse_uv_git_url(r.git + "#" + std::string(40, '0'));
        if (git) {
            e.url = "git+" + git->repository +
                    (git->reference.empty() ? "" : "@" + git->reference) +
                    (git->subdirectory.empty() ? "" : "#subdirectory=" + git->subdirectory);
        } else {
            e.url = "git+" + r.git;
        }
    } else if (!r.url.empty()) {
        e.url = r.url + (r.subdirectory.empty() ? "" : "#subdirectory=" + r.subdirectory);
    }
    e.registry = r.git.empty() && r.url.empty() && r.path.empty() && r.directory.empty() &&
                 r.editable.empty() && r.virtual_.empty();
    return e;
}

// Whether two requires-python specifiers allow the same Pythons (uv rewrites "~=3.12.0" as
// "==3.12.*").
bool same_pythons(const std::string& a, const std::string& b) {
    auto x = pep::SpecifierSet::parse(a);
    auto y = pep::SpecifierSet::parse(b);
    if (!x || !y) return a == b;
    for (int minor = 0; minor <= 20; ++minor) {
        for (int patch : {0, 1, 5, 11, 30}) {
            auto v =
                pep::Version::parse("3." + std::to_string(minor) + "." + std::to_string(patch));
            if (v && x->contains(*v, true) != y->contains(*v, true)) return false;
        }
    }
    return true;
}

}  // namespace

util::Loaded<UvProject> parse_uv_project(std::string_view text, std::string_view file) {
    toml::table document;
    try {
        document = toml::parse(text, file);
    } catch (const toml::parse_error& e) {
        const auto& begin = e.source().begin;
        return util::input_problem({std::string(file), begin.line, begin.column},
                                   "invalid TOML: " + std::string(e.description()),
                                   "fix the syntax of pyproject.toml (https://toml.io)");
    }
    try {
        return read_project(UvProjectReader(file), document);
    } catch (UvProjectFailure& failure) {
        return util::Unexpected(std::move(failure.problem));
    }
}

std::optional<std::string> uv_lock_mismatch(const UvLock& lock, const UvProject& project) {
    if (project.name.empty()) return std::nullopt;  // a workspace root: its members decide
    const UvPackage* root = nullptr;
    for (auto i : lock.roots()) {
        if (lock.packages[i].name == project.name) root = &lock.packages[i];
    }
    if (root == nullptr) {
        for (auto i : lock.find(project.name)) {
            if (lock.packages[i].source.local()) root = &lock.packages[i];
        }
    }
    if (root == nullptr) return "the lock has no project " + project.name;
    auto same_version = [](const std::string& a, const std::string& b) {
        auto x = pep::Version::parse(a);
        auto y = pep::Version::parse(b);
        return x && y ? *x == *y : a == b;
    };
    if (!project.version.empty() && !root->version.empty() &&
        !same_version(project.version, root->version)) {
        return "the project's version is " + project.version + ", the lock's " + root->version;
    }
    if (!project.requires_python.empty() &&
        !same_pythons(project.requires_python, lock.requires_python)) {
        return "requires-python is " + project.requires_python + " in pyproject.toml, " +
               lock.requires_python + " in the lock";
    }
    if (!root->metadata.present) return std::nullopt;  // nothing recorded to compare
    if (root->metadata.provides_extras_given) {
        std::set<std::string> locked(root->metadata.provides_extras.begin(),
                                     root->metadata.provides_extras.end());
        std::set<std::string> now;
        for (const auto& [extra, deps] : project.optional)
            now.insert(extra);
        if (locked != now) {
            return "the project's extras are " + util::join({now.begin(), now.end()}, ", ") +
                   ", the lock's " + util::join({locked.begin(), locked.end()}, ", ");
        }
    }

    std::vector<std::string> extras{""};
    for (const auto& [extra, deps] : project.optional)
        extras.push_back(extra);
    const std::set<std::string> sourced(project.sourced.begin(), project.sourced.end());
    const Judge judge(extras, sourced);

    // The lock's markers were checked when the lock was read.
    auto add_locked = [](Asked& side, const Judge& j, const UvRequirement& r) {
        std::optional<pep::Marker> marker;
        if (!r.marker.empty()) {
            if (auto parsed = pep::Marker::parse(r.marker)) marker = std::move(*parsed);
        }
        j.add(side, entry_of(r, marker ? &*marker : nullptr));
    };

    Asked locked, now;
    for (const auto& r : root->metadata.requires_dist)
        add_locked(locked, judge, r);
    auto add_now = [&](Asked& side, const Judge& j, const std::string& text,
                       const std::string& extra) -> std::optional<std::string> {
        auto parsed = requirement_of(text);
        if (!parsed) return "pyproject.toml has the invalid requirement `" + text + "`";
        j.add(side, entry_of(*parsed, extra));
        return std::nullopt;
    };
    for (const auto& text : project.dependencies)
        if (auto problem = add_now(now, judge, text, "")) return problem;
    for (const auto& [extra, deps] : project.optional)
        for (const auto& text : deps)
            if (auto problem = add_now(now, judge, text, extra)) return problem;
    if (auto differs = compare(locked, now, "the project's dependencies differ from the lock's"))
        return differs;

    // Dependency groups, one by one (no extras apply to them).
    const Judge plain({""}, sourced);
    std::set<std::string> names;
    for (const auto& [group, deps] : root->metadata.requires_dev)
        names.insert(group);
    for (const auto& [group, deps] : project.groups)
        names.insert(group);
    for (const auto& group : names) {
        Asked was, is;
        if (auto it = root->metadata.requires_dev.find(group);
            it != root->metadata.requires_dev.end()) {
            for (const auto& r : it->second)
                add_locked(was, plain, r);
        }
        if (auto it = project.groups.find(group); it != project.groups.end()) {
            for (const auto& text : it->second)
                if (auto problem = add_now(is, plain, text, "")) return problem;
        }
        if (auto differs =
                compare(was, is, "dependency group '" + group + "' differs from the lock's"))
            return differs;
    }
    return std::nullopt;
}

}  // namespace aitk::lock
