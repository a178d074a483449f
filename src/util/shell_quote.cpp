#include "aitk/util/shell_quote.hpp"

namespace aitk::util {

std::string sh_quote(std::string_view value) {
    std::string out;
    out.reserve(value.size() + 2);
    out.push_back('\'');
    for (char c : value) {
        if (c == '\'') {
            out += "'\"'\"'";
        } else if (c == '\\') {
            out += "'\"\\\\\"'";
        } else {
            out.push_back(c);
        }
    }
    out.push_back('\'');
    return out;
}

}  // namespace aitk::util
