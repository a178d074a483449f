#include "aitk/archive/writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"
#include "libarchive_handle.hpp"

namespace aitk::archive {
namespace {

namespace stdfs = std::filesystem;

constexpr std::size_t stream_block = 1 << 20;

// Where the archive bytes go: a string or an open file.
struct Sink {
    std::string* memory = nullptr;
    std::FILE* file = nullptr;
};

la_ssize_t write_to_sink(struct archive* a, void* client, const void* data, std::size_t size) {
    auto* sink = static_cast<Sink*>(client);
    if (sink->memory != nullptr) {
        sink->memory->append(static_cast<const char*>(data), size);
    } else if (std::fwrite(data, 1, size, sink->file) != size) {
        archive_set_error(a, errno, "%s", std::strerror(errno));
        return -1;
    }
    return static_cast<la_ssize_t>(size);
}

class Writer {
  public:
    Writer(Format format, const WriteOptions& options, std::string label)
        : handle_(archive_write_new()),
          format_(format),
          options_(options),
          label_(std::move(label)) {
        if (!handle_) throw std::bad_alloc();
        struct archive* a = handle_.get();
        int rc = ARCHIVE_OK;
        if (format == Format::zip) {
            rc = archive_write_set_format_zip(a);
            // Names are UTF-8 (flagged as such in the zip), whatever the process locale.
            if (rc == ARCHIVE_OK)
                rc = archive_write_set_format_option(a, "zip", "hdrcharset", "UTF-8");
            // Zip readers find the end record at the very end: no block padding after it.
            if (rc == ARCHIVE_OK) rc = archive_write_set_bytes_in_last_block(a, 1);
        } else {
            // pax only where ustar cannot say it (long names): plain, widely read headers.
            rc = archive_write_set_format_pax_restricted(a);
#ifdef _WIN32
            if (rc == ARCHIVE_OK)
                rc = archive_write_set_format_option(a, "pax", "hdrcharset", "BINARY");
#endif
            if (rc == ARCHIVE_OK) rc = add_filter(a);
            // Compressed output needs no padding to 10240-byte records.
            if (rc == ARCHIVE_OK && format != Format::tar) {
                rc = archive_write_set_bytes_in_last_block(a, 1);
            }
        }
        check(rc, "", "cannot set up the writer");
    }

    void open(Sink& sink) {
        check(archive_write_open(handle_.get(), &sink, nullptr, write_to_sink, nullptr), "",
              "cannot start writing");
    }

