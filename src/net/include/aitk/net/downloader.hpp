#pragma once
// Parallel HTTP(S) transfers over one libcurl multi handle: up to `concurrency` at once, new
// ones starting as earlier ones finish, connections (and HTTP/2 multiplexing) reused across
// calls. Each transfer is a small state machine: attempt → retry with backoff, resuming the body
// with a Range request where possible → verified result or an error naming the URL and the last
// cause.
#include <memory>
#include <span>
#include <vector>

#include "aitk/net/clock.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/net/options.hpp"
#include "aitk/net/transfer.hpp"

namespace aitk::net {

class Downloader {
  public:
    // Throws util::InputError when the CA bundle named by the options or the environment does
    // not exist. `clock` defaults to system_clock().
    explicit Downloader(DownloaderOptions options = {}, std::shared_ptr<Clock> clock = nullptr);
    ~Downloader();
    Downloader(const Downloader&) = delete;
    Downloader& operator=(const Downloader&) = delete;

    // Runs every request to its end; one outcome per request, in request order. A failure of
    // one transfer does not stop the others.
    std::vector<FileOutcome> download(std::span<const FileRequest> requests,
                                      TransferObserver* observer = nullptr);
    FileOutcome download(const FileRequest& request, TransferObserver* observer = nullptr);

    std::vector<FetchOutcome> fetch(std::span<const FetchRequest> requests,
                                    TransferObserver* observer = nullptr);
    FetchOutcome fetch(const FetchRequest& request, TransferObserver* observer = nullptr);

    // Thread-safe (e.g. from a signal-watching thread): running and queued transfers end with
    // TransferError::Kind::cancelled, and so does every later call: a cancelled downloader
    // stays cancelled. .part files of transfers with an expected hash stay for a later resume.
    void cancel() noexcept;

    const DownloaderOptions& options() const noexcept;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace aitk::net
