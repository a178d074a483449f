#pragma once
// The separators that PEP 503 names and PEP 440 versions treat alike: '-', '_' and '.'.

namespace aitk::pep::detail {

constexpr bool is_separator(char c) noexcept {
    return c == '-' || c == '_' || c == '.';
}

}  // namespace aitk::pep::detail
