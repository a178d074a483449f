#include "aitk/app/prefix.hpp"

#include <algorithm>
#include <map>

#include "aitk/app/lock.hpp"
#include "aitk/build/hooks.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/install/receipt.hpp"
#include "aitk/install/transaction.hpp"
#include "aitk/shim/environment_policy.hpp"
#include "aitk/shim/shims.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

constexpr std::string_view prefix_lock_file = "lock.yml";
constexpr std::string_view prefix_target_file = "target";

}  // namespace

install::PrefixLayout open_prefix(const std::filesystem::path& prefix, bool windows) {
    auto layout = install::PrefixLayout::read(prefix, windows);
    if (!layout) {
        throw util::InputError(util::utf8_of(prefix) + " is not a prefix (no pyvenv.cfg)",
                               "create it with `aitk-env setup -p " + util::utf8_of(prefix) + "`");
    }
    return *layout;
}

std::optional<PrefixLock> read_prefix_lock(const install::PrefixLayout& layout) {
    std::error_code ec;
    auto path = layout.state / prefix_lock_file;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    PrefixLock out{read_lockfile(path), {}};
    auto target_path = layout.state / prefix_target_file;
    if (std::filesystem::exists(target_path, ec)) {
        auto text = fs::read_file(target_path);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.pop_back();
        out.target = text;
    }
    return out;
}

bool prefix_lock_matches(const install::PrefixLayout& layout, const lock::Lockfile& lock,
                         const std::string& target) {
    // The copy is always written by write_lockfile, so the same text means the same lock, and
    // comparing text spares a no-op sync a second YAML parse of the whole lock.
    try {
        std::error_code ec;
        auto path = layout.state / prefix_lock_file;
        if (!std::filesystem::exists(path, ec)) return false;
        std::string own_target;
        auto target_path = layout.state / prefix_target_file;
        if (std::filesystem::exists(target_path, ec)) {
            own_target = fs::read_file(target_path);
            while (!own_target.empty() && (own_target.back() == '\n' || own_target.back() == '\r'))
                own_target.pop_back();
        }
        return own_target == target && fs::read_file(path) == lock::write_lockfile(lock);
    } catch (const util::Error&) {
        return false;
    }
}

void write_prefix_lock(const install::PrefixLayout& layout, const lock::Lockfile& lock,
                       const std::string& target) {
    std::filesystem::create_directories(layout.state);
    fs::write_file_atomic(layout.state / prefix_lock_file, lock::write_lockfile(lock));
    fs::write_file_atomic(layout.state / prefix_target_file, target + "\n");
}

namespace {

// The command that finishes an incomplete prefix: a sync from its lock (setup for a new one).
std::string finishing_command(const install::PrefixLayout& layout, const std::string& lock_label) {
    const std::string prefix = build::shell_quote(util::utf8_of(layout.prefix));
    const std::string lock = lock_label.empty() ? "LOCK" : build::shell_quote(lock_label);
    return "aitk-env sync -l " + lock + " -p " + prefix +
           (lock_label.empty() ? " (LOCK: the lockfile to install), or aitk-env setup -p " + prefix
                               : std::string());
}

}  // namespace

VerifyReport verify_prefix(const install::PrefixLayout& layout,
                           const std::optional<lock::Lockfile>& given_lock,
                           const std::string& target_id, const std::string& lock_label) {
    VerifyReport report;
    // Read-only, so that a prefix nobody may write to is verified too; without a lock file no
    // change has ever been made that a reader could meet half done.
    const auto reading =
        fs::FileLock::acquire_existing(install::prefix_lock_file(layout), fs::LockMode::shared);
    std::error_code ec;
    report.interrupted = install::has_interrupted_transaction(layout);
    report.finished = std::filesystem::exists(install::receipt_path(layout.state), ec);
    if (!report.finished || report.interrupted) report.fix = finishing_command(layout, lock_label);
    auto dists = install::installed_distributions(layout);
    std::optional<lock::Lockfile> lock = given_lock;
    std::string id = target_id;
    if (auto own = read_prefix_lock(layout)) {
        if (!lock) lock = own->lock;
        if (id.empty()) id = own->target;
    }
    if (lock) {
        const auto* target = lock->find_target(id);
        // The one target of a lock stands in for a recorded id it lacks; a --target is honoured
        // or refused.
        if (!target && target_id.empty() && lock->targets.size() == 1) {
            target = &lock->targets.front();
        }
        if (!target) {
            std::vector<std::string> ids;
            for (const auto& t : lock->targets)
                ids.push_back(t.id);
            throw util::InputError("the lockfile has no target '" + id + "' for this prefix",
                                   "pass the target the prefix was set up for (the lock has " +
                                       util::join(ids, ", ") + ")");
        }
        report.target = target->id;
        std::map<std::string, const install::InstalledDistribution*> present;
        for (const auto& d : dists)
            present[d.name] = &d;
        for (const auto& package : target->packages) {
            auto it = present.find(package.name);
            if (it == present.end()) {
                if (package.wheel) report.packages.push_back({package.name, "missing"});
                continue;
            }
            if (package.wheel && it->second->version != package.version) {
                report.packages.push_back({package.name, "version " + it->second->version +
                                                             " installed, lock says " +
                                                             package.version});
            }
            present.erase(it);
        }
        for (const auto& [name, dist] : present) {
            report.packages.push_back({name, "extraneous (" + dist->version + ")"});
        }
    }
    report.files = install::verify_records(layout, dists);
    report.unowned = install::unowned_files(layout, dists);
    // The shims' own files in site-packages (Windows' DLL search path) are aitk-env's, not drift.
    for (const auto& own : shim::site_packages_shim_files(layout.windows)) {
        report.unowned.erase(std::remove(report.unowned.begin(), report.unowned.end(), own),
                             report.unowned.end());
    }
    return report;
}

