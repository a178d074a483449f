// The record of an unpacked tree's files (tree_stamp.hpp): written once when the tree is made,
// compared with the disk by stat before every use.
//
//   aitk-env tree stamp 1
//   <size> <mtime in ns> <permission bits, octal> <path relative to the tree, '/'-separated>
//   ...
//   end <number of files>
//
// The files are listed folder by folder, so that the check opens each folder once and looks each
// file up by its name alone (a path walk per file was most of the check's cost: torch's 17,869
// files, bench/results/cache-integrity-2026-12-05.md). The last line tells a whole record from
// one cut short (written without a flush: a record lost with a power cut only costs a rebuild,
// and a flush per wheel would cost every cold setup).
#include "aitk/cache/tree_stamp.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/util/error.hpp"
#include "aitk/util/parallel.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cache {
namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view header = "aitk-env tree stamp 1\n";

// Trees with more files than this are checked on several threads (torch: 17,869).
constexpr std::size_t files_per_thread = 4096;

struct FileStat {
    bool regular = false;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    unsigned mode = 0;  // permission bits
};

[[noreturn]] void fail(const stdfs::path& tree, const std::string& why) {
    throw util::Error(util::ExitCode::failure,
                      "cannot record the files of " + util::utf8_of(tree) + ": " + why);
}

// Looks files of the tree up folder by folder: the folder of the last file asked for stays
// open (openat on POSIX), so files of one folder cost one stat of their name each.
class Lookup {
  public:
    explicit Lookup(const stdfs::path& root) {
#ifndef _WIN32
        root_fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#else
        root_ = root;
#endif
    }
    Lookup(const Lookup&) = delete;
    Lookup& operator=(const Lookup&) = delete;
    ~Lookup() {
#ifndef _WIN32
        close_folder();
        if (root_fd_ >= 0) ::close(root_fd_);
#endif
    }

    // Nothing when `relative` ('/'-separated, NUL-terminated at relative.size()) is not there;
    // links are not followed.
    std::optional<FileStat> stat(std::string_view relative) {
        FileStat out;
#ifndef _WIN32
        const std::size_t slash = relative.rfind('/');
        int dir = root_fd_;
        const char* name = relative.data();
        if (slash != std::string_view::npos) {
            const std::string_view folder = relative.substr(0, slash);
            if (folder != folder_) {
                close_folder();
                folder_.assign(folder);
                folder_fd_ = ::openat(root_fd_, folder_.c_str(),
                                      O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            }
            dir = folder_fd_;
            name = relative.data() + slash + 1;
        }
        struct stat st {};
        if (dir < 0 || ::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
        out.regular = S_ISREG(st.st_mode);
        out.size = static_cast<std::uint64_t>(st.st_size);
        out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                       static_cast<std::int64_t>(st.st_mtim.tv_nsec);
        out.mode = static_cast<unsigned>(st.st_mode) & 07777u;
#else
        const stdfs::path path = root_ / util::path_from_utf8(relative);
        std::error_code ec;
        const auto status = stdfs::symlink_status(path, ec);
        if (ec || !stdfs::exists(status)) return std::nullopt;
        out.regular = stdfs::is_regular_file(status);
        out.mode = static_cast<unsigned>(status.permissions()) & 07777u;
        if (out.regular) {
            out.size = stdfs::file_size(path, ec);
            if (ec) return std::nullopt;
            const auto when = stdfs::last_write_time(path, ec);
            if (ec) return std::nullopt;
            out.mtime_ns =
                std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch())
                    .count();
        }
#endif
        return out;
    }

  private:
#ifndef _WIN32
    void close_folder() {
        if (folder_fd_ >= 0) ::close(folder_fd_);
        folder_fd_ = -1;
    }
    int root_fd_ = -1;
    int folder_fd_ = -1;
    std::string folder_;  // relative; "" before the first file in a folder
#else
    stdfs::path root_;
#endif
};

std::string octal(unsigned mode) {
    char buffer[16];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, mode, 8).ptr;
    std::string out(buffer, end);
    while (out.size() < 4)
        out.insert(out.begin(), '0');
    return out;
}

template <class Int>
bool parse_field(const char*& at, const char* end, Int& value, int base = 10) {
    auto [next, ec] = std::from_chars(at, end, value, base);
    if (ec != std::errc() || next == end || *next != ' ') return false;
    at = next + 1;
    return true;
}

// The whole record file, read with one allocation; nothing when it cannot be read.
std::optional<std::string> read_record(const stdfs::path& file) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;
    const auto size = in.tellg();
    if (size < 0) return std::nullopt;
    std::string text(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(text.data(), size)) return std::nullopt;
    return text;
}

// What one stretch of the record's lines found: how many files matched before the first
// difference (if any).
struct Stretch {
    std::size_t files = 0;
    std::optional<StampCheck> difference;
    const char* where = nullptr;  // the line of the difference
};

