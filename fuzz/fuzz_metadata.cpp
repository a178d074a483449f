// Fuzzes core metadata (METADATA / PKG-INFO) parsing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aitk/pep/metadata.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)aitk::pep::CoreMetadata::parse(text);
    return 0;
}
