#include "aitk/app/settings.hpp"

#include <string>

namespace aitk::app {

std::string unreachable_hint() {
    return "or work without it: --offline uses only the cache, --index-url URL (or --rewrite-url "
           "FROM=TO) names a reachable index or mirror, `setup --bundle FILE` installs from an "
           "offline bundle";
}

net::DownloaderOptions downloader_options(const NetworkSettings& network) {
    net::DownloaderOptions options;
    options.concurrency = network.concurrency;
    options.ca_file = network.cert;
    if (network.retries) options.retry.max_attempts = *network.retries + 1;
    if (network.timeout) {
        options.connect_timeout = *network.timeout;
        options.low_speed_time = *network.timeout;
    }
    if (network.retry_delay) options.retry.initial_backoff = *network.retry_delay;
    options.reachability = network.reachability;
    options.unreachable_hint = unreachable_hint();
    return options;
}

}  // namespace aitk::app
