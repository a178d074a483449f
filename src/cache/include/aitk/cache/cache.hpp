#pragma once
// The content-addressed store under the cache root (layout version v1):
//
//   <root>/v1/artifacts/sha256/ab/<62 hex>/<filename>   downloaded wheels, sdists, archives
//   <root>/v1/unpacked/sha256/ab/<62 hex>/              unpacked wheel trees, by artifact hash,
//                                                       each with a record of its files
//                                                       (.aitk-env-stamp, tree_stamp.hpp)
//   <root>/v1/metadata/sha256/ab/<62 hex>.metadata      core METADATA, by artifact hash
//   <root>/v1/http/ab/<sha256 of url>.http              index responses with ETag/Last-Modified
//   <root>/v1/tmp/                                      staging (same filesystem: renames)
//   <root>/v1/locks/                                    per-entry locks
//   <root>/v1/.lock                                     shared by users, exclusive for pruning
//
// An entry appears only complete: it is built in tmp/, verified, then renamed into place, so
// concurrent aitk-env processes never see half an entry, and a crash leaves only tmp/ debris
// that `prune` removes. Small files replaced in place outside the store (the probe cache,
// interpreters.json) may keep a temporary sibling after a kill: the next setup or sync sweeps it
// (sweep_interrupted_writes in maintenance.hpp).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "aitk/cache/http_entry.hpp"
#include "aitk/fs/lock.hpp"

namespace aitk::cache {

inline constexpr std::string_view layout_version = "v1";

// An unpacked tree in use: while this object lives the cache is held (prune and clean wait) and
// so is the tree's entry lock, shared, so a rebuild of the tree waits until the linking is done.
class UnpackedTree {
  public:
    UnpackedTree(std::filesystem::path path, fs::FileLock hold, fs::FileLock entry,
                 std::optional<std::string> changed)
        : path_(std::move(path)),
          hold_(std::move(hold)),
          entry_(std::move(entry)),
          changed_(std::move(changed)) {}

    const std::filesystem::path& path() const noexcept { return path_; }
    // Set when the tree was found changed since it was made and was made again: what differed
    // ("file pkg/mod.py: size 16, was 6").
    const std::optional<std::string>& changed() const noexcept { return changed_; }
    // What to tell the user once when changed() is set: "cache: the unpacked tree of <wheel>
    // was changed (<what>); rebuilt from the wheel".
    std::string change_notice(std::string_view wheel) const;

  private:
    std::filesystem::path path_;
    fs::FileLock hold_;
    fs::FileLock entry_;
    std::optional<std::string> changed_;
};

class Cache {
  public:
    // Nothing is created until something is stored.
    explicit Cache(std::filesystem::path root);

    const std::filesystem::path& root() const noexcept { return root_; }
    std::filesystem::path base() const;  // <root>/v1

    // --- layout (pure path computations; digests must be sha256 hex, any case) ---
    std::filesystem::path artifact_dir(std::string_view sha256) const;
    std::filesystem::path unpacked_dir(std::string_view sha256) const;
    std::filesystem::path metadata_file(std::string_view sha256) const;
    std::filesystem::path http_file(std::string_view url) const;
    std::filesystem::path temp_dir() const;
    std::filesystem::path lock_file() const;

    // --- usage ---
    // A shared hold: prune and clean wait until no hold is left. Take one for as long as files
    // of the cache are in use (downloading into staging, linking from unpacked trees).
    fs::FileLock hold() const;

    // A fresh path in tmp/ ("<tmp>/.<name>.<random>.tmp", not created) on the cache's
    // filesystem, for a download in progress. Keep a hold() while it exists.
    std::filesystem::path staging_path(std::string_view name) const;

    // --- artifacts ---
    // Checks `temp_file` against `expected_sha256` and moves it into the store as
    // <filename>; returns the stored path. When `already_hashed` is given (a digest computed
    // while the file was written) the file is not read again. On a mismatch the file is
    // deleted and util::Error names `what` (URL or filename), the expected and the actual
    // digest. An entry already present is kept and `temp_file` deleted.
    std::filesystem::path insert_artifact(const std::filesystem::path& temp_file,
                                          std::string_view expected_sha256,
                                          std::string_view filename,
                                          std::optional<std::string_view> already_hashed = {},
                                          std::string_view what = {});
    // The same for a file that stays where it is (a find-links folder, a bundle): it is copied.
    std::filesystem::path import_artifact(const std::filesystem::path& source,
                                          std::string_view expected_sha256,
                                          std::string_view filename);
    // The stored file: `filename` when stored under that name, else any name the content was
    // stored under (same digest, same bytes).
    std::optional<std::filesystem::path> find_artifact(std::string_view sha256,
                                                       std::string_view filename = {}) const;
    // Re-hashes the stored file: false when missing or damaged on disk.
    bool verify_artifact(std::string_view sha256) const;

    // --- unpacked trees ---
    std::optional<std::filesystem::path> find_unpacked(std::string_view sha256) const;
    // The unpacked tree of artifact `sha256`, made once however many processes ask at once:
    // under a per-entry lock, `fill(path)` creates the folder `path` (which does not exist yet,
    // e.g. with archive::extract), the cache records its files (tree_stamp.hpp) and renames it
    // into place. An exception from `fill` leaves nothing behind and propagates.
    // A tree found changed since it was made (a prefix wrote through a hardlink) is made again
    // the same way and replaces it (UnpackedTree::changed says what differed); so is a tree
    // without a record (made by an earlier aitk-env), quietly. Before that, `artifact` (the
    // file `fill` reads; default: the stored artifact of `sha256`, when there is one) is hashed
    // again: when it no longer has `sha256` it is removed and util::Error says so.
    // Link from the tree only while the returned object lives.
    UnpackedTree ensure_unpacked(std::string_view sha256,
                                 const std::function<void(const std::filesystem::path&)>& fill,
                                 const std::filesystem::path& artifact = {});
    // The tree as it is (not checked, nothing made), held as ensure_unpacked holds it; nothing
    // when there is none.
    std::optional<UnpackedTree> open_unpacked(std::string_view sha256) const;
    // Takes the tree out of the store (waiting until nobody links from it) and deletes it; the
    // next ensure_unpacked makes it again. False when there was none.
    bool remove_unpacked(std::string_view sha256);
    // Deletes the stored artifact (every name it is stored under). False when there was none.
    bool remove_artifact(std::string_view sha256);

    // --- core metadata by artifact hash ---
    std::optional<std::string> find_metadata(std::string_view sha256) const;
    void put_metadata(std::string_view sha256, std::string_view metadata);

    // --- HTTP responses ---
    std::optional<HttpEntry> find_http(std::string_view url) const;
    // Stores (or replaces) the response for entry.url; a zero stored_at means now.
    void put_http(HttpEntry entry);

  private:
    std::filesystem::path publish_file(const std::filesystem::path& file, std::string_view sha256,
                                       std::string_view filename);
    std::filesystem::path root_;
};

// Lower-cases and checks a sha256 hex digest; throws util::InputError otherwise.
std::string checked_sha256(std::string_view digest);
// A bare file name (no folders, not "." or "..", no separators or control characters);
// throws util::InputError otherwise. Keeps index-supplied names from escaping the store.
std::string checked_filename(std::string_view filename);

}  // namespace aitk::cache
