#include "aitk/net/downloader.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <deque>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "aitk/net/content_range.hpp"
#include "aitk/net/reachability.hpp"
#include "aitk/net/redact.hpp"
#include "aitk/net/retry.hpp"
#include "aitk/net/tls.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "body_writers.hpp"
#include "curl_error.hpp"
#include "easy_setup.hpp"
#include "job.hpp"
#include "utf8_path.hpp"

namespace aitk::net {

using detail::Abort;
using detail::Job;
using Kind = TransferError::Kind;
using std::chrono::milliseconds;

namespace {

void init_curl_once() {
    static const CURLcode result = [] {
        select_tls_backend();
        return curl_global_init(CURL_GLOBAL_DEFAULT);
    }();
    if (result != CURLE_OK) {
        throw std::runtime_error(std::string("libcurl could not start: ") +
                                 curl_easy_strerror(result));
    }
}

std::string http_cause(long status) {
    std::string cause = "HTTP " + std::to_string(status);
    if (const auto reason = reason_phrase(status); !reason.empty()) {
        cause += ' ';
        cause += reason;
    }
    if (status == 401 || status == 407) {
        cause += " (check the credentials in the URL or in .netrc)";
    }
    return cause;
}

long http_version_number(long curl_version) {
    switch (curl_version) {
        case CURL_HTTP_VERSION_1_0:
            return 10;
        case CURL_HTTP_VERSION_1_1:
            return 11;
        case CURL_HTTP_VERSION_2_0:
            return 20;
        case CURL_HTTP_VERSION_3:
            return 30;
        default:
            return 0;
    }
}

std::string plural_attempts(int attempts) {
    return std::to_string(attempts) + (attempts == 1 ? " attempt" : " attempts");
}

std::size_t writer_thread_count(const DownloaderOptions& options) {
    if (options.writer_threads) return *options.writer_threads;
    // Two hashing threads (up to four with the cores): under contention the transfer thread
    // is not left waiting on one descheduled hasher (bench/results/net-2026-12-02.md). On one
    // core, hashing inline saves the hand-over.
    const std::size_t cores = std::thread::hardware_concurrency();
    return cores >= 2 ? std::min<std::size_t>(cores, 4) : 0;
}

// Why a request that found no way to its server was not retried, and what to check.
std::string unreachable_advice(std::string_view url, const std::string& hint) {
    std::string origin = url_origin(url);
    std::string text = " (nothing at " + (origin.empty() ? std::string("this address") : origin) +
                       " has answered in this run, so it was not retried: check the network "
                       "connection and the proxy variables https_proxy, http_proxy, all_proxy "
                       "and no_proxy";
    if (!hint.empty()) text += "; " + hint;
    return text + ")";
}

// Every job ends with a result or an error; the fallback only guards against a bug.
TransferError take_error(Job& job) {
    if (job.error) return std::move(*job.error);
    TransferError error;
    error.kind = TransferError::Kind::bad_request;
    error.url = job.shown_url;
    error.message = "GET " + job.shown_url + " ended without a result (internal error)";
    return error;
}

}  // namespace

struct Downloader::Impl {
    DownloaderOptions options;
    std::shared_ptr<Clock> injected_clock;  // null: real time, waits interruptible by cancel()
    std::shared_ptr<Clock> clock;
    detail::EasyConfig easy_config;
    Backoff backoff;
    std::unique_ptr<detail::BodyWriters> writers;  // null: bodies written on this thread
    CURLM* multi = nullptr;
    CURLSH* share = nullptr;
    std::atomic<bool> cancelled{false};

    TransferObserver* observer = nullptr;
    std::size_t running = 0;

