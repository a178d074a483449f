#pragma once
// A URL fragment's "key=value" items, shared by requirement lines and VCS references.
#include <optional>
#include <string_view>

namespace aitk::project::detail {

// The value of "key=" in a URL, found as pip's regex "[#&]key=([^&]*)" finds it.
inline std::optional<std::string_view> fragment_value(std::string_view url, std::string_view key) {
    for (std::size_t i = url.find_first_of("#&"); i != std::string_view::npos;
         i = url.find_first_of("#&", i + 1)) {
        std::string_view rest = url.substr(i + 1);
        if (rest.size() > key.size() && rest.substr(0, key.size()) == key &&
            rest[key.size()] == '=') {
            rest.remove_prefix(key.size() + 1);
            return rest.substr(0, rest.find('&'));
        }
    }
    return std::nullopt;
}

}  // namespace aitk::project::detail