// Checks the lines in [at, end) (whole lines; each '\n' is turned into a NUL in place).
Stretch check_lines(const stdfs::path& tree, char* at, char* const end) {
    using Result = StampCheck::Result;
    Stretch out;
    Lookup lookup(tree);
    while (at < end) {
        char* eol = static_cast<char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
        *eol = '\0';
        const char* field = at;
        std::uint64_t size = 0;
        std::int64_t mtime = 0;
        unsigned mode = 0;
        if (!parse_field(field, eol, size) || !parse_field(field, eol, mtime) ||
            !parse_field(field, eol, mode, 8) || field == eol) {
            out.difference = StampCheck{Result::differs, "its record cannot be read"};
            out.where = at;
            return out;
        }
        const std::string_view path(field, static_cast<std::size_t>(eol - field));
        const auto now = lookup.stat(path);
        auto changed = [&](const std::string& how) {
            out.difference = StampCheck{Result::differs, "file " + std::string(path) + ": " + how};
            out.where = at;
            return out;
        };
        if (!now) return changed("missing");
        if (!now->regular) return changed("not a file");
        if (now->size != size) {
            return changed("size " + std::to_string(now->size) + ", was " + std::to_string(size));
        }
        if (now->mode != mode) return changed("mode " + octal(now->mode) + ", was " + octal(mode));
        if (now->mtime_ns != mtime) return changed("modified since it was unpacked");
        ++out.files;
        at = eol + 1;
    }
    return out;
}

}  // namespace

void write_tree_stamp(const std::filesystem::path& tree) {
    struct Entry {
        std::string folder;
        std::string name;
        FileStat stat;
    };
    std::vector<Entry> entries;
    Lookup lookup(tree);
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(tree, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (!it->is_regular_file(type_ec) || it->is_symlink(type_ec)) continue;
        const std::string relative = util::generic_utf8_of(it->path().lexically_relative(tree));
        if (relative == tree_stamp_name) continue;
        if (relative.find('\n') != std::string::npos) {
            fail(tree, "'" + relative + "' has a line break in its name");
        }
        const auto st = lookup.stat(relative);
        if (!st || !st->regular) fail(tree, "'" + relative + "' vanished while it was recorded");
        const std::size_t slash = relative.rfind('/');
        const std::size_t cut = slash == std::string::npos ? 0 : slash;
        entries.push_back({relative.substr(0, cut), relative.substr(slash + 1), *st});
    }
    if (ec) fail(tree, ec.message());
    // Folder by folder (each folder's files together), for the check's lookups.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.folder, a.name) < std::tie(b.folder, b.name);
    });
    std::string text(header);
    for (const auto& e : entries) {
        text += std::to_string(e.stat.size);
        text += ' ';
        text += std::to_string(e.stat.mtime_ns);
        text += ' ';
        text += octal(e.stat.mode);
        text += ' ';
        if (!e.folder.empty()) {
            text += e.folder;
            text += '/';
        }
        text += e.name;
        text += '\n';
    }
    text += "end " + std::to_string(entries.size()) + "\n";
    const stdfs::path file = tree / std::string(tree_stamp_name);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) fail(tree, "cannot write " + util::utf8_of(file));
}

StampCheck check_tree_stamp(const std::filesystem::path& tree) {
    using Result = StampCheck::Result;
    auto read = read_record(tree / std::string(tree_stamp_name));
    if (!read) return {Result::missing, "it has no record"};
    std::string& text = *read;
    // A whole record of this format: the header, then lines, then "end <lines>".
    if (!std::string_view(text).starts_with(header) || text.back() != '\n') {
        return {Result::missing, "its record is of another format or cut short"};
    }
    const std::size_t last_start = text.rfind('\n', text.size() - 2) + 1;
    const std::string_view last =
        std::string_view(text).substr(last_start, text.size() - 1 - last_start);
    std::size_t expected = 0;
    if (last_start < header.size() || !last.starts_with("end ") ||
        std::from_chars(last.data() + 4, last.data() + last.size(), expected).ec != std::errc()) {
        return {Result::missing, "its record is cut short"};
    }

    // Stretches of whole lines, one per thread.
    char* const body = text.data() + header.size();
    char* const end = text.data() + last_start;
    const std::size_t threads =
        std::clamp<std::size_t>(std::min<std::size_t>(std::thread::hardware_concurrency(), 4), 1,
                                std::max<std::size_t>(1, expected / files_per_thread));
    std::vector<std::pair<char*, char*>> stretches;
    char* from = body;
    for (std::size_t i = 1; i <= threads && from < end; ++i) {
        char* to = i == threads ? end : body + static_cast<std::size_t>(end - body) * i / threads;
        if (to < from) to = from;
        if (to < end && to > body && to[-1] != '\n') {
            to = static_cast<char*>(std::memchr(to, '\n', static_cast<std::size_t>(end - to)));
            to = to == nullptr ? end : to + 1;
        }
        stretches.emplace_back(from, to);
        from = to;
    }
    std::vector<Stretch> found(stretches.size());
    util::parallel_for(stretches.size(), stretches.size(), [&](std::size_t i) {
        found[i] = check_lines(tree, stretches[i].first, stretches[i].second);
    });
    std::size_t seen = 0;
    for (const auto& stretch : found) {
        if (stretch.difference) {
            StampCheck difference = *stretch.difference;
            if (difference.detail == "its record cannot be read") {
                const auto line =
                    2 + std::count(static_cast<const char*>(body), stretch.where, '\0');
                difference.detail += " (line " + std::to_string(line) + ")";
            }
            return difference;
        }
        seen += stretch.files;
    }
    if (seen != expected) return {Result::missing, "its record is cut short"};
    return {Result::matches, {}};
}

}  // namespace aitk::cache
