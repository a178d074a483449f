#include "uv_lock_graph.hpp"

#include <toml++/toml.h>

#include <map>
#include <regex>
#include <stdexcept>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/name.hpp"

namespace aitk::test {

namespace {

struct Package {
    const toml::table* table = nullptr;
    std::string name;  // normalised
    std::string version;
    std::string registry;  // the source's registry URL; empty for the root
};

std::string text_of(const toml::table& t, std::string_view key) {
    if (const auto* v = t.get(key); v && v->is_string()) return v->as_string()->get();
    return {};
}

const toml::array* array_of(const toml::table& t, std::string_view key) {
    const auto* v = t.get(key);
    return v ? v->as_array() : nullptr;
}

// "simple" for PyPI, "whl/<backend>" for a PyTorch backend index.
std::string index_of(const std::string& registry) {
    static const std::regex backend(R"(^https?://[^/]+/whl/([a-z0-9.]+)/?$)");
    std::smatch m;
    if (std::regex_match(registry, m, backend)) return "whl/" + m[1].str();
    if (registry.rfind("https://pypi.org/simple", 0) == 0) return "simple";
    throw std::runtime_error("uv.lock: a package from " + registry +
                             ", neither PyPI nor a PyTorch backend index");
}

struct Lock {
    toml::table document;
    std::map<std::string, std::vector<Package>> by_name;
    Package root;
};

Lock read_lock(const std::string& text) {
    Lock lock;
    try {
        lock.document = toml::parse(std::string_view(text), std::string_view("uv.lock"));
    } catch (const toml::parse_error& e) {
        throw std::runtime_error("uv.lock: " + std::string(e.description()));
    }
    const auto* packages = array_of(lock.document, "package");
    if (!packages) throw std::runtime_error("uv.lock: no [[package]]");
    for (const auto& node : *packages) {
        const auto* t = node.as_table();
        if (!t) continue;
        Package p;
        p.table = t;
        p.name = pep::canonicalize_name(text_of(*t, "name"));
        p.version = text_of(*t, "version");
        const auto* source = t->get("source") ? t->get("source")->as_table() : nullptr;
        if (source && (source->get("editable") || source->get("virtual"))) {
            lock.root = p;
            continue;
        }
        if (source) p.registry = text_of(*source, "registry");
        lock.by_name[p.name].push_back(p);
    }
    if (!lock.root.table) throw std::runtime_error("uv.lock: no editable or virtual root");
    return lock;
}

// "name[extras]==version ; marker" for one edge of the lock.
std::string edge_requirement(const Lock& lock, const toml::table& dep, const std::string& extra) {
    std::string text = text_of(dep, "name");
    if (const auto* extras = array_of(dep, "extra"); extras && !extras->empty()) {
        std::vector<std::string> names;
        for (const auto& e : *extras)
            names.push_back(e.as_string()->get());
        std::sort(names.begin(), names.end());
        text += "[";
        for (std::size_t i = 0; i < names.size(); ++i)
            text += (i ? "," : "") + names[i];
        text += "]";
    }
    auto it = lock.by_name.find(pep::canonicalize_name(text_of(dep, "name")));
    if (it != lock.by_name.end() && it->second.size() > 1 && !text_of(dep, "version").empty())
        text += "==" + text_of(dep, "version");
    std::string marker = text_of(dep, "marker");
    if (!extra.empty()) {
        const std::string extra_marker = "extra == \"" + extra + "\"";
        marker = marker.empty() ? extra_marker : "(" + marker + ") and " + extra_marker;
    }
    if (!marker.empty()) text += " ; " + marker;
    return text;
}

pep::MarkerEnvironment environment_of(const UvLockPlatform& p) {
    using V = pep::MarkerVariable;
    pep::MarkerEnvironment env;
    const bool windows = p.sys_platform == "win32";
    env.set(V::sys_platform, p.sys_platform);
    env.set(V::platform_system, windows                     ? "Windows"
                                : p.sys_platform == "linux" ? "Linux"
                                                            : "Darwin");
    env.set(V::platform_machine, p.machine);
    env.set(V::os_name, windows ? "nt" : "posix");
    env.set(V::python_full_version, p.python);
    env.set(V::python_version, p.python.substr(0, p.python.rfind('.')));
    env.set(V::implementation_name, "cpython");
    env.set(V::implementation_version, p.python);
    env.set(V::platform_python_implementation, "CPython");
    return env;
}

bool applies(const std::string& marker, const pep::MarkerEnvironment& env,
             const std::string& extra = {}) {
    if (marker.empty()) return true;
    auto parsed = pep::Marker::parse(marker);
    if (!parsed) throw std::runtime_error("uv.lock: marker " + marker);
    std::vector<std::string> extras;
    if (!extra.empty()) extras.push_back(extra);
    auto result = parsed->evaluate(env, extras);
    return result && *result;
}

}  // namespace

UvLockScenario uv_lock_scenario(const std::string& uv_lock_text) {
    const Lock lock = read_lock(uv_lock_text);
    UvLockScenario out;
    out.root = lock.root.name;
    out.scenario["indexes"] = {{"simple", {{"pep658", true}}}};
    out.scenario["wheels"] = nlohmann::json::array();
    for (const auto& [name, versions] : lock.by_name) {
        for (const auto& p : versions) {
            const std::string index = index_of(p.registry);
            if (index.rfind("whl/", 0) == 0) {
                out.scenario["indexes"][index] = {{"style", "pytorch"}, {"pep658", true}};
                const std::string backend = index.substr(4);
                if (std::find(out.backends.begin(), out.backends.end(), backend) ==
                    out.backends.end()) {
                    out.backends.push_back(backend);
                }
            }
            std::vector<std::string> requires_dist;
            if (const auto* deps = array_of(*p.table, "dependencies")) {
                for (const auto& d : *deps)
                    requires_dist.push_back(edge_requirement(lock, *d.as_table(), {}));
            }
            std::vector<std::string> extras;
            if (const auto* optional = p.table->get("optional-dependencies")) {
                for (const auto& [extra, list] : *optional->as_table()) {
                    extras.emplace_back(extra.str());
                    for (const auto& d : *list.as_array()) {
                        requires_dist.push_back(
                            edge_requirement(lock, *d.as_table(), std::string(extra.str())));
                    }
                }
            }
            // Wheels grouped by (distribution, version, build tag) as their file names say.
            std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>>
                groups;
            if (const auto* wheels = array_of(*p.table, "wheels")) {
                for (const auto& w : *wheels) {
                    std::string url = text_of(*w.as_table(), "url");
                    std::string file = url.substr(url.rfind('/') + 1);
                    for (auto at = file.find("%2B"); at != std::string::npos; at = file.find("%2B"))
                        file.replace(at, 3, "+");
                    file = file.substr(0, file.size() - 4);  // ".whl"
                    std::vector<std::string> parts;
                    for (std::size_t start = 0;;) {
                        auto dash = file.find('-', start);
                        parts.push_back(file.substr(start, dash - start));
                        if (dash == std::string::npos) break;
                        start = dash + 1;
                    }
                    const bool build = parts.size() == 6;
                    std::string tag = parts[build ? 3 : 2] + "-" + parts[build ? 4 : 3] + "-" +
                                      parts[build ? 5 : 4];
                    groups[{parts[0], parts[1], build ? parts[2] : ""}].push_back(tag);
                }
            }
            if (groups.empty()) {
                // sdist only: a pure wheel of the same name and version stands in.
                groups[{name, p.version, ""}] = {"py3-none-any"};
            }
            for (const auto& [key, tags] : groups) {
                out.scenario["wheels"].push_back({{"index", index},
                                                  {"name", std::get<0>(key)},
                                                  {"version", std::get<1>(key)},
                                                  {"build_tag", std::get<2>(key)},
                                                  {"tags", tags},
                                                  {"requires_dist", requires_dist},
                                                  {"provides_extra", extras}});
            }
        }
    }
    std::sort(out.backends.begin(), out.backends.end());
    return out;
}

std::set<std::string> uv_lock_choice(const std::string& uv_lock_text,
                                     const UvLockPlatform& platform,
                                     const std::vector<std::string>& groups) {
    const Lock lock = read_lock(uv_lock_text);
    const auto env = environment_of(platform);
    std::vector<const toml::table*> todo;
    auto take_edges = [&](const toml::array* list, const std::string& extra) {
        if (!list) return;
        for (const auto& d : *list) {
            const auto& t = *d.as_table();
            if (applies(text_of(t, "marker"), env, extra)) todo.push_back(&t);
        }
    };
    take_edges(array_of(*lock.root.table, "dependencies"), {});
    if (const auto* dev = lock.root.table->get("dev-dependencies")) {
        for (const auto& group : groups)
            take_edges(array_of(*dev->as_table(), group), {});
    }
    std::map<std::string, std::string> chosen;
    std::set<std::pair<std::string, std::vector<std::string>>> seen;
    while (!todo.empty()) {
        const toml::table& dep = *todo.back();
        todo.pop_back();
        const std::string name = pep::canonicalize_name(text_of(dep, "name"));
        const auto& versions = lock.by_name.at(name);
        const Package* p = &versions.front();
        if (versions.size() > 1) {
            p = nullptr;
            for (const auto& v : versions) {
                if (v.version != text_of(dep, "version")) continue;
                const auto* source = dep.get("source") ? dep.get("source")->as_table() : nullptr;
                if (source && text_of(*source, "registry") != v.registry) continue;
                p = &v;
            }
            if (!p) throw std::runtime_error("uv.lock: which " + name + " does an edge mean?");
        }
        std::vector<std::string> extras;
        if (const auto* list = array_of(dep, "extra")) {
            for (const auto& e : *list)
                extras.push_back(e.as_string()->get());
        }
        std::sort(extras.begin(), extras.end());
        if (!seen.insert({name + "==" + p->version, extras}).second) continue;
        auto [it, fresh] = chosen.emplace(name, p->version);
        if (!fresh && it->second != p->version)
            throw std::runtime_error("uv.lock: two versions of " + name + " chosen");
        take_edges(array_of(*p->table, "dependencies"), {});
        if (const auto* optional = p->table->get("optional-dependencies")) {
            for (const auto& extra : extras)
                take_edges(array_of(*optional->as_table(), extra), extra);
        }
    }
    std::set<std::string> out;
    for (const auto& [name, version] : chosen)
        out.insert(name + "==" + version);
    return out;
}

}  // namespace aitk::test
