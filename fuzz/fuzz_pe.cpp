// Fuzzes read_pe: any bytes must give an image or an ImageProblem inside the file, and what is
// read must keep the reader's promises (bounded, printable names; a known-shaped image).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "aitk/diag/pe.hpp"

namespace {

bool printable_name(const std::string& name) {
    if (name.empty() || name.size() > aitk::diag::kPeMaxNameLength) return false;
    for (char c : name)
        if (c < 0x20 || c > 0x7e) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::span<const std::uint8_t> bytes(data, size);
    bool looks = aitk::diag::looks_like_pe(bytes);
    auto image = aitk::diag::read_pe(bytes);
    if (!image) {
        if (image.error().offset > size || image.error().message.empty()) std::abort();
        if (image.error().describe().size() <= image.error().message.size()) std::abort();
        return 0;
    }
    if (!looks) std::abort();
    if (aitk::diag::pe_machine_name(image->machine).empty()) std::abort();
    for (const auto* names : {&image->imports, &image->delay_imports}) {
        if (names->size() > aitk::diag::kPeMaxImports) std::abort();
        for (const auto& name : *names)
            if (!printable_name(name)) std::abort();
    }
    return 0;
}
