#pragma once
// Private to app: a parsed pylock.toml converted into aitk-env's lockfile (any_lock.cpp reads
// the file and dispatches here).
#include <filesystem>
#include <string_view>

#include "aitk/app/any_lock.hpp"
#include "aitk/lock/pylock.hpp"

namespace aitk::app::pylock_detail {

// `bytes` are the file's, for the lock's input hash. Throws util::InputError and
// resolve::Unsatisfiable as read_any_lock says.
ReadLock lock_from_pylock(const lock::Pylock& pylock, const std::filesystem::path& path,
                          std::string_view bytes, const LockReadOptions& options);

}  // namespace aitk::app::pylock_detail
