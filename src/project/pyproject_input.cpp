// A parsed pyproject.toml and the user's selection (extras, groups, the project itself) → the
// ProjectInput: requirement lines with where they apply, the torch builds the sources name as
// the input's backends, uv's constraints, overrides and environments, and the indexes.
#include <algorithm>
#include <set>

#include "aitk/pep/name.hpp"
#include "aitk/project/pyproject.hpp"
#include "aitk/project/torch_pins.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "input_render.hpp"
#include "pyproject_convert.hpp"
#include "requirements_entry.hpp"

namespace aitk::project {

namespace {

using detail::BackendCandidate;
using detail::BackendPlan;
using detail::PlatformSet;
using detail::PyprojectContext;
using detail::RequirementTables;
using detail::tables_of;

constexpr std::string_view pypi_simple = "https://pypi.org/simple";

std::string list_or_none(const std::vector<std::string>& names) {
    return names.empty() ? std::string("none") : util::join(names, ", ");
}

template <class Map>
std::vector<std::string> keys_of(const Map& map) {
    std::vector<std::string> out;
    for (const auto& [key, value] : map)
        out.push_back(key);
    return out;
}

// Best first, as the backend choice ranks them: CUDA (newest first), ROCm, XPU, MPS, CPU.
bool better_backend(const std::string& a, const std::string& b) {
    auto rank = [](const std::string& name) {
        if (name.starts_with("cu")) return std::pair{0, -std::atol(name.c_str() + 2) * 100};
        if (name.starts_with("rocm")) {
            auto v = pep::Version::parse(name.substr(4));
            return std::pair{1, v ? -static_cast<long>(v->major() * 100 + v->minor()) : 0L};
        }
        if (name == "xpu") return std::pair{2, 0L};
        if (name == "mps") return std::pair{3, 0L};
        return std::pair{4, 0L};
    };
    return rank(a) < rank(b);
}

std::string render(const Applicability& a) {
    return "os=" + util::join(a.os, ",") + " arch=" + util::join(a.arch, ",") +
           " backends=" + util::join(a.backends, ",");
}

// Each line with where it applies: what decides the lock.
std::string render_input_lines(const std::vector<InputRequirement>& lines,
                               std::string_view prefix) {
    std::string out;
    for (const auto& r : lines)
        out += "[" + render(r.when) + "] " + detail::render_lines({r.line}, prefix);
    return out;
}

// `requirement` under `outer` too: "name[extras]spec ; (its marker) and (outer)".
Loaded<pep::Requirement> with_marker(const pep::Requirement& requirement, const pep::Marker& outer,
                                     const SourceLocation& where) {
    std::string text = requirement.name();
    if (!requirement.extras().empty()) text += "[" + util::join(requirement.extras(), ",") + "]";
    if (requirement.url()) {
        text += " @ " + *requirement.url() + " ";
    } else {
        text += requirement.specifier().to_string();
    }
    text += "; ";
    if (requirement.marker()) text += "(" + requirement.marker()->to_string() + ") and ";
    text += "(" + outer.to_string() + ")";
    auto parsed = pep::Requirement::parse(text);
    if (!parsed) {
        return util::input_problem(
            where, "cannot combine the markers of '" + text + "': " + parsed.error().describe(),
            "simplify the markers");
    }
    return std::move(*parsed);
}

class Conversion {
  public:
    Conversion(const Pyproject& p, const PyprojectSelection& s, const pep::CoreMetadata* built)
        : p_(p), selection_(s), built_(built), context_{p, p.file.parent_path(), {}, {}, nullptr} {}

