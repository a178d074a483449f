#include "aitk/util/redact.hpp"

#include <optional>

#include "aitk/util/hex.hpp"

namespace aitk::util {
namespace {

struct Userinfo {
    std::size_t begin = 0;  // first character of the userinfo
    std::size_t end = 0;    // position of the '@' that closes it
};

// Locates `user[:pass]@` in the authority of `url` (after "scheme://", before the first '/',
// '?' or '#'). The last '@' of the authority wins, as a password may itself hold a raw '@'.
std::optional<Userinfo> find_userinfo(std::string_view url) noexcept {
    const auto scheme_end = url.find("://");
    const std::size_t authority = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
    auto authority_end = url.find_first_of("/?#", authority);
    if (authority_end == std::string_view::npos) authority_end = url.size();
    const auto at = url.substr(0, authority_end).rfind('@');
    if (at == std::string_view::npos || at < authority) return std::nullopt;
    return Userinfo{authority, at};
}

void replace_all(std::string& text, std::string_view secret) {
    // Very short fragments ("a") would mangle unrelated words; they are also no real secret.
    if (secret.size() < 3) return;
    std::size_t pos = 0;
    while ((pos = text.find(secret, pos)) != std::string::npos) {
        text.replace(pos, secret.size(), "***");
        pos += 3;
    }
}

}  // namespace

std::string redact_url(std::string_view url) {
    const auto info = find_userinfo(url);
    if (!info) return std::string(url);
    std::string out;
    out.reserve(url.size());
    out.append(url.substr(0, info->begin));
    out.append("***");
    out.append(url.substr(info->end));
    return out;
}

std::string strip_credentials(std::string_view url) {
    const auto info = find_userinfo(url);
    if (!info) return std::string(url);
    std::string out(url.substr(0, info->begin));
    out.append(url.substr(info->end + 1));
    return out;
}

bool has_credentials(std::string_view url) noexcept {
    return find_userinfo(url).has_value();
}

std::string scrub_credentials(std::string_view text, std::string_view url) {
    std::string out(text);
    const auto info = find_userinfo(url);
    if (!info) return out;
    const auto userinfo = url.substr(info->begin, info->end - info->begin);
    replace_all(out, userinfo);
    const auto colon = userinfo.find(':');
    const auto user = userinfo.substr(0, colon);
    const auto password =
        colon == std::string_view::npos ? std::string_view{} : userinfo.substr(colon + 1);
    for (const auto part : {password, user}) {
        replace_all(out, part);
        replace_all(out, percent_decode(part));
    }
    return out;
}

std::string conceal(std::string_view text, const std::vector<Concealed>& values) {
    constexpr std::size_t shortest = 3;  // the limit replace_all keeps, for the same reason
    if (values.empty()) return std::string(text);
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const Concealed* match = nullptr;
        for (const auto& v : values) {
            if (v.value.size() < shortest || text.compare(i, v.value.size(), v.value) != 0)
                continue;
            if (match == nullptr || v.value.size() > match->value.size()) match = &v;
        }
        if (match != nullptr) {
            out += match->shown;
            i += match->value.size();
        } else {
            out += text[i++];
        }
    }
    return out;
}

void add_concealed(std::vector<Concealed>& into, const Concealed& value) {
    for (const auto& v : into) {
        if (v == value) return;
    }
    into.push_back(value);
}

}  // namespace aitk::util
