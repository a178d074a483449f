// Fuzzes the ld.so.cache reader: any bytes must read or give an ImageProblem; what reads keeps
// its bounds, and every entry's flags can be checked against every architecture.
#include <cstddef>
#include <cstdint>
#include <span>

#include "aitk/diag/elf.hpp"
#include "aitk/diag/ld_so_cache.hpp"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto entries = aitk::diag::read_ld_so_cache(std::span<const std::uint8_t>(data, size));
    if (!entries) {
        check(!entries.error().message.empty());
        return 0;
    }
    check(entries->size() <= aitk::diag::kLdCacheMaxEntries);
    for (const auto& e : *entries) {
        check(e.soname.size() <= 4096 && e.path.size() <= 4096);
        for (std::uint16_t machine : {aitk::diag::kElfMachineX86_64, aitk::diag::kElfMachine386,
                                      aitk::diag::kElfMachineAarch64, aitk::diag::kElfMachineArm,
                                      aitk::diag::kElfMachinePpc64, aitk::diag::kElfMachineRiscv})
            (void)aitk::diag::ld_cache_entry_fits(e.flags, machine, machine != 3 && machine != 40);
    }
    return 0;
}
