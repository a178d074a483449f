#include "aitk/net/answered_hosts.hpp"

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

void AnsweredHosts::add(std::string_view url) {
    auto origin = url_origin(url);
    if (origin.empty()) return;
    const std::lock_guard lock(mutex_);
    origins_.insert(std::move(origin));
}

bool AnsweredHosts::contains(std::string_view url) const {
    const auto origin = url_origin(url);
    if (origin.empty()) return false;
    const std::lock_guard lock(mutex_);
    return origins_.find(origin) != origins_.end();
}

}  // namespace aitk::net
