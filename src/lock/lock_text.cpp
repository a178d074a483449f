#include "lock_text.hpp"

#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock::detail {

std::string storable_url(std::string_view url) {
    if (!util::has_credentials(url)) return std::string(url);
    const auto scheme_end = url.find("://");
    const std::string_view scheme =
        scheme_end == std::string_view::npos ? std::string_view{} : url.substr(0, scheme_end);
    const bool ssh = scheme.size() >= 3 && util::iequals(scheme.substr(scheme.size() - 3), "ssh");
    if (!ssh) return util::strip_credentials(url);
    // Keep `user@`, drop `:password` (the userinfo ends at the last '@' of the authority).
    const std::size_t authority = scheme_end + 3;
    std::size_t authority_end = url.find_first_of("/?#", authority);
    if (authority_end == std::string_view::npos) authority_end = url.size();
    const std::size_t at = url.substr(0, authority_end).rfind('@');
    const std::size_t colon = url.substr(0, at).find(':', authority);
    if (colon == std::string_view::npos) return std::string(url);
    std::string out(url.substr(0, colon));
    out.append(url.substr(at));
    return out;
}

bool reserved_variable(std::string_view name) noexcept {
    return util::iequals(name, "PATH");
}

std::optional<std::uint64_t> known_size(std::optional<std::uint64_t> size) noexcept {
    if (size && *size == 0) return std::nullopt;
    return size;
}

}  // namespace aitk::lock::detail