    void add(const WriteEntry& item) {
        struct archive* a = handle_.get();
        detail::EntryHandle entry(archive_entry_new());
        if (!entry) throw std::bad_alloc();
        struct archive_entry* e = entry.get();
        set_text(e, archive_entry_set_pathname_utf8, archive_entry_set_pathname,
                 archive_entry_copy_pathname_w, item.path);
        archive_entry_set_mtime(e, options_.mtime, 0);
        archive_entry_set_uid(e, 0);
        archive_entry_set_gid(e, 0);
        std::uint64_t size = 0;
        switch (item.type) {
            case EntryType::file:
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0644);
                size = item.source.empty() ? item.content.size() : source_size(item);
                break;
            case EntryType::directory:
                archive_entry_set_filetype(e, AE_IFDIR);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0755);
                break;
            case EntryType::symlink:
                archive_entry_set_filetype(e, AE_IFLNK);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0777);
                set_text(e, archive_entry_set_symlink_utf8, archive_entry_set_symlink,
                         archive_entry_copy_symlink_w, item.link_target);
                break;
            case EntryType::hardlink:
                archive_entry_set_filetype(e, AE_IFREG);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0644);
                set_text(e, archive_entry_set_hardlink_utf8, archive_entry_set_hardlink,
                         archive_entry_copy_hardlink_w, item.link_target);
                break;
            case EntryType::character_device:
            case EntryType::block_device:
                archive_entry_set_filetype(
                    e, item.type == EntryType::character_device ? AE_IFCHR : AE_IFBLK);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0644);
                archive_entry_set_rdev(e, static_cast<dev_t>(item.rdev));
                break;
            case EntryType::fifo:
                archive_entry_set_filetype(e, AE_IFIFO);
                archive_entry_set_perm(e, item.mode != 0 ? item.mode : 0644);
                break;
            case EntryType::socket:
            case EntryType::unknown:
                throw ArchiveError(Problem::write_failed, label_, item.path,
                                   "cannot be written: unsupported entry type");
        }
        archive_entry_set_size(e, static_cast<la_int64_t>(size));
        if (format_ == Format::zip && item.type == EntryType::file) {
            check(item.store ? archive_write_zip_set_compression_store(a)
                             : archive_write_zip_set_compression_deflate(a),
                  item.path, "cannot choose the compression");
        }
        check(archive_write_header(a, e), item.path, "cannot write the header");
        if (size == 0) return;
        if (item.source.empty()) {
            write_data(item.path, item.content);
        } else {
            stream_source(item, size);
        }
    }

    void close() {
        check(archive_write_close(handle_.get()), "", "cannot finish the archive");
    }

  private:
    // Zip takes names as UTF-8. The tar writer crashes on UTF-8-only names when no UTF-8
    // locale could be had (libarchive 3.6); given the bytes, it stores them unchanged (at worst
    // with a pax "hdrcharset=BINARY" record), which readers take as UTF-8.
    // On Windows libarchive converts names through their multibyte form in the ANSI code page:
    // the zip writer crashes on a UTF-8-only name that code page cannot hold ("日本" on a
    // Western system) and is given UTF-16 instead, which it converts straight to UTF-8; the pax
    // writer, which needs bytes, is told to store them as they are (hdrcharset=BINARY), since
    // it would take them as ANSI text and encode them again.
    void set_text(struct archive_entry* e,
                  [[maybe_unused]] void (*as_utf8)(struct archive_entry*, const char*),
                  [[maybe_unused]] void (*as_bytes)(struct archive_entry*, const char*),
                  [[maybe_unused]] void (*as_wide)(struct archive_entry*, const wchar_t*),
                  const std::string& text) {
#ifdef _WIN32
        if (format_ == Format::zip) {
            as_wide(e, util::wide_from_utf8(text).c_str());
            return;
        }
#endif
        (format_ == Format::zip ? as_utf8 : as_bytes)(e, text.c_str());
    }

    int add_filter(struct archive* a) {
        std::string level = std::to_string(options_.compression_level);
        switch (format_) {
            case Format::tar:
                return ARCHIVE_OK;
            case Format::tar_gz: {
                int rc = archive_write_add_filter_gzip(a);
                // gzip would otherwise store the current time in its header.
                if (rc == ARCHIVE_OK)
                    rc = archive_write_set_filter_option(a, "gzip", "timestamp", nullptr);
                if (rc == ARCHIVE_OK && options_.compression_level >= 0) {
                    rc = archive_write_set_filter_option(a, "gzip", "compression-level",
                                                         level.c_str());
                }
                return rc;
            }
            case Format::tar_zst: {
                int rc = archive_write_add_filter_zstd(a);
                if (rc == ARCHIVE_OK && options_.compression_level >= 0) {
                    rc = archive_write_set_filter_option(a, "zstd", "compression-level",
                                                         level.c_str());
                }
                return rc;
            }
            case Format::tar_xz: {
                int rc = archive_write_add_filter_xz(a);
                if (rc == ARCHIVE_OK && options_.compression_level >= 0) {
                    rc = archive_write_set_filter_option(a, "xz", "compression-level",
                                                         level.c_str());
                }
                return rc;
            }
            case Format::zip:
                break;
        }
        return ARCHIVE_OK;
    }

    std::uint64_t source_size(const WriteEntry& item) {
        std::error_code ec;
        auto size = stdfs::file_size(item.source, ec);
        if (ec) {
            throw ArchiveError(Problem::write_failed, label_, item.path,
                               "cannot read " + util::utf8_of(item.source) + ": " + ec.message());
        }
        return size;
    }

    void write_data(const std::string& member, std::string_view data) {
        while (!data.empty()) {
            la_ssize_t n = archive_write_data(handle_.get(), data.data(), data.size());
            if (n <= 0) check(ARCHIVE_FATAL, member, "cannot write the data");
            data.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    void stream_source(const WriteEntry& item, std::uint64_t size) {
        std::ifstream in(item.source, std::ios::binary);
        std::vector<char> buffer(stream_block);
        std::uint64_t left = size;
        while (left > 0 && in) {
            auto want = static_cast<std::streamsize>(std::min<std::uint64_t>(left, buffer.size()));
            in.read(buffer.data(), want);
            auto got = static_cast<std::size_t>(in.gcount());
            write_data(item.path, std::string_view(buffer.data(), got));
            left -= got;
        }
        if (left != 0) {
            throw ArchiveError(
                Problem::write_failed, label_, item.path,
                "cannot read " + util::utf8_of(item.source) + " (it shrank or is unreadable)");
        }
    }

    void check(int rc, const std::string& member, const char* what) {
        if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN) return;  // a warning: a name stored as bytes
        throw ArchiveError(Problem::write_failed, label_, member,
                           std::string(what) + ": " + detail::error_text(handle_.get(), "?"));
    }

    detail::Utf8Names utf8_;  // the writer lives inside one call: names stay UTF-8 throughout
    detail::WriteHandle handle_;
    Format format_;
    const WriteOptions& options_;
    std::string label_;
};

