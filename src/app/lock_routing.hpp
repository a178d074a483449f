#pragma once
// Where a lock looks packages up: the input's indexes with the command line's, in the order of
// the input's own tool (pip or uv), the torch backend index, and the index strategy. Internal to
// the app layer; tests go through run_lock.
#include <vector>

#include "aitk/app/lock.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/target.hpp"

namespace aitk::app::lock_detail {

// How this lock takes a package that several indexes list: --index-strategy or
// AITK_ENV_INDEX_STRATEGY, else the way the input's own tool does.
index::IndexStrategy strategy_of_input(const project::ProjectInput& input);
index::IndexStrategy strategy_for(const LockRequest& request, const project::ProjectInput& input);

// The indexes `target` is locked from.
index::IndexRouting routing_for(const LockRequest& request, const project::ProjectInput& input,
                                const project::Target& target);

// Every index of every target, once each, in the order they first appear.
std::vector<lock::LockedIndex> all_indexes(const LockRequest& request,
                                           const project::ProjectInput& input,
                                           const std::vector<project::Target>& targets);

}  // namespace aitk::app::lock_detail
