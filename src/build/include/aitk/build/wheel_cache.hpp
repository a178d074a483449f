#pragma once
// Wheels built from source, kept so that the same build is never run twice:
//
//   <cache>/v1/built-wheels/<xx>/<sha256 of source id + config settings>/<interpreter>-<platform>/
//       <the wheel>, source.txt (the source id, for people browsing the cache)
//
// An entry appears complete (staged in <cache>/v1/tmp, then renamed into place). A build holds
// the entry's lock, so a second process asking for the same wheel waits and then finds it.
#include <filesystem>
#include <optional>
#include <string>

#include "aitk/build/hooks.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/python/discovery.hpp"

namespace aitk::build {

struct WheelCacheKey {
    // What was built: sdist_source_id() or git_source_id(). Must not be empty.
    std::string source_id;
    std::string interpreter;  // "cp312", "cp313t", "pp310"
    std::string platform;     // "linux_x86_64", "win_amd64", "macosx_arm64"
    ConfigSettings config_settings;

    // The interpreter and platform parts from a probed interpreter.
    static WheelCacheKey for_interpreter(std::string source_id,
                                         const python::Interpreter& interpreter,
                                         ConfigSettings config_settings = {});
};

// "cp312" for CPython 3.12, "cp313t" free-threaded, "pp310" for PyPy 3.10.
std::string interpreter_tag(const python::Interpreter& interpreter);
// sys.platform and the machine, sysconfig style: "linux_x86_64", "win_amd64", "darwin_arm64".
std::string platform_key(const python::Interpreter& interpreter);

class BuiltWheelCache {
  public:
    explicit BuiltWheelCache(cache::Cache cache);

    // The stored wheel, or nothing.
    std::optional<std::filesystem::path> find(const WheelCacheKey& key) const;
    // Copies `wheel` into the entry (unless one is there already) and returns the stored path.
    std::filesystem::path store(const WheelCacheKey& key, const std::filesystem::path& wheel) const;
    // Held while building the entry's wheel.
    fs::FileLock lock(const WheelCacheKey& key) const;

    std::filesystem::path entry_dir(const WheelCacheKey& key) const;
    const cache::Cache& cache() const noexcept { return cache_; }

  private:
    cache::Cache cache_;
};

}  // namespace aitk::build
