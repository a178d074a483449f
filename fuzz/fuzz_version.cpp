// Fuzzes Version::parse: any input must parse or fail cleanly, and what parses must survive a
// round trip through its normalised string.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/pep/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = aitk::pep::Version::parse(text);
    if (!parsed) return 0;
    auto again = aitk::pep::Version::parse(parsed->to_string());
    if (!again || !(*again == *parsed) || again->to_string() != parsed->to_string()) std::abort();
    (void)aitk::pep::canonicalize_version(text);
    return 0;
}
