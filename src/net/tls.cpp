#include "aitk/net/tls.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <string_view>
#include <system_error>

#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "utf8_path.hpp"

namespace aitk::net {

void select_tls_backend() {
#ifdef _WIN32
    // Fails only when the backend is missing or libcurl already started; either way libcurl
    // keeps its default, and a certificate test shows which one answered.
    curl_global_sslset(CURLSSLBACKEND_OPENSSL, nullptr, nullptr);
#endif
}

bool trusts_system_store() {
#ifdef _WIN32
    return true;
#else
    return false;
#endif
}

std::optional<std::string> process_env(const char* name) {
    auto value = util::env_utf8(name);
    if (!value || value->empty()) return std::nullopt;
    return value;
}

std::optional<CaBundle> resolve_ca_bundle(const DownloaderOptions& options, const EnvLookup& env) {
    std::optional<CaBundle> chosen;
    if (options.ca_file && !options.ca_file->empty()) {
        chosen = CaBundle{*options.ca_file, "--cert"};
    } else {
        for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}) {
            if (auto value = env(name)) {
                chosen = CaBundle{detail::utf8_to_path(*value), name};
                break;
            }
        }
    }
    if (!chosen) return std::nullopt;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(chosen->path, ec)) {
        throw util::InputError("the CA bundle '" + detail::path_to_utf8(chosen->path) + "' (from " +
                                   chosen->source + ") does not exist or is not a file",
                               "point " + chosen->source + " at a PEM file of CA certificates");
    }
    return chosen;
}

std::string explain_certificate_failure(std::string_view curl_message) {
    const auto says = [&](std::string_view text) {
        return curl_message.find(text) != std::string_view::npos;
    };
    // OpenSSL's wording, as libcurl passes it on ("SSL certificate problem: <reason>").
    if (says("has expired")) {
        return "the server's certificate has expired: the server must renew it (if it is new, "
               "check this machine's clock)";
    }
    if (says("not yet valid")) {
        return "the server's certificate is not valid yet: check this machine's clock and time "
               "zone";
    }
    if (says("host name") || says("hostname") || says("does not match")) {
        return "the server's certificate is for another host name: use a URL with the name the "
               "certificate was issued for";
    }
    if (says("certificate problem") || says("self-signed") || says("self signed") ||
        says("issuer")) {
        return "the server's certificate is not trusted: to trust a private CA, pass --cert FILE "
               "(a PEM file of CA certificates) or set SSL_CERT_FILE or REQUESTS_CA_BUNDLE";
    }
    return "check the CA bundle given by --cert, SSL_CERT_FILE or REQUESTS_CA_BUNDLE, and the "
           "server's TLS setup";
}

}  // namespace aitk::net
