// The packages `uv sync --frozen` installs from a uv.lock (uv_lock_install.hpp).
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "aitk/lock/uv_lock_install.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

using Work = std::pair<std::size_t, std::string>;  // (package, extra or "" for its own deps)

const std::vector<UvDependency>& edges_of(const UvPackage& package, const std::string& extra) {
    static const std::vector<UvDependency> none;
    if (extra.empty()) return package.dependencies;
    auto found = package.optional_dependencies.find(extra);
    return found == package.optional_dependencies.end() ? none : found->second;
}

// Whether the edge's marker holds here with `active` conflict items (and `more`).
bool holds(const std::shared_ptr<const pep::Marker>& marker, const pep::MarkerEnvironment& env,
           const std::vector<std::string>& active) {
    if (!marker) return true;
    auto result = marker->evaluate(env, active);
    // A comparison packaging cannot evaluate (a version comparison with a value that is not a
    // version) holds nowhere: uv's marker algebra never satisfies it either.
    return result && *result;
}

class Walk {
  public:
    Walk(const UvLock& lock, const pep::MarkerEnvironment& env) : lock_(lock), env_(env) {}

    util::Expected<UvInstallSet, std::string> run(const UvSelection& selection) {
        install_project_ = selection.install_project;
        const auto roots = lock_.roots();
        if (roots.empty()) {
            return util::Unexpected<std::string>(
                "the lock has no workspace root (no editable, virtual or directory package at "
                "\".\" and no `[manifest] members`)");
        }
        if (auto problem = check_selection(roots, selection)) {
            return util::Unexpected<std::string>(*problem);
        }
        const bool conflicts = !lock_.conflicts.empty();
        std::vector<std::pair<std::size_t, std::string>> active_extras;

        for (auto root : roots) {
            const auto& package = lock_.packages[root];
            node(root).root = true;
            for (const auto& extra : root_extras(package, selection)) {
                node(root).extras.insert(extra);
                active_extras.emplace_back(root, extra);
            }
            if (conflicts) {
                activate(uv_conflict_extra({package.name, "", ""}));
                for (const auto& extra : root_extras(package, selection))
                    activate(uv_conflict_extra({package.name, extra, ""}));
                for (const auto& [group, deps] : package.dependency_groups) {
                    if (group_wanted(group, selection))
                        activate(uv_conflict_extra({package.name, "", group}));
                }
            }
        }
        for (auto root : roots) {
            push(root, "");
            for (const auto& extra : node(root).extras)
                push(root, extra);
        }
        // Dependency groups hang from the roots directly.
        for (auto root : roots) {
            const auto& package = lock_.packages[root];
            for (const auto& [group, deps] : package.dependency_groups) {
                if (!group_wanted(group, selection)) continue;
                for (const auto& dep : deps) {
                    auto enabled = newly_enabled(dep);
                    auto with = active_;
                    with.insert(with.end(), enabled.begin(), enabled.end());
                    if (!holds(dep.marker, env_, with)) continue;
                    for (auto& e : enabled)
                        activate(e);
                    take_edge(root, dep);
                }
            }
        }
        if (conflicts) {
            discover_extras();
            if (auto clash = conflict_clash()) return util::Unexpected<std::string>(*clash);
        }
        std::sort(active_.begin(), active_.end());
        while (!queue_.empty()) {
            auto [package, extra] = queue_.front();
            queue_.pop_front();
            for (const auto& dep : edges_of(lock_.packages[package], extra)) {
                if (!holds(dep.marker, env_, active_)) continue;
                take_edge(package, dep);
            }
        }
        return finish();
    }

  private:
    struct Node {
        std::set<std::string> extras;
        std::set<std::size_t> dependencies;
        bool root = false;
        bool direct = false;
    };

    std::vector<std::string> root_extras(const UvPackage& package,
                                         const UvSelection& selection) const {
        std::vector<std::string> out;
        for (const auto& [extra, deps] : package.optional_dependencies) {
            if (selection.all_extras || std::find(selection.extras.begin(), selection.extras.end(),
                                                  extra) != selection.extras.end()) {
                out.push_back(extra);
            }
        }
        // An extra the metadata provides without dependencies still counts as chosen.
        for (const auto& extra : selection.extras) {
            if (!package.optional_dependencies.count(extra) &&
                std::find(package.metadata.provides_extras.begin(),
                          package.metadata.provides_extras.end(),
                          extra) != package.metadata.provides_extras.end()) {
                out.push_back(extra);
            }
        }
        return out;
    }

    static bool group_wanted(const std::string& group, const UvSelection& selection) {
        auto in = [&](const std::vector<std::string>& list) {
            return std::find(list.begin(), list.end(), group) != list.end();
        };
        if (in(selection.groups)) return true;
        if (selection.no_default_groups) return false;
        return selection.all_default_groups || in(selection.default_groups);
    }

    std::optional<std::string> check_selection(const std::vector<std::size_t>& roots,
                                               const UvSelection& selection) const {
        for (const auto& extra : selection.extras) {
            bool known = false;
            for (auto root : roots) {
                const auto& p = lock_.packages[root];
                const auto& provided = p.metadata.provides_extras;
                known |= p.optional_dependencies.count(extra) > 0 ||
                         std::find(provided.begin(), provided.end(), extra) != provided.end();
            }
            if (!known) {
                return "extra '" + extra + "' is not defined by the project (" +
                       describe_roots(roots) + " offers " + offered_extras(roots) + ")";
            }
        }
        for (const auto& group : selection.groups) {
            bool known = false;
            for (auto root : roots) {
                const auto& p = lock_.packages[root];
                known |= p.dependency_groups.count(group) > 0 ||
                         p.metadata.requires_dev.count(group) > 0;
            }
            if (!known) {
                return "dependency group '" + group + "' is not defined by the project (" +
                       describe_roots(roots) + ")";
            }
        }
        return std::nullopt;
    }

