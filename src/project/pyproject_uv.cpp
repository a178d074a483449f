// [tool.uv] → UvSettings. Every key uv documents (its settings reference and crates/uv-settings)
// is accepted here and sorted into what aitk-env acts on, what it refuses because acting on it
// is missing and ignoring it would change what gets installed, and what changes nothing
// installed; docs/cli.md lists the three. A key uv does not know is a problem.
#include <algorithm>
#include <array>

#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"
#include "pyproject_parts.hpp"

namespace aitk::project::detail {

namespace {

using Problem = std::optional<InputProblem>;

struct KeyPolicy {
    std::string_view key;
    std::string_view why;
};

// Keys that change nothing aitk-env installs: uv's own cache, network, interface and
// installer settings (aitk-env has its own), and what uv checks about itself.
constexpr std::array<KeyPolicy, 41> ignored_keys{{
    {"required-version", "the uv version the project wants"},
    {"system-certs", "uv's TLS trust (aitk-env: --cert, SSL_CERT_FILE)"},
    {"native-tls", "uv's TLS trust (aitk-env: --cert, SSL_CERT_FILE)"},
    {"offline", "uv's network switch (aitk-env: --offline)"},
    {"no-cache", "uv's cache"},
    {"cache-dir", "uv's cache (aitk-env: --cache-dir)"},
    {"cache-keys", "when uv rebuilds the project"},
    {"preview", "uv's preview features"},
    {"preview-features", "uv's preview features"},
    {"python-preference", "which interpreters uv prefers (aitk-env: --python)"},
    {"python-downloads", "whether uv downloads interpreters"},
    {"python-install-mirror",
     "where uv downloads interpreters (aitk-env: "
     "AITK_ENV_PYTHON_MIRROR)"},
    {"pypy-install-mirror", "where uv downloads PyPy"},
    {"python-downloads-json-url", "where uv finds interpreter downloads"},
    {"concurrent-downloads", "uv's parallelism (aitk-env: --concurrency)"},
    {"concurrent-builds", "uv's parallelism"},
    {"concurrent-installs", "uv's parallelism"},
    {"keyring-provider", "how uv finds credentials (aitk-env: .netrc, credentials in URLs)"},
    {"http-proxy", "uv's proxy (aitk-env: the proxy variables)"},
    {"https-proxy", "uv's proxy (aitk-env: the proxy variables)"},
    {"no-proxy", "uv's proxy (aitk-env: the proxy variables)"},
    {"allow-insecure-host", "hosts uv may reach without TLS checks; aitk-env checks them all"},
    {"link-mode", "how uv links files (aitk-env: --link-mode)"},
    {"compile-bytecode", "whether uv compiles .pyc (aitk-env: --compile-bytecode)"},
    {"publish-url", "where uv publishes"},
    {"trusted-publishing", "how uv publishes"},
    {"check-url", "how uv publishes"},
    {"add-bounds", "what `uv add` writes"},
    {"audit", "uv's audit command"},
    {"pip", "the settings of the `uv pip` commands"},
    {"managed", "whether `uv run` manages the project"},
    {"build-backend", "the settings of uv's own build backend"},
    {"upgrade", "uv's lock upgrades (aitk-env: lock --upgrade)"},
    {"upgrade-package", "uv's lock upgrades (aitk-env: lock --upgrade-package)"},
    {"reinstall", "uv's reinstalls"},
    {"reinstall-package", "uv's reinstalls"},
    {"required-environments",
     "which platforms uv's universal lock must cover; aitk-env locks "
     "the targets it is given"},
    {"fork-strategy",
     "how uv's universal lock splits by Python version; aitk-env locks each "
     "target for one Python"},
    {"no-build-isolation",
     "a build without isolation sees the environment; aitk-env builds in "
     "isolation, so such a build fails rather than differs"},
    {"no-build-isolation-package",
     "a build without isolation sees the environment; aitk-env "
     "builds in isolation, so such a build fails rather than "
     "differs"},
    {"torch-backend", "uv pip's torch backend switch; aitk-env chooses the backend itself"},
}};

// Keys that change what gets installed and that aitk-env does not act on.
constexpr std::array<KeyPolicy, 11> refused_keys{{
    {"dependency-metadata", "it replaces packages' own metadata, which is what aitk-env reads"},
    {"config-settings", "settings handed to build backends change the wheels they build"},
    {"config-settings-package", "settings handed to build backends change the wheels they build"},
    {"extra-build-dependencies", "extra build requirements change the wheels builds make"},
    {"extra-build-variables", "build variables change the wheels builds make"},
    {"build-constraint-dependencies",
     "constraints on build requirements change the wheels "
     "builds make"},
    {"exclude-newer",
     "it hides files uploaded after a date; aitk-env does not read upload "
     "dates"},
    {"exclude-newer-package",
     "it hides files uploaded after a date; aitk-env does not read "
     "upload dates"},
    {"exclude-dependencies", "it removes packages from the resolution"},
    {"dependency-groups", "it limits dependency groups to some Python versions"},
    {"prerelease-package", "it allows pre-releases of single packages"},
}};

template <std::size_t N>
const KeyPolicy* find_policy(const std::array<KeyPolicy, N>& list, std::string_view key) {
    for (const auto& p : list) {
        if (p.key == key) return &p;
    }
    return nullptr;
}

// Normalised names from a string array.
Loaded<std::vector<std::string>> name_list(const TomlFile& f, const toml::node& node,
                                           std::string_view what) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return util::input_problem(f.at(node), std::string(what) + " is not an array of names",
                                   "write [\"name\", …]");
    }
    std::vector<std::string> out;
    for (const auto& element : *array) {
        auto name = f.name(element, what);
        if (!name) return util::Unexpected<InputProblem>(std::move(name.error()));
        out.push_back(std::move(*name));
    }
    return out;
}

