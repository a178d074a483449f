// Fuzzes SpecifierSet/Specifier parsing and evaluation: the first line is a specifier set, the
// second a candidate version. Parsed sets must round-trip through to_string().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/pep/specifier.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::pep;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t nl = text.find('\n');
    std::string_view spec_text = text.substr(0, nl);
    std::string_view version_text = nl == std::string_view::npos ? "1.0" : text.substr(nl + 1);
    (void)Specifier::parse(spec_text);
    auto set = SpecifierSet::parse(spec_text);
    if (!set) return 0;
    auto again = SpecifierSet::parse(set->to_string());
    if (!again || !(*again == *set) || again->to_string() != set->to_string()) std::abort();
    for (std::optional<bool> pre : {std::optional<bool>{}, std::optional<bool>{true},
                                    std::optional<bool>{false}}) {
        (void)set->contains(version_text, pre);
        (void)set->contains(version_text, pre, /*installed=*/true);
        if (auto v = Version::parse(version_text)) (void)set->contains(*v, pre);
    }
    (void)set->filter({std::string(version_text), "1.0", "2.0a1"});
    return 0;
}
