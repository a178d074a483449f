#pragma once
// The verbs that look at an existing prefix: `verify` (is it still what its lock says, file by
// file?), `list`, and the environment `run` gives a command. A prefix made by setup/sync keeps
// its lock and receipt in <prefix>/.aitk-env/.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

// The prefix's layout (from its pyvenv.cfg); util::InputError when it is not a venv.
install::PrefixLayout open_prefix(const std::filesystem::path& prefix, bool windows);

// The lock the prefix was last synced from (<prefix>/.aitk-env/lock.yml) and its target.
struct PrefixLock {
    lock::Lockfile lock;
    std::string target;
};
std::optional<PrefixLock> read_prefix_lock(const install::PrefixLayout& layout);
void write_prefix_lock(const install::PrefixLayout& layout, const lock::Lockfile& lock,
                       const std::string& target);
// Whether the prefix's lock copy already holds `lock` for `target`, without parsing it (an
// unreadable copy does not).
bool prefix_lock_matches(const install::PrefixLayout& layout, const lock::Lockfile& lock,
                         const std::string& target);

struct PackageDrift {
    std::string name;
    std::string problem;  // "missing", "extraneous", "version 1.0 installed, lock says 2.0"
};

struct VerifyReport {
    std::string target;
    std::vector<PackageDrift> packages;
    std::vector<install::FileDrift> files;
    std::vector<std::string> unowned;
    bool interrupted = false;  // a change was killed midway; the next sync finishes it
    // A setup or sync finished here once (its receipt is there). A venv whose first setup was
    // killed has none: nothing in it is drift, but it is not an environment either.
    bool finished = true;
    std::string fix;  // the command that repairs the prefix; "" when clean
    bool clean() const {
        return finished && !interrupted && packages.empty() && files.empty() && unowned.empty();
    }
    // "clean", "incomplete" (a setup or change that did not finish), or "drift".
    std::string status() const;
    nlohmann::json to_json() const;
    std::string text() const;
};

// `lock` given: compare with its target for this prefix (`target`, else the one recorded in
// the prefix); otherwise with the prefix's own lock copy. RECORD hashes always. Writes nothing
// (a read-only prefix is verified as any other): it waits for a change in progress through
// the prefix's lock file, opened for reading, and leaves an interrupted change to the next sync.
// `lock_label` names the lock in the suggested fix ("LOCK" when empty and the prefix has none).
VerifyReport verify_prefix(const install::PrefixLayout& layout,
                           const std::optional<lock::Lockfile>& lock,
                           const std::string& target = {}, const std::string& lock_label = {});

// What `verify --json` prints when it fails before a report (not a prefix, a bad lockfile):
// the report's keys, empty, with `status` "error", the `error`, its `hint` and `exit_code`.
nlohmann::json verify_error_json(int exit_code, const std::string& error, const std::string& hint);

// `list`: the installed distributions.
nlohmann::json list_json(const std::vector<install::InstalledDistribution>& dists);
std::string list_text(const std::vector<install::InstalledDistribution>& dists);

// The environment `run` (and the shims) give a command in the prefix.
util::Environment run_environment(const install::PrefixLayout& layout,
                                  const util::Environment& current,
                                  std::vector<std::string>* notes = nullptr);

}  // namespace aitk::app
