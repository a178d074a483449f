#pragma once
// `aitk-env snapshot`: the lockfile of what an existing prefix holds, so that "it works on my
// machine" becomes a lock that `setup -l` restores elsewhere. Each installed distribution's
// exact file comes from, in this order: aitk-env's own receipt and lock copy (the prefix was
// made by setup/sync), PEP 610's direct_url.json (pip installed a URL, a git commit or a folder),
// the indexes (the project page's file with that name, version, build and exactly the WHEEL's
// tags; else that version's sdist), or a file of that name in the shared cache. A distribution
// found nowhere is an error unless `allow_unlocked` (then it is left out with a warning).
//
// The target is this machine's OS and architecture with the backend torch's local version label
// names ("2.9.0+cu130" → cu130; no label → cpu, mps on macOS arm64), and the prefix's full
// interpreter version (pyvenv.cfg) decides markers.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/session.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::app {

struct SnapshotRequest {
    std::filesystem::path prefix;
    bool windows = false;  // the prefix's layout (a Windows venv)
    // This machine, as targets spell it ("linux", "x86_64"): from detect_host_target.
    std::string os;
    std::string arch;
    // Where files are looked up; unset: the prefix lock's indexes, else PyPI.
    IndexSettings indexes;
    bool allow_unlocked = false;
    // pip, setuptools, wheel and distribute are left out (as `pip freeze` does: `venv` seeds
    // them and setup never needs them) unless a kept package requires them or this is set.
    bool keep_installer_tools = false;
};

enum class FileOrigin { receipt, direct_url, index, cache };
std::string_view to_string(FileOrigin origin) noexcept;

// Where one package's file came from.
struct SnapshotEntry {
    std::string name;
    std::string version;
    FileOrigin origin = FileOrigin::index;
    std::string location;  // the wheel's or source's URL
};

struct SnapshotOutcome {
    lock::Lockfile lockfile;
    std::vector<SnapshotEntry> entries;  // sorted by name
    std::vector<std::string> left_out;   // "pip 23.2.1 (installer tooling; --all keeps it)"
    std::vector<std::string> notes;
    nlohmann::json to_json() const;
    std::string summary() const;  // one line per package, then the left-out ones and notes
};

// Throws util::InputError (not a prefix, unreadable pyvenv.cfg version) and util::Error (exit 1:
// files found nowhere, network failures).
SnapshotOutcome snapshot_prefix(Session& session, const SnapshotRequest& request);

// --- pieces, exposed for tests ---

// The backend a torch version's local label names: "cu130", "rocm6.4", "xpu", "cpu"; nullopt
// without a label (or one that names no backend, such as "+git1234").
std::optional<std::string> backend_of_torch_version(std::string_view version);

// PEP 610 direct_url.json: a wheel (archive_info of a .whl), a source (other archives: "url";
// vcs_info: "vcs" with the commit; dir_info: "directory", editable as recorded). Hashes other
// than sha256 are not kept (an empty sha256 means "hash the file"). Errors say what is wrong.
using DirectReference = std::variant<lock::LockedFile, lock::LockedSource>;
util::Expected<DirectReference, std::string> parse_direct_url(std::string_view json_text);

// The WHEEL file's tags (expanded, sorted, unique) and build tag ("" when none).
struct WheelInfo {
    std::vector<std::string> tags;  // "py3-none-any"
    std::string build;
};
util::Expected<WheelInfo, std::string> parse_wheel_info(std::string_view text);

}  // namespace aitk::app
