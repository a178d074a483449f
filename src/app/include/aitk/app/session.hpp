#pragma once
// One command's session: what the command line and the environment say (cache root, working
// directory, environment, network settings, progress observer), and the things made from them
// that every stage of the command shares: one cache::Cache and one net::Downloader. cli builds
// it once per command and passes it by reference to run_lock, ensure_python, sync_prefix, the
// builds and the rest; `setup` thus locks, fetches an interpreter and syncs over the same
// connections, and an AITK_ENV_HTTP_* knob reaches every download of the command.
#include <filesystem>
#include <memory>

#include "aitk/app/settings.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/net/clock.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::app {

struct SessionSettings {
    std::filesystem::path cache_root;
    std::filesystem::path cwd;      // relative paths of the command are resolved against it
    util::Environment environment;  // what interpreters, backends and git are found with
    NetworkSettings network;
    net::TransferObserver* observer = nullptr;  // progress of whole-file downloads
    std::shared_ptr<net::Clock> clock;          // what stages are timed with; null: steady
};

class Session {
  public:
    explicit Session(SessionSettings settings);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const SessionSettings& settings() const noexcept { return settings_; }
    const std::filesystem::path& cache_root() const noexcept { return settings_.cache_root; }
    const std::filesystem::path& cwd() const noexcept { return settings_.cwd; }
    const util::Environment& environment() const noexcept { return settings_.environment; }
    const NetworkSettings& network() const noexcept { return settings_.network; }
    bool offline() const noexcept { return settings_.network.offline; }
    net::TransferObserver* observer() const noexcept { return settings_.observer; }
    const std::shared_ptr<net::Clock>& clock() const noexcept { return settings_.clock; }

    cache::Cache& cache() noexcept { return cache_; }
    // Built on first use from downloader_options(network()), so that a command that never
    // downloads never reads the CA bundle. One thread at a time, like net::Downloader itself.
    net::Downloader& downloader();

    // From here on nothing is fetched: the rest of the command works from the cache (an
    // offline bundle has replaced the network).
    void work_offline() noexcept { settings_.network.offline = true; }

  private:
    SessionSettings settings_;
    cache::Cache cache_;
    std::unique_ptr<net::Downloader> downloader_;
};

}  // namespace aitk::app
