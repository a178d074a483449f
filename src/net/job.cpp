#include "job.hpp"

#include <algorithm>

#include "aitk/net/content_range.hpp"
#include "aitk/net/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::net::detail {
namespace {

constexpr std::size_t error_page_limit = 2048;

bool is_success(const Job& job) noexcept {
    // file: URLs have no status; libcurl reports 0 for them.
    return job.status == 0 || (job.status >= 200 && job.status < 300);
}

void stop(Job& job, Abort reason, std::string detail) {
    job.abort = reason;
    job.abort_detail = std::move(detail);
}

void check_file_response(Job& job) {
    const auto content_range = find_header(job.response_headers, "content-range");
    if (job.sent_range && job.status == 206) {
        const auto range = content_range ? parse_content_range(*content_range) : std::nullopt;
        if (!range || !range->first || *range->first != job.offset) {
            stop(job, Abort::range_mismatch,
                 "the server answered the request for bytes " + std::to_string(job.offset) +
                     "- with Content-Range '" + std::string(content_range.value_or("")) + "'");
            return;
        }
        job.resumed = true;
        if (!job.total && range->complete_length) job.total = range->complete_length;
    } else if (job.status == 206) {
        stop(job, Abort::range_mismatch, "the server sent a partial body that was not asked for");
        return;
    } else {
        // A full body: either the first attempt or a server that ignored Range / If-Range
        // (the file changed); either way the body starts over.
        if (job.offset > 0) job.reset_body();
        if (job.abort != Abort::none) return;
        if (auto etag = find_header(job.response_headers, "etag"); etag && is_strong_etag(*etag)) {
            job.validator = std::string(*etag);
        } else if (auto modified = find_header(job.response_headers, "last-modified")) {
            job.validator = std::string(*modified);
        } else {
            job.validator.reset();
        }
        if (!job.total) {
            curl_off_t length = -1;
            curl_easy_getinfo(job.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            if (length >= 0) job.total = static_cast<std::uint64_t>(length);
        }
    }
}

bool is_http_or_https(std::string_view scheme) {
    return util::iequals(scheme, "http") || util::iequals(scheme, "https");
}

// The scheme of a Location value ("" for a relative reference).
std::string_view location_scheme(std::string_view location) {
    const auto colon = location.find(':');
    if (colon == std::string_view::npos || colon == 0) return {};
    for (std::size_t i = 0; i < colon; ++i) {
        const char c = location[i];
        const bool ok = util::is_ascii_alpha(c) ||
                        (i > 0 && (util::is_ascii_digit(c) || c == '+' || c == '-' || c == '.'));
        if (!ok) return {};
    }
    return location.substr(0, colon);
}

// Why a redirect to `location` is not followed; nothing when it may be. libcurl refuses other
// schemes too, but says only that the protocol is disabled, after the fact.
std::optional<std::string> redirect_refusal(std::string_view location) {
    const auto scheme = location_scheme(location);
    if (!scheme.empty() && !is_http_or_https(scheme)) {
        return std::string("only http and https redirects are followed");
    }
    // "//user:pass@host/x" keeps the scheme of the request.
    const std::string absolute = scheme.empty() && location.starts_with("//")
                                     ? "http:" + std::string(location)
                                     : std::string(location);
    if (!scheme.empty() || location.starts_with("//")) {
        if (util::has_credentials(absolute)) {
            return std::string("a redirect that carries credentials is not followed");
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> Job::settle() {
    if (!stream) return std::nullopt;
    return stream->drain();
}

void Job::reset_body() {
    if (auto problem = settle()) {
        stop(*this, Abort::local_io, *problem);
        return;
    }
    offset = 0;
    resumed = false;
    hash = fs::Sha256{};
    if (auto problem = part.open_fresh(part_path)) stop(*this, Abort::local_io, *problem);
}

void check_response(Job& job) {
    job.body_checked = true;
    curl_easy_getinfo(job.easy, CURLINFO_RESPONSE_CODE, &job.status);
    job.body_to_sink = is_success(job);
    if (!job.body_to_sink) return;
    if (job.is_file()) {
        check_file_response(job);
    } else {
        job.body.clear();
    }
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto& job = *static_cast<Job*>(user);
    const std::size_t bytes = size * count;
    try {
        const std::string_view line(data, bytes);
        keep_header(job, line);
        if (job.header_status >= 300 && job.header_status < 400 &&
            util::istarts_with(line, "location:") && !job.response_headers.empty()) {
            const auto& location = job.response_headers.back().second;
            if (auto why = redirect_refusal(location)) {
                stop(job, Abort::redirect_refused,
                     "redirect to " + util::redact_url(location) + " refused: " + *why);
                return 0;
            }
        }
        if (job.reachability != nullptr && util::istarts_with(line, "HTTP/")) {
            // A status line: the server this attempt talks to (after any redirect) is there.
            char* current = nullptr;
            curl_easy_getinfo(job.easy, CURLINFO_EFFECTIVE_URL, &current);
            if (current != nullptr) job.reachability->answered(current);
        }
    } catch (const std::exception& error) {
        stop(job, Abort::local_io, error.what());
        return 0;
    }
    return bytes;
}

void keep_header(Job& job, std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    if (util::istarts_with(line, "HTTP/")) {
        // A new response (after a redirect, a 100 Continue or a proxy's CONNECT): only the
        // final one's headers count.
        job.response_headers.clear();
        job.header_status = 0;
        const auto space = line.find(' ');
        if (space != std::string_view::npos && line.size() >= space + 4) {
            long code = 0;
            for (char c : line.substr(space + 1, 3))
                code = util::is_ascii_digit(c) ? code * 10 + (c - '0') : -1000;
            job.header_status = code > 0 ? code : 0;
        }
    } else if (const auto colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
        job.response_headers.emplace_back(util::to_lower(util::trim(line.substr(0, colon))),
                                          std::string(util::trim(line.substr(colon + 1))));
    }
}

namespace {

std::size_t take_body(Job& job, char* data, std::size_t bytes) {
    if (job.cancelled->load(std::memory_order_relaxed)) {
        stop(job, Abort::cancelled, "cancelled");
        return 0;
    }
    if (!job.body_checked) check_response(job);
    if (job.abort != Abort::none) return 0;
    if (!job.body_to_sink) {
        const auto room = error_page_limit - std::min(error_page_limit, job.error_page.size());
        job.error_page.append(data, std::min(room, bytes));
        return bytes;
    }
    if (!job.is_file()) {
        if (job.body.size() + bytes > job.options->max_memory_body) {
            stop(job, Abort::too_large,
                 "the response is larger than the " + std::to_string(job.options->max_memory_body) +
                     "-byte limit");
            return 0;
        }
        job.body.append(data, bytes);
        return bytes;
    }
    if (job.file->expected_size && job.offset + bytes > *job.file->expected_size) {
        stop(job, Abort::oversize,
             "the server sent more than the expected " + std::to_string(*job.file->expected_size) +
                 " bytes");
        return 0;
    }
    if (job.stream) {
        if (job.stream->failed()) {
            stop(job, Abort::local_io, job.stream->error());
            return 0;
        }
        job.stream->append(data, bytes);
    } else {
        if (auto problem = job.part.write(data, bytes)) {
            stop(job, Abort::local_io, *problem);
            return 0;
        }
        job.hash.update(data, bytes);
    }
    job.offset += bytes;
    job.attempt_bytes += bytes;
    return bytes;
}

}  // namespace

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    // No exception may cross libcurl's C frames.
    try {
        return take_body(*static_cast<Job*>(user), data, size * count);
    } catch (const std::exception& error) {
        stop(*static_cast<Job*>(user), Abort::local_io, error.what());
        return 0;
    }
}
}  // namespace aitk::net::detail
