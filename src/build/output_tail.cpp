#include "output_tail.hpp"

#include <fstream>

namespace aitk::build {

std::string read_file_tail(const std::filesystem::path& file, std::size_t max_bytes) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return {};
    auto size = static_cast<std::size_t>(in.tellg());
    std::size_t start = size > max_bytes ? size - max_bytes : 0;
    in.seekg(static_cast<std::streamoff>(start));
    std::string text(size - start, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

std::string last_lines(std::string_view text, std::size_t count) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.remove_suffix(1);
    }
    if (count == 0 || text.empty()) return {};
    std::size_t start = text.size();
    std::size_t lines = 0;
    while (start > 0) {
        std::size_t newline = text.rfind('\n', start - 1);
        if (newline == std::string_view::npos) {
            start = 0;
            break;
        }
        if (++lines == count) {
            start = newline + 1;
            break;
        }
        start = newline;
    }
    return std::string(text.substr(start)) + "\n";
}

}  // namespace aitk::build
