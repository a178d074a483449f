#include "aitk/cache/cache.hpp"

#include "aitk/cache/tree_stamp.hpp"

#include "aitk/util/hex.hpp"
#include "aitk/util/redact.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <vector>

#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cache {
namespace {

namespace stdfs = std::filesystem;

[[noreturn]] void fail(const std::string& message) {
    throw util::Error(util::ExitCode::failure, message);
}

stdfs::path sharded(const stdfs::path& base, const std::string& hex, std::string_view suffix = {}) {
    std::string rest = hex.substr(2);
    rest += suffix;
    return base / hex.substr(0, 2) / rest;
}

void ensure_directories(const stdfs::path& dir) {
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    if (ec) fail("cannot create cache folder " + util::utf8_of(dir) + ": " + ec.message());
}

// Flushes a finished file to disk before it is renamed into the store, so that after a power
// loss an entry is either absent or whole (rename alone orders nothing on most filesystems).
void sync_file(const stdfs::path& file) {
#ifndef _WIN32
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open " + util::utf8_of(file) + ": " + std::strerror(errno));
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) fail("cannot flush " + util::utf8_of(file) + ": " + std::strerror(err));
#else
    (void)file;
#endif
}

// Copies while hashing, so an imported file is read once.
std::string copy_and_hash(const stdfs::path& from, const stdfs::path& to) {
    std::ifstream in(from, std::ios::binary);
    if (!in) fail("cannot read " + util::utf8_of(from) + ": " + std::strerror(errno));
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot write " + util::utf8_of(to) + ": " + std::strerror(errno));
    fs::Sha256 hasher;
    std::vector<char> buffer(1 << 20);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        auto got = static_cast<std::size_t>(in.gcount());
        hasher.update(buffer.data(), got);
        out.write(buffer.data(), static_cast<std::streamsize>(got));
    }
    out.flush();
    if (in.bad() || !out) fail("cannot copy " + util::utf8_of(from) + " to " + util::utf8_of(to));
    return hasher.finish_hex();
}

// Moves `from` to `to` (same filesystem expected; a copy otherwise).
void move_file(const stdfs::path& from, const stdfs::path& to) {
    std::error_code ec;
    stdfs::rename(from, to, ec);
    if (!ec) return;
    if (ec == std::errc::cross_device_link) {
        stdfs::copy_file(from, to, stdfs::copy_options::overwrite_existing, ec);
        if (!ec) {
            stdfs::remove(from, ec);
            return;
        }
    }
    fail("cannot move " + util::utf8_of(from) + " into the cache: " + ec.message());
}

bool is_regular(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::is_regular_file(stdfs::symlink_status(p, ec));
}

bool is_dir(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::is_directory(stdfs::symlink_status(p, ec));
}

// Writes `content` to a file in the cache's temporary folder (where an interrupted write is
// swept up) and renames it over `target` (replacing is fine for entries that are refreshed:
// metadata, HTTP responses). `flush`: see fs::AtomicWrite.
void replace_file(const Cache& cache, const stdfs::path& target, std::string_view content,
                  bool flush) {
    ensure_directories(target.parent_path());
    ensure_directories(cache.temp_dir());
    try {
        fs::write_file_atomic(target, content, {.temp_dir = cache.temp_dir(), .flush = flush});
    } catch (const util::Error& e) {
        fail("cannot store " + util::utf8_of(target) + ": " + e.what());
    }
}

std::optional<std::string> read_if_present(const stdfs::path& file) {
    if (!is_regular(file)) return std::nullopt;
    try {
        return fs::read_file(file);
    } catch (const util::Error&) {
        return std::nullopt;  // removed meanwhile (prune): a miss
    }
}

}  // namespace

std::string checked_sha256(std::string_view digest) {
    std::string lower = util::to_lower(digest);
    if (!util::is_sha256_hex(lower)) {
        throw util::InputError("'" + std::string(digest) +
                               "' is not a sha256 digest (64 hexadecimal digits)");
    }
    return lower;
}

std::string checked_filename(std::string_view filename) {
    auto refuse = [&](const std::string& why) {
        return util::InputError("'" + std::string(filename) +
                                "' cannot be a cached file name: " + why);
    };
    if (auto problem = util::path_name_problem(filename)) throw refuse(*problem);
    if (fs::is_temp_name(filename)) throw refuse("it looks like a temporary file");
    return std::string(filename);
}

