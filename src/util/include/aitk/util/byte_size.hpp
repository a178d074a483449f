#pragma once
// Byte counts in words for people.
#include <cstdint>
#include <string>

namespace aitk::util {

// "913 B", "1.5 KiB", "300.0 MiB", "2.0 GiB" (binary units, one decimal above bytes).
std::string human_bytes(std::uint64_t bytes);

}  // namespace aitk::util