Problem read_source(const TomlFile& f, const toml::node& node, const std::string& package,
                    std::vector<UvSource>& out) {
    const std::string what = "tool.uv.sources." + package;
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, what, problem);
    if (!table) return problem;
    if (auto unknown = f.unknown_key(
            *table,
            {"index", "git", "url", "path", "workspace", "rev", "tag", "branch", "subdirectory",
             "lfs", "editable", "package", "marker", "extra", "group"},
            "a [tool.uv.sources] entry")) {
        return unknown;
    }
    UvSource source;
    source.where = f.at(node);
    int kinds = 0;
    for (auto [key, kind] :
         {std::pair{"index", UvSourceKind::index}, std::pair{"git", UvSourceKind::git},
          std::pair{"url", UvSourceKind::url}, std::pair{"path", UvSourceKind::path}}) {
        if (const auto* value = table->get(key)) {
            auto text = f.string(*value, what + "." + key);
            if (!text) return std::move(text.error());
            source.kind = kind;
            source.location = *text;
            ++kinds;
        }
    }
    if (const auto* value = table->get("workspace")) {
        auto flag = f.boolean(*value, what + ".workspace");
        if (!flag) {
            return InputProblem{f.at(*value),
                                what +
                                    ".workspace names another workspace by its path, which "
                                    "aitk-env does not read",
                                "make the package a member of this workspace, or use a path "
                                "source"};
        }
        if (!*flag) {
            return InputProblem{f.at(*value),
                                what +
                                    ".workspace = false: aitk-env does not "
                                    "take workspace members from an index",
                                "drop the source to take the package from the index"};
        }
        source.kind = UvSourceKind::workspace;
        ++kinds;
    }
    if (kinds != 1) {
        return InputProblem{source.where,
                            what + (kinds == 0 ? " names no source" : " names several sources"),
                            "give exactly one of index, git, url, path or workspace"};
    }
    auto text_of = [&](const char* key, std::string& into) -> Problem {
        if (const auto* value = table->get(key)) {
            auto text = f.string(*value, what + "." + key);
            if (!text) return std::move(text.error());
            into = *text;
        }
        return std::nullopt;
    };
    for (auto [key, into] :
         {std::pair{"rev", &source.rev}, std::pair{"tag", &source.tag},
          std::pair{"branch", &source.branch}, std::pair{"subdirectory", &source.subdirectory}}) {
        if (auto p = text_of(key, *into)) return p;
    }
    const bool git = source.kind == UvSourceKind::git;
    auto only_for = [&](const char* key, bool allowed, const char* which) -> Problem {
        if (table->get(key) && !allowed) {
            return InputProblem{f.at(*table->get(key)),
                                what + "." + key + " belongs to " + which + " sources only",
                                "remove it, or make the source one of those"};
        }
        return std::nullopt;
    };
    for (const char* key : {"rev", "tag", "branch", "lfs"}) {
        if (auto p = only_for(key, git, "git")) return p;
    }
    if (auto p = only_for("subdirectory", git || source.kind == UvSourceKind::url, "git and url"))
        return p;
    if (auto p = only_for(
            "editable", source.kind == UvSourceKind::path || source.kind == UvSourceKind::workspace,
            "path and workspace"))
        return p;
    if (auto p = only_for("package", source.kind == UvSourceKind::path, "path")) return p;
    if ((!source.rev.empty()) + (!source.tag.empty()) + (!source.branch.empty()) > 1) {
        return InputProblem{source.where, what + " gives more than one of rev, tag and branch",
                            "keep one of them"};
    }
    if (const auto* value = table->get("lfs")) {
        auto flag = f.boolean(*value, what + ".lfs");
        if (!flag) return std::move(flag.error());
        if (*flag) {
            return InputProblem{f.at(*value),
                                what +
                                    ".lfs = true: aitk-env does not fetch Git LFS objects, "
                                    "and the package would be built without them",
                                "drop lfs, or install the package another way"};
        }
    }
    for (auto [key, into] :
         {std::pair{"editable", &source.editable}, std::pair{"package", &source.package}}) {
        if (const auto* value = table->get(key)) {
            auto flag = f.boolean(*value, what + "." + key);
            if (!flag) return std::move(flag.error());
            *into = *flag;
        }
    }
    if (const auto* value = table->get("marker")) {
        auto marker = f.marker(*value, what + ".marker");
        if (!marker) return std::move(marker.error());
        source.marker = std::move(*marker);
    }
    for (auto [key, into] :
         {std::pair{"extra", &source.extra}, std::pair{"group", &source.group}}) {
        if (const auto* value = table->get(key)) {
            auto name = f.name(*value, what + "." + key);
            if (!name) return std::move(name.error());
            *into = *name;
        }
    }
    if (!source.extra.empty() && !source.group.empty()) {
        return InputProblem{source.where, what + " is limited to an extra and a group at once",
                            "keep one of extra and group"};
    }
    out.push_back(std::move(source));
    return std::nullopt;
}