Cache::Cache(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path Cache::base() const {
    return root_ / std::string(layout_version);
}

std::filesystem::path Cache::artifact_dir(std::string_view sha256) const {
    return sharded(base() / "artifacts" / "sha256", checked_sha256(sha256));
}

std::filesystem::path Cache::unpacked_dir(std::string_view sha256) const {
    return sharded(base() / "unpacked" / "sha256", checked_sha256(sha256));
}

std::filesystem::path Cache::metadata_file(std::string_view sha256) const {
    return sharded(base() / "metadata" / "sha256", checked_sha256(sha256), ".metadata");
}

std::filesystem::path Cache::http_file(std::string_view url) const {
    return sharded(base() / "http", fs::sha256_hex(util::strip_credentials(url)), ".http");
}

std::filesystem::path Cache::temp_dir() const {
    return base() / "tmp";
}

std::filesystem::path Cache::lock_file() const {
    return base() / ".lock";
}

fs::FileLock Cache::hold() const {
    return fs::FileLock::acquire(lock_file(), fs::LockMode::shared);
}

std::filesystem::path Cache::staging_path(std::string_view name) const {
    ensure_directories(temp_dir());
    return fs::unique_temp_path(temp_dir(), name);
}

std::filesystem::path Cache::publish_file(const std::filesystem::path& file,
                                          std::string_view sha256, std::string_view filename) {
    const stdfs::path dir = artifact_dir(sha256);
    const stdfs::path stored = dir / std::string(filename);
    if (is_regular(stored)) {  // the same bytes are already there
        fs::remove_all_quietly(file);
        return stored;
    }
    ensure_directories(dir.parent_path());
    // The entry folder appears with its file in it, by one rename of a staging folder.
    auto staging = fs::TempDir::create_in(temp_dir(), "artifact");
    move_file(file, staging.path() / std::string(filename));
    if (fs::publish(staging.path(), dir) == fs::PublishResult::published) {
        staging.keep();
        return stored;
    }
    // Another process stored this digest first, perhaps under another name: add ours.
    fs::publish(staging.path() / std::string(filename), stored);
    return stored;
}

std::filesystem::path Cache::insert_artifact(const std::filesystem::path& temp_file,
                                             std::string_view expected_sha256,
                                             std::string_view filename,
                                             std::optional<std::string_view> already_hashed,
                                             std::string_view what) {
    const std::string expected = checked_sha256(expected_sha256);
    const std::string name = checked_filename(filename);
    auto in_use = hold();
    std::string actual;
    try {
        actual = already_hashed ? checked_sha256(*already_hashed) : fs::sha256_file_hex(temp_file);
    } catch (...) {
        fs::remove_all_quietly(temp_file);
        throw;
    }
    if (actual != expected) {
        fs::remove_all_quietly(temp_file);
        throw util::Error(
            util::ExitCode::failure,
            "sha256 mismatch for " + (what.empty() ? name : util::strip_credentials(what)) +
                ": expected " + expected + ", got " + actual + "; the file was discarded",
            "the file changed on the server or was damaged in transit; if the "
            "lockfile is outdated, lock again");
    }
    sync_file(temp_file);
    return publish_file(temp_file, expected, name);
}

std::filesystem::path Cache::import_artifact(const std::filesystem::path& source,
                                             std::string_view expected_sha256,
                                             std::string_view filename) {
    const std::string expected = checked_sha256(expected_sha256);
    const std::string name = checked_filename(filename);
    auto in_use = hold();
    if (auto existing = find_artifact(expected, name); existing && existing->filename() == name) {
        return *existing;
    }
    stdfs::path staged = staging_path(name);
    std::string actual;
    try {
        actual = copy_and_hash(source, staged);
    } catch (...) {
        fs::remove_all_quietly(staged);
        throw;
    }
    if (actual != expected) {
        fs::remove_all_quietly(staged);
        throw util::Error(util::ExitCode::failure, "sha256 mismatch for " + util::utf8_of(source) +
                                                       ": expected " + expected + ", got " +
                                                       actual);
    }
    sync_file(staged);
    return publish_file(staged, expected, name);
}

std::optional<std::filesystem::path> Cache::find_artifact(std::string_view sha256,
                                                          std::string_view filename) const {
    const stdfs::path dir = artifact_dir(sha256);
    if (!filename.empty()) {
        stdfs::path wanted = dir / checked_filename(filename);
        if (is_regular(wanted)) return wanted;
    }
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator();
         it.increment(ec)) {
        if (is_regular(it->path()) && !fs::is_temp_name(util::utf8_of(it->path().filename()))) {
            return it->path();
        }
    }
    return std::nullopt;
}

