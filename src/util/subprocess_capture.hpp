#pragma once
// What the POSIX and the Windows process runners share: the capped capture of a child's output.
#include <algorithm>
#include <cstddef>
#include <string>

namespace aitk::util::detail {

// Appends up to the cap; reports whether anything was dropped.
inline void append_capped(std::string& sink, bool& truncated, const char* data, std::size_t n,
                          std::size_t cap) {
    std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
    std::size_t keep = std::min(room, n);
    sink.append(data, keep);
    if (keep < n) truncated = true;
}

}  // namespace aitk::util::detail
