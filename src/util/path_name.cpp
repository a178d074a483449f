#include "aitk/util/path_name.hpp"

#include <array>

#include "aitk/util/strings.hpp"

namespace aitk::util {
namespace {

// Windows opens these as devices whatever the folder and the extension ("aux.lock.yml"), and
// the superscript digits count as digits there (COM¹).
bool is_windows_device_name(std::string_view name) {
    std::string_view stem = name.substr(0, name.find('.'));
    while (!stem.empty() && stem.back() == ' ')
        stem.remove_suffix(1);
    const std::string lower = to_lower(stem);
    static constexpr std::array<std::string_view, 6> plain = {"con", "prn",    "aux",
                                                              "nul", "conin$", "conout$"};
    for (const auto device : plain) {
        if (lower == device) return true;
    }
    if (lower.size() < 4 || (!lower.starts_with("com") && !lower.starts_with("lpt"))) return false;
    const std::string_view digit = std::string_view(lower).substr(3);
    return (digit.size() == 1 && is_ascii_digit(digit[0])) || digit == "\xc2\xb9" ||
           digit == "\xc2\xb2" || digit == "\xc2\xb3";
}

std::string shown(char c) {
    return std::string("'") + c + "'";
}

}  // namespace

std::optional<std::string> path_name_problem(std::string_view name) {
    if (name.empty()) return std::string("it is empty");
    if (name == "." || name == "..") return "'" + std::string(name) + "' names a folder";
    if (name.size() > max_path_name_bytes) {
        return "it is longer than " + std::to_string(max_path_name_bytes) + " bytes";
    }
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '/' || c == '\\') return "it contains a path separator " + shown(c);
        if (u == 0) return std::string("it contains a NUL byte");
        if (u < 0x20 || u == 0x7f) return std::string("it contains a control character");
        if (c == ':') return std::string("it contains ':' (a drive letter or stream on Windows)");
        if (c == '<' || c == '>' || c == '"' || c == '|' || c == '?' || c == '*') {
            return "it contains " + shown(c) + ", which Windows does not allow in a file name";
        }
    }
    if (name.back() == '.' || name.back() == ' ') {
        return std::string("it ends with a ") + (name.back() == '.' ? "dot" : "space") +
               ", which Windows drops from a file name";
    }
    if (is_windows_device_name(name)) {
        return "'" + std::string(name.substr(0, name.find('.'))) +
               "' is a device name on Windows, not a file";
    }
    return std::nullopt;
}

}  // namespace aitk::util
