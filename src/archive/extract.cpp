#include "aitk/archive/extract.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/archive/error.hpp"
#include "aitk/archive/member_path.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "zip_census.hpp"

namespace aitk::archive {
namespace {

namespace stdfs = std::filesystem;

constexpr int max_symlink_hops = 40;  // what Linux allows before ELOOP

// One output file, created exclusively and never through a link, written at given offsets.
class OutputFile {
  public:
    OutputFile(const stdfs::path& path, bool executable) {
#ifdef _WIN32
        (void)executable;
        fd_ = ::_wopen(path.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY,
                       _S_IREAD | _S_IWRITE);
#else
        fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     executable ? 0755 : 0644);
#endif
        if (fd_ < 0) error_ = errno;
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile() {
        if (fd_ >= 0) close_now();
    }

    int error() const noexcept {
        return error_;
    }

    bool write_at(std::uint64_t offset, std::string_view data) {
        while (!data.empty()) {
#ifdef _WIN32
            if (::_lseeki64(fd_, static_cast<long long>(offset), SEEK_SET) < 0) return fail();
            int n =
                ::_write(fd_, data.data(),
                         static_cast<unsigned>(std::min(data.size(), fs::page_cache_write_bytes)));
#else
            ssize_t n =
                ::pwrite(fd_, data.data(), std::min(data.size(), fs::page_cache_write_bytes),
                         static_cast<off_t>(offset));
#endif
            if (n < 0) {
                if (errno == EINTR) continue;
                return fail();
            }
            offset += static_cast<std::uint64_t>(n);
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    // Makes the file exactly `size` bytes long (a sparse entry may end in a hole).
    bool extend_to(std::uint64_t size) {
#ifdef _WIN32
        return ::_chsize_s(fd_, static_cast<long long>(size)) == 0 || fail();
#else
        return ::ftruncate(fd_, static_cast<off_t>(size)) == 0 || fail();
#endif
    }

    void set_mtime(std::int64_t seconds) {
#ifndef _WIN32
        struct timespec times[2];
        times[0].tv_sec = 0;
        times[0].tv_nsec = UTIME_OMIT;
        times[1].tv_sec = static_cast<time_t>(seconds);
        times[1].tv_nsec = 0;
        ::futimens(fd_, times);  // best effort: a wrong mtime only costs a .pyc recompile
#else
        (void)seconds;
#endif
    }

    bool close_now() {
#ifdef _WIN32
        int rc = ::_close(fd_);
#else
        int rc = ::close(fd_);
#endif
        fd_ = -1;
        return rc == 0 || fail();
    }

  private:
    bool fail() {
        error_ = errno;
        return false;
    }
    int fd_ = -1;
    int error_ = 0;
};

std::string ascii_fold(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = util::to_ascii_lower(c);
    return out;
}

std::vector<std::string> split_components(std::string_view s) {
    std::vector<std::string> out;
    for (std::string_view part : util::split(s, '/')) {
        if (!part.empty()) out.emplace_back(part);
    }
    return out;
}

std::string join_components(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += '/';
        out += p;
    }
    return out;
}

// Which members one Extractor writes: every `count`-th one from `index` (in archive order).
// Several extractors, each with its own reader of the same archive, then share one staging
// folder and one byte budget.
struct Share {
    std::size_t index = 0;
    std::size_t count = 1;
};

class Extractor {
  public:
    Extractor(Reader& reader, const stdfs::path& staging, const ExtractOptions& options,
              std::atomic<std::uint64_t>& total_bytes, Share share = {})
        : reader_(reader),
          staging_(staging),
          options_(options),
          total_bytes_(total_bytes),
          share_(share) {}

    ExtractResult run() {
        std::size_t member = 0;
        while (const Entry* entry = reader_.next()) {
            if (++entry_count_ > options_.max_entries) {
                fail(Problem::too_many_entries, entry->path,
                     "is past the limit of " + std::to_string(options_.max_entries) + " entries");
            }
            if (member++ % share_.count != share_.index) continue;
            extract_one(*entry);
            positions_.resize(result_.entries.size(), member - 1);
        }
        verify_symlinks_on_disk();
        result_.total_bytes = total_bytes_.load();
        return std::move(result_);
    }

    // The archive position of each of run()'s entries.
    const std::vector<std::size_t>& positions() const noexcept { return positions_; }