Problem read_sources(const TomlFile& f, const toml::node& node, UvSettings& out) {
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, "tool.uv.sources", problem);
    if (!table) return problem;
    for (const auto& [key, value] : *table) {
        if (!pep::is_valid_name(key.str())) {
            return InputProblem{f.at(key), "'" + std::string(key.str()) + "' is not a package name",
                                "name the package the source is for"};
        }
        const std::string package = pep::canonicalize_name(key.str());
        auto& list = out.sources[package];
        if (!list.empty()) {
            return InputProblem{f.at(key), "package '" + package + "' has two source entries",
                                "write one entry, or a list of them"};
        }
        if (const auto* array = value.as_array()) {
            for (const auto& element : *array) {
                if (auto p = read_source(f, element, package, list)) return p;
            }
        } else if (auto p = read_source(f, value, package, list)) {
            return p;
        }
    }
    return std::nullopt;
}

Problem read_indexes(const TomlFile& f, const toml::node& node, UvSettings& out) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return InputProblem{f.at(node), "tool.uv.index is not an array of tables",
                            "write each index as [[tool.uv.index]] with name and url"};
    }
    for (const auto& element : *array) {
        std::optional<InputProblem> problem;
        const auto* table = f.table(element, "tool.uv.index", problem);
        if (!table) return problem;
        if (auto unknown = f.unknown_key(
                *table,
                {"name", "url", "explicit", "default", "format", "authenticate",
                 "ignore-error-codes", "cache-control", "publish-url", "exclude-newer"},
                "[[tool.uv.index]]")) {
            return unknown;
        }
        UvIndex index;
        index.where = f.at(element);
        if (const auto* url = table->get("url")) {
            auto text = f.string(*url, "tool.uv.index.url");
            if (!text) return std::move(text.error());
            index.url = *text;
        } else {
            return InputProblem{index.where, "an index without url",
                                "give url = \"https://…/simple\""};
        }
        if (const auto* name = table->get("name")) {
            auto text = f.string(*name, "tool.uv.index.name");
            if (!text) return std::move(text.error());
            index.name = *text;
        }
        for (auto [key, into] : {std::pair{"explicit", &index.explicit_only},
                                 std::pair{"default", &index.is_default}}) {
            if (const auto* value = table->get(key)) {
                auto flag = f.boolean(*value, std::string("tool.uv.index.") + key);
                if (!flag) return std::move(flag.error());
                *into = *flag;
            }
        }
        if (const auto* format = table->get("format")) {
            auto text = f.string(*format, "tool.uv.index.format");
            if (!text) return std::move(text.error());
            if (*text != "simple" && *text != "flat") {
                return InputProblem{f.at(*format), "format '" + *text + "' is not simple or flat",
                                    "write format = \"flat\" for a find-links page or folder"};
            }
            index.flat = *text == "flat";
        }
        if (const auto* newer = table->get("exclude-newer")) {
            out.refused.push_back({"tool.uv.index.exclude-newer", f.at(*newer),
                                   "it hides files uploaded after a date; aitk-env does not "
                                   "read upload dates"});
        }
        for (const char* key :
             {"authenticate", "ignore-error-codes", "cache-control", "publish-url"}) {
            if (const auto* value = table->get(key)) {
                out.ignored.push_back({std::string("tool.uv.index.") + key, f.at(*value),
                                       "how uv talks to the index"});
            }
        }
        out.indexes.push_back(std::move(index));
    }
    return std::nullopt;
}

