#pragma once
// What one run (one command) has learnt about the servers it talks to. A transient fault is
// worth retrying only on a server known to be there: when the first request to a server finds
// that its name does not resolve or its port refuses the connection, the network, the proxy or
// the URL is wrong, and retrying for half a minute only hides that. So the downloader records
// every server that sends a response, fails such a first request at once, and remembers the
// server as unreachable: later requests to it in the run fail at once too, without another
// lookup (a resolver that drops a query costs seconds each time).
//
// One instance belongs to one run: a command hands the same one to all its downloaders
// (DownloaderOptions::reachability). Servers are told apart by scheme, host and port.
// Thread-safe.
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace aitk::net {

class HostReachability {
  public:
    // The server of `url` sent a response (any HTTP status).
    void answered(std::string_view url);
    // Whether the server of `url` has sent one in this run. Always false for a URL without a
    // host (file:).
    bool has_answered(std::string_view url) const;

    // A first request found no way to the server of `url`; `cause` says why ("Could not
    // resolve host: …"). Ignored for a server that has answered.
    void unreachable(std::string_view url, std::string cause);
    // The cause recorded for the server of `url`, if it is known to be unreachable.
    std::optional<std::string> unreachable_cause(std::string_view url) const;

  private:
    mutable std::mutex mutex_;
    std::set<std::string, std::less<>> answered_;
    std::map<std::string, std::string, std::less<>> unreachable_;  // origin → cause
};

// "scheme://host:port" of `url`, lower case, the scheme's default port filled in;
// "" for a URL without a host or one that does not parse.
std::string url_origin(std::string_view url);

}  // namespace aitk::net
