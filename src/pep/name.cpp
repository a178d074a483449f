#include "aitk/pep/name.hpp"

#include "aitk/util/strings.hpp"
#include "separators.hpp"

namespace aitk::pep {

namespace {

constexpr bool is_lower_alnum(char c) noexcept {
    return (c >= 'a' && c <= 'z') || util::is_ascii_digit(c);
}

// Latin-1 capitals U+00C0..U+00DE (except U+00D7, the multiplication sign) are encoded as C3 80..
// C3 9E; their lower-case forms are 0x20 further on, with the same lead byte.
constexpr bool is_latin1_capital_tail(unsigned char lead, unsigned char tail) noexcept {
    return lead == 0xC3 && tail >= 0x80 && tail <= 0x9E && tail != 0x97;
}

}  // namespace

std::string canonicalize_name(std::string_view name) {
    std::string out(name.size(), '\0');
    char* end = out.data();
    for (std::size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (detail::is_separator(c)) {
            if (i == 0 || !detail::is_separator(name[i - 1])) *end++ = '-';
            continue;
        }
        *end++ = util::to_ascii_lower(c);
        if (i + 1 < name.size() &&
            is_latin1_capital_tail(static_cast<unsigned char>(c),
                                   static_cast<unsigned char>(name[i + 1]))) {
            *end++ = static_cast<char>(name[i + 1] + 0x20);
            ++i;
        }
    }
    out.resize(static_cast<std::size_t>(end - out.data()));
    return out;
}

bool is_valid_name(std::string_view name) noexcept {
    if (name.empty()) return false;
    if (!util::is_ascii_alnum(name.front()) || !util::is_ascii_alnum(name.back())) return false;
    for (char c : name) {
        if (!util::is_ascii_alnum(c) && !detail::is_separator(c)) return false;
    }
    return true;
}

bool is_normalized_name(std::string_view name) noexcept {
    if (name.empty()) return false;
    if (!is_lower_alnum(name.front()) || !is_lower_alnum(name.back())) return false;
    for (std::size_t i = 1; i < name.size(); ++i) {
        char c = name[i];
        if (c == '-') {
            if (name[i - 1] == '-') return false;
        } else if (!is_lower_alnum(c)) {
            return false;
        }
    }
    return true;
}

}  // namespace aitk::pep