Problem read_conflicts(const TomlFile& f, const toml::node& node, UvSettings& out) {
    const auto* sets = node.as_array();
    if (sets == nullptr) {
        return InputProblem{f.at(node), "tool.uv.conflicts is not an array of arrays",
                            "write conflicts = [[{ extra = \"a\" }, { extra = \"b\" }]]"};
    }
    for (const auto& set : *sets) {
        const auto* items = set.as_array();
        if (items == nullptr) {
            return InputProblem{f.at(set), "a conflict set is not an array",
                                "write [{ extra = \"a\" }, { extra = \"b\" }]"};
        }
        std::vector<UvConflictItem> list;
        for (const auto& element : *items) {
            std::optional<InputProblem> problem;
            const auto* table = f.table(element, "a tool.uv.conflicts entry", problem);
            if (!table) return problem;
            if (auto unknown = f.unknown_key(*table, {"package", "extra", "group"},
                                             "a tool.uv.conflicts entry")) {
                return unknown;
            }
            UvConflictItem item;
            item.where = f.at(element);
            for (auto [key, into] :
                 {std::pair{"package", &item.package}, std::pair{"extra", &item.extra},
                  std::pair{"group", &item.group}}) {
                if (const auto* value = table->get(key)) {
                    auto name = f.name(*value, std::string("tool.uv.conflicts ") + key);
                    if (!name) return std::move(name.error());
                    *into = *name;
                }
            }
            if (item.extra.empty() == item.group.empty()) {
                return InputProblem{item.where,
                                    "a conflict entry names neither or both of an "
                                    "extra and a group",
                                    "write { extra = \"name\" } or { group = \"name\" }"};
            }
            list.push_back(std::move(item));
        }
        out.conflicts.push_back(std::move(list));
    }
    return std::nullopt;
}

