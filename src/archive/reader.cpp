#include "aitk/archive/reader.hpp"

#include <algorithm>
#include <utility>

#include "aitk/archive/error.hpp"
#include "aitk/archive/member_path.hpp"
#include "aitk/util/utf8.hpp"
#include "libarchive_handle.hpp"

namespace aitk::archive {

struct Reader::Impl {
    detail::ReadHandle handle;
    std::string label;
    Entry entry;
    bool has_entry = false;
};

namespace {

// Only the formats and filters a Python toolchain meets: fewer parsers, less attack surface.
detail::ReadHandle new_read_handle() {
    detail::ReadHandle a(archive_read_new());
    if (!a) throw std::bad_alloc();
    archive_read_support_format_zip(a.get());
    archive_read_support_format_tar(a.get());
    archive_read_support_filter_gzip(a.get());
    archive_read_support_filter_bzip2(a.get());
    archive_read_support_filter_xz(a.get());
    archive_read_support_filter_zstd(a.get());
#ifdef _WIN32
    // Names without a charset flag are UTF-8 (wheels and sdists are written so), not the ANSI
    // code page libarchive would assume on Windows (POSIX gets the same from Utf8Names).
    archive_read_set_options(a.get(), "hdrcharset=UTF-8");
#endif
    return a;
}

EntryType entry_type(struct archive_entry* e) {
#ifdef _WIN32
    if (archive_entry_hardlink_w(e) != nullptr) return EntryType::hardlink;  // see entry_text
#endif
    if (archive_entry_hardlink(e) != nullptr) return EntryType::hardlink;
    switch (archive_entry_filetype(e)) {
        case AE_IFREG:
            return EntryType::file;
        case AE_IFDIR:
            return EntryType::directory;
        case AE_IFLNK:
            return EntryType::symlink;
        case AE_IFCHR:
            return EntryType::character_device;
        case AE_IFBLK:
            return EntryType::block_device;
        case AE_IFIFO:
            return EntryType::fifo;
        case AE_IFSOCK:
            return EntryType::socket;
        default:
            return EntryType::unknown;
    }
}

// A name of `e` as UTF-8. On Windows libarchive keeps names as UTF-16, and its multibyte forms
// go through the ANSI code page (NULL for "日本" on a Western system): UTF-16 comes first there.
// Elsewhere asking for it would only cost a conversion per entry.
std::string entry_text(struct archive_entry* e,
                       [[maybe_unused]] const wchar_t* (*wide)(struct archive_entry*),
                       const char* (*utf8)(struct archive_entry*),
                       const char* (*raw)(struct archive_entry*)) {
#ifdef _WIN32
    if (const wchar_t* w = wide(e)) return util::utf8_from_wide(w);
#endif
    if (const char* u = utf8(e)) return u;
    if (const char* r = raw(e)) return r;
    return {};
}

}  // namespace

std::string_view to_string(EntryType type) noexcept {
    switch (type) {
        case EntryType::file:
            return "file";
        case EntryType::directory:
            return "directory";
        case EntryType::symlink:
            return "symlink";
        case EntryType::hardlink:
            return "hardlink";
        case EntryType::character_device:
            return "character device";
        case EntryType::block_device:
            return "block device";
        case EntryType::fifo:
            return "FIFO";
        case EntryType::socket:
            return "socket";
        case EntryType::unknown:
            return "unknown entry type";
    }
    return "unknown entry type";
}

Reader::Reader(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

Reader Reader::open(const std::filesystem::path& file) {
    detail::Utf8Names utf8;
    auto impl = std::make_unique<Impl>();
    impl->handle = new_read_handle();
    impl->label = util::utf8_of(file);
#ifdef _WIN32
    int rc = archive_read_open_filename_w(impl->handle.get(), file.c_str(), 1 << 16);
#else
    int rc = archive_read_open_filename(impl->handle.get(), file.c_str(), 1 << 16);
#endif
    if (rc != ARCHIVE_OK) {
        throw ArchiveError(Problem::unreadable, impl->label, "",
                           detail::error_text(impl->handle.get(), "cannot open"));
    }
    return Reader(std::move(impl));
}

Reader Reader::open_memory(std::string_view bytes, std::string label) {
    detail::Utf8Names utf8;
    auto impl = std::make_unique<Impl>();
    impl->handle = new_read_handle();
    impl->label = std::move(label);
    if (archive_read_open_memory(impl->handle.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
        throw ArchiveError(Problem::unreadable, impl->label, "",
                           detail::error_text(impl->handle.get(), "not an archive"));
    }
    return Reader(std::move(impl));
}

const std::string& Reader::label() const noexcept {
    return impl_->label;
}

const Entry* Reader::next() {
    detail::Utf8Names utf8;  // names are converted while reading the header and below
    struct archive_entry* e = nullptr;
    int rc = ARCHIVE_RETRY;
    for (int attempt = 0; rc == ARCHIVE_RETRY && attempt < 8; ++attempt) {
        rc = archive_read_next_header(impl_->handle.get(), &e);
    }
    if (rc == ARCHIVE_EOF) {
        impl_->has_entry = false;
        return nullptr;
    }
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {  // a warning: e.g. a name in another charset
        std::string after = impl_->has_entry ? impl_->entry.path : std::string();
        impl_->has_entry = false;
        throw ArchiveError(Problem::unreadable, impl_->label, after,
                           detail::error_text(impl_->handle.get(), "corrupt archive"));
    }
    Entry& out = impl_->entry;
    out.path = entry_text(e, archive_entry_pathname_w, archive_entry_pathname_utf8,
                          archive_entry_pathname);
    out.type = entry_type(e);
    out.size = archive_entry_size_is_set(e)
                   ? std::optional<std::uint64_t>(
                         static_cast<std::uint64_t>(std::max<la_int64_t>(0, archive_entry_size(e))))
                   : std::nullopt;
    out.mode = static_cast<std::uint32_t>(archive_entry_perm(e)) & 07777u;
    if (out.type == EntryType::hardlink) {
        out.link_target = entry_text(e, archive_entry_hardlink_w, archive_entry_hardlink_utf8,
                                     archive_entry_hardlink);
    } else if (out.type == EntryType::symlink) {
        out.link_target = entry_text(e, archive_entry_symlink_w, archive_entry_symlink_utf8,
                                     archive_entry_symlink);
    } else {
        out.link_target.clear();
    }
    out.mtime = archive_entry_mtime_is_set(e) ? std::optional<std::int64_t>(archive_entry_mtime(e))
                                              : std::nullopt;
    impl_->has_entry = true;
    return &out;
}

bool Reader::next_block(std::string_view& block, std::uint64_t& offset) {
    const void* data = nullptr;
    std::size_t size = 0;
    la_int64_t at = 0;
    int rc = archive_read_data_block(impl_->handle.get(), &data, &size, &at);
    if (rc == ARCHIVE_EOF) return false;
    // For data, libarchive reports a bad CRC or a wrong size as a mere warning: both mean the
    // bytes are not what was stored.
    if (rc != ARCHIVE_OK) {
        throw ArchiveError(Problem::unreadable, impl_->label,
                           impl_->has_entry ? impl_->entry.path : std::string(),
                           detail::error_text(impl_->handle.get(), "corrupt member data"));
    }
    block = std::string_view(static_cast<const char*>(data), size);
    offset = static_cast<std::uint64_t>(std::max<la_int64_t>(0, at));
    return true;
}

std::string Reader::read_all(std::uint64_t max_bytes) {
    const std::string member = impl_->has_entry ? impl_->entry.path : std::string();
    auto too_large = [&] {
        return ArchiveError(Problem::too_large, impl_->label, member,
                            "is larger than the limit of " + std::to_string(max_bytes) + " bytes");
    };
    if (impl_->has_entry && impl_->entry.size && *impl_->entry.size > max_bytes) throw too_large();
    std::string out;
    std::string_view block;
    std::uint64_t offset = 0;
    while (next_block(block, offset)) {
        if (offset > max_bytes || block.size() > max_bytes - offset) throw too_large();
        out.resize(offset, '\0');  // zeros for a hole of a sparse entry
        out.append(block);
    }
    return out;
}

std::vector<Entry> list_entries(const std::filesystem::path& archive) {
    Reader reader = Reader::open(archive);
    std::vector<Entry> out;
    while (const Entry* e = reader.next())
        out.push_back(*e);
    return out;
}

namespace {

std::optional<std::string> find_member(Reader& reader, std::string_view member,
                                       std::uint64_t max_bytes) {
    auto wanted = normalize_member_path(member);
    if (!wanted) return std::nullopt;
    while (const Entry* e = reader.next()) {
        if (e->type != EntryType::file) continue;
        auto name = normalize_member_path(e->path);
        if (name && *name == *wanted) return reader.read_all(max_bytes);
    }
    return std::nullopt;
}

// "<x>.dist-info/METADATA" exactly one folder deep.
bool is_wheel_metadata(std::string_view path) {
    constexpr std::string_view suffix = ".dist-info/METADATA";
    if (path.size() <= suffix.size() || !path.ends_with(suffix)) return false;
    return path.find('/') == path.size() - suffix.size() + std::string_view(".dist-info").size();
}

Member find_wheel_metadata(Reader& reader) {
    std::optional<Member> found;
    while (const Entry* e = reader.next()) {
        if (e->type != EntryType::file) continue;
        auto name = normalize_member_path(e->path);
        if (!name || !is_wheel_metadata(*name)) continue;
        if (found) {
            if (found->path == *name) continue;  // a duplicate of the same member: first wins
            throw ArchiveError(
                Problem::duplicate, reader.label(), *name,
                "is a second .dist-info/METADATA (the first was '" + found->path + "')");
        }
        found = Member{*name, reader.read_all(default_member_limit)};
    }
    if (!found) {
        throw ArchiveError(Problem::missing_member, reader.label(), "",
                           "has no <name>-<version>.dist-info/METADATA (is it a wheel?)");
    }
    return std::move(*found);
}

}  // namespace

std::optional<std::string> read_member(const std::filesystem::path& archive,
                                       std::string_view member, std::uint64_t max_bytes) {
    Reader reader = Reader::open(archive);
    return find_member(reader, member, max_bytes);
}

std::optional<std::string> read_member(std::string_view archive_bytes, std::string label,
                                       std::string_view member, std::uint64_t max_bytes) {
    Reader reader = Reader::open_memory(archive_bytes, std::move(label));
    return find_member(reader, member, max_bytes);
}

Member read_wheel_metadata(const std::filesystem::path& wheel) {
    Reader reader = Reader::open(wheel);
    return find_wheel_metadata(reader);
}

Member read_wheel_metadata(std::string_view wheel_bytes, std::string label) {
    Reader reader = Reader::open_memory(wheel_bytes, std::move(label));
    return find_wheel_metadata(reader);
}

}  // namespace aitk::archive
