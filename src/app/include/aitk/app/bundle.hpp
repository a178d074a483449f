#pragma once
// Offline bundles for air-gapped sites. `aitk-env bundle` packs a lockfile, every artifact its
// chosen targets install (wheels, hashed source archives) and the standalone CPython archive of
// each target into one deterministic tar.zst with a manifest.json; `setup --bundle` checks every
// member against that manifest and the lock's hashes, moves them into the cache and installs
// from the lock without touching the network.
//
// Layout (members in this order, so that a reader knows what to expect before any data):
//   manifest.json                        format, targets, every other member (sha256, size)
//   lock.yml                             the lockfile, byte for byte as given
//   artifacts/<sha256>/<filename>        wheels and source archives, by path
//   python/<sha256>/<filename>           python-build-standalone install archives
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/settings.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/python/standalone.hpp"

namespace aitk::app {

inline constexpr std::string_view bundle_format_name = "aitk-env-bundle";
inline constexpr int bundle_format_version = 1;
inline constexpr std::string_view bundle_manifest_member = "manifest.json";
inline constexpr std::string_view bundle_lock_member = "lock.yml";

// What a bundle member is; manifest.json spells the kinds as to_string() gives them.
enum class BundleMemberKind {
    lock,    // "lock": lock.yml
    wheel,   // "wheel": artifacts/<sha256>/<filename>
    source,  // "source": a source archive, artifacts/<sha256>/<filename>
    python,  // "python": a standalone CPython, python/<sha256>/<filename>
};
std::string_view to_string(BundleMemberKind kind) noexcept;
std::optional<BundleMemberKind> parse_bundle_member_kind(std::string_view text) noexcept;

// One member of a bundle besides manifest.json.
struct BundleMember {
    std::string path;  // "artifacts/<sha256>/<filename>"
    BundleMemberKind kind = BundleMemberKind::wheel;
    std::string sha256;
    std::uint64_t size = 0;
    std::vector<std::string> targets;  // the lock targets it serves, sorted
    friend bool operator==(const BundleMember&, const BundleMember&) = default;
};

struct BundleRequest {
    std::filesystem::path lockfile;
    std::filesystem::path output;
    std::vector<std::string> targets;  // lock target ids; empty: every target of the lock
    bool include_python = true;        // false: --no-python (the manifest says so per target)
    // The standalone table (tests); nullptr: the compiled-in one.
    const std::vector<python::StandaloneBuild>* python_builds = nullptr;
    std::string python_mirror;  // AITK_ENV_PYTHON_MIRROR
    // The lock's URLs carry no credentials: those of an index given with user:password (or a
    // token) also open the files on the index's host (scheme, host and port), as in pip.
    IndexSettings indexes;
};

struct BundleOutcome {
    std::filesystem::path path;
    std::vector<std::string> targets;
    std::vector<BundleMember> members;  // in archive order, manifest.json not included
    std::size_t downloaded = 0;         // artifacts this run fetched (the rest was cached)
    std::uint64_t content_bytes = 0;    // sum of the members' sizes
    std::uint64_t archive_bytes = 0;
    std::string sha256;              // of the bundle file
    std::vector<std::string> notes;  // what the bundle lacks (interpreters, VCS sources)
    nlohmann::json to_json() const;
    std::string summary() const;  // for people
};

// Throws util::InputError (a bad lockfile, a target the lock lacks) and util::Error (a download
// or hash failure: nothing is written then).
BundleOutcome write_bundle(Session& session, const BundleRequest& request);

// A verified bundle whose artifacts are in the cache: what `setup --bundle` installs from.
struct ImportedBundle {
    explicit ImportedBundle(fs::TempDir dir) : work(std::move(dir)) {}
    fs::TempDir work;                // holds `lockfile`; keep it while setup runs
    std::filesystem::path lockfile;  // the lock restricted to the bundled targets
    std::vector<std::string> targets;
    std::size_t imported = 0;  // members moved into the cache (others were there already)
    std::vector<std::string> notes;
};

// Opens `bundle` (streamed; members are extracted safely into the cache's temp area), checks
// every member against manifest.json and every artifact against the lock's sha256, and only
// when all of them pass moves the artifacts and interpreter archives into the cache. Throws
// util::Error (exit 1) for a damaged, truncated or inconsistent bundle, naming the member and,
// for content, the expected and the actual sha256; the cache then gains nothing.
ImportedBundle import_bundle(const std::filesystem::path& bundle,
                             const std::filesystem::path& cache_root);

// `setup --bundle`: import_bundle into the session's cache, then the `setup -l` path on the
// bundled lock with the network off (the standalone CPython archive comes from the bundle
// when the machine has no matching interpreter). SetupOutcome::lockfile names the bundle.
SetupOutcome run_setup_from_bundle(Session& session, const SetupRequest& request);

// What manifest.json says per target: its interpreter member (or why there is none) and the
// packages that cannot travel in a bundle. bundle_manifest_text() keeps the members' order and
// writes no time or host facts, so equal inputs give equal text.
struct BundleTargetInfo {
    std::string id;
    std::string python;                    // the lock's Python version
    std::string interpreter;               // member path; "" when not bundled
    std::string interpreter_note;          // why not, when not
    std::vector<std::string> not_bundled;  // "name: reason" of packages the bundle cannot carry
};
std::string bundle_manifest_text(const lock::Lockfile& lock,
                                 const std::vector<BundleTargetInfo>& targets,
                                 const std::vector<BundleMember>& members);

}  // namespace aitk::app