// index-strategy (uv's three), resolution and prerelease: the values that match what aitk-env
// does.
Problem read_strategy(const TomlFile& f, const std::string& key, const toml::node& value,
                      UvSettings& out) {
    auto text = f.string(value, "tool.uv." + key);
    if (!text) return std::move(text.error());
    const SourceLocation where = f.at(value);
    if (key == "index-strategy") {
        // uv's three strategies, which aitk-env follows (docs/cli.md "Index strategy").
        if (*text != "first-index" && *text != "unsafe-first-match" &&
            *text != "unsafe-best-match") {
            return InputProblem{
                where, "tool.uv.index-strategy = \"" + *text + "\" is not an index strategy",
                "write \"first-index\", \"unsafe-first-match\" or "
                "\"unsafe-best-match\" (uv's names)"};
        }
        out.index_strategy = *text;
    } else if (key == "resolution") {
        if (*text != "highest") {
            out.refused.push_back({"tool.uv.resolution = \"" + *text + "\"", where,
                                   "it picks older versions; aitk-env picks the newest allowed "
                                   "(uv's highest)"});
        }
    } else if (*text == "allow") {
        out.prerelease_allow = true;
    } else if (*text != "if-necessary-or-explicit") {
        out.refused.push_back({"tool.uv.prerelease = \"" + *text + "\"", where,
                               "aitk-env takes pre-releases when allowed everywhere (\"allow\") "
                               "or, as uv's default, where a requirement names one"});
    }
    return std::nullopt;
}

Problem read_workspace(const TomlFile& f, const toml::node& node, UvSettings& out) {
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, "tool.uv.workspace", problem);
    if (!table) return problem;
    if (auto unknown = f.unknown_key(*table, {"members", "exclude"}, "[tool.uv.workspace]"))
        return unknown;
    out.workspace_where = f.at(node);
    for (auto [key, into] : {std::pair{"members", &out.workspace_members},
                             std::pair{"exclude", &out.workspace_exclude}}) {
        if (const auto* value = table->get(key)) {
            auto list = f.strings(*value, std::string("tool.uv.workspace.") + key);
            if (!list) return std::move(list.error());
            for (auto& [pattern, where] : *list)
                into->push_back(std::move(pattern));
        }
    }
    return std::nullopt;
}

// The settings that map onto pip's options (index-url, no-binary, …).
Problem read_pip_like(const TomlFile& f, const std::string& key, const toml::node& value,
                      UvSettings& out) {
    const std::string what = "tool.uv." + key;
    if (key == "index-url") {
        auto text = f.string(value, what);
        if (!text) return std::move(text.error());
        out.index_url = *text;
    } else if (key == "extra-index-url" || key == "find-links") {
        auto list = f.strings(value, what);
        if (!list) return std::move(list.error());
        for (auto& [url, where] : *list)
            (key == "find-links" ? out.find_links : out.extra_index_urls).push_back(url);
    } else if (key == "no-index" || key == "no-sources" || key == "no-binary" ||
               key == "no-build") {
        auto flag = f.boolean(value, what);
        if (!flag) return std::move(flag.error());
        if (key == "no-index") out.no_index = *flag;
        if (key == "no-sources") out.no_sources = *flag;
        if (key == "no-binary" && *flag) out.no_binary.push_back(":all:");
        if (key == "no-build" && *flag) out.only_binary.push_back(":all:");
    } else {  // no-binary-package, no-build-package, no-sources-package
        auto names = name_list(f, value, what);
        if (!names) return std::move(names.error());
        auto& into = key == "no-binary-package"  ? out.no_binary
                     : key == "no-build-package" ? out.only_binary
                                                 : out.no_sources_packages;
        into.insert(into.end(), names->begin(), names->end());
    }
    return std::nullopt;
}

}  // namespace

Loaded<std::vector<PyprojectRequirement>> read_requirement_list(const TomlFile& f,
                                                                const toml::node& node,
                                                                std::string_view what) {
    const auto* array = node.as_array();
    if (array == nullptr) {
        return util::input_problem(f.at(node),
                                   std::string(what) + " is not an array of requirements",
                                   "write [\"name>=1.0\", …]");
    }
    std::vector<PyprojectRequirement> out;
    for (const auto& element : *array) {
        auto requirement = f.requirement(element, what);
        if (!requirement) return util::Unexpected<InputProblem>(std::move(requirement.error()));
        out.push_back({f.at(element), std::move(*requirement)});
    }
    return out;
}

