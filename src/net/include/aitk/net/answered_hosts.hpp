#pragma once
// The servers that have answered during one run (one command). A transient fault is worth
// retrying only on a server known to be there: when the first request to a server finds that
// its name does not resolve or its port refuses the connection, the network, the proxy or the
// URL is wrong, and retrying for half a minute only hides that. The downloader records every
// server that sends a response and asks before retrying such a failure.
//
// One instance belongs to one run: a command hands the same one to all its downloaders
// (DownloaderOptions::answered_hosts). Thread-safe.
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace aitk::net {

class AnsweredHosts {
  public:
    // The server of `url` sent a response (any HTTP status).
    void add(std::string_view url);
    // Whether the server of `url` has sent one in this run. Always false for a URL without a
    // host (file:).
    bool contains(std::string_view url) const;

  private:
    mutable std::mutex mutex_;
    std::set<std::string, std::less<>> origins_;
};

// "scheme://host:port" of `url`, lower case, the scheme's default port filled in;
// "" for a URL without a host or one that does not parse.
std::string url_origin(std::string_view url);

}  // namespace aitk::net