    Impl(DownloaderOptions opts, std::shared_ptr<Clock> test_clock)
        : options(std::move(opts)),
          injected_clock(std::move(test_clock)),
          clock(injected_clock ? injected_clock : system_clock()),
          backoff(options.retry) {
        init_curl_once();
        if (options.concurrency == 0) options.concurrency = 1;
        // Without the run's record, one of its own (a copy of options() shares it).
        if (!options.reachability) options.reachability = std::make_shared<HostReachability>();
        easy_config.options = &options;
        easy_config.ca_bundle = resolve_ca_bundle(options, process_env);
        easy_config.netrc_file = process_env("NETRC");
        easy_config.native_ca = trusts_system_store();
        easy_config.user_agent =
            options.user_agent.empty() ? default_user_agent() : options.user_agent;
        if (const auto threads = writer_thread_count(options); threads > 0) {
            writers = std::make_unique<detail::BodyWriters>(
                threads, options.receive_buffer_bytes,
                options.concurrency + std::max<std::size_t>(16, options.concurrency));
        }
        multi = curl_multi_init();
        share = curl_share_init();
        if (multi == nullptr || share == nullptr) {
            cleanup();
            throw std::runtime_error("libcurl could not create a transfer pool");
        }
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
        easy_config.share = share;
        curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS,
                          static_cast<long>(std::max<std::size_t>(16, 2 * options.concurrency)));
    }

    ~Impl() { cleanup(); }

    void cleanup() noexcept {
        if (multi != nullptr) curl_multi_cleanup(multi);
        if (share != nullptr) curl_share_cleanup(share);
        multi = nullptr;
        share = nullptr;
    }

    // ---- outcomes --------------------------------------------------------------------------

    void notify_finish(Job& job) {
        if (observer == nullptr) return;
        FinishInfo info;
        info.ok = !job.error.has_value();
        info.bytes = job.bytes_held();
        info.attempts = job.attempts;
        if (job.error) info.error = job.error->message;
        observer->on_finish(job.id, info);
    }

    void fail(Job& job, Kind kind, std::string message, long status = 0) {
        TransferError error;
        error.kind = kind;
        error.url = job.shown_url;
        error.message = std::move(message);
        error.http_status = status;
        error.attempts = job.attempts;
        job.error = std::move(error);
        if (job.is_file()) {
            job.settle();
            job.part.close();
            // A verified-later resume needs the expected hash; without it a kept prefix could
            // be spliced onto a different file next time, so it goes.
            const bool keep = kind != Kind::hash_mismatch && job.expected_sha256 &&
                              options.resume_partial_files && job.offset > 0;
            std::error_code ec;
            if (!keep) std::filesystem::remove(job.part_path, ec);
        }
        job.state = Job::State::done;
        notify_finish(job);
    }

    void fail_after_attempts(Job& job, Kind kind, const std::string& cause, long status) {
        const std::string tail =
            job.attempts > 1 ? " after " + plural_attempts(job.attempts) : std::string();
        fail(job, kind, "GET " + job.shown_url + " failed" + tail + ": " + cause, status);
    }

