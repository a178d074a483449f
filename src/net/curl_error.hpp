#pragma once
// How the downloader reads a libcurl result code: which kind of failure it is and whether
// another attempt can help.
#include <curl/curl.h>

#include <string>
#include <string_view>

#include "aitk/net/transfer.hpp"

namespace aitk::net::detail {

struct CurlFailure {
    TransferError::Kind kind = TransferError::Kind::connection;
    bool retryable = false;
    // No way to the server at all: its name (or the proxy's) did not resolve, or the
    // connection was refused. Retried only on a server that answered earlier in the run.
    bool unreachable = false;
};

CurlFailure classify(CURLcode code) noexcept;

// libcurl's detailed message (the error buffer) when there is one, else the generic text for
// the code; credentials of `url` scrubbed from it. A non-zero `os_errno` (CURLINFO_OS_ERRNO) is
// added when the message does not say it already: recent libcurl reports a refused connection
// only as "Couldn't connect to server".
std::string describe(CURLcode code, std::string_view error_buffer, std::string_view url,
                     long os_errno = 0);

}  // namespace aitk::net::detail
