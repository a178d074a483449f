// Fuzzes the ELF reader: any bytes must read or give an ImageProblem, and what reads must keep
// the reader's promises (ELF magic, bounded non-empty DT_NEEDED names, nothing without a dynamic
// section).
#include <cstddef>
#include <cstdint>
#include <span>

#include "aitk/diag/elf.hpp"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::span<const std::uint8_t> bytes(data, size);
    auto image = aitk::diag::read_elf(bytes);
    if (!image) {
        check(!image.error().message.empty() && !image.error().describe().empty());
        return 0;
    }
    check(aitk::diag::looks_like_elf(bytes));
    check(image->has_dynamic ||
          (image->needed.empty() && !image->soname && !image->rpath && !image->runpath));
    for (const auto& name : image->needed)
        check(!name.empty() && name.size() <= aitk::diag::kElfMaxStringLength);
    check(!aitk::diag::elf_machine_name(image->machine, image->is_64bit).empty());
    for (const auto& path : {image->rpath, image->runpath}) {
        if (!path) continue;
        check(path->size() <= aitk::diag::kElfMaxStringLength);
        for (const auto& entry : aitk::diag::expand_search_path(*path, "/origin"))
            check(!entry.empty());
    }
    return 0;
}