std::optional<InputProblem> read_uv_settings(const TomlFile& f, const toml::node& node,
                                             UvSettings& out) {
    std::optional<InputProblem> problem;
    const auto* table = f.table(node, "tool.uv", problem);
    if (!table) return problem;
    out.where = f.at(node);
    for (const auto& [key_node, value] : *table) {
        const std::string key(key_node.str());
        const SourceLocation where = f.at(key_node);
        Problem p;
        if (key == "sources") {
            p = read_sources(f, value, out);
        } else if (key == "index") {
            p = read_indexes(f, value, out);
        } else if (key == "conflicts") {
            p = read_conflicts(f, value, out);
        } else if (key == "override-dependencies" || key == "constraint-dependencies" ||
                   key == "dev-dependencies") {
            if (key == "override-dependencies" && value.is_array()) {
                for (const auto& element : *value.as_array()) {
                    if (element.is_table()) {
                        // A scoped override ({ package = …, dependencies = […] }).
                        out.refused.push_back({"tool.uv.override-dependencies (scoped)",
                                               f.at(element),
                                               "it overrides the dependencies of one package "
                                               "only; aitk-env's overrides hold everywhere"});
                    }
                }
                if (!out.refused.empty() && out.refused.back().key.ends_with("(scoped)")) continue;
            }
            auto list = read_requirement_list(f, value, "tool.uv." + key);
            if (!list) return std::move(list.error());
            (key == "override-dependencies"     ? out.override_dependencies
             : key == "constraint-dependencies" ? out.constraint_dependencies
                                                : out.dev_dependencies) = std::move(*list);
        } else if (key == "environments") {
            auto list = f.strings(value, "tool.uv.environments", true);
            if (!list) return std::move(list.error());
            for (auto& [text, at] : *list) {
                auto marker = pep::Marker::parse(text);
                if (!marker) {
                    return InputProblem{at,
                                        "tool.uv.environments: invalid marker '" + text +
                                            "': " + marker.error().message,
                                        "write markers such as sys_platform == 'linux'"};
                }
                out.environments.emplace_back(at, std::move(*marker));
            }
        } else if (key == "default-groups") {
            out.default_groups_where = where;
            if (value.is_string() && value.as_string()->get() == "all") {
                out.default_groups_all = true;
            } else {
                auto names = name_list(f, value, "tool.uv.default-groups");
                if (!names) return std::move(names.error());
                out.default_groups = std::move(*names);
            }
        } else if (key == "package") {
            auto flag = f.boolean(value, "tool.uv.package");
            if (!flag) return std::move(flag.error());
            out.package = *flag;
        } else if (key == "workspace") {
            p = read_workspace(f, value, out);
        } else if (key == "index-strategy" || key == "resolution" || key == "prerelease") {
            p = read_strategy(f, key, value, out);
        } else if (key == "index-url" || key == "extra-index-url" || key == "find-links" ||
                   key == "no-index" || key == "no-sources" || key == "no-sources-package" ||
                   key == "no-binary" || key == "no-binary-package" || key == "no-build" ||
                   key == "no-build-package") {
            p = read_pip_like(f, key, value, out);
        } else if (const auto* refused = find_policy(refused_keys, key)) {
            out.refused.push_back({"tool.uv." + key, where, std::string(refused->why)});
        } else if (const auto* ignored = find_policy(ignored_keys, key)) {
            out.ignored.push_back({"tool.uv." + key, where, std::string(ignored->why)});
        } else {
            return InputProblem{where, "unknown key '" + key + "' in [tool.uv]",
                                "uv's settings are listed at "
                                "https://docs.astral.sh/uv/reference/settings/ (a misspelt key "
                                "would change nothing in uv either; aitk-env does not guess)"};
        }
        if (p) return p;
    }
    return std::nullopt;
}

}  // namespace aitk::project::detail