  private:
    [[noreturn]] void fail(Problem problem, const std::string& member, std::string detail) {
        throw ArchiveError(problem, reader_.label(), member, std::move(detail));
    }

    std::string total_rule() const {
        return options_.max_total_rule.empty() ? "zip bomb?" : options_.max_total_rule;
    }

    [[noreturn]] void fail_io(const std::string& member, const std::string& what, int err) {
        fail(Problem::write_failed, member, what + ": " + std::strerror(err));
    }

    stdfs::path on_disk(const std::string& normalized) const {
        return staging_ / stdfs::path(std::u8string(normalized.begin(), normalized.end()));
    }

    void extract_one(const Entry& entry) {
        auto normalized = normalize_member_path(entry.path);
        if (!normalized) fail(Problem::unsafe_path, entry.path, normalized.error());
        const std::string& path = *normalized;
        if (path.empty()) {
            if (entry.type == EntryType::directory) return;  // "./": the root itself
            fail(Problem::unsafe_path, entry.path, "names the destination folder itself");
        }

        if (auto it = seen_.find(path); it != seen_.end()) {
            if (it->second == EntryType::directory && entry.type == EntryType::directory) return;
            fail(Problem::duplicate, entry.path,
                 it->second == EntryType::directory ? "is a " + std::string(to_string(entry.type)) +
                                                          " where the archive already has a folder"
                                                    : "appears more than once in the archive");
        }
        make_parents(entry.path, path);

        switch (entry.type) {
            case EntryType::directory:
                make_directory(entry, path);
                break;
            case EntryType::file:
                write_file(entry, path);
                break;
            case EntryType::symlink:
                make_symlink(entry, path);
                break;
            case EntryType::hardlink:
                make_hardlink(entry, path);
                break;
            default:
                fail(Problem::special_file, entry.path,
                     "is a " + std::string(to_string(entry.type)) +
                         " (only files, folders and links are extracted)");
        }
    }

    // Creates the folders above `path`, refusing to go through a link or below a file.
    void make_parents(const std::string& stored, const std::string& path) {
        std::size_t slash = path.find('/');
        while (slash != std::string::npos) {
            std::string prefix = path.substr(0, slash);
            auto it = seen_.find(prefix);
            if (it == seen_.end() && symlinks_folded_.count(ascii_fold(prefix)) != 0) {
                // A case-insensitive filesystem would resolve this through a link.
                fail(Problem::unsafe_link, stored,
                     "is inside '" + prefix + "', which differs only in case from a symlink");
            }
            if (it != seen_.end() && it->second != EntryType::directory) {
                if (it->second == EntryType::symlink) {
                    fail(Problem::unsafe_link, stored,
                         "is inside symlink '" + prefix + "' (writes never follow links)");
                }
                fail(Problem::duplicate, stored, "is below '" + prefix + "', which is a file");
            }
            if (it == seen_.end()) {
                create_folder(stored, prefix);
                seen_.emplace(std::move(prefix), EntryType::directory);
            }
            slash = path.find('/', slash + 1);
        }
    }

    void create_folder(const std::string& stored, const std::string& path) {
        std::error_code ec;
        stdfs::path target = on_disk(path);
        if (!stdfs::create_directory(target, ec) && !ec) {
            // It already existed: only acceptable as a folder (case-insensitive filesystems).
            if (!stdfs::is_directory(stdfs::symlink_status(target, ec))) {
                fail(Problem::duplicate, stored,
                     "collides with another member on this filesystem (names differing only in "
                     "case?)");
            }
        }
        if (ec) fail_io(stored, "cannot create folder '" + path + "'", ec.value());
    }

    void make_directory(const Entry& entry, const std::string& path) {
        create_folder(entry.path, path);
        seen_.emplace(path, EntryType::directory);
        result_.entries.push_back({path, EntryType::directory, 0, std::nullopt, {}, false});
    }

    void count_bytes(const std::string& stored, std::uint64_t file_end, std::uint64_t& counted) {
        if (file_end <= counted) return;
        const std::uint64_t more = file_end - counted;
        std::uint64_t before = total_bytes_.load();
        do {
            if (more > options_.max_total_bytes - before) {
                fail(Problem::too_large, stored,
                     "takes the extracted size past the limit of " +
                         std::to_string(options_.max_total_bytes) + " bytes (" + total_rule() +
                         ")");
            }
        } while (!total_bytes_.compare_exchange_weak(before, before + more));
        counted = file_end;
    }

