// Fuzzes wheel and sdist filename parsing, compressed tag sets and name normalisation: each
// input must parse or fail cleanly, and a parsed wheel name must survive a round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/pep/name.hpp"
#include "aitk/pep/sdist_filename.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/wheel_filename.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::pep;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto wheel = WheelFilename::parse(text)) {
        auto again = WheelFilename::parse(wheel->to_string());
        if (!again || again->name != wheel->name || !(again->version == wheel->version) ||
            again->tags != wheel->tags) {
            std::abort();
        }
    }
    (void)SdistFilename::parse(text);
    (void)parse_tag(text);
    std::string canonical = canonicalize_name(text);
    if (canonicalize_name(canonical) != canonical) std::abort();  // idempotent
    (void)is_valid_name(text);
    (void)is_normalized_name(text);
    return 0;
}
