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
};

CurlFailure classify(CURLcode code) noexcept;

// libcurl's detailed message (the error buffer) when there is one, else the generic text for
// the code; credentials of `url` scrubbed from it.
std::string describe(CURLcode code, std::string_view error_buffer, std::string_view url);

}  // namespace aitk::net::detail
