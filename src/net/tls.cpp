#include "aitk/net/tls.hpp"

#include <cstdlib>
#include <system_error>

#include "aitk/util/error.hpp"
#include "utf8_path.hpp"

namespace aitk::net {

std::optional<std::string> process_env(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
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

}  // namespace aitk::net
