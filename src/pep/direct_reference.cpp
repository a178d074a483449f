// URL fragments and the full-commit rule of direct references (direct_reference.hpp); the VCS
// URLs are in vcs_url.cpp.
#include "aitk/pep/direct_reference.hpp"

#include "aitk/util/hex.hpp"

namespace aitk::pep {

UrlFragment split_fragment(std::string_view url) noexcept {
    const std::size_t hash = url.find('#');
    if (hash == std::string_view::npos) return {url, {}};
    return {url.substr(0, hash), url.substr(hash + 1)};
}

std::optional<std::string_view> UrlFragment::value(std::string_view key) const noexcept {
    // pip's "[#&]key=": at the start of the fragment, or after any '#' or '&' in it.
    for (std::size_t start = 0; start <= fragment.size();) {
        std::string_view rest = fragment.substr(start);
        if (rest.size() > key.size() && rest.substr(0, key.size()) == key &&
            rest[key.size()] == '=') {
            rest.remove_prefix(key.size() + 1);
            return rest.substr(0, rest.find('&'));
        }
        const std::size_t next = fragment.find_first_of("#&", start);
        if (next == std::string_view::npos) break;
        start = next + 1;
    }
    return std::nullopt;
}

std::vector<std::string_view> UrlFragment::items() const {
    std::vector<std::string_view> out;
    std::string_view rest = fragment;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        if (std::string_view item = rest.substr(0, amp); !item.empty()) out.push_back(item);
        if (amp == std::string_view::npos) break;
        rest.remove_prefix(amp + 1);
    }
    return out;
}

bool is_full_commit_id(std::string_view revision) noexcept {
    return (revision.size() == 40 || revision.size() == 64) && util::is_hex(revision);
}

}  // namespace aitk::pep