    Loaded<ProjectInput> run() {
        if (auto ok = check_file(); !ok)
            return util::Unexpected<InputProblem>(std::move(ok.error()));
        context_.notes = &in_.notes;
        for (const auto& index : p_.uv.indexes) {
            if (!index.name.empty()) context_.indexes[index.name] = &index;
        }
        context_.default_index_url = default_index();
        auto tables = tables_of(p_, selection_, built_, in_.notes);
        if (!tables) return util::Unexpected<InputProblem>(std::move(tables.error()));
        tables_ = std::move(*tables);
        if (!p_.uv.dev_dependencies.empty()) {
            // uv joins tool.uv.dev-dependencies to the dev group.
            auto& dev = groups_["dev"];
            for (const auto& r : p_.uv.dev_dependencies)
                dev.push_back({r.where, r.requirement, {}});
        }
        for (const auto& [name, items] : p_.groups) {
            auto& group = groups_[name];
            group.insert(group.begin(), items.begin(), items.end());
        }
        auto plan = detail::plan_backends(context_);
        if (!plan) return util::Unexpected<InputProblem>(std::move(plan.error()));
        plan_ = std::move(*plan);
        if (needs_members()) {
            auto members = detail::workspace_members(context_);
            if (!members) return util::Unexpected<InputProblem>(std::move(members.error()));
            members_ = std::move(*members);
        }
        for (auto step :
             {&Conversion::select, &Conversion::check_conflicts, &Conversion::share_backends,
              &Conversion::add_tables, &Conversion::add_uv_lists}) {
            if (auto problem = (this->*step)())
                return util::Unexpected<InputProblem>(std::move(*problem));
        }
        fill_backends();
        fill_options();
        fill_platforms();
        finish();
        return std::move(in_);
    }

  private:
    Loaded<bool> check_file() const {
        if (!p_.has_project) {
            return util::input_problem(
                SourceLocation{p_.label, 0, 0},
                "the file has no [project] table, so it names no dependencies",
                "add [project] with name and dependencies (PEP 621), or give the project's "
                "requirements file with -r");
        }
        if (!p_.uv.refused.empty()) {
            // The first in the file (toml++ hands tables over in key order).
            const auto& key = *std::min_element(p_.uv.refused.begin(), p_.uv.refused.end(),
                                                [](const auto& a, const auto& b) {
                                                    return std::pair(a.where.line, a.where.column) <
                                                           std::pair(b.where.line, b.where.column);
                                                });
            return util::input_problem(key.where,
                                       key.key + " is not supported by aitk-env: " + key.why +
                                           ", so ignoring it would change what gets installed",
                                       "remove it from the file (and check what the environment "
                                       "then holds), or install this project with uv");
        }
        return true;
    }

    // PyPI unless an index says default = true or tool.uv.index-url names another.
    std::string default_index() const {
        for (const auto& index : p_.uv.indexes) {
            if (index.is_default) return index.url;
        }
        return p_.uv.index_url.value_or(std::string(pypi_simple));
    }

    bool needs_members() const {
        for (const auto& [name, list] : p_.uv.sources) {
            for (const auto& s : list) {
                if (s.kind == UvSourceKind::workspace) return true;
            }
        }
        return false;
    }

    bool group_exists(const std::string& group) const { return groups_.count(group) > 0; }

    // The extras and groups the user's flags and the defaults enable.
    std::optional<InputProblem> select() {
        const SourceLocation file{p_.label, 0, 0};
        std::set<std::string> forced;  // backends the user named through an extra or a group
        for (const auto& given : selection_.extras) {
            const std::string extra = pep::canonicalize_name(given);
            if (!tables_.extras.count(extra)) {
                return InputProblem{file,
                                    "--extra " + given + ": the project defines no such extra",
                                    "its extras: " + list_or_none(keys_of(tables_.extras))};
            }
            user_extras_.insert(extra);
            for (const auto* c : plan_.of_extra(extra)) {
                forced.insert(c->backend);
                forced_by_ = "--extra " + given;
            }
        }
        if (selection_.all_extras) {
            for (const auto& [extra, list] : tables_.extras) {
                if (plan_.of_extra(extra).empty()) user_extras_.insert(extra);
            }
        }
        for (const auto& given : selection_.groups) {
            const std::string group = pep::canonicalize_name(given);
            if (!group_exists(group)) {
                return InputProblem{file,
                                    "--group " + given + ": the project defines no such group",
                                    "its groups: " + list_or_none(keys_of(groups_))};
            }
            user_groups_.insert(group);
            for (const auto* c : plan_.of_group(group)) {
                forced.insert(c->backend);
                forced_by_ = "--group " + given;
            }
        }
        if (forced.size() > 1) {
            return InputProblem{
                file,
                "the extras and groups asked for take torch from " +
                    util::join(std::vector<std::string>(forced.begin(), forced.end()), " and ") +
                    " at once",
                "ask for one backend's extra or group"};
        }
        if (forced.size() == 1) forced_backend_ = *forced.begin();
        if (!selection_.no_default_groups) {
            std::vector<std::string> defaults;
            if (p_.uv.default_groups_all) {
                defaults = keys_of(groups_);
            } else if (p_.uv.default_groups) {
                defaults = *p_.uv.default_groups;
            } else if (group_exists("dev")) {
                defaults = {"dev"};
            }
            for (const auto& group : defaults) {
                if (!group_exists(group)) {
                    return InputProblem{p_.uv.default_groups_where,
                                        "tool.uv.default-groups names the group '" + group +
                                            "', which [dependency-groups] does not define",
                                        "define it, or remove it from default-groups"};
                }
                if (!plan_.of_group(group).empty() && !user_groups_.count(group)) {
                    in_.notes.push_back("the default group '" + group +
                                        "' picks a torch build; aitk-env picks the group of the "
                                        "build this machine runs instead (--group " +
                                        group + " insists on it)");
                    continue;
                }
                user_groups_.insert(group);
            }
        }
        return std::nullopt;
    }

