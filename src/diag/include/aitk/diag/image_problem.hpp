#pragma once
// Why a binary (PE, ELF, ld.so.cache) could not be read: what is wrong and at which byte offset
// of the file, so a report can say "torch/lib/x.dll: import directory entry 3: name RVA 0x5000
// lies outside every section (at byte 0x1f8)". Readers return it and never throw on bad bytes.
#include <cstdint>
#include <string>

namespace aitk::diag {

struct ImageProblem {
    std::string message;
    std::uint64_t offset = 0;  // where in the file the bad value was read

    // "message (at byte 0x1f8)".
    std::string describe() const;
};

}  // namespace aitk::diag
