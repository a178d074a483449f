#pragma once
// Builds the libcurl easy handle for one attempt of a job, with the options every transfer
// shares: timeouts, TLS trust, proxies and credentials as libcurl finds them, User-Agent.
#include <curl/curl.h>

#include <optional>
#include <string>

#include "aitk/net/options.hpp"
#include "aitk/net/tls.hpp"
#include "job.hpp"

namespace aitk::net::detail {

struct EasyConfig {
    const DownloaderOptions* options = nullptr;
    std::optional<CaBundle> ca_bundle;
    std::optional<std::string> netrc_file;  // $NETRC; libcurl finds ~/.netrc by itself
    std::string user_agent;
    CURLSH* share = nullptr;
    // Without a CA bundle, trust the OS's certificate store (Windows: OpenSSL has no store there).
    bool native_ca = false;
};

// Sets job.easy and job.header_list; returns an error text when libcurl refuses a setting.
std::optional<std::string> make_easy(Job& job, const EasyConfig& config);

void release_easy(Job& job) noexcept;

}  // namespace aitk::net::detail