    void write_file(const Entry& entry, const std::string& path) {
        if (entry.size && *entry.size > options_.max_total_bytes - total_bytes_.load()) {
            fail(Problem::too_large, entry.path,
                 "declares " + std::to_string(*entry.size) +
                     " bytes, past the extraction limit of " +
                     std::to_string(options_.max_total_bytes) + " bytes (" + total_rule() + ")");
        }
        const std::optional<MemberLimit> limit =
            options_.member_limit ? options_.member_limit(path) : std::nullopt;
        auto past_cap = [&](std::uint64_t end) {
            if (limit && end > limit->max_bytes) {
                fail(Problem::too_large, entry.path,
                     "expands past " + std::to_string(limit->max_bytes) + " bytes, " +
                         options_.member_limit_name);
            }
        };
        const bool skip = limit && limit->skip_data;
        OutputFile out(on_disk(path), (entry.mode & 0111u) != 0);
        if (out.error() != 0) {
            if (out.error() == EEXIST) {
                fail(Problem::duplicate, entry.path,
                     "collides with another member on this filesystem (names differing only in "
                     "case?)");
            }
            fail_io(entry.path, "cannot create '" + path + "'", out.error());
        }
        std::optional<fs::Sha256> hasher;
        if (options_.compute_sha256) hasher.emplace();
        std::uint64_t counted = 0;  // bytes (holes included) already charged to the limit
        std::uint64_t hashed = 0;   // bytes fed to the hash, in order
        std::string_view block;
        std::uint64_t offset = 0;
        while (!skip && reader_.next_block(block, offset)) {
            if (offset > UINT64_MAX - block.size()) {
                fail(Problem::unreadable, entry.path, "has an impossible data offset");
            }
            // A member that inflates past what its headers declare is stopped at once, not
            // after it has filled the disk (libarchive only notices at the member's end).
            if (entry.size && offset + block.size() > *entry.size) {
                fail(Problem::too_large, entry.path,
                     "inflates past the " + std::to_string(*entry.size) +
                         " bytes it declares (zip bomb?)");
            }
            past_cap(offset + block.size());
            count_bytes(entry.path, offset + block.size(), counted);
            if (hasher) {
                if (offset < hashed) {
                    fail(Problem::unreadable, entry.path, "has overlapping data blocks");
                }
                feed_zeros(*hasher, offset - hashed);
                hasher->update(block.data(), block.size());
                hashed = offset + block.size();
            }
            if (!out.write_at(offset, block)) {
                fail_io(entry.path, "cannot write '" + path + "'", out.error());
            }
        }
        std::uint64_t size = counted;
        if (!skip && entry.size && *entry.size > size) {
            // Only sparse entries end in a hole; a short zip member is caught by libarchive.
            past_cap(*entry.size);
            count_bytes(entry.path, *entry.size, counted);
            if (!out.extend_to(*entry.size)) {
                fail_io(entry.path, "cannot write '" + path + "'", out.error());
            }
            size = *entry.size;
        }
        if (hasher) feed_zeros(*hasher, size - hashed);
        if (options_.keep_mtime && entry.mtime) {
            out.set_mtime(options_.latest_mtime ? std::min(*entry.mtime, *options_.latest_mtime)
                                                : *entry.mtime);
        }
        if (!out.close_now()) fail_io(entry.path, "cannot write '" + path + "'", out.error());

        seen_.emplace(path, EntryType::file);
        file_index_[path] = result_.entries.size();
        result_.entries.push_back(
            {path,
             EntryType::file,
             size,
             hasher ? std::optional<fs::Digest256>(hasher->finish()) : std::nullopt,
             {},
             skip});
    }

    static void feed_zeros(fs::Sha256& hasher, std::uint64_t count) {
        static const char zeros[4096] = {};
        while (count > 0) {
            std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(count, sizeof zeros));
            hasher.update(zeros, n);
            count -= n;
        }
    }

    void make_symlink(const Entry& entry, const std::string& path) {
        if (options_.links == LinkPolicy::reject) {
            fail(Problem::unsafe_link, entry.path,
                 "is a symlink (to '" + entry.link_target + "'); links are not allowed here");
        }
        auto resolved = resolve_link_target(path, entry.link_target);
        if (!resolved) fail(Problem::unsafe_link, entry.path, resolved.error());
        std::error_code ec;
        stdfs::create_symlink(
            stdfs::path(std::u8string(entry.link_target.begin(), entry.link_target.end())),
            on_disk(path), ec);
        if (ec) fail_io(entry.path, "cannot create symlink '" + path + "'", ec.value());
        seen_.emplace(path, EntryType::symlink);
        symlinks_folded_.insert(ascii_fold(path));
        symlinks_.push_back({path, entry.path});
        result_.entries.push_back(
            {path, EntryType::symlink, 0, std::nullopt, entry.link_target, false});
    }

