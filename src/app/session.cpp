#include "aitk/app/session.hpp"

#include <utility>

namespace aitk::app {

Session::Session(SessionSettings settings)
    : settings_(std::move(settings)), cache_(settings_.cache_root) {
    if (!settings_.clock) settings_.clock = net::system_clock();
}

Session::~Session() = default;

net::Downloader& Session::downloader() {
    if (!downloader_) {
        downloader_ = std::make_unique<net::Downloader>(downloader_options(settings_.network));
    }
    return *downloader_;
}

}  // namespace aitk::app
