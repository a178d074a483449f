#pragma once
// Which CA bundle verifies servers. Verification is always on; only the trust anchors change.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/net/options.hpp"

namespace aitk::net {

struct CaBundle {
    std::filesystem::path path;
    std::string source;  // "--cert", "SSL_CERT_FILE" or "REQUESTS_CA_BUNDLE"
};

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// The explicit option wins, then SSL_CERT_FILE, then REQUESTS_CA_BUNDLE (empty values are
// ignored); nullopt means libcurl's system store. Throws util::InputError naming the source
// when the chosen file does not exist.
std::optional<CaBundle> resolve_ca_bundle(const DownloaderOptions& options, const EnvLookup& env);

// What a certificate failure means and how to fix it, from libcurl's message: an expired or not
// yet valid certificate is the server's (or this machine's clock's) problem, one for another
// host name is the URL's, and only an unknown issuer is fixed by trusting its CA. Appended to
// the error message of a transfer that failed verification.
std::string explain_certificate_failure(std::string_view curl_message);

// The TLS library libcurl uses, chosen once before libcurl starts. On Windows our libcurl has
// Schannel and OpenSSL; OpenSSL is chosen, so certificate checks behave as on Linux and can be
// tested under Wine, with the Windows certificate store as the trust anchors (see
// trusts_system_store()). Elsewhere libcurl's only backend is used.
void select_tls_backend();

// Whether transfers without a CA bundle must ask libcurl for the OS's certificate store
// (CURLSSLOPT_NATIVE_CA): true on Windows.
bool trusts_system_store();

// getenv (UTF-8, on Windows too), with empty values treated as unset.
std::optional<std::string> process_env(const char* name);

}  // namespace aitk::net