bool Cache::verify_artifact(std::string_view sha256) const {
    const std::string expected = checked_sha256(sha256);
    auto stored = find_artifact(expected);
    if (!stored) return false;
    try {
        return fs::sha256_file_hex(*stored) == expected;
    } catch (const util::Error&) {
        return false;
    }
}

std::optional<std::filesystem::path> Cache::find_unpacked(std::string_view sha256) const {
    stdfs::path dir = unpacked_dir(sha256);
    if (is_dir(dir)) return dir;
    return std::nullopt;
}

namespace {

stdfs::path entry_lock_file(const Cache& cache, const std::string& digest) {
    return cache.base() / "locks" / ("unpacked-" + digest + ".lock");
}

// Before a tree is made again from `artifact`: the file must still be the one its digest names
// (it may have been damaged as the tree was). A damaged one is removed, so the next run fetches it.
void recheck_artifact(Cache& cache, const std::string& digest, const stdfs::path& artifact) {
    stdfs::path file = artifact;
    if (file.empty()) {
        auto stored = cache.find_artifact(digest);
        if (!stored) return;  // nothing stored under this digest: `fill` knows where it reads
        file = *stored;
    }
    std::string actual;
    try {
        actual = fs::sha256_file_hex(file);
    } catch (const util::Error& e) {
        actual = std::string("unreadable (") + e.what() + ")";
    }
    if (actual == digest) return;
    const bool stored = file.parent_path() == cache.artifact_dir(digest);
    if (stored) cache.remove_artifact(digest);
    throw util::Error(
        util::ExitCode::failure,
        "cache: the wheel " + util::utf8_of(file.filename()) +
            " does not match its sha256 any more (expected " + digest + ", got " + actual +
            "), so its unpacked tree, which was changed too, cannot be made again from it" +
            (stored ? "; the wheel was removed from the cache" : ""),
        stored ? "run the command again: the wheel is downloaded again"
               : "replace " + util::utf8_of(file) + " with the file the lock names");
}

// Moves `tree` (complete and recorded) to `dir`, where a damaged tree may be: the old one goes
// into `staging` (deleted with it), the new one takes its place. The caller holds the entry's
// lock exclusively, so nobody links from the old tree and nobody else replaces it.
void put_in_place(const stdfs::path& tree, const stdfs::path& dir, const stdfs::path& staging) {
    std::error_code ec;
    if (is_dir(dir)) {
        stdfs::rename(dir, staging / "replaced", ec);
        if (ec) fail("cannot replace the changed tree " + util::utf8_of(dir) + ": " + ec.message());
    }
    ensure_directories(dir.parent_path());
    fs::publish(tree, dir);  // already_exists: someone bypassed the lock; theirs is as good
}

}  // namespace

std::string UnpackedTree::change_notice(std::string_view wheel) const {
    return "cache: the unpacked tree of " + std::string(wheel) + " was changed (" +
           changed_.value_or("") + "); rebuilt from the wheel";
}

