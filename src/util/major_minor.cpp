#include "aitk/util/major_minor.hpp"

#include "aitk/util/strings.hpp"

namespace aitk::util {

std::string major_minor(std::string_view version) {
    auto parts = split(version, '.');
    if (parts.size() < 2) return std::string(version);
    return std::string(parts[0]) + "." + std::string(parts[1]);
}

std::string numeric_major_minor(std::string_view version) {
    auto parts = split(version, '.');
    if (parts.size() < 2 || parts[0].empty() || parts[1].empty()) return {};
    for (auto part : {parts[0], parts[1]}) {
        for (char c : part) {
            if (!is_ascii_digit(c)) return {};
        }
    }
    return std::string(parts[0]) + "." + std::string(parts[1]);
}

}  // namespace aitk::util
