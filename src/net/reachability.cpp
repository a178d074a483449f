#include "aitk/net/reachability.hpp"

#include <curl/curl.h>

#include <memory>

#include "aitk/util/strings.hpp"

namespace aitk::net {
namespace {

struct UrlHandleFree {
    void operator()(CURLU* handle) const noexcept { curl_url_cleanup(handle); }
};

// One part of a parsed URL; "" when it has none.
std::string url_part(CURLU* handle, CURLUPart part, unsigned int flags = 0) {
    char* value = nullptr;
    if (curl_url_get(handle, part, &value, flags) != CURLUE_OK || value == nullptr) return {};
    std::string out(value);
    curl_free(value);
    return out;
}

}  // namespace

std::string url_origin(std::string_view url) {
    const std::unique_ptr<CURLU, UrlHandleFree> handle(curl_url());
    if (!handle) return {};
    const std::string text(url);
    if (curl_url_set(handle.get(), CURLUPART_URL, text.c_str(), 0) != CURLUE_OK) return {};
    const auto host = url_part(handle.get(), CURLUPART_HOST);
    if (host.empty()) return {};
    const auto scheme = url_part(handle.get(), CURLUPART_SCHEME);
    const auto port = url_part(handle.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
    std::string out = util::to_lower(scheme) + "://" + util::to_lower(host);
    if (!port.empty()) out += ":" + port;
    return out;
}

void HostReachability::answered(std::string_view url) {
    auto origin = url_origin(url);
    if (origin.empty()) return;
    const std::lock_guard lock(mutex_);
    unreachable_.erase(origin);
    answered_.insert(std::move(origin));
}

bool HostReachability::has_answered(std::string_view url) const {
    const auto origin = url_origin(url);
    if (origin.empty()) return false;
    const std::lock_guard lock(mutex_);
    return answered_.find(origin) != answered_.end();
}

void HostReachability::unreachable(std::string_view url, std::string cause) {
    auto origin = url_origin(url);
    if (origin.empty()) return;
    const std::lock_guard lock(mutex_);
    if (answered_.find(origin) != answered_.end()) return;
    unreachable_.emplace(std::move(origin), std::move(cause));
}

std::optional<std::string> HostReachability::unreachable_cause(std::string_view url) const {
    const auto origin = url_origin(url);
    if (origin.empty()) return std::nullopt;
    const std::lock_guard lock(mutex_);
    const auto it = unreachable_.find(origin);
    if (it == unreachable_.end()) return std::nullopt;
    return it->second;
}

}  // namespace aitk::net
