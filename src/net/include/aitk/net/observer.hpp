#pragma once
// Progress leaves the downloader through this interface; drawing bars or printing log lines is
// the caller's business. Every call happens on the thread that called Downloader::download /
// fetch, between transfers' I/O, so an observer needs no locking but must stay quick.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace aitk::net {

struct TransferInfo {
    std::size_t id = 0;                                // index of the request in the batch
    std::string url;                                   // redacted
    std::optional<std::filesystem::path> destination;  // for file transfers
    std::optional<std::uint64_t> expected_size;
};

struct RetryInfo {
    int attempt = 0;  // the attempt that failed (1-based)
    std::chrono::milliseconds delay{0};
    std::string reason;     // redacted, e.g. "HTTP 503 Service Unavailable"
    bool resuming = false;  // the next attempt continues the body with a Range request
};

struct FinishInfo {
    bool ok = false;
    std::uint64_t bytes = 0;  // body size on success, bytes kept so far otherwise
    int attempts = 0;
    std::string error;  // the error message when !ok
};

class TransferObserver {
  public:
    virtual ~TransferObserver() = default;
    // Once per transfer, when its first attempt starts.
    virtual void on_start(const TransferInfo& /*info*/) {}
    // Bytes of the body held so far (resumed bytes included) and the total when known.
    virtual void on_progress(std::size_t /*id*/, std::uint64_t /*done*/,
                             std::optional<std::uint64_t> /*total*/) {}
    virtual void on_retry(std::size_t /*id*/, const RetryInfo& /*info*/) {}
    // Once per transfer. For a file, the destination is in place when `ok` is reported, so a
    // caller can start unpacking it while the other transfers go on.
    virtual void on_finish(std::size_t /*id*/, const FinishInfo& /*info*/) {}
};

}  // namespace aitk::net
