#pragma once
// Knobs of the downloader. Defaults suit a torch-sized environment (a few GB from two indexes).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "aitk/net/reachability.hpp"

namespace aitk::net {

struct RetryPolicy {
    // Consecutive failed attempts (without body progress) before a transfer gives up. An attempt
    // that received part of the body and then broke does not count: it is resumed.
    int max_attempts = 5;
    // Upper bound on resumed attempts, so a server that breaks every connection still ends.
    int max_resumes = 20;
    // A body whose hash does not match is fetched again from scratch this many times.
    int hash_mismatch_restarts = 1;
    std::chrono::milliseconds initial_backoff{500};
    double backoff_multiplier = 2.0;
    std::chrono::milliseconds max_backoff{30'000};
    // Each wait is scaled by a random factor in [1 - jitter, 1 + jitter].
    double jitter = 0.25;
    // A server's Retry-After is honoured up to this long.
    std::chrono::milliseconds max_retry_after{120'000};
    // Seed of the jitter generator; fixed in tests for repeatable waits.
    std::optional<std::uint64_t> jitter_seed;
};

struct DownloaderOptions {
    // Transfers in flight at once (`--concurrency`).
    std::size_t concurrency = 8;
    RetryPolicy retry;
    std::chrono::milliseconds connect_timeout{30'000};
    // A transfer slower than `low_speed_limit` bytes/s for `low_speed_time` is abandoned (and
    // retried, resuming where it stopped).
    std::size_t low_speed_limit = 1024;
    std::chrono::seconds low_speed_time{30};
    // CA bundle (`--cert`). When empty: SSL_CERT_FILE, then REQUESTS_CA_BUNDLE, then the system
    // store. Verification itself can never be switched off.
    std::optional<std::filesystem::path> ca_file;
    // Empty means "aitk-env/<version>".
    std::string user_agent;
    // Reuses `<dest>.part` left by an interrupted earlier run (re-hashed, then continued with a
    // Range request); the final hash check still decides.
    bool resume_partial_files = true;
    // fsync the .part before renaming it into place (durability across power loss).
    bool sync_before_rename = false;
    // In-memory fetches refuse bodies larger than this.
    std::size_t max_memory_body = 256u << 20;
    // libcurl's receive buffer per transfer (also the unit handed to the hashing threads).
    // 64 KiB: beside 32 KiB file writes (fs::page_cache_write_bytes), 256 KiB took 4.5 s
    // against 3.7 s for 1.9 GB beside a CPU hog on the 2-core VM of
    // bench/results/net-2026-12-03.md (medians of interleaved runs).
    std::size_t receive_buffer_bytes = 64u << 10;
    // Threads that hash file bodies beside the transfer thread, which receives and writes them
    // (body_writers.hpp); 0 hashes and writes on the transfer thread, straight from libcurl's
    // buffer. Unset: one per core up to 4 (2 on two cores), 0 on a single core. Measured
    // (bench/net.sh, 2 cores): writing on another thread than the one that received the bytes
    // costs 2-4x the kernel's copy into the page cache; hashing inline puts sha256 on the one
    // thread's critical path.
    std::optional<std::size_t> writer_threads;
    // What this run knows of its servers (see reachability.hpp). A request whose host does not
    // resolve or whose connection is refused is retried only when its server answered earlier
    // in the run: otherwise it fails at once, with advice about the network and the proxy
    // variables, and later requests to that server fail at once too. Give every downloader of
    // one command the same instance; null: the downloader keeps its own.
    std::shared_ptr<HostReachability> reachability;
    // Appended to that advice: what else the user can do (e.g. the options that avoid the
    // network). Empty: nothing.
    std::string unreachable_hint;
};

// "aitk-env/<version>".
std::string default_user_agent();

}  // namespace aitk::net
