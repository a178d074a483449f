#include "aitk/app/lock.hpp"

namespace aitk::app {

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
    return options;
}

}  // namespace aitk::app
