#include "aitk/util/byte_size.hpp"

#include <cstdio>
#include <iterator>

namespace aitk::util {

std::string human_bytes(std::uint64_t bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    char out[32];
    if (unit == 0) {
        std::snprintf(out, sizeof out, "%llu B", static_cast<unsigned long long>(bytes));
    } else {
        std::snprintf(out, sizeof out, "%.1f %s", value, units[unit]);
    }
    return out;
}

}  // namespace aitk::util
