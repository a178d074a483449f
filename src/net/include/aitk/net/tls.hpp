#pragma once
// Which CA bundle verifies servers. Verification is always on; only the trust anchors change.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/net/options.hpp"

namespace aitk::net {

// What verifies servers: a PEM file of CA certificates, a folder of hashed ones, or both (as
// OpenSSL itself reads SSL_CERT_FILE and SSL_CERT_DIR together).
struct CaBundle {
    std::filesystem::path path;  // the file; empty when only a folder was found
    // Of the file: "--cert", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", or "system" (found in the
    // distribution's usual place, system_ca.hpp; `layout` says whose).
    std::string source;
    std::string layout;
    std::filesystem::path folder;  // SSL_CERT_DIR; empty: none
};

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
using FileCheck = std::function<bool(const std::filesystem::path&)>;

// The file: the explicit option wins, then SSL_CERT_FILE, then REQUESTS_CA_BUNDLE (empty
// values are ignored); without any, where trusts_system_store() is false, the system's bundle
// that `is_file` finds in the usual places (default: the real filesystem). The folder:
// SSL_CERT_DIR. nullopt when neither: libcurl keeps its own default (on Windows the
// certificate store). Throws util::InputError naming the source when a file or folder the user
// named does not exist.
std::optional<CaBundle> resolve_ca_bundle(const DownloaderOptions& options, const EnvLookup& env,
                                          const FileCheck& is_file = {});

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
