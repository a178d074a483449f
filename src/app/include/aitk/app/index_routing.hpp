#pragma once
// Index routing, made in one place: from the index settings (the command line and the inputs),
// from the indexes a lockfile names, and back into lockfile entries. Every command that asks an
// index (lock, setup and sync, bundle, mirror, snapshot, the build environments) takes its
// routing from here.
#include <string_view>
#include <vector>

#include "aitk/app/settings.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app {

// What a command falls back to where the settings name no URL; "" for none.
struct RoutingDefaults {
    std::string_view index_url;        // the primary index; "" routes as --no-index
    std::string_view torch_index_url;  // the base of the torch backend indexes
};

// pip-like routing from `settings`: the primary index (settings.index_url, else the default),
// the extra indexes and find-links in that order, and the backend index
// "<torch index url>/<backend>/" when a torch index URL (settings.torch_index_url, else the
// default) and `backend` are both given.
index::IndexRouting routing_from_settings(const IndexSettings& settings, std::string_view backend,
                                          const RoutingDefaults& defaults = {});

// The routing of locked indexes: the simple and find-links entries in order, and the
// torch-backend entry of `torch_backend` ("torch <backend>"); none when `torch_backend` is "".
index::IndexRouting routing_from_lock(const std::vector<lock::LockedIndex>& indexes,
                                      std::string_view torch_backend);
// The indexes a lock target was resolved from (for build requirements): the lock's simple and
// find-links indexes in order, and the target's own torch backend index.
index::IndexRouting routing_from_lock(const lock::Lockfile& lock, const lock::LockedTarget& target);

// The same kinds, in the index and the lock layers.
index::IndexKind to_index_kind(lock::IndexKind kind) noexcept;
lock::IndexKind to_lock_kind(index::IndexKind kind) noexcept;

// An index as a lockfile records it: its URL without credentials.
lock::LockedIndex to_locked(const index::IndexLocation& location);
// Every index of `routing` in the order it is tried, the torch backend index last.
std::vector<lock::LockedIndex> to_locked(const index::IndexRouting& routing);

}  // namespace aitk::app
