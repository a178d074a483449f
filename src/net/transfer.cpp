#include "aitk/net/transfer.hpp"

#include "aitk/net/options.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::net {

std::optional<std::string_view> find_header(const Headers& headers, std::string_view name) {
    for (const auto& [key, value] : headers) {
        if (util::iequals(key, name)) return std::string_view(value);
    }
    return std::nullopt;
}

std::string_view to_string(TransferError::Kind kind) noexcept {
    switch (kind) {
        case TransferError::Kind::connection:
            return "connection";
        case TransferError::Kind::http_status:
            return "http_status";
        case TransferError::Kind::tls:
            return "tls";
        case TransferError::Kind::hash_mismatch:
            return "hash_mismatch";
        case TransferError::Kind::local_io:
            return "local_io";
        case TransferError::Kind::too_large:
            return "too_large";
        case TransferError::Kind::bad_request:
            return "bad_request";
        case TransferError::Kind::cancelled:
            return "cancelled";
    }
    return "unknown";
}

std::string default_user_agent() {
    return std::string("aitk-env/") + AITK_ENV_VERSION;
}

}  // namespace aitk::net
