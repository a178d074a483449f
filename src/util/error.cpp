#include "aitk/util/error.hpp"

namespace aitk::util {

std::string ParseError::describe() const {
    std::string out = message;
    if (position != no_position) {
        out += " (at column " + std::to_string(position + 1);
        if (!input.empty()) out += " of '" + input + "'";
        out += ")";
    } else if (!input.empty()) {
        out += " (in '" + input + "')";
    }
    return out;
}

}  // namespace aitk::util
