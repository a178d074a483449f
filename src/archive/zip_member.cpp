#include "aitk/archive/zip_member.hpp"

#include "aitk/archive/error.hpp"
#include "aitk/util/utf8.hpp"
#include "zip_census.hpp"

namespace aitk::archive {

std::optional<Member> read_zip_member_where(const std::filesystem::path& zip,
                                            const std::function<bool(std::string_view)>& wanted,
                                            std::uint64_t max_bytes) {
    // The directory of a wheel of 500,000 members (extraction's limit) is ~50 MB.
    constexpr std::uint64_t max_directory = 256ull << 20;
    const auto census = detail::zip_census(zip);
    if (!census) return std::nullopt;
    const auto entry = detail::find_zip_entry(zip, *census, wanted, max_directory);
    if (!entry) return std::nullopt;
    const auto bytes = detail::zip_entry_bytes(zip, *entry);
    if (!bytes) {
        throw ArchiveError(Problem::unreadable, util::utf8_of(zip), entry->name,
                           "has no local header where the central directory points");
    }
    // The local header and data alone read as a zip of one member (libarchive's streaming
    // reader), which inflates it and checks its CRC.
    Reader reader = Reader::open_memory(*bytes, util::utf8_of(zip));
    const Entry* first = reader.next();
    if (first == nullptr || first->path != entry->name) {
        throw ArchiveError(Problem::unreadable, util::utf8_of(zip), entry->name,
                           "its local header names another member");
    }
    return Member{entry->name, reader.read_all(max_bytes)};
}

}  // namespace aitk::archive
