// Fuzzes the archive reader on hostile bytes (zip, tar, compressed tar): every entry is listed
// and read under a size cap; failures must be ArchiveErrors, never crashes. Member paths are
// checked with the same normaliser extraction uses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "aitk/archive/error.hpp"
#include "aitk/archive/member_path.hpp"
#include "aitk/archive/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::archive;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)normalize_member_path(bytes);
    try {
        Reader reader = Reader::open_memory(bytes, "fuzz-input");
        std::size_t entries = 0;
        while (const Entry* entry = reader.next()) {
            (void)normalize_member_path(entry->path);
            (void)reader.read_all(1 << 20);
            if (++entries > 1000) break;
        }
    } catch (const ArchiveError&) {
    }
    return 0;
}
