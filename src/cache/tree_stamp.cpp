// The record of an unpacked tree's files (tree_stamp.hpp): written once when the tree is made,
// compared with the disk by stat before every use.
//
//   aitk-env tree stamp 1
//   <size> <mtime in ns> <permission bits, octal> <path relative to the tree, '/'-separated>
//   ...
//   end <number of files>
//
// The last line tells a whole record from one cut short (written without a flush: a record lost
// with a power cut only costs a rebuild, and a flush per wheel would cost every cold setup).
#include "aitk/cache/tree_stamp.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cache {
namespace {

namespace stdfs = std::filesystem;

constexpr std::string_view header = "aitk-env tree stamp 1\n";

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

// The tree, opened once: each file is then looked up relative to it (fstatat on POSIX, so a
// check of 30,000 files builds no absolute path and walks only the relative part).
class Tree {
  public:
    explicit Tree(const stdfs::path& root) : root_(root) {
#ifndef _WIN32
        fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
    }
    Tree(const Tree&) = delete;
    Tree& operator=(const Tree&) = delete;
    ~Tree() {
#ifndef _WIN32
        if (fd_ >= 0) ::close(fd_);
#endif
    }

    // Nothing when `relative` (NUL-terminated, '/'-separated) is not there; links not followed.
    std::optional<FileStat> stat(const char* relative) const {
        FileStat out;
#ifndef _WIN32
        struct stat st {};
        if (fd_ < 0 || ::fstatat(fd_, relative, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            return std::nullopt;
        }
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
    stdfs::path root_;
#ifndef _WIN32
    int fd_ = -1;
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

}  // namespace

void write_tree_stamp(const std::filesystem::path& tree) {
    const Tree opened(tree);
    std::string text(header);
    std::size_t files = 0;
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
        const auto st = opened.stat(relative.c_str());
        if (!st || !st->regular) fail(tree, "'" + relative + "' vanished while it was recorded");
        text += std::to_string(st->size);
        text += ' ';
        text += std::to_string(st->mtime_ns);
        text += ' ';
        text += octal(st->mode);
        text += ' ';
        text += relative;
        text += '\n';
        ++files;
    }
    if (ec) fail(tree, ec.message());
    text += "end " + std::to_string(files) + "\n";
    const stdfs::path file = tree / std::string(tree_stamp_name);
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) fail(tree, "cannot write " + util::utf8_of(file));
}

StampCheck check_tree_stamp(const std::filesystem::path& tree) {
    using Result = StampCheck::Result;
    std::string text;
    try {
        text = fs::read_file(tree / std::string(tree_stamp_name));
    } catch (const util::Error&) {
        return {Result::missing, "it has no record"};
    }
    // A whole record of this format: the header, then lines, then "end <lines>".
    if (!std::string_view(text).starts_with(header) || text.back() != '\n') {
        return {Result::missing, "its record is of another format or cut short"};
    }
    const std::size_t last_start = text.rfind('\n', text.size() - 2) + 1;
    const std::string_view last =
        std::string_view(text).substr(last_start, text.size() - 1 - last_start);
    std::size_t expected = 0;
    if (!last.starts_with("end ") ||
        std::from_chars(last.data() + 4, last.data() + last.size(), expected).ec != std::errc()) {
        return {Result::missing, "its record is cut short"};
    }

    const Tree opened(tree);
    std::size_t seen = 0;
    char* at = text.data() + header.size();
    char* const end = text.data() + last_start;
    while (at < end) {
        char* eol = static_cast<char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
        *eol = '\0';  // the path below is NUL-terminated in place
        const char* field = at;
        std::uint64_t size = 0;
        std::int64_t mtime = 0;
        unsigned mode = 0;
        if (!parse_field(field, eol, size) || !parse_field(field, eol, mtime) ||
            !parse_field(field, eol, mode, 8) || field == eol) {
            return {Result::differs,
                    "its record cannot be read (line " + std::to_string(seen + 2) + ")"};
        }
        const char* path = field;
        const auto now = opened.stat(path);
        auto changed = [&](const std::string& how) {
            return StampCheck{Result::differs, "file " + std::string(path) + ": " + how};
        };
        if (!now) return changed("missing");
        if (!now->regular) return changed("not a file");
        if (now->size != size) {
            return changed("size " + std::to_string(now->size) + ", was " + std::to_string(size));
        }
        if (now->mode != mode) return changed("mode " + octal(now->mode) + ", was " + octal(mode));
        if (now->mtime_ns != mtime) return changed("modified since it was unpacked");
        ++seen;
        at = eol + 1;
    }
    if (seen != expected) return {Result::missing, "its record is cut short"};
    return {Result::matches, {}};
}

}  // namespace aitk::cache