    // uv's conflicts: every item must exist, and two enabled items of one set are refused. A
    // backend extra (or group) that conflicts with an enabled one is no candidate any more.
    std::optional<InputProblem> check_conflicts() {
        for (const auto& set : p_.uv.conflicts) {
            const UvConflictItem* enabled = nullptr;
            for (const auto& item : set) {
                if (!item.package.empty() && item.package != p_.name) continue;
                const bool is_extra = !item.extra.empty();
                const std::string& name = is_extra ? item.extra : item.group;
                if (is_extra ? !tables_.extras.count(name) : !group_exists(name)) {
                    return InputProblem{
                        item.where,
                        "tool.uv.conflicts names the " + std::string(is_extra ? "extra" : "group") +
                            " '" + name + "', which the project does not define",
                        "its " + std::string(is_extra ? "extras" : "groups") + ": " +
                            list_or_none(is_extra ? keys_of(tables_.extras) : keys_of(groups_))};
                }
                const bool on =
                    is_extra ? user_extras_.count(name) > 0 : user_groups_.count(name) > 0;
                if (!on) continue;
                if (enabled) {
                    return InputProblem{
                        item.where,
                        "'" + name + "' and '" +
                            (enabled->extra.empty() ? enabled->group : enabled->extra) +
                            "' are declared conflicting (tool.uv.conflicts) and "
                            "cannot be enabled together",
                        "ask for one of them"};
                }
                enabled = &item;
            }
            // A backend the user named is chosen anyway; the others stay for the messages.
            if (!enabled || !plan_.of_extra(enabled->extra).empty() ||
                !plan_.of_group(enabled->group).empty()) {
                continue;
            }
            for (const auto& item : set) {
                if (&item == enabled) continue;
                auto& list = plan_.candidates;
                const auto before = list.size();
                list.erase(
                    std::remove_if(list.begin(), list.end(),
                                   [&](const BackendCandidate& c) {
                                       return (!item.extra.empty() && c.extra == item.extra) ||
                                              (!item.group.empty() && c.group == item.group);
                                   }),
                    list.end());
                if (list.size() != before) {
                    in_.notes.push_back("'" + (item.extra.empty() ? item.group : item.extra) +
                                        "' conflicts with '" +
                                        (enabled->extra.empty() ? enabled->group : enabled->extra) +
                                        "', which is enabled: its torch build is not considered");
                }
            }
        }
        return std::nullopt;
    }

    // Several extras (or groups) taking torch from one backend (AReaL's cuda and sglang, both
    // cu129): the hardware cannot choose between them, so only the one the user names is
    // enabled with that backend, and without one none is (the backend itself still holds).
    std::optional<InputProblem> share_backends() {
        std::map<std::string, std::set<std::string>> by_backend;
        for (const auto& c : plan_.candidates) {
            if (!c.extra.empty()) by_backend[c.backend].insert("extra '" + c.extra + "'");
            if (!c.group.empty()) by_backend[c.backend].insert("group '" + c.group + "'");
        }
        for (const auto& [backend, selectors] : by_backend) {
            if (selectors.size() < 2) continue;
            bool chosen = false;
            for (const auto& c : plan_.candidates) {
                if (c.backend == backend &&
                    (user_extras_.count(c.extra) || user_groups_.count(c.group)))
                    chosen = true;
            }
            for (const auto& c : plan_.candidates) {
                if (c.backend != backend) continue;
                const bool named = user_extras_.count(c.extra) || user_groups_.count(c.group);
                if (!named)
                    skipped_.insert(c.extra.empty() ? "group:" + c.group : "extra:" + c.extra);
            }
            if (!chosen) {
                in_.notes.push_back(
                    util::join(std::vector<std::string>(selectors.begin(), selectors.end()),
                               " and ") +
                    " all take torch from " + backend +
                    ": none of them is enabled (pass --extra or --group to enable "
                    "one)");
            }
        }
        return std::nullopt;
    }

