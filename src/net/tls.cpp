#include "aitk/net/tls.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <string_view>
#include <system_error>

#include "aitk/net/system_ca.hpp"
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

std::optional<CaBundle> resolve_ca_bundle(const DownloaderOptions& options, const EnvLookup& env,
                                          const FileCheck& is_file) {
    CaBundle chosen;
    if (options.ca_file && !options.ca_file->empty()) {
        chosen.path = *options.ca_file;
        chosen.source = "--cert";
    } else {
        for (const char* name : {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}) {
            if (auto value = env(name)) {
                chosen.path = detail::utf8_to_path(*value);
                chosen.source = name;
                break;
            }
        }
    }
    std::error_code ec;
    if (!chosen.path.empty() && !std::filesystem::is_regular_file(chosen.path, ec)) {
        throw util::InputError("the CA bundle '" + detail::path_to_utf8(chosen.path) + "' (from " +
                                   chosen.source + ") does not exist or is not a file",
                               "point " + chosen.source + " at a PEM file of CA certificates");
    }
    if (auto folder = env("SSL_CERT_DIR")) {
        chosen.folder = detail::utf8_to_path(*folder);
        if (!std::filesystem::is_directory(chosen.folder, ec)) {
            throw util::InputError(
                "the CA folder '" + *folder +
                    "' (from SSL_CERT_DIR) does not exist or is not a "
                    "folder",
                "point SSL_CERT_DIR at a folder of hashed CA certificates (as `openssl rehash` "
                "makes), or unset it");
        }
    }
    if (chosen.path.empty() && !trusts_system_store()) {
        const auto found = find_system_ca_file(is_file ? is_file : [](const auto& path) {
            std::error_code missing;
            return std::filesystem::is_regular_file(path, missing);
        });
        if (found) {
            chosen.path = std::filesystem::path(found->path);
            chosen.source = "system";
            chosen.layout = found->layout;
        }
    }
    if (chosen.path.empty() && chosen.folder.empty()) return std::nullopt;
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
