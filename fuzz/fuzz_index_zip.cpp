// Fuzzes the zip tail reader used for range-request metadata: any tail and any central
// directory bytes must give an answer or an error, and every answer must lie inside the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/index/zip_directory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The same bytes as the whole file and as the tail of a larger one.
    for (const std::uint64_t before : {std::uint64_t{0}, std::uint64_t{1000}}) {
        const aitk::index::ZipTail tail{before, bytes, before + size};
        auto location = aitk::index::locate_central_directory(tail);
        if (!location) continue;
        if (const auto* need = std::get_if<aitk::index::ByteSpan>(&*location)) {
            if (need->length == 0 || need->offset + need->length > before) std::abort();
            continue;
        }
        const auto& dir = std::get<aitk::index::CentralDirectory>(*location);
        if (dir.offset + dir.size > tail.file_size) std::abort();
        if (dir.offset >= before) {
            const auto directory = bytes.substr(dir.offset - before, dir.size);
            if (auto members = aitk::index::find_metadata_members(directory, dir.entries)) {
                for (const auto& m : *members)
                    (void)aitk::index::single_member_zip(m, bytes.substr(0, 64));
            }
        }
    }
    (void)aitk::index::find_metadata_members(bytes, size / 46 + 1);
    (void)aitk::index::local_header_length(bytes);
    return 0;
}