    // Where the requirements of a backend extra or group apply: with that backend, on the
    // platforms its source covers.
    std::vector<Applicability> backend_when(
        const std::vector<const BackendCandidate*>& list) const {
        std::vector<Applicability> out;
        for (const auto* c : list) {
            for (auto& a : detail::applicabilities(c->platforms, {c->backend}))
                out.push_back(std::move(a));
        }
        return out;
    }

    std::optional<InputProblem> add_list(const std::vector<PyprojectRequirement>& list,
                                         const std::string& extra, const std::string& group,
                                         const std::vector<Applicability>& when,
                                         std::set<std::string>& visiting) {
        for (const auto& r : list) {
            if (r.requirement.canonical_name() == p_.name) {
                if (auto problem = add_self_reference(r, when, visiting)) return problem;
                continue;
            }
            if (auto problem = detail::add_with_sources(context_, plan_, members_, r, extra, group,
                                                        when, in_.requirements)) {
                return problem;
            }
        }
        return std::nullopt;
    }

    // `name[extra]` in the project's own lists: the extra's requirements, under the reference's
    // marker too.
    std::optional<InputProblem> add_self_reference(const PyprojectRequirement& r,
                                                   const std::vector<Applicability>& when,
                                                   std::set<std::string>& visiting) {
        for (const auto& given : r.requirement.extras()) {
            const std::string extra = pep::canonicalize_name(given);
            auto it = tables_.extras.find(extra);
            if (it == tables_.extras.end()) {
                return InputProblem{r.where,
                                    r.requirement.to_string() + " names the extra '" + given +
                                        "', which the project does not define",
                                    "its extras: " + list_or_none(keys_of(tables_.extras))};
            }
            if (!visiting.insert(extra).second) continue;  // a cycle of extras: met
            std::vector<PyprojectRequirement> nested;
            for (const auto& inner : it->second) {
                if (!r.requirement.marker()) {
                    nested.push_back(inner);
                    continue;
                }
                auto combined = with_marker(inner.requirement, *r.requirement.marker(), r.where);
                if (!combined) return std::move(combined.error());
                nested.push_back({inner.where, std::move(*combined)});
            }
            auto backend = plan_.of_extra(extra);
            auto problem = add_list(nested, extra, {},
                                    backend.empty() ? when : backend_when(backend), visiting);
            visiting.erase(extra);
            if (problem) return problem;
        }
        return std::nullopt;
    }

    // PEP 735 include-group, cycles refused.
    std::optional<InputProblem> add_group(const std::string& group,
                                          const std::vector<Applicability>& when,
                                          std::vector<std::string>& chain) {
        if (std::find(chain.begin(), chain.end(), group) != chain.end()) {
            chain.push_back(group);
            return InputProblem{p_.group_where.count(group) ? p_.group_where.at(group)
                                                            : SourceLocation{p_.label, 0, 0},
                                "dependency groups include each other: " + util::join(chain, " → "),
                                "break the cycle of include-group entries"};
        }
        chain.push_back(group);
        std::vector<PyprojectRequirement> list;
        for (const auto& item : groups_.at(group)) {
            if (item.requirement) {
                list.push_back({item.where, *item.requirement});
                continue;
            }
            if (!group_exists(item.include_group)) {
                return InputProblem{item.where,
                                    "include-group names '" + item.include_group +
                                        "', which [dependency-groups] does not define",
                                    "its groups: " + list_or_none(keys_of(groups_))};
            }
            if (auto problem = add_group(item.include_group, when, chain)) return problem;
        }
        std::set<std::string> visiting;
        auto problem = add_list(list, {}, group, when, visiting);
        chain.pop_back();
        return problem;
    }

