#include "template_fill.hpp"

namespace aitk::shim::detail {
namespace {

bool is_placeholder_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string fill_template(std::string_view text, const TemplateValues& values) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t at = text.find('@', i);
        if (at == std::string_view::npos) break;
        std::size_t end = at + 1;
        while (end < text.size() && is_placeholder_char(text[end]))
            ++end;
        out.append(text.substr(i, at - i));
        auto found = values.end();
        if (end < text.size() && text[end] == '@' && end > at + 1) {
            found = values.find(text.substr(at + 1, end - at - 1));
        }
        if (found != values.end()) {
            out += found->second;
            i = end + 1;
        } else {
            out.push_back('@');
            i = at + 1;
        }
    }
    out.append(text.substr(i));
    return out;
}

}  // namespace aitk::shim::detail