UnpackedTree Cache::ensure_unpacked(std::string_view sha256,
                                    const std::function<void(const std::filesystem::path&)>& fill,
                                    const std::filesystem::path& artifact) {
    const std::string digest = checked_sha256(sha256);
    const stdfs::path dir = unpacked_dir(digest);
    const stdfs::path lock_file = entry_lock_file(*this, digest);
    auto in_use = hold();
    std::optional<std::string> changed;
    bool made = false;
    // Linking happens under the entry's shared lock, making and replacing under its exclusive
    // one: a process finds the tree as recorded (or makes it), then links while no one can
    // replace it. Three rounds at most: a tree that keeps changing under us is an error.
    for (int round = 0; round < 3; ++round) {
        if (is_dir(dir)) {
            auto shared = fs::FileLock::acquire(lock_file, fs::LockMode::shared);
            // A tree made in this call is trusted as it is; any other is checked by stat.
            if (is_dir(dir) &&
                (made || check_tree_stamp(dir).result == StampCheck::Result::matches)) {
                return UnpackedTree(dir, std::move(in_use), std::move(shared), std::move(changed));
            }
        }
        auto exclusive = fs::FileLock::acquire(lock_file, fs::LockMode::exclusive);
        if (is_dir(dir)) {
            const StampCheck check = check_tree_stamp(dir);
            if (check.result == StampCheck::Result::matches) continue;  // remade meanwhile
            if (check.result == StampCheck::Result::differs) changed = check.detail;
            recheck_artifact(*this, digest, artifact);
        }
        auto staging = fs::TempDir::create_in(temp_dir(), "unpack");
        const stdfs::path tree = staging.path() / "tree";
        fill(tree);
        if (!is_dir(tree)) {
            fail("unpacking artifact " + digest + " produced no folder at " + util::utf8_of(tree));
        }
        write_tree_stamp(tree);
        put_in_place(tree, dir, staging.path());
        made = true;
    }
    fail("the unpacked tree " + util::utf8_of(dir) +
         " keeps changing while it is being made; is another program writing into the cache?");
}

std::optional<UnpackedTree> Cache::open_unpacked(std::string_view sha256) const {
    const std::string digest = checked_sha256(sha256);
    const stdfs::path dir = unpacked_dir(digest);
    if (!is_dir(dir)) return std::nullopt;
    auto in_use = hold();
    auto shared = fs::FileLock::acquire(entry_lock_file(*this, digest), fs::LockMode::shared);
    if (!is_dir(dir)) return std::nullopt;
    return UnpackedTree(dir, std::move(in_use), std::move(shared), std::nullopt);
}

bool Cache::remove_unpacked(std::string_view sha256) {
    const std::string digest = checked_sha256(sha256);
    const stdfs::path dir = unpacked_dir(digest);
    if (!is_dir(dir)) return false;
    auto in_use = hold();
    auto exclusive = fs::FileLock::acquire(entry_lock_file(*this, digest), fs::LockMode::exclusive);
    if (!is_dir(dir)) return false;
    // Out of the store with one rename, then deleted: nobody ever sees half a tree.
    auto staging = fs::TempDir::create_in(temp_dir(), "remove");
    std::error_code ec;
    stdfs::rename(dir, staging.path() / "tree", ec);
    if (ec) fail("cannot remove " + util::utf8_of(dir) + ": " + ec.message());
    return true;
}

bool Cache::remove_artifact(std::string_view sha256) {
    const stdfs::path dir = artifact_dir(sha256);
    if (!is_dir(dir)) return false;
    auto in_use = hold();
    auto staging = fs::TempDir::create_in(temp_dir(), "remove");
    std::error_code ec;
    stdfs::rename(dir, staging.path() / "artifact", ec);
    if (ec) fail("cannot remove " + util::utf8_of(dir) + ": " + ec.message());
    return true;
}

std::optional<std::string> Cache::find_metadata(std::string_view sha256) const {
    return read_if_present(metadata_file(sha256));
}

void Cache::put_metadata(std::string_view sha256, std::string_view metadata) {
    stdfs::path target = metadata_file(sha256);
    auto in_use = hold();
    // METADATA read back is only parsed: a short file could lose requirements, so it is flushed.
    replace_file(*this, target, metadata, true);
}

std::optional<HttpEntry> Cache::find_http(std::string_view url) const {
    auto stored = read_if_present(http_file(url));
    if (!stored) return std::nullopt;
    auto entry = parse_http_entry(*stored);
    // A different URL with the same hash cannot happen in practice; a damaged file can.
    if (!entry || entry->url != util::strip_credentials(url)) return std::nullopt;
    return entry;
}

void Cache::put_http(HttpEntry entry) {
    entry.url = util::strip_credentials(entry.url);
    if (entry.stored_at == 0) {
        entry.stored_at = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    }
    stdfs::path target = http_file(entry.url);
    auto in_use = hold();
    // An entry records its body's size and is a miss unless whole (parse_http_entry), so a
    // write that a power loss cuts short costs one fetch; the flush would cost most of the write.
    replace_file(*this, target, serialize_http_entry(entry), false);
}

}  // namespace aitk::cache
