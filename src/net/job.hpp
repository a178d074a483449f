#pragma once
// One transfer inside the downloader: its request, where it stands in its state machine
// (queued → running → waiting for a retry → … → done), and the body received so far.
#include <curl/curl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "aitk/fs/hash.hpp"
#include "aitk/net/clock.hpp"
#include "aitk/net/options.hpp"
#include "aitk/net/reachability.hpp"
#include "aitk/net/transfer.hpp"
#include "body_writers.hpp"
#include "part_file.hpp"

namespace aitk::net::detail {

// Why our own body callback stopped a transfer (libcurl then reports CURLE_WRITE_ERROR).
enum class Abort {
    none,
    local_io,        // the .part could not be written
    range_mismatch,  // a 206 that does not continue where the .part ends
    oversize,        // more bytes than the expected size
    too_large,       // an in-memory body above the limit
    cancelled,
    redirect_refused,  // a Location to a scheme other than http(s), or carrying credentials
};

struct Job {
    enum class State { queued, running, waiting, done };

    std::size_t id = 0;
    const FileRequest* file = nullptr;  // exactly one of file / fetch is set
    const FetchRequest* fetch = nullptr;
    std::string url;        // with credentials: handed to libcurl only
    std::string shown_url;  // redacted: everything the user or a caller sees
    const DownloaderOptions* options = nullptr;
    HostReachability* reachability = nullptr;  // the run's, told of every response
    const std::atomic<bool>* cancelled = nullptr;

    State state = State::queued;
    Clock::time_point not_before{};
    int attempts = 0;              // requests sent
    int consecutive_failures = 0;  // failed attempts since the body last grew
    int resumes = 0;
    int mismatch_restarts = 0;
    bool started = false;                        // observer told
    bool resumed = false;                        // some bytes arrived through a Range request
    std::optional<std::string> expected_sha256;  // normalised to lower case

    // File body: bytes [0, offset) are in the .part and in `hash`.
    std::filesystem::path part_path;
    PartFile part;
    fs::Sha256 hash;
    // When set, `part` and `hash` are fed on a worker thread; declared after them so that it
    // is drained before they go.
    std::unique_ptr<BodyStream> stream;
    std::uint64_t offset = 0;  // bytes accepted (possibly still being written by the stream)
    // The largest `offset` an attempt ended with: an attempt made progress only when it took the
    // .part beyond it (a server that resends the same bytes on every resume makes none).
    std::uint64_t largest = 0;
    // The next attempt opens a connection of its own and closes it after: the last one may
    // hold the stray bytes of a response that was longer than its Content-Length said.
    bool fresh_connection = false;
    std::optional<std::string> validator;  // strong ETag or Last-Modified for If-Range
    std::optional<std::uint64_t> total;    // expected full size, for progress
    std::uint64_t reported = UINT64_MAX;   // last progress value told to the observer

    // In-memory body.
    std::string body;

    // The current attempt.
    CURL* easy = nullptr;
    curl_slist* header_list = nullptr;
    std::array<char, CURL_ERROR_SIZE> error_buffer{};
    bool sent_range = false;
    bool body_checked = false;  // the status was looked at when the body started
    bool body_to_sink = false;  // a success body (to the file / memory), else an error page
    long status = 0;
    long header_status = 0;  // the status line of the response whose headers arrive now
    long http_version = 0;
    Headers response_headers;
    std::string error_page;  // start of a non-success body, for the error message
    Abort abort = Abort::none;
    std::string abort_detail;
    std::uint64_t attempt_bytes = 0;  // success-body bytes this attempt added

    // Outcome.
    std::optional<TransferError> error;
    std::optional<FileResult> file_result;
    std::optional<FetchResult> fetch_result;

    bool is_file() const noexcept { return file != nullptr; }
    std::uint64_t bytes_held() const noexcept { return is_file() ? offset : body.size(); }
    void reset_body();  // back to an empty body: .part emptied, hash restarted
    // Waits until the stream has written and hashed everything; its write error, if any.
    std::optional<std::string> settle();
};

// Records one response header line (a status line starts a new response).
void keep_header(Job& job, std::string_view line);

// libcurl callbacks; `user` is the Job.
std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user);
std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user);

// Looks at the response status and headers once the body starts (or the transfer ends with an
// empty body) and decides where the body goes.
void check_response(Job& job);

}  // namespace aitk::net::detail