void write_all(Sink& sink, Format format, std::vector<WriteEntry>& entries,
               const WriteOptions& options, std::string label) {
    if (options.sort) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const WriteEntry& a, const WriteEntry& b) { return a.path < b.path; });
    }
    Writer writer(format, options, std::move(label));
    writer.open(sink);
    for (const auto& entry : entries)
        writer.add(entry);
    writer.close();
}

}  // namespace

std::string_view to_string(Format format) noexcept {
    switch (format) {
        case Format::zip:
            return "zip";
        case Format::tar:
            return "tar";
        case Format::tar_gz:
            return "tar.gz";
        case Format::tar_zst:
            return "tar.zst";
        case Format::tar_xz:
            return "tar.xz";
    }
    return "unknown";
}

WriteEntry WriteEntry::file(std::string path, std::string content, std::uint32_t mode) {
    WriteEntry e;
    e.path = std::move(path);
    e.content = std::move(content);
    e.mode = mode;
    return e;
}

WriteEntry WriteEntry::directory(std::string path) {
    WriteEntry e;
    e.path = std::move(path);
    if (e.path.empty() || e.path.back() != '/') e.path += '/';
    e.type = EntryType::directory;
    return e;
}

WriteEntry WriteEntry::symlink(std::string path, std::string target) {
    WriteEntry e;
    e.path = std::move(path);
    e.type = EntryType::symlink;
    e.link_target = std::move(target);
    return e;
}

WriteEntry WriteEntry::hardlink(std::string path, std::string target) {
    WriteEntry e;
    e.path = std::move(path);
    e.type = EntryType::hardlink;
    e.link_target = std::move(target);
    return e;
}

void write_archive(const std::filesystem::path& out, Format format, std::vector<WriteEntry> entries,
                   const WriteOptions& options) {
    stdfs::path parent = out.parent_path().empty() ? stdfs::path(".") : out.parent_path();
    stdfs::path temp = fs::unique_temp_path(parent, util::utf8_of(out.filename()));
#ifdef _WIN32
    std::FILE* file = ::_wfopen(temp.c_str(), L"wb");
#else
    std::FILE* file = std::fopen(temp.c_str(), "wbe");
#endif
    if (file == nullptr) {
        throw ArchiveError(Problem::write_failed, util::utf8_of(out), "",
                           std::string("cannot create it: ") + std::strerror(errno));
    }
    Sink sink;
    sink.file = file;
    try {
        write_all(sink, format, entries, options, util::utf8_of(out));
    } catch (...) {
        std::fclose(file);
        fs::remove_all_quietly(temp);
        throw;
    }
    if (std::fclose(file) != 0) {
        int err = errno;
        fs::remove_all_quietly(temp);
        throw ArchiveError(Problem::write_failed, util::utf8_of(out), "",
                           std::string("cannot write it: ") + std::strerror(err));
    }
    std::error_code ec;
    stdfs::rename(temp, out, ec);
    if (ec) {
        fs::remove_all_quietly(temp);
        throw ArchiveError(Problem::write_failed, util::utf8_of(out), "",
                           "cannot move it into place: " + ec.message());
    }
}

std::string write_archive_to_memory(Format format, std::vector<WriteEntry> entries,
                                    const WriteOptions& options) {
    std::string bytes;
    Sink sink;
    sink.memory = &bytes;
    write_all(sink, format, entries, options, "<memory>");
    return bytes;
}

void write_directory_archive(const std::filesystem::path& out, Format format,
                             const std::filesystem::path& directory, std::string_view prefix,
                             const WriteOptions& options) {
    std::vector<WriteEntry> entries;
    std::error_code ec;
    for (auto it = stdfs::recursive_directory_iterator(directory, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        const stdfs::path& p = it->path();
        std::u8string rel = p.lexically_relative(directory).generic_u8string();
        std::string name = std::string(prefix) + std::string(rel.begin(), rel.end());
        auto status = it->symlink_status(ec);
        if (ec) break;
        if (stdfs::is_symlink(status)) {
            std::u8string target = stdfs::read_symlink(p, ec).generic_u8string();
            if (ec) break;
            entries.push_back(WriteEntry::symlink(name, std::string(target.begin(), target.end())));
        } else if (stdfs::is_directory(status)) {
            entries.push_back(WriteEntry::directory(name));
        } else if (stdfs::is_regular_file(status)) {
            WriteEntry e;
            e.path = name;
            e.source = p;
            bool executable =
                (status.permissions() & stdfs::perms::owner_exec) != stdfs::perms::none;
            e.mode = executable ? 0755 : 0644;
            entries.push_back(std::move(e));
        }
    }
    if (ec) {
        throw ArchiveError(Problem::write_failed, util::utf8_of(out), "",
                           "cannot read " + util::utf8_of(directory) + ": " + ec.message());
    }
    WriteOptions sorted = options;
    sorted.sort = true;
    write_archive(out, format, std::move(entries), sorted);
}

}  // namespace aitk::archive
