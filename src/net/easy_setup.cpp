#include "easy_setup.hpp"

#include "aitk/net/redact.hpp"
#include "aitk/util/strings.hpp"
#include "utf8_path.hpp"

namespace aitk::net::detail {
namespace {

bool has_header(const Headers& headers, std::string_view name) {
    return find_header(headers, name).has_value();
}

curl_slist* append(curl_slist* list, const std::string& line, bool& ok) {
    curl_slist* grown = curl_slist_append(list, line.c_str());
    if (grown == nullptr) {
        ok = false;
        return list;
    }
    return grown;
}

}  // namespace

std::optional<std::string> make_easy(Job& job, const EasyConfig& config) {
    const auto& options = *config.options;
    job.easy = curl_easy_init();
    if (job.easy == nullptr) return std::string("libcurl could not create a transfer");
    CURL* easy = job.easy;
    job.error_buffer[0] = '\0';

    bool ok = true;
    auto set = [&](CURLoption option, auto value) {
        if (curl_easy_setopt(easy, option, value) != CURLE_OK) ok = false;
    };
    // For what only makes transfers faster: a libcurl built without it (no HTTP/2 in the
    // Windows build, say) transfers just as correctly.
    auto prefer = [&](CURLoption option, auto value) { curl_easy_setopt(easy, option, value); };
    set(CURLOPT_URL, job.url.c_str());
    set(CURLOPT_PRIVATE, static_cast<void*>(&job));
    set(CURLOPT_ERRORBUFFER, job.error_buffer.data());
    set(CURLOPT_NOSIGNAL, 1L);
    set(CURLOPT_HEADERFUNCTION, &on_header);
    set(CURLOPT_HEADERDATA, static_cast<void*>(&job));
    set(CURLOPT_WRITEFUNCTION, &on_body);
    set(CURLOPT_WRITEDATA, static_cast<void*>(&job));
    set(CURLOPT_FOLLOWLOCATION, 1L);
    set(CURLOPT_MAXREDIRS, 10L);
    set(CURLOPT_PROTOCOLS_STR, "http,https,file");
    set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    set(CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(options.low_speed_limit));
    set(CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.low_speed_time.count()));
    // Never configurable: a wrong certificate is an error, not a warning.
    set(CURLOPT_SSL_VERIFYPEER, 1L);
    set(CURLOPT_SSL_VERIFYHOST, 2L);
    if (config.ca_bundle) {
        // libcurl copies string options. Without a file, a folder alone: libcurl's compiled-in
        // file would be read too, and fail where this system keeps none there.
        const auto file = path_to_utf8(config.ca_bundle->path);
        set(CURLOPT_CAINFO, file.empty() ? static_cast<const char*>(nullptr) : file.c_str());
        if (!config.ca_bundle->folder.empty()) {
            const auto folder = path_to_utf8(config.ca_bundle->folder);
            set(CURLOPT_CAPATH, folder.c_str());
        }
    } else if (config.native_ca) {
        // OpenSSL on Windows has no CA file of its own: the system's certificate store is the
        // trust anchor there, as it is for every other Windows program.
        set(CURLOPT_SSL_OPTIONS, static_cast<long>(CURLSSLOPT_NATIVE_CA));
    }
    // CURLOPT_PROXY stays unset so that libcurl applies http_proxy / https_proxy / all_proxy /
    // no_proxy from the environment.
    set(CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    if (config.netrc_file) set(CURLOPT_NETRC_FILE, config.netrc_file->c_str());
    set(CURLOPT_USERAGENT, config.user_agent.c_str());
    prefer(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    // Over TLS, wait for ALPN to say whether the first connection multiplexes (HTTP/2) rather
    // than opening one connection per transfer. Never for plain http://, where libcurl would
    // queue transfers behind one busy HTTP/1.1 connection instead of opening more.
    if (util::istarts_with(job.url, "https:")) prefer(CURLOPT_PIPEWAIT, 1L);
    prefer(CURLOPT_TCP_KEEPALIVE, 1L);
    set(CURLOPT_BUFFERSIZE, static_cast<long>(options.receive_buffer_bytes));
    if (job.fresh_connection) {
        set(CURLOPT_FRESH_CONNECT, 1L);
        set(CURLOPT_FORBID_REUSE, 1L);
        job.fresh_connection = false;
    }
    if (config.share != nullptr) set(CURLOPT_SHARE, config.share);

    const Headers& extra = job.is_file() ? job.file->headers : job.fetch->headers;
    curl_slist* list = nullptr;
    for (const auto& [name, value] : extra)
        list = append(list, name + ": " + value, ok);
    if (job.is_file()) {
        job.sent_range = job.offset > 0;
        if (job.sent_range) {
            const auto range = std::to_string(job.offset) + "-";
            set(CURLOPT_RANGE, range.c_str());
            // The rest of the body only if it is still the same file; otherwise a full 200.
            if (job.validator) list = append(list, "If-Range: " + *job.validator, ok);
        }
    } else {
        if (!has_header(extra, "range")) set(CURLOPT_ACCEPT_ENCODING, "");
        if (job.fetch->if_none_match) {
            list = append(list, "If-None-Match: " + *job.fetch->if_none_match, ok);
        }
        if (job.fetch->if_modified_since) {
            list = append(list, "If-Modified-Since: " + *job.fetch->if_modified_since, ok);
        }
    }
    job.header_list = list;
    if (list != nullptr) set(CURLOPT_HTTPHEADER, list);
    if (!ok) return "libcurl refused a transfer option for " + redact_url(job.url);
    return std::nullopt;
}

void release_easy(Job& job) noexcept {
    if (job.easy != nullptr) curl_easy_cleanup(job.easy);
    job.easy = nullptr;
    if (job.header_list != nullptr) curl_slist_free_all(job.header_list);
    job.header_list = nullptr;
}

}  // namespace aitk::net::detail