    std::optional<InputProblem> add_tables() {
        const std::vector<Applicability> everywhere{Applicability{}};
        std::set<std::string> visiting;
        if (auto problem = add_list(tables_.dependencies, {}, {}, everywhere, visiting))
            return problem;
        for (const auto& [extra, list] : tables_.extras) {
            auto backend = plan_.of_extra(extra);
            std::vector<Applicability> when;
            if (skipped_.count("extra:" + extra)) {
                continue;
            } else if (!backend.empty()) {
                when = backend_when(backend);
            } else if (user_extras_.count(extra)) {
                when = everywhere;
            } else {
                continue;
            }
            visiting = {extra};
            if (auto problem = add_list(list, extra, {}, when, visiting)) return problem;
        }
        for (const auto& [group, items] : groups_) {
            auto backend = plan_.of_group(group);
            std::vector<Applicability> when;
            if (skipped_.count("group:" + group)) {
                continue;
            } else if (!backend.empty()) {
                when = backend_when(backend);
            } else if (user_groups_.count(group)) {
                when = everywhere;
            } else {
                continue;
            }
            std::vector<std::string> chain;
            if (auto problem = add_group(group, when, chain)) return problem;
        }
        if (p_.installs_itself() && selection_.install_project) {
            // The project itself, editable (PEP 660), as `uv sync` installs it.
            auto line =
                parse_requirement_line(p_.name + " @ " + detail::path_to_file_url(context_.dir),
                                       p_.name_where, context_.dir);
            if (!line) return std::move(line.error());
            line->editable = true;
            in_.requirements.push_back({std::move(*line), Applicability{}});
        }
        return std::nullopt;
    }

    std::optional<InputProblem> add_uv_lists() {
        auto lines = [&](const std::vector<PyprojectRequirement>& list,
                         std::vector<InputRequirement>& into) -> std::optional<InputProblem> {
            for (const auto& r : list) {
                auto line =
                    parse_requirement_line(r.requirement.to_string(), r.where, context_.dir);
                if (!line) return std::move(line.error());
                into.push_back({std::move(*line), Applicability{}});
            }
            return std::nullopt;
        };
        if (auto problem = lines(p_.uv.constraint_dependencies, in_.constraints)) return problem;
        return lines(p_.uv.override_dependencies, in_.overrides);
    }

    void fill_backends() {
        std::vector<std::string> names;
        for (const auto& c : plan_.candidates) {
            if (std::find(names.begin(), names.end(), c.backend) == names.end())
                names.push_back(c.backend);
        }
        std::stable_sort(names.begin(), names.end(), better_backend);
        for (const auto& name : names) {
            PlatformSet platforms;
            std::vector<std::string> by;
            for (const auto& c : plan_.candidates) {
                if (c.backend != name) continue;
                platforms |= c.platforms;
                by.push_back(c.described);
            }
            for (auto& where : detail::applicabilities(platforms)) {
                BackendOption option;
                option.name = name;
                option.where = std::move(where);
                option.note = util::join(by, "; ");
                in_.backends.push_back(std::move(option));
            }
        }
        in_.only_listed_backends = !plan_.candidates.empty();
        if (!plan_.base.empty()) in_.torch_index_url = plan_.base;
        in_.backend_index_packages = plan_.backend_index_packages;
        if (forced_backend_) {
            in_.selected_backend = forced_backend_;
            in_.selected_backend_by = forced_by_;
        }
    }

    // The project's indexes in uv's order: its non-explicit [[tool.uv.index]] entries, then
    // tool.uv.extra-index-url, then the default index (PyPI unless one says default = true).
    // PyTorch backend indexes serve the torch family only (through the backend's routing).
    void fill_options() {
        std::vector<std::string> order;
        for (const auto& index : p_.uv.indexes) {
            if (index.explicit_only || index.is_default || backend_index_url(index.url)) continue;
            if (index.flat) {
                in_.options.find_links.push_back(index.url);
            } else {
                order.push_back(index.url);
            }
        }
        order.insert(order.end(), p_.uv.extra_index_urls.begin(), p_.uv.extra_index_urls.end());
        const std::string fallback = context_.default_index_url;
        if (!order.empty() || !detail::same_index_url(fallback, pypi_simple)) {
            order.push_back(fallback);
            in_.options.index_url = order.front();
            in_.options.extra_index_urls.assign(order.begin() + 1, order.end());
        }
        in_.options.find_links.insert(in_.options.find_links.end(), p_.uv.find_links.begin(),
                                      p_.uv.find_links.end());
        in_.options.no_index = p_.uv.no_index;
        in_.index_strategy = p_.uv.index_strategy.empty() ? "first-index" : p_.uv.index_strategy;
        in_.version_files_from_every_index = false;
        in_.default_index_last = true;
        in_.options.pre = p_.uv.prerelease_allow;
        in_.options.no_binary = p_.uv.no_binary;
        in_.options.only_binary = p_.uv.only_binary;
    }