    void succeed_file(Job& job, std::string sha256) {
        if (auto problem = job.part.close(options.sync_before_rename)) {
            fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + *problem);
            return;
        }
        std::error_code ec;
        std::filesystem::rename(job.part_path, job.file->destination, ec);
        if (ec) {
            fail(job, Kind::local_io,
                 "GET " + job.shown_url + " failed: cannot move '" +
                     detail::path_to_utf8(job.part_path) + "' to '" +
                     detail::path_to_utf8(job.file->destination) + "': " + ec.message());
            return;
        }
        FileResult result;
        result.url = job.shown_url;
        result.destination = job.file->destination;
        result.sha256 = std::move(sha256);
        result.size = job.offset;
        result.attempts = job.attempts;
        result.resumed = job.resumed;
        result.http_version = job.http_version;
        job.file_result = std::move(result);
        job.state = Job::State::done;
        report_progress(job, true);
        notify_finish(job);
    }

    void succeed_fetch(Job& job) {
        FetchResult result;
        result.url = job.shown_url;
        char* effective = nullptr;
        if (job.easy != nullptr) curl_easy_getinfo(job.easy, CURLINFO_EFFECTIVE_URL, &effective);
        result.effective_url = effective != nullptr ? redact_url(effective) : job.shown_url;
        result.status = job.status;
        result.not_modified = job.status == 304;
        result.body = std::move(job.body);
        job.body.clear();
        result.headers = std::move(job.response_headers);
        if (auto v = find_header(result.headers, "etag")) result.etag = std::string(*v);
        if (auto v = find_header(result.headers, "last-modified")) {
            result.last_modified = std::string(*v);
        }
        if (auto v = find_header(result.headers, "content-type")) {
            result.content_type = std::string(*v);
        }
        result.attempts = job.attempts;
        job.fetch_result = std::move(result);
        job.state = Job::State::done;
        notify_finish(job);
    }

    // ---- state transitions -----------------------------------------------------------------

    void wait_then_retry(Job& job, milliseconds delay, const std::string& reason) {
        job.state = Job::State::waiting;
        job.not_before = clock->now() + delay;
        if (observer != nullptr) {
            RetryInfo info;
            info.attempt = job.attempts;
            info.delay = delay;
            info.reason = reason;
            info.resuming = job.is_file() && job.offset > 0;
            observer->on_retry(job.id, info);
        }
    }

    // A failed attempt that another attempt may fix. It made progress when it took the .part
    // beyond the largest size it had: bytes received again after a restart are none. An attempt
    // that the speed floor ended (`stalled`) must also have added at least the floor's worth
    // (low_speed_limit bytes/s over low_speed_time), or a server that drips a few bytes per
    // connection would get every resume.
    void retry_or_fail(Job& job, Kind kind, const std::string& cause, long status,
                       std::optional<milliseconds> retry_after, bool stalled = false) {
        bool progressed = false;
        if (job.is_file() && job.offset > job.largest) {
            const std::uint64_t gain = job.offset - job.largest;
            const std::uint64_t floor = static_cast<std::uint64_t>(options.low_speed_limit) *
                                        static_cast<std::uint64_t>(options.low_speed_time.count());
            progressed = !stalled || gain >= floor;
            job.largest = job.offset;
        }
        if (progressed) {
            job.consecutive_failures = 0;
            if (++job.resumes > options.retry.max_resumes) {
                fail_after_attempts(job, kind, cause, status);
                return;
            }
        } else if (++job.consecutive_failures >= options.retry.max_attempts) {
            fail_after_attempts(job, kind, cause, status);
            return;
        }
        if (!job.is_file()) job.body.clear();
        milliseconds delay = backoff.delay(std::max(1, job.consecutive_failures));
        if (retry_after) delay = backoff.after_retry_after(*retry_after);
        wait_then_retry(job, delay, cause);
    }

    // The body arrived but is not the expected one: fetched once more from scratch, then final.
    void mismatch(Job& job, const std::string& what, const std::optional<std::string>& actual) {
        if (job.mismatch_restarts < options.retry.hash_mismatch_restarts) {
            ++job.mismatch_restarts;
            job.reset_body();
            // From scratch, on a connection that holds nothing of the answer that was wrong.
            job.largest = 0;
            job.fresh_connection = true;
            if (job.abort == Abort::local_io) {
                fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + job.abort_detail);
                return;
            }
            job.validator.reset();
            wait_then_retry(job, milliseconds(0), what);
            return;
        }
        job.part.close();
        fail(job, Kind::hash_mismatch, what + "; the download was discarded");
        job.error->expected_sha256 = job.expected_sha256;
        job.error->actual_sha256 = actual;
    }

    // The whole body is in the .part: check it and move it into place.
    void finalize_file(Job& job) {
        if (auto problem = job.settle()) {
            fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + *problem);
            return;
        }
        if (const auto want = job.file->expected_size; want && job.offset != *want) {
            // Short only by a body that ended where its Content-Length said (a truncation is
            // a broken transfer, resumed instead).
            mismatch(job,
                     "size mismatch for " + job.shown_url + ": received " +
                         std::to_string(job.offset) + " of " + std::to_string(*want) +
                         " bytes (the answer ended there: its Content-Length, or the file, is that "
                         "short)",
                     std::nullopt);
            return;
        }
        std::string actual = job.hash.finish_hex();
        if (job.expected_sha256 && actual != *job.expected_sha256) {
            mismatch(job,
                     "sha256 mismatch for " + job.shown_url + ": expected " + *job.expected_sha256 +
                         ", got " + actual + " (" + std::to_string(job.offset) + " bytes)",
                     actual);
            return;
        }
        succeed_file(job, std::move(actual));
    }

    // First activation of a job: opens (or resumes) its .part.
    bool prepare(Job& job) {
        if (job.is_file()) {
            if (const auto& want = job.file->expected_sha256) {
                const std::string lower = util::to_lower(*want);
                if (!util::is_sha256_hex(lower)) {
                    fail(job, Kind::bad_request,
                         "GET " + job.shown_url + ": the expected sha256 '" + *want +
                             "' is not 64 hexadecimal digits");
                    return false;
                }
                job.expected_sha256 = lower;
            }
            job.total = job.file->expected_size;
            auto part_name = job.file->destination.filename();
            part_name += ".part";
            job.part_path = job.file->destination.parent_path() / part_name;
            std::error_code ec;
            if (job.file->destination.has_parent_path()) {
                std::filesystem::create_directories(job.file->destination.parent_path(), ec);
            }
            if (ec) {
                fail(job, Kind::local_io,
                     "GET " + job.shown_url + " failed: cannot create '" +
                         detail::path_to_utf8(job.file->destination.parent_path()) +
                         "': " + ec.message());
                return false;
            }
            std::optional<std::string> problem;
            if (options.resume_partial_files && job.expected_sha256 &&
                std::filesystem::is_regular_file(job.part_path, ec)) {
                // Left by an interrupted run: its bytes count once re-hashed; the final hash
                // check (with one restart) protects against a stale or foreign prefix.
                const auto size = detail::hash_existing_file(job.part_path, job.hash);
                const auto limit = job.file->expected_size;
                if (size && (!limit || *size <= *limit)) {
                    job.offset = *size;
                    job.largest = *size;
                    problem = job.part.open_append(job.part_path);
                } else {
                    job.hash = fs::Sha256{};
                    problem = job.part.open_fresh(job.part_path);
                }
            } else {
                problem = job.part.open_fresh(job.part_path);
            }
            if (problem) {
                fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + *problem);
                return false;
            }
            if (writers) {
                job.stream = std::make_unique<detail::BodyStream>(*writers, job.part, job.hash);
            }
            if (job.offset > 0 && job.file->expected_size &&
                job.offset == *job.file->expected_size) {
                finalize_file(job);  // a complete .part whose rename was interrupted
                return false;
            }
        }
        if (observer != nullptr) {
            TransferInfo info;
            info.id = job.id;
            info.url = job.shown_url;
            if (job.is_file()) info.destination = job.file->destination;
            info.expected_size = job.is_file() ? job.file->expected_size : std::nullopt;
            observer->on_start(info);
        }
        job.started = true;
        return true;
    }

    void start_attempt(Job& job) {
        if (!job.started && !prepare(job)) return;
        if (job.state == Job::State::done) return;
        // A server this run already found no way to: said at once, without another lookup.
        if (auto cause = options.reachability->unreachable_cause(job.url)) {
            fail(job, Kind::connection,
                 "GET " + job.shown_url + " failed: " + *cause +
                     unreachable_advice(job.url, options.unreachable_hint));
            return;
        }
        job.attempts += 1;
        job.body_checked = false;
        job.body_to_sink = false;
        job.status = 0;
        job.http_version = 0;
        job.response_headers.clear();
        job.error_page.clear();
        job.abort = Abort::none;
        job.abort_detail.clear();
        job.attempt_bytes = 0;
        if (!job.is_file()) job.body.clear();
        if (auto problem = detail::make_easy(job, easy_config)) {
            detail::release_easy(job);
            fail(job, Kind::bad_request, "GET " + job.shown_url + " failed: " + *problem);
            return;
        }
        if (curl_multi_add_handle(multi, job.easy) != CURLM_OK) {
            detail::release_easy(job);
            fail(job, Kind::bad_request,
                 "GET " + job.shown_url + " failed: libcurl could not start the transfer");
            return;
        }
        job.state = Job::State::running;
        ++running;
    }

    void handle_status(Job& job) {
        const long status = job.status;
        const auto cause = http_cause(status);
        if (is_retryable_status(status)) {
            std::optional<milliseconds> retry_after;
            if (auto value = find_header(job.response_headers, "retry-after")) {
                retry_after =
                    parse_retry_after(*value, static_cast<std::int64_t>(std::time(nullptr)));
            }
            retry_or_fail(job, Kind::http_status, cause, status, retry_after);
        } else {
            fail_after_attempts(job, Kind::http_status, cause, status);
        }
    }

    // A 416 to a resume: the .part may already hold the whole body.
    void handle_unsatisfiable_range(Job& job) {
        const auto header = find_header(job.response_headers, "content-range");
        const auto range = header ? parse_content_range(*header) : std::nullopt;
        if (range && range->complete_length && *range->complete_length == job.offset) {
            finalize_file(job);
            return;
        }
        job.reset_body();
        if (job.abort == Abort::local_io) {
            fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + job.abort_detail);
            return;
        }
        job.validator.reset();
        retry_or_fail(job, Kind::http_status, http_cause(416), 416, std::nullopt);
    }

    void finish_attempt(Job& job, CURLcode result) {
        --running;
        curl_multi_remove_handle(multi, job.easy);
        // A waiting job must not hold a half-filled buffer that running ones need.
        if (job.stream) job.stream->flush();
        if (result == CURLE_OK && !job.body_checked) check_response(job);
        if (job.status == 0) curl_easy_getinfo(job.easy, CURLINFO_RESPONSE_CODE, &job.status);
        long version = 0;
        curl_easy_getinfo(job.easy, CURLINFO_HTTP_VERSION, &version);
        job.http_version = http_version_number(version);

        if (job.abort == Abort::cancelled || cancelled.load()) {
            detail::release_easy(job);
            fail(job, Kind::cancelled, "GET " + job.shown_url + " was cancelled");
            return;
        }
        switch (job.abort) {
            case Abort::local_io:
                detail::release_easy(job);
                fail(job, Kind::local_io, "GET " + job.shown_url + " failed: " + job.abort_detail);
                return;
            case Abort::too_large:
                detail::release_easy(job);
                fail(job, Kind::too_large, "GET " + job.shown_url + " failed: " + job.abort_detail);
                return;
            case Abort::redirect_refused:
                detail::release_easy(job);
                fail_after_attempts(job, Kind::bad_request, job.abort_detail, job.status);
                return;

            case Abort::oversize:
                detail::release_easy(job);
                mismatch(job, "size mismatch for " + job.shown_url + ": " + job.abort_detail,
                         std::nullopt);
                return;
            case Abort::range_mismatch: {
                detail::release_easy(job);
                const std::string cause = job.abort_detail;
                job.reset_body();
                job.validator.reset();
                job.attempt_bytes = 0;
                retry_or_fail(job, Kind::http_status, cause, job.status, std::nullopt);
                return;
            }
            case Abort::none:
            case Abort::cancelled:
                break;
        }

        // A redirect libcurl did not follow (too many, a scheme it refuses): where it led.
        if (result != CURLE_OK && job.status >= 300 && job.status < 400) {
            char* target = nullptr;
            curl_easy_getinfo(job.easy, CURLINFO_REDIRECT_URL, &target);
            std::string cause = detail::describe(result, job.error_buffer.data(), job.url, 0);
            if (target != nullptr)
                cause = "redirect to " + redact_url(target) + " refused: " + cause;
            detail::release_easy(job);
            fail_after_attempts(job, Kind::bad_request, cause, job.status);
            return;
        }
        // No status (a connection failure, a file: URL) or a success status broken off in the
        // body: libcurl's result says what went wrong.
        const bool success_status = job.status == 0 || (job.status >= 200 && job.status < 300);
        if (result != CURLE_OK && success_status) {
            auto failure = detail::classify(result);
            long os_errno = 0;
            curl_easy_getinfo(job.easy, CURLINFO_OS_ERRNO, &os_errno);
            std::string cause =
                detail::describe(result, job.error_buffer.data(), job.url, os_errno);
            if (failure.kind == Kind::tls && !failure.retryable) {
                cause += " (" + explain_certificate_failure(cause) + ")";
            }
            // The speed floor ended a body that had begun: the server holds the connection
            // open and sends (next to) nothing.
            const bool stalled = result == CURLE_OPERATION_TIMEDOUT && job.status != 0;
            if (stalled) {
                const std::uint64_t reached = std::max(job.largest, job.bytes_held());
                cause = "stalled after " + std::to_string(reached) + " bytes" +
                        (job.total ? " of " + std::to_string(*job.total) : std::string()) +
                        ": too slow (less than " + std::to_string(options.low_speed_limit) +
                        " bytes/s for " + std::to_string(options.low_speed_time.count()) + " s)";
            }
            // What looks like a reply without a status line on a reused connection is what an
            // earlier answer left there, longer than its Content-Length: once more on a
            // connection of its own.
            if (result == CURLE_UNSUPPORTED_PROTOCOL && job.status == 0 &&
                cause.find("HTTP/0.9") != std::string::npos) {
                cause +=
                    " (stray bytes of an earlier answer on the connection: a Content-Length "
                    "shorter than its body)";
                failure = {Kind::connection, true};
                job.fresh_connection = true;
            }
            // The server that failed: after a redirect, not the one first asked.
            char* current = nullptr;
            curl_easy_getinfo(job.easy, CURLINFO_EFFECTIVE_URL, &current);
            const std::string failed_url = current != nullptr ? current : job.url;
            detail::release_easy(job);
            if (failure.unreachable && !options.reachability->has_answered(failed_url)) {
                options.reachability->unreachable(failed_url, cause);
                fail_after_attempts(
                    job, failure.kind,
                    cause + unreachable_advice(failed_url, options.unreachable_hint), job.status);
            } else if (failure.retryable) {
                retry_or_fail(job, failure.kind, cause, job.status, std::nullopt, stalled);
            } else {
                fail_after_attempts(job, failure.kind, cause, job.status);
            }
            return;
        }
        if (job.body_to_sink) {
            if (job.is_file()) {
                detail::release_easy(job);
                finalize_file(job);
            } else {
                succeed_fetch(job);
                detail::release_easy(job);
            }
            return;
        }
        // A complete non-success response (or one broken off while its error page arrived).
        if (job.status == 304 && !job.is_file()) {
            succeed_fetch(job);
            detail::release_easy(job);
            return;
        }
        detail::release_easy(job);
        if (job.status == 416 && job.is_file() && job.sent_range) {
            handle_unsatisfiable_range(job);
            return;
        }
        handle_status(job);
    }

    // ---- progress --------------------------------------------------------------------------

    void report_progress(Job& job, bool force = false) {
        if (observer == nullptr) return;
        const auto held = job.bytes_held();
        if (!force && held == job.reported) return;
        job.reported = held;
        observer->on_progress(job.id, held, job.total);
    }

    // ---- the loop --------------------------------------------------------------------------

    Job* next_due(std::vector<Job>& jobs, std::deque<Job*>& queue, Clock::time_point now) {
        Job* due = nullptr;
        for (auto& job : jobs) {
            if (job.state == Job::State::waiting && job.not_before <= now &&
                (due == nullptr || job.not_before < due->not_before)) {
                due = &job;
            }
        }
        if (due != nullptr) return due;
        if (queue.empty()) return nullptr;
        Job* next = queue.front();
        queue.pop_front();
        return next;
    }

    std::optional<Clock::time_point> earliest_wait(const std::vector<Job>& jobs) const {
        std::optional<Clock::time_point> earliest;
        for (const auto& job : jobs) {
            if (job.state == Job::State::waiting && (!earliest || job.not_before < *earliest)) {
                earliest = job.not_before;
            }
        }
        return earliest;
    }

    // Nothing runs and the next retry is `delay` away.
    void idle_wait(milliseconds delay) {
        if (injected_clock) {
            injected_clock->sleep_for(delay);
            return;
        }
        // Real time: poll the (idle) multi handle so that cancel() can cut the wait short.
        const auto until = std::chrono::steady_clock::now() + delay;
        while (!cancelled.load()) {
            const auto left =
                std::chrono::duration_cast<milliseconds>(until - std::chrono::steady_clock::now());
            if (left.count() <= 0) break;
            curl_multi_poll(multi, nullptr, 0,
                            static_cast<int>(std::min<long long>(left.count(), 1000)), nullptr);
        }
    }

    void cancel_all(std::vector<Job>& jobs) {
        for (auto& job : jobs) {
            if (job.state == Job::State::done) continue;
            if (job.state == Job::State::running) {
                --running;
                curl_multi_remove_handle(multi, job.easy);
                detail::release_easy(job);
            }
            fail(job, Kind::cancelled, "GET " + job.shown_url + " was cancelled");
        }
    }

    void run(std::vector<Job>& jobs, TransferObserver* obs) {
        // Whatever ends the loop (an observer's exception included), no handle may stay in the
        // multi handle pointing at a job that is about to be destroyed.
        struct Detach {
            Impl& impl;
            std::vector<Job>& jobs;
            ~Detach() {
                for (auto& job : jobs) {
                    if (job.easy == nullptr) continue;
                    curl_multi_remove_handle(impl.multi, job.easy);
                    detail::release_easy(job);
                }
                impl.observer = nullptr;
                impl.running = 0;
            }
        } detach{*this, jobs};
        observer = obs;
        running = 0;
        std::deque<Job*> queue;
        for (auto& job : jobs) {
            job.options = &options;
            job.reachability = options.reachability.get();
            job.cancelled = &cancelled;
            queue.push_back(&job);
        }
        for (;;) {
            if (cancelled.load()) {
                cancel_all(jobs);
                break;
            }
            auto now = clock->now();
            while (running < options.concurrency) {
                Job* next = next_due(jobs, queue, now);
                if (next == nullptr) break;
                start_attempt(*next);
            }
            const auto earliest = earliest_wait(jobs);
            if (running == 0) {
                if (!earliest && queue.empty()) break;
                if (earliest) {
                    const auto delay = std::chrono::duration_cast<milliseconds>(*earliest - now);
                    if (delay.count() > 0) idle_wait(delay);
                }
                continue;
            }
            int still_running = 0;
            curl_multi_perform(multi, &still_running);
            bool finished_any = false;
            int left = 0;
            while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
                if (message->msg != CURLMSG_DONE) continue;
                void* user = nullptr;
                curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &user);
                const CURLcode result = message->data.result;
                finish_attempt(*static_cast<Job*>(user), result);
                finished_any = true;
            }
            for (auto& job : jobs) {
                if (job.state == Job::State::running) report_progress(job);
            }
            if (finished_any) continue;
            long long timeout = 1000;
            if (earliest) {
                const auto until =
                    std::chrono::duration_cast<milliseconds>(*earliest - clock->now()).count();
                timeout = std::clamp<long long>(until, 0, timeout);
            }
            curl_multi_poll(multi, nullptr, 0, static_cast<int>(timeout), nullptr);
        }
    }
};