    void make_hardlink(const Entry& entry, const std::string& path) {
        if (options_.links == LinkPolicy::reject) {
            fail(Problem::unsafe_link, entry.path,
                 "is a hardlink (to '" + entry.link_target + "'); links are not allowed here");
        }
        auto source = normalize_member_path(entry.link_target);
        if (!source) {
            fail(Problem::unsafe_link, entry.path, "has a hardlink target that " + source.error());
        }
        auto it = file_index_.find(*source);
        if (it == file_index_.end()) {
            fail(Problem::unsafe_link, entry.path,
                 "is a hardlink to '" + entry.link_target +
                     "', which is not a file extracted earlier from this archive");
        }
        std::error_code ec;
        stdfs::create_hard_link(on_disk(*source), on_disk(path), ec);
        if (ec) fail_io(entry.path, "cannot create hardlink '" + path + "'", ec.value());
        const ExtractedEntry& original = result_.entries[it->second];
        seen_.emplace(path, EntryType::hardlink);
        result_.entries.push_back({path, EntryType::hardlink, original.size, original.sha256,
                                   *source, original.data_skipped});
    }

    // Names alone cannot tell where a chain of links ends ("a -> b/..", with b itself a link
    // to "."), so once every member is on disk each symlink is followed there, hop by hop,
    // and must stay inside the staging folder.
    void verify_symlinks_on_disk() {
        for (const auto& [path, stored] : symlinks_) {
            std::vector<std::string> stack = split_components(path);
            stack.pop_back();
            std::deque<std::string> pending;
            {
                std::error_code ec;
                stdfs::path target = stdfs::read_symlink(on_disk(path), ec);
                if (ec) fail_io(stored, "cannot read symlink '" + path + "'", ec.value());
                for (auto& c : split_components(util::generic_utf8_of(target)))
                    pending.push_back(c);
            }
            int hops = 0;
            while (!pending.empty()) {
                std::string part = std::move(pending.front());
                pending.pop_front();
                if (part == ".") continue;
                if (part == "..") {
                    if (stack.empty()) {
                        fail(Problem::unsafe_link, stored,
                             "is a symlink whose chain of links leads outside the destination");
                    }
                    stack.pop_back();
                    continue;
                }
                stack.push_back(part);
                std::error_code ec;
                stdfs::path here = on_disk(join_components(stack));
                if (!stdfs::is_symlink(stdfs::symlink_status(here, ec))) continue;
                if (++hops > max_symlink_hops) {
                    fail(Problem::unsafe_link, stored, "is a symlink in a loop of links");
                }
                stdfs::path next = stdfs::read_symlink(here, ec);
                if (ec) fail_io(stored, "cannot read symlink", ec.value());
                std::string next_text = util::generic_utf8_of(next);
                if (next.is_absolute() || (!next_text.empty() && next_text.front() == '/')) {
                    fail(Problem::unsafe_link, stored,
                         "is a symlink whose chain of links leads to an absolute path");
                }
                stack.pop_back();
                auto parts = split_components(next_text);
                pending.insert(pending.begin(), parts.begin(), parts.end());
            }
        }
    }