    void fill_platforms() {
        const auto& environments = p_.uv.environments;
        if (environments.empty()) return;
        std::vector<pep::Marker> markers;
        for (const auto& [where, marker] : environments)
            markers.push_back(marker);
        in_.platforms = detail::applicabilities(detail::platforms_where_any(markers));
        if (in_.platforms.empty()) in_.platforms.push_back(Applicability{{"none"}, {}, {}});
        in_.platforms_by = environments.front().first.to_string() + " (tool.uv.environments)";
    }

    void finish() {
        in_.name = p_.name;
        in_.name_where = p_.name_where;
        in_.python_requires = p_.requires_python;
        in_.glibc_cap = p_.glibc;
        if (p_.glibc) in_.glibc_cap_by = p_.glibc_where.to_string() + " (tool.aitk-env.glibc)";
        in_.described_as = util::utf8_of(p_.file.filename()) +
                           (p_.uv.where.line ? " (PEP 621 + tool.uv)" : " (PEP 621)");
        detail::copy_torch_pins(in_.requirements, in_.torch_packages);
        if (!p_.uv.ignored.empty()) {
            std::vector<std::string> keys;
            for (const auto& key : p_.uv.ignored) {
                if (std::find(keys.begin(), keys.end(), key.key) == keys.end())
                    keys.push_back(key.key);
            }
            in_.notes.push_back(p_.label + ": " + util::join(keys, ", ") +
                                " change nothing aitk-env installs and are not used");
        }
        // What decides the lock: the lines as they came out (with where they apply), the
        // backends, the indexes and the selection; comments and unrelated tables do not count.
        std::string rendered =
            render_input_lines(in_.requirements, "") + render_input_lines(in_.constraints, "-c ") +
            render_input_lines(in_.overrides, "--override ") + detail::render_options(in_.options);
        // uv's default strategy adds nothing, so that locks made before it was read stay current.
        if (in_.index_strategy != "first-index")
            rendered += "index-strategy " + in_.index_strategy + "\n";
        for (const auto& b : in_.backends)
            rendered += "backend " + b.name + " " + render(b.where) + "\n";
        for (const auto& name : in_.backend_index_packages)
            rendered += "backend-index " + name + "\n";
        if (in_.torch_index_url) rendered += "torch-index " + *in_.torch_index_url + "\n";
        if (in_.selected_backend) rendered += "selected-backend " + *in_.selected_backend + "\n";
        for (const auto& a : in_.platforms)
            rendered += "platform " + render(a) + "\n";
        rendered += "requires-python " + in_.python_requires + "\n";
        in_.hashed_inputs.emplace_back("pyproject", std::move(rendered));
    }

    const Pyproject& p_;
    const PyprojectSelection& selection_;
    const pep::CoreMetadata* built_;
    PyprojectContext context_;
    RequirementTables tables_;
    std::map<std::string, std::vector<DependencyGroupItem>> groups_;
    BackendPlan plan_;
    std::map<std::string, std::filesystem::path> members_;
    std::set<std::string> user_extras_;
    std::set<std::string> user_groups_;
    std::set<std::string> skipped_;  // "extra:<name>", "group:<name>": see share_backends()
    std::optional<std::string> forced_backend_;
    std::string forced_by_;
    ProjectInput in_;
};

}  // namespace

Loaded<ProjectInput> from_pyproject(const Pyproject& project, const PyprojectSelection& selection,
                                    const pep::CoreMetadata* built) {
    return Conversion(project, selection, built).run();
}

}  // namespace aitk::project