Downloader::Downloader(DownloaderOptions options, std::shared_ptr<Clock> clock)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(clock))) {}

Downloader::~Downloader() = default;

const DownloaderOptions& Downloader::options() const noexcept {
    return impl_->options;
}

void Downloader::cancel() noexcept {
    impl_->cancelled.store(true);
    curl_multi_wakeup(impl_->multi);
}

std::vector<FileOutcome> Downloader::download(std::span<const FileRequest> requests,
                                              TransferObserver* observer) {
    std::vector<Job> jobs(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        jobs[i].id = i;
        jobs[i].file = &requests[i];
        jobs[i].url = requests[i].url;
        jobs[i].shown_url = redact_url(requests[i].url);
    }
    impl_->run(jobs, observer);
    std::vector<FileOutcome> outcomes;
    outcomes.reserve(jobs.size());
    for (auto& job : jobs) {
        if (job.file_result) {
            outcomes.emplace_back(std::move(*job.file_result));
        } else {
            outcomes.emplace_back(util::Unexpected(take_error(job)));
        }
    }
    return outcomes;
}

FileOutcome Downloader::download(const FileRequest& request, TransferObserver* observer) {
    return std::move(download(std::span<const FileRequest>(&request, 1), observer).front());
}

std::vector<FetchOutcome> Downloader::fetch(std::span<const FetchRequest> requests,
                                            TransferObserver* observer) {
    std::vector<Job> jobs(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        jobs[i].id = i;
        jobs[i].fetch = &requests[i];
        jobs[i].url = requests[i].url;
        jobs[i].shown_url = redact_url(requests[i].url);
    }
    impl_->run(jobs, observer);
    std::vector<FetchOutcome> outcomes;
    outcomes.reserve(jobs.size());
    for (auto& job : jobs) {
        if (job.fetch_result) {
            outcomes.emplace_back(std::move(*job.fetch_result));
        } else {
            outcomes.emplace_back(util::Unexpected(take_error(job)));
        }
    }
    return outcomes;
}

FetchOutcome Downloader::fetch(const FetchRequest& request, TransferObserver* observer) {
    return std::move(fetch(std::span<const FetchRequest>(&request, 1), observer).front());
}

}  // namespace aitk::net
