#pragma once
// What the binary readers (private to diag) say about a bad file: offsets and values in hex,
// as hex dumps and the format specifications show them.
#include <cstdint>
#include <cstdio>
#include <string>

#include "aitk/diag/image_problem.hpp"

namespace aitk::diag::detail {

inline std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

inline ImageProblem problem(std::string message, std::uint64_t offset) {
    return ImageProblem{std::move(message), offset};
}

}  // namespace aitk::diag::detail
