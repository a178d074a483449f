// doctor's "tls" check: which CA certificates verify HTTPS servers on this machine.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/doctor.hpp"
#include "aitk/net/options.hpp"
#include "aitk/net/system_ca.hpp"
#include "aitk/net/tls.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

DoctorCheck check_tls_trust(const std::optional<std::filesystem::path>& cert,
                            const std::function<std::optional<std::string>(const char*)>& env,
                            const std::function<bool(const std::filesystem::path&)>& is_file) {
    net::DownloaderOptions options;
    options.ca_file = cert;
    std::optional<net::CaBundle> bundle;
    try {
        bundle = net::resolve_ca_bundle(options, env, is_file);
    } catch (const util::InputError& e) {
        return {"tls", CheckStatus::fail,
                std::string(e.what()) + (e.hint().empty() ? "" : ": " + e.hint())};
    }
    if (!bundle) {
        if (net::trusts_system_store()) {
            return {"tls", CheckStatus::ok, "CA certificates: the Windows certificate store"};
        }
        std::vector<std::string> places;
        for (const auto& file : net::system_ca_files())
            places.emplace_back(file.path);
        return {"tls", CheckStatus::warn,
                "no CA bundle in the system's usual places (" + util::join(places, ", ") +
                    "): HTTPS downloads cannot verify servers. Install the distribution's "
                    "ca-certificates package, or set SSL_CERT_FILE to a PEM file of CA "
                    "certificates"};
    }
    std::string message;
    if (bundle->source == "system") {
        message = "CA bundle: " + util::utf8_of(bundle->path) + " (the system's, where " +
                  bundle->layout + " keep it; --cert or SSL_CERT_FILE names another)";
    } else if (!bundle->path.empty()) {
        message = "CA bundle: " + util::utf8_of(bundle->path) + " (from " + bundle->source + ")";
    }
    if (!bundle->folder.empty()) {
        message += std::string(message.empty() ? "" : "; ") +
                   "CA folder: " + util::utf8_of(bundle->folder) + " (from SSL_CERT_DIR)";
    }
    return {"tls", CheckStatus::ok, message};
}

}  // namespace aitk::app
