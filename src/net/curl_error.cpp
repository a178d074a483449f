#include "curl_error.hpp"

#include <cstring>

#include "aitk/net/redact.hpp"

namespace aitk::net::detail {

CurlFailure classify(CURLcode code) noexcept {
    using Kind = TransferError::Kind;
    switch (code) {
        // No way to the server: a hiccup only when the server answered before.
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_CONNECT:
            return {Kind::connection, true, true};
        // The network or the server hiccuped: worth another try.
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_HTTP2:
        case CURLE_PARTIAL_FILE:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_GOT_NOTHING:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_BAD_CONTENT_ENCODING:
        case CURLE_HTTP2_STREAM:
        case CURLE_HTTP3:
        case CURLE_QUIC_CONNECT_ERROR:
            return {Kind::connection, true};
        // A handshake cut short by the network looks like this too, so it gets retries; a
        // certificate that does not verify is final (below).
        case CURLE_SSL_CONNECT_ERROR:
            return {Kind::tls, true};
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_ENGINE_NOTFOUND:
        case CURLE_SSL_ENGINE_SETFAILED:
        case CURLE_USE_SSL_FAILED:
        case CURLE_SSL_CRL_BADFILE:
        case CURLE_SSL_SHUTDOWN_FAILED:
            return {Kind::tls, false};
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT:
        case CURLE_NOT_BUILT_IN:
        case CURLE_BAD_FUNCTION_ARGUMENT:
            return {Kind::bad_request, false};
        case CURLE_WRITE_ERROR:
            return {Kind::local_io, false};
        case CURLE_TOO_MANY_REDIRECTS:
            return {Kind::http_status, false};
        default:
            return {Kind::connection, false};
    }
}

std::string describe(CURLcode code, std::string_view error_buffer, std::string_view url,
                     long os_errno) {
    std::string text =
        error_buffer.empty() ? std::string(curl_easy_strerror(code)) : std::string(error_buffer);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    if (os_errno != 0) {
        const std::string reason = std::strerror(static_cast<int>(os_errno));
        if (text.find(reason) == std::string::npos) text += " (" + reason + ")";
    }
    return scrub_credentials(text, url);
}

}  // namespace aitk::net::detail
