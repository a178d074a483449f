#pragma once
// DLL names a PE image holds as string constants (private to diag): what it may pass to
// LoadLibrary at run time (torch's cuDNN sub-libraries, nvrtc-builtins), which no import table
// shows. The .rdata section only (read-only initialised data), never the resources (a version
// resource names the file itself) or the export directory's own name.
#include <cstdint>
#include <string>
#include <vector>

#include "pe_map.hpp"

namespace aitk::diag::detail {

struct RvaRange {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;  // exclusive
};

// Strings ending in ".dll" (any case) and a NUL, ASCII or UTF-16LE, that start a string (after
// a NUL, or the start of the section) or follow a path separator; the name part only: letters,
// digits, '_', '-', '.', '+', at least two before ".dll", a letter among them. First spelling
// of each (case-insensitive), file order, at most kPeMaxDllNameStrings. Strings that start
// inside a range of `skip` are not taken.
std::vector<std::string> dll_name_strings(const PeMap& map, const std::vector<RvaRange>& skip);

}  // namespace aitk::diag::detail
