#include "aitk/app/index_routing.hpp"

#include <string>

#include "aitk/util/redact.hpp"

namespace aitk::app {

index::IndexRouting routing_from_settings(const IndexSettings& settings, std::string_view backend,
                                          const RoutingDefaults& defaults) {
    const std::string primary = settings.index_url.value_or(std::string(defaults.index_url));
    const std::string torch_index_url =
        settings.torch_index_url.value_or(std::string(defaults.torch_index_url));
    return index::IndexRouting::from_options(primary, settings.extra_index_urls,
                                             settings.find_links, torch_index_url, backend);
}

index::IndexRouting routing_from_lock(const std::vector<lock::LockedIndex>& indexes,
                                      std::string_view torch_backend) {
    index::IndexRouting routing;
    for (const auto& entry : indexes) {
        index::IndexLocation location{entry.name, entry.url, to_index_kind(entry.kind)};
        if (entry.kind != lock::IndexKind::torch_backend) {
            routing.indexes.push_back(std::move(location));
        } else if (!torch_backend.empty() && entry.name == "torch " + std::string(torch_backend)) {
            routing.torch_backend_index = std::move(location);
        }
    }
    return routing;
}

index::IndexRouting routing_from_lock(const lock::Lockfile& lock,
                                      const lock::LockedTarget& target) {
    return routing_from_lock(lock.indexes, target.backend);
}

index::IndexKind to_index_kind(lock::IndexKind kind) noexcept {
    switch (kind) {
        case lock::IndexKind::simple:
            return index::IndexKind::simple;
        case lock::IndexKind::find_links:
            return index::IndexKind::find_links;
        case lock::IndexKind::torch_backend:
            return index::IndexKind::torch_backend;
    }
    return index::IndexKind::simple;
}

lock::IndexKind to_lock_kind(index::IndexKind kind) noexcept {
    switch (kind) {
        case index::IndexKind::simple:
            return lock::IndexKind::simple;
        case index::IndexKind::find_links:
            return lock::IndexKind::find_links;
        case index::IndexKind::torch_backend:
            return lock::IndexKind::torch_backend;
    }
    return lock::IndexKind::simple;
}

lock::LockedIndex to_locked(const index::IndexLocation& location) {
    return {location.name, util::strip_credentials(location.url), to_lock_kind(location.kind)};
}

std::vector<lock::LockedIndex> to_locked(const index::IndexRouting& routing) {
    std::vector<lock::LockedIndex> out;
    for (const auto& location : routing.indexes)
        out.push_back(to_locked(location));
    if (routing.torch_backend_index) out.push_back(to_locked(*routing.torch_backend_index));
    return out;
}

}  // namespace aitk::app