    std::string describe_roots(const std::vector<std::size_t>& roots) const {
        std::vector<std::string> names;
        for (auto r : roots)
            names.push_back(lock_.packages[r].name);
        return util::join(names, ", ");
    }

    std::string offered_extras(const std::vector<std::size_t>& roots) const {
        std::set<std::string> all;
        for (auto r : roots) {
            for (const auto& [extra, deps] : lock_.packages[r].optional_dependencies)
                all.insert(extra);
            for (const auto& extra : lock_.packages[r].metadata.provides_extras)
                all.insert(extra);
        }
        if (all.empty()) return "no extras";
        return util::join(std::vector<std::string>(all.begin(), all.end()), ", ");
    }

    Node& node(std::size_t package) { return nodes_[package]; }

    void activate(const std::string& item) {
        if (std::find(active_.begin(), active_.end(), item) == active_.end())
            active_.push_back(item);
    }

    // The conflict items an edge's own extras turn on that are not on yet.
    std::vector<std::string> newly_enabled(const UvDependency& dep) const {
        std::vector<std::string> out;
        for (const auto& extra : dep.extras) {
            auto item = uv_conflict_extra({dep.name, extra, ""});
            if (std::find(active_.begin(), active_.end(), item) == active_.end())
                out.push_back(std::move(item));
        }
        return out;
    }

    void push(std::size_t package, const std::string& extra) {
        if (seen_.emplace(package, extra).second) {
            queue_.emplace_back(package, extra);
        }
    }

    void take_edge(std::size_t from, const UvDependency& dep) {
        node(from).dependencies.insert(dep.package);
        auto& target = node(dep.package);
        if (node(from).root) target.direct = true;
        push(dep.package, "");
        for (const auto& extra : dep.extras) {
            target.extras.insert(extra);
            push(dep.package, extra);
        }
    }

    // The first walk: every extra some reachable edge enables becomes an active conflict item,
    // so that the second walk evaluates each edge knowing them all.
    void discover_extras() {
        std::deque<Work> queue(queue_.begin(), queue_.end());
        std::set<Work> seen(seen_.begin(), seen_.end());
        while (!queue.empty()) {
            auto [package, extra] = queue.front();
            queue.pop_front();
            for (const auto& dep : edges_of(lock_.packages[package], extra)) {
                auto enabled = newly_enabled(dep);
                auto with = active_;
                with.insert(with.end(), enabled.begin(), enabled.end());
                if (!holds(dep.marker, env_, with)) continue;
                for (auto& e : enabled)
                    activate(e);
                if (seen.emplace(dep.package, "").second) queue.emplace_back(dep.package, "");
                for (const auto& e : dep.extras) {
                    if (seen.emplace(dep.package, e).second) queue.emplace_back(dep.package, e);
                }
            }
        }
    }

    std::optional<std::string> conflict_clash() const {
        for (const auto& set : lock_.conflicts) {
            std::vector<const UvConflictItem*> on;
            for (const auto& item : set) {
                if (item.extra.empty()) continue;  // uv checks extras here
                if (std::find(active_.begin(), active_.end(), uv_conflict_extra(item)) !=
                    active_.end())
                    on.push_back(&item);
            }
            if (on.size() >= 2) {
                return "extras '" + on[0]->extra + "' of " + on[0]->package + " and '" +
                       on[1]->extra + "' of " + on[1]->package +
                       " are declared in conflict (uv.lock `conflicts`): choose one of them";
            }
        }
        return std::nullopt;
    }

    // The walk's packages; without the project (--no-install-project) the roots are left out,
    // their dependencies stay.
    util::Expected<UvInstallSet, std::string> finish() {
        UvInstallSet out;
        std::map<std::string, std::size_t> by_name;
        auto left_out = [&](std::size_t index) {
            return !install_project_ && nodes_.at(index).root;
        };
        for (const auto& [index, n] : nodes_) {
            if (left_out(index)) continue;
            const auto& package = lock_.packages[index];
            auto [at, fresh] = by_name.emplace(package.name, index);
            if (!fresh) {
                return util::Unexpected<std::string>(
                    "two versions of " + package.name + " apply here (" +
                    lock_.packages[at->second].label() + " and " + package.label() +
                    "): the lock does not fit this environment");
            }
            UvSelectedPackage selected;
            selected.package = index;
            selected.extras.assign(n.extras.begin(), n.extras.end());
            for (auto d : n.dependencies) {
                if (d != index && !left_out(d)) selected.dependencies.push_back(d);
            }
            selected.root = n.root;
            selected.direct = n.direct;
            out.packages.push_back(std::move(selected));
        }
        out.active = active_;
        std::sort(out.active.begin(), out.active.end());
        return out;
    }

    const UvLock& lock_;
    const pep::MarkerEnvironment& env_;
    std::map<std::size_t, Node> nodes_;  // ordered: the lock's order
    std::vector<std::string> active_;
    std::deque<Work> queue_;
    std::set<Work> seen_;
    bool install_project_ = true;
};

}  // namespace

util::Expected<UvInstallSet, std::string> select_uv_packages(const UvLock& lock,
                                                             const pep::MarkerEnvironment& env,
                                                             const UvSelection& selection) {
    return Walk(lock, env).run(selection);
}

}  // namespace aitk::lock
