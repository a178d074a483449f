#pragma once
// Which CA bundle verifies servers. Verification is always on; only the trust anchors change.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

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

// getenv, with empty values treated as unset.
std::optional<std::string> process_env(const char* name);

}  // namespace aitk::net