std::string VerifyReport::status() const {
    if (!finished || interrupted) return "incomplete";
    return clean() ? "clean" : "drift";
}

nlohmann::json VerifyReport::to_json() const {
    nlohmann::json packages_json = nlohmann::json::array();
    for (const auto& p : packages)
        packages_json.push_back({{"name", p.name}, {"problem", p.problem}});
    nlohmann::json files_json = nlohmann::json::array();
    for (const auto& f : files) {
        files_json.push_back({{"distribution", f.distribution},
                              {"path", f.path},
                              {"problem", install::to_string(f.problem)},
                              {"detail", f.detail}});
    }
    return {{"status", status()},         {"target", target},     {"clean", clean()},
            {"packages", packages_json},  {"files", files_json},  {"unowned", unowned},
            {"interrupted", interrupted}, {"finished", finished}, {"fix", fix}};
}

nlohmann::json verify_error_json(int exit_code, const std::string& error, const std::string& hint) {
    return {{"status", "error"},
            {"target", ""},
            {"clean", false},
            {"packages", nlohmann::json::array()},
            {"files", nlohmann::json::array()},
            {"unowned", nlohmann::json::array()},
            {"interrupted", false},
            {"error", error},
            {"hint", hint},
            {"exit_code", exit_code}};
}

std::string VerifyReport::text() const {
    if (clean())
        return "clean: the prefix matches " + (target.empty() ? "its RECORDs" : target) + "\n";
    std::string out;
    if (!finished) {
        out +=
            "incomplete: no setup or sync has finished in this prefix (a first setup stopped "
            "after making the venv leaves it so): it is not an environment yet\n";
    }
    if (interrupted) {
        out +=
            "interrupted: a change to this prefix was stopped midway (incomplete); a sync "
            "finishes or undoes it\n";
    }
    if (!fix.empty()) out += "fix:     " + fix + "\n";
    for (const auto& p : packages)
        out += "package  " + p.name + ": " + p.problem + "\n";
    for (const auto& f : files) {
        std::string problem(install::to_string(f.problem));
        problem.resize(std::max<std::size_t>(problem.size() + 1, 9), ' ');
        out += problem + f.distribution + ": " + f.path +
               (f.detail.empty() ? "" : " (" + f.detail + ")") + "\n";
    }
    for (const auto& u : unowned)
        out += "extra    " + u + "\n";
    return out;
}

nlohmann::json list_json(const std::vector<install::InstalledDistribution>& dists) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : dists) {
        out.push_back({{"name", d.name},
                       {"version", d.version},
                       {"installer", d.installer},
                       {"requested", d.requested}});
    }
    return out;
}

std::string list_text(const std::vector<install::InstalledDistribution>& dists) {
    std::size_t width = 7;
    for (const auto& d : dists)
        width = std::max(width, d.name.size());
    std::string out;
    for (const auto& d : dists) {
        out += d.name + std::string(width + 2 - d.name.size(), ' ') + d.version + "\n";
    }
    return out;
}

util::Environment run_environment(const install::PrefixLayout& layout,
                                  const util::Environment& current,
                                  std::vector<std::string>* notes) {
    shim::PrefixEnvironment env;
    env.prefix = layout.prefix;
    env.scripts = layout.scripts;
    env.os = layout.windows ? shim::ShimOs::windows : shim::ShimOs::posix;
    if (auto own = read_prefix_lock(layout)) {
        if (const auto* target = own->lock.find_target(own->target)) {
            env.variables = target->variables;
        }
    }
    auto change = shim::prefix_environment(env, current);
    if (notes) *notes = change.notes;
    return util::apply_environment_changes(current, change.changes, layout.windows);
}

}  // namespace aitk::app