    Reader& reader_;
    const stdfs::path& staging_;
    const ExtractOptions& options_;
    std::unordered_map<std::string, EntryType> seen_;
    std::unordered_map<std::string, std::size_t> file_index_;
    std::unordered_set<std::string> symlinks_folded_;
    std::vector<std::pair<std::string, std::string>> symlinks_;  // normalised, stored
    std::uint64_t entry_count_ = 0;
    std::atomic<std::uint64_t>& total_bytes_;
    Share share_;
    std::vector<std::size_t> positions_;
    ExtractResult result_;
};

// The folder a tree is built in before it is renamed to `destination`: beside it, so that the
// rename stays on one filesystem.
fs::TempDir staging_beside(const stdfs::path& destination) {
    stdfs::path parent = destination.parent_path();
    if (parent.empty()) parent = ".";
    return fs::TempDir::create_in(parent, util::utf8_of(destination.filename()));
}

void publish_extracted(const std::string& label, fs::TempDir& staging,
                       const stdfs::path& destination) {
    if (fs::publish(staging.path(), destination) == fs::PublishResult::already_exists) {
        throw ArchiveError(Problem::destination_exists, label, "",
                           "cannot be extracted to " + util::utf8_of(destination) +
                               ", which appeared while extracting");
    }
    staging.keep();
}

// The members spread over options.threads extractors, one reader each. Nullopt when any share
// failed: the caller then extracts the archive alone, which names the problem exactly as a
// walk in archive order finds it (a duplicate split over two shares would otherwise look like
// a case clash on disk).
std::optional<ExtractResult> extract_in_shares(const std::string& label, const stdfs::path& archive,
                                               const stdfs::path& destination,
                                               const ExtractOptions& options) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(destination, ec))) return std::nullopt;
    std::optional<fs::TempDir> staging;
    staging.emplace(staging_beside(destination));
    const std::size_t count = options.threads;
    std::atomic<std::uint64_t> total_bytes{0};
    std::vector<ExtractResult> results(count);
    std::vector<std::vector<std::size_t>> positions(count);
    std::atomic<bool> failed{false};
    auto run_share = [&](std::size_t k) {
        try {
            Reader reader = Reader::open(archive);
            Extractor extractor(reader, staging->path(), options, total_bytes, {k, count});
            results[k] = extractor.run();
            positions[k] = extractor.positions();
        } catch (...) {
            failed = true;
        }
    };
    {
        std::vector<std::thread> threads;
        for (std::size_t k = 1; k < count; ++k)
            threads.emplace_back(run_share, k);
        run_share(0);
        for (auto& t : threads)
            t.join();
    }
    if (failed) return std::nullopt;  // staging goes with its TempDir

    // One result in archive order, and the duplicates a single walk would have refused.
    std::vector<std::pair<std::size_t, ExtractedEntry*>> order;
    for (std::size_t k = 0; k < count; ++k) {
        for (std::size_t i = 0; i < results[k].entries.size(); ++i)
            order.emplace_back(positions[k][i], &results[k].entries[i]);
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    ExtractResult merged;
    merged.entries.reserve(order.size());
    std::unordered_set<std::string_view> files;
    for (auto& [position, entry] : order) {
        if (entry->type != EntryType::directory && !files.insert(entry->path).second) {
            return std::nullopt;
        }
    }
    for (auto& [position, entry] : order)
        merged.entries.push_back(std::move(*entry));
    merged.total_bytes = total_bytes.load();
    publish_extracted(label, *staging, destination);
    return merged;
}
}  // namespace

ExtractResult extract(Reader& reader, const std::filesystem::path& destination,
                      const ExtractOptions& options) {
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(destination, ec))) {
        throw ArchiveError(
            Problem::destination_exists, reader.label(), "",
            "cannot be extracted to " + util::utf8_of(destination) + ", which already exists");
    }
    auto staging = staging_beside(destination);
    std::atomic<std::uint64_t> total_bytes{0};
    Extractor extractor(reader, staging.path(), options, total_bytes);
    ExtractResult result = extractor.run();
    publish_extracted(reader.label(), staging, destination);
    return result;
}

ExtractResult extract(const std::filesystem::path& archive,
                      const std::filesystem::path& destination, const ExtractOptions& options) {
    Reader reader = Reader::open(archive);
    // The count is checked before the first file is made; the member named is the first past
    // the limit, as a walk through the archive would name it.
    const auto census = detail::zip_census(archive);
    if (census && census->members > options.max_entries) {
        auto past = detail::zip_member_name(archive, *census, options.max_entries);
        throw ArchiveError(Problem::too_many_entries, reader.label(), past.value_or(""),
                           past ? "is past the limit of " + std::to_string(options.max_entries) +
                                      " entries (the archive declares " +
                                      std::to_string(census->members) + " members)"
                                : "declares " + std::to_string(census->members) +
                                      " members, past the limit of " +
                                      std::to_string(options.max_entries) + " entries");
    }
    // Shares need a zip (each reader seeks past the members of the others) and no links (a
    // link's target may be in another share).
    if (options.threads > 1 && census && census->members > 1 &&
        options.links == LinkPolicy::reject) {
        if (auto result = extract_in_shares(reader.label(), archive, destination, options)) {
            return std::move(*result);
        }
    }
    return extract(reader, destination, options);
}

}  // namespace aitk::archive
