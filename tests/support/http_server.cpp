#include "http_server.hpp"

#include <httplib.h>  // first: on Windows it brings winsock2.h before windows.h
#ifndef _WIN32
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "aitk/fs/hash.hpp"
#include "aitk/util/utf8.hpp"
#include "growing_thread_pool.hpp"

namespace aitk::test {
namespace {

constexpr std::size_t chunk_bytes = 64 * 1024;
constexpr std::string_view json_v1 = "application/vnd.pypi.simple.v1+json";
constexpr std::string_view html_v1 = "application/vnd.pypi.simple.v1+html";

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

std::string content_type_for(std::string_view path) {
    const auto dot = path.rfind('.');
    const std::string ext = dot == std::string_view::npos ? "" : lower(path.substr(dot));
    if (ext == ".html" || ext == ".htm") return "text/html; charset=utf-8";
    if (ext == ".json") return "application/json";
    if (ext == ".txt") return "text/plain; charset=utf-8";
    if (ext == ".gz" || ext == ".tgz") return "application/gzip";
    if (ext == ".zip" || ext == ".whl") return "application/zip";
    if (ext == ".zst") return "application/zstd";
    if (ext == ".tar") return "application/x-tar";
    return "application/octet-stream";
}

// RFC 9110 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), in std::chrono so that it needs no
// gmtime_r / timegm / strptime (Windows has none of them).
constexpr const char* month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr const char* day_names[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

std::string format_http_date(std::int64_t epoch) {
    using namespace std::chrono;
    const sys_seconds t{seconds{epoch}};
    const auto day = floor<days>(t);
    const year_month_day date{day};
    const hh_mm_ss time{t - day};
    const weekday wd{day};
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%s, %02u %s %04d %02d:%02d:%02d GMT",
                  day_names[wd.c_encoding()], static_cast<unsigned>(date.day()),
                  month_names[static_cast<unsigned>(date.month()) - 1],
                  static_cast<int>(date.year()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return buffer;
}

std::optional<std::int64_t> parse_http_date(const std::string& text) {
    using namespace std::chrono;
    char day_name[4] = {}, month_name[4] = {};
    int day_number = 0, year_number = 0, hour = 0, minute = 0, second = 0;
    if (std::sscanf(text.c_str(), "%3s, %2d %3s %4d %2d:%2d:%2d GMT", day_name, &day_number,
                    month_name, &year_number, &hour, &minute, &second) != 7) {
        return std::nullopt;
    }
    unsigned month_number = 0;
    for (unsigned i = 0; i < 12; ++i) {
        if (std::string_view(month_name) == month_names[i]) month_number = i + 1;
    }
    const year_month_day date{year{year_number}, month{month_number},
                              day{static_cast<unsigned>(day_number)}};
    if (month_number == 0 || !date.ok() || hour > 23 || minute > 59 || second > 60) {
        return std::nullopt;
    }
    const auto t = sys_days{date} + hours{hour} + minutes{minute} + seconds{second};
    return static_cast<std::int64_t>(t.time_since_epoch().count());
}

std::string base64(std::string_view data) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < data.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(data[i]) << 16) |
                           (static_cast<unsigned char>(data[i + 1]) << 8) |
                           static_cast<unsigned char>(data[i + 2]);
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += alphabet[(v >> 6) & 63];
        out += alphabet[v & 63];
    }
    if (i + 1 == data.size()) {
        const unsigned v = static_cast<unsigned char>(data[i]) << 16;
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == data.size()) {
        const unsigned v = (static_cast<unsigned char>(data[i]) << 16) |
                           (static_cast<unsigned char>(data[i + 1]) << 8);
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += alphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

std::string unbase64(std::string_view text) {
    std::string out;
    unsigned value = 0;
    int bits = 0;
    for (char c : text) {
        int digit = -1;
        if (c >= 'A' && c <= 'Z') digit = c - 'A';
        if (c >= 'a' && c <= 'z') digit = c - 'a' + 26;
        if (c >= '0' && c <= '9') digit = c - '0' + 52;
        if (c == '+') digit = 62;
        if (c == '/') digit = 63;
        if (digit < 0) break;
        value = (value << 6) | static_cast<unsigned>(digit);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((value >> bits) & 0xFF);
        }
    }
    return out;
}

// The q-value the Accept header gives `type` (exact match, else type/*, else */*); 0 if none.
double accept_quality(std::string_view accept, std::string_view type) {
    double exact = -1, family = -1, any = -1;
    const auto slash = type.find('/');
    const std::string family_pattern = std::string(type.substr(0, slash)) + "/*";
    std::size_t start = 0;
    while (start <= accept.size()) {
        auto end = accept.find(',', start);
        if (end == std::string_view::npos) end = accept.size();
        const auto item = trim(accept.substr(start, end - start));
        start = end + 1;
        const auto semi = item.find(';');
        const std::string media = lower(trim(item.substr(0, semi)));
        double q = 1.0;
        if (semi != std::string_view::npos) {
            const auto params = item.substr(semi + 1);
            if (const auto qpos = params.find("q="); qpos != std::string_view::npos) {
                q = std::atof(std::string(params.substr(qpos + 2)).c_str());
            }
        }
        if (media == type) exact = std::max(exact, q);
        if (media == family_pattern) family = std::max(family, q);
        if (media == "*/*") any = std::max(any, q);
    }
    if (exact >= 0) return exact;
    if (family >= 0) return family;
    return std::max(any, 0.0);
}

double explicit_quality(std::string_view accept, std::string_view type) {
    return lower(accept).find(type) == std::string::npos ? 0.0 : accept_quality(accept, type);
}

bool etag_matches(std::string_view header, std::string_view etag) {
    auto strip = [](std::string_view tag) {
        tag = trim(tag);
        if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);
        return tag;
    };
    std::size_t start = 0;
    while (start <= header.size()) {
        auto end = header.find(',', start);
        if (end == std::string_view::npos) end = header.size();
        const auto tag = trim(header.substr(start, end - start));
        if (tag == "*" || strip(tag) == strip(etag)) return true;
        start = end + 1;
    }
    return false;
}

struct ByteRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
};
enum class RangeResult { none, ok, unsatisfiable };

// One `bytes=` range; several ranges or a malformed header are ignored (a full 200 is allowed).
RangeResult parse_range(std::string_view header, std::uint64_t size, ByteRange& out) {
    header = trim(header);
    if (header.substr(0, 6) != "bytes=") return RangeResult::none;
    const auto spec = trim(header.substr(6));
    if (spec.find(',') != std::string_view::npos) return RangeResult::none;
    const auto dash = spec.find('-');
    if (dash == std::string_view::npos) return RangeResult::none;
    auto number = [](std::string_view digits) -> std::optional<std::uint64_t> {
        if (digits.empty() || digits.size() > 18) return std::nullopt;
        std::uint64_t v = 0;
        for (char c : digits) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        return v;
    };
    const auto first = spec.substr(0, dash);
    const auto last = spec.substr(dash + 1);
    if (first.empty()) {  // suffix: the last N bytes
        const auto n = number(last);
        if (!n) return RangeResult::none;
        if (*n == 0 || size == 0) return RangeResult::unsatisfiable;
        out.first = size - std::min(*n, size);
        out.last = size - 1;
        return RangeResult::ok;
    }
    const auto a = number(first);
    if (!a) return RangeResult::none;
    std::optional<std::uint64_t> b;
    if (!last.empty()) {
        b = number(last);
        if (!b || *b < *a) return RangeResult::none;
    }
    if (*a >= size) return RangeResult::unsatisfiable;
    out.first = *a;
    out.last = b ? std::min(*b, size - 1) : size - 1;
    return RangeResult::ok;
}

bool is_safe_path(std::string_view path) {
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        if (path.substr(start, end - start) == "..") return false;
        start = end + 1;
    }
    return path.find('\\') == std::string_view::npos && path.find('\0') == std::string_view::npos;
}

#ifndef _WIN32
// The server-side socket of the connection from `remote_port`: tests run client and server in
// one process, so the two ends are told apart by which side holds the server's port.
int find_connection_socket(std::uint16_t server_port, int remote_port) {
    for (int fd = 3; fd < 4096; ++fd) {
        sockaddr_in local{};
        socklen_t length = sizeof local;
        if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) continue;
        if (local.sin_family != AF_INET || ntohs(local.sin_port) != server_port) continue;
        sockaddr_in peer{};
        length = sizeof peer;
        if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) continue;
        if (ntohs(peer.sin_port) == remote_port) return fd;
    }
    return -1;
}

// Lets the client receive what was already sent, then aborts the connection with an RST
// (connect(AF_UNSPEC) disconnects a TCP socket abortively without closing the descriptor,
// which stays httplib's to close).
void reset_connection(std::uint16_t server_port, int remote_port) {
    const int fd = find_connection_socket(server_port, remote_port);
    if (fd < 0) return;
    for (int i = 0; i < 200; ++i) {
        int unsent = 0;
        if (ioctl(fd, SIOCOUTQ, &unsent) != 0 || unsent == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    sockaddr disconnect{};
    disconnect.sa_family = AF_UNSPEC;
    ::connect(fd, &disconnect, sizeof disconnect);
}

// Ends every connection accepted on `server_port` (both directions), without closing the
// descriptors, which stay httplib's.
void shutdown_connections(std::uint16_t server_port) {
    for (int fd = 3; fd < 4096; ++fd) {
        sockaddr_in local{};
        socklen_t length = sizeof local;
        if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) continue;
        if (local.sin_family != AF_INET || ntohs(local.sin_port) != server_port) continue;
        sockaddr_in peer{};
        length = sizeof peer;
        if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) continue;
        ::shutdown(fd, SHUT_RDWR);
    }
}
#else
// Winsock handles are not small numbers to walk through, so the abortive faults are POSIX only
// (tests/windows-excluded.txt lists the tests that need them); a truncation still works.
void reset_connection(std::uint16_t, int) {}
void shutdown_connections(std::uint16_t) {}
#endif

}  // namespace

// ---- Fault --------------------------------------------------------------------------------

Fault Fault::reset_at(std::uint64_t offset, int times) {
    Fault f;
    f.kind = Kind::reset;
    f.offset = offset;
    f.times = times;
    return f;
}

Fault Fault::truncate_at(std::uint64_t offset, int times) {
    Fault f;
    f.kind = Kind::truncate;
    f.offset = offset;
    f.times = times;
    return f;
}

Fault Fault::http_status(int status, int times, std::string retry_after) {
    Fault f;
    f.kind = Kind::status;
    f.status = status;
    f.times = times;
    f.retry_after = std::move(retry_after);
    return f;
}

Fault Fault::wrong_bytes(int times, std::uint64_t position) {
    Fault f;
    f.kind = Kind::wrong_bytes;
    f.offset = position;
    f.times = times;
    return f;
}

Fault Fault::trickle(int times, std::uint64_t after, std::size_t chunk,
                     std::chrono::milliseconds interval) {
    Fault f;
    f.kind = Kind::trickle;
    f.offset = after;
    f.chunk = std::max<std::size_t>(1, chunk);
    f.interval = interval;
    f.times = times;
    return f;
}

Fault Fault::hold_until(std::string until_path, int times) {
    Fault f;
    f.kind = Kind::hold;
    f.until_path = std::move(until_path);
    f.times = times;
    return f;
}

Fault Fault::short_length(std::uint64_t announced, int times) {
    Fault f;
    f.kind = Kind::understated;
    f.offset = announced;
    f.times = times;
    return f;
}

Fault Fault::redirect_to(std::string location, int times) {
    Fault f;
    f.kind = Kind::redirect;
    f.location = std::move(location);
    f.times = times;
    return f;
}

Fault Fault::stall_after(std::uint64_t offset, int times, std::chrono::milliseconds hold) {
    return trickle(times, offset, 1, hold);
}

std::string_view to_string(Fault::Kind kind) {
    switch (kind) {
        case Fault::Kind::reset:
            return "reset";
        case Fault::Kind::truncate:
            return "truncate";
        case Fault::Kind::status:
            return "status";
        case Fault::Kind::wrong_bytes:
            return "wrong_bytes";
        case Fault::Kind::trickle:
            return "trickle";
        case Fault::Kind::hold:
            return "hold";
        case Fault::Kind::understated:
            return "understated";
        case Fault::Kind::redirect:
            return "redirect";
    }
    return "unknown";
}

std::string RequestRecord::header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
        if (key == name) return value;
    }
    return {};
}

// ---- HttpServer ---------------------------------------------------------------------------

struct HttpServer::Resource {
    enum class Kind { file, redirect, not_acceptable } kind = Kind::file;
    std::shared_ptr<const std::string> memory;  // set for in-memory files
    std::filesystem::path file;                 // set for files on disk
    std::uint64_t size = 0;
    std::string content_type;
    std::string etag;
    std::int64_t modified = 0;
    std::string location;
    bool negotiated = false;
};

// Counts a request as in flight until release(): just before its last body byte goes out (so
// a client never sees the next transfer start while this one is still counted) or when the
// response is dropped.
struct HttpServer::InFlight {
    HttpServer* server;
    std::atomic<bool> released{false};
    explicit InFlight(HttpServer* s) : server(s) {}
    ~InFlight() { release(); }
    void release() {
        if (released.exchange(true)) return;
        std::lock_guard lock(server->mutex_);
        --server->in_flight_;
        server->changed_.notify_all();
    }
};

HttpServer::HttpServer(ServerOptions options) : options_(std::move(options)) {
    start();
}

HttpServer::~HttpServer() {
    stop();
}

void HttpServer::start() {
    if (server_) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = false;
    }
    std::unique_ptr<httplib::Server> server;
    if (options_.https) {
        // httplib takes char paths and hands them to OpenSSL, which reads them as UTF-8.
        const auto cert = util::utf8_of(options_.cert_file);
        const auto key = util::utf8_of(options_.key_file);
        server = std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str());
    } else {
        server = std::make_unique<httplib::Server>();
    }
    if (!server->is_valid()) throw std::runtime_error("test HTTP server: invalid configuration");
    const auto threads = static_cast<std::size_t>(std::max(1, options_.threads));
    server->new_task_queue = [threads] { return new GrowingThreadPool(threads); };
    server->set_keep_alive_max_count(100000);
    server->set_keep_alive_timeout(5);
    server->set_tcp_nodelay(true);
    // httplib listens with a backlog of 5: eight clients connecting at once overflow it and
    // each dropped SYN costs the client a second. Remember the socket to listen again wider.
    auto listen_fd = std::make_shared<socket_t>(INVALID_SOCKET);
    server->set_socket_options([listen_fd](socket_t fd) {
        int yes = 1;
#ifdef _WIN32
        // On Windows SO_REUSEADDR lets a second socket bind a port in use and take connections
        // from it, so two test processes could share one; exclusive use is httplib's own default
        // there and the Windows way for a server.
        ::setsockopt(fd, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char*>(&yes),
                     sizeof yes);
#else
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&yes), sizeof yes);
#endif
        *listen_fd = fd;
    });
    server->Get(".*", [this](const httplib::Request& request, httplib::Response& response) {
        handle(request, response);
    });
    if (port_ == 0) {
        const int port = server->bind_to_any_port("127.0.0.1");
        if (port <= 0) throw std::runtime_error("test HTTP server: cannot bind 127.0.0.1");
        port_ = static_cast<std::uint16_t>(port);
    } else if (!server->bind_to_port("127.0.0.1", port_)) {
        throw std::runtime_error("test HTTP server: cannot bind port " + std::to_string(port_));
    }
    if (*listen_fd != INVALID_SOCKET) ::listen(*listen_fd, SOMAXCONN);
    // The socket is bound and listening already, so clients can connect before accept() runs.
    httplib::Server* raw = server.get();
    listener_finished_ = std::make_shared<std::atomic<bool>>(false);
    thread_ = std::thread([raw, finished = listener_finished_] {
        raw->listen_after_bind();
        finished->store(true);
    });
    server_ = std::move(server);
}

void HttpServer::stop() {
    if (!server_) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        changed_.notify_all();
    }
    // httplib's stop() does nothing before its accept loop has started.
    for (int i = 0; i < 5000 && !server_->is_running() && !listener_finished_->load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server_->stop();
    // Idle keep-alive connections would hold their worker threads (and this join) for the
    // keep-alive timeout; ending them makes stop() prompt.
    shutdown_connections(port_);
    if (thread_.joinable()) thread_.join();
    server_.reset();
}

std::string HttpServer::base_url() const {
    return std::string(options_.https ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

std::string HttpServer::url(std::string_view path) const {
    return base_url() + std::string(path);
}

std::string HttpServer::url_with_credentials(std::string_view user, std::string_view password,
                                             std::string_view path) const {
    return std::string(options_.https ? "https" : "http") + "://" + std::string(user) + ":" +
           std::string(password) + "@127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void HttpServer::serve_directory(const std::filesystem::path& root, std::string mount) {
    if (mount.empty() || mount.front() != '/') mount.insert(mount.begin(), '/');
    if (mount.back() != '/') mount += '/';
    std::lock_guard lock(mutex_);
    mounts_.push_back(Mount{root, std::move(mount)});
}

void HttpServer::add_file(const std::string& path, std::string content, std::string content_type) {
    MemoryFile file;
    file.etag = "\"" + fs::sha256_hex(content).substr(0, 24) + "\"";
    file.content_type = content_type.empty() ? content_type_for(path) : std::move(content_type);
    file.content = std::make_shared<const std::string>(std::move(content));
    file.modified = static_cast<std::int64_t>(std::time(nullptr));
    std::lock_guard lock(mutex_);
    memory_[path] = std::move(file);
}

void HttpServer::set_fault(const std::string& path, Fault fault) {
    std::lock_guard lock(mutex_);
    const int times = fault.times;
    faults_[path] = PathFaults{std::move(fault), times};
}

void HttpServer::clear_faults() {
    std::lock_guard lock(mutex_);
    faults_.clear();
}

void HttpServer::set_in_flight_gate(std::size_t count, std::chrono::milliseconds timeout) {
    std::lock_guard lock(mutex_);
    gate_count_ = count;
    gate_timeout_ = timeout;
    gate_open_ = count <= 1;
}

std::vector<RequestRecord> HttpServer::requests() const {
    std::lock_guard lock(mutex_);
    return log_;
}

std::vector<RequestRecord> HttpServer::requests_for(std::string_view path) const {
    std::lock_guard lock(mutex_);
    std::vector<RequestRecord> out;
    for (const auto& record : log_) {
        if (record.path == path) out.push_back(record);
    }
    return out;
}

std::uint64_t HttpServer::bytes_served(std::string_view path) const {
    std::lock_guard lock(mutex_);
    std::uint64_t total = 0;
    for (const auto& record : log_) {
        if (record.path == path) total += record.bytes_sent;
    }
    return total;
}

std::size_t HttpServer::max_in_flight() const {
    std::lock_guard lock(mutex_);
    return max_in_flight_;
}

void HttpServer::clear_log() {
    std::lock_guard lock(mutex_);
    log_.clear();
    seen_paths_.clear();
    max_in_flight_ = in_flight_;
}

std::optional<Fault> HttpServer::take_fault(const std::string& path) {
    std::lock_guard lock(mutex_);
    const auto it = faults_.find(path);
    if (it == faults_.end() || it->second.remaining <= 0) return std::nullopt;
    --it->second.remaining;
    return it->second.fault;
}

void HttpServer::finish_record(std::size_t index, int status, std::string_view fault) {
    std::lock_guard lock(mutex_);
    log_[index].status = status;
    log_[index].fault = std::string(fault);
}

void HttpServer::add_sent(std::size_t index, std::uint64_t bytes) {
    std::lock_guard lock(mutex_);
    log_[index].bytes_sent += bytes;
}

bool HttpServer::wait_for_path(const std::string& path, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return stopping_ || seen_paths_.count(path); }) &&
           !stopping_;
}

void HttpServer::wait_for_gate() {
    std::unique_lock lock(mutex_);
    if (gate_count_ == 0) return;
    changed_.wait_for(lock, gate_timeout_, [&] { return stopping_ || gate_open_; });
}

std::optional<HttpServer::Resource> HttpServer::find(const std::string& path) const {
    // In-memory files first, then the mounted directories in the order they were added.
    std::lock_guard lock(mutex_);
    if (const auto it = memory_.find(path); it != memory_.end()) {
        Resource r;
        r.memory = it->second.content;
        r.size = r.memory->size();
        r.content_type = it->second.content_type;
        r.etag = it->second.etag;
        r.modified = it->second.modified;
        return r;
    }
    for (const auto& mount : mounts_) {
        if (path.compare(0, mount.prefix.size(), mount.prefix) != 0) continue;
        const auto relative = path.substr(mount.prefix.size());
        if (!is_safe_path(relative)) continue;
        const auto file = mount.root / relative;
        std::error_code ec;
        const auto status = std::filesystem::status(file, ec);
        if (ec) continue;
        if (std::filesystem::is_directory(status) && !relative.empty() && path.back() != '/') {
            Resource r;
            r.kind = Resource::Kind::redirect;
            r.location = path + "/";
            return r;
        }
        if (!std::filesystem::is_regular_file(status)) continue;
        const auto size = std::filesystem::file_size(file, ec);
        const auto written = std::filesystem::last_write_time(file, ec);
        if (ec) continue;
        Resource r;
        r.file = file;
        r.size = static_cast<std::uint64_t>(size);
        r.content_type = content_type_for(path);
        const auto since_epoch = std::chrono::file_clock::to_sys(written).time_since_epoch();
        const auto nanos = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
        char etag[64];
        std::snprintf(etag, sizeof etag, "\"%llx-%llx\"", static_cast<unsigned long long>(r.size),
                      static_cast<unsigned long long>(nanos));
        r.etag = etag;
        r.modified = static_cast<std::int64_t>(
            std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count());
        return r;
    }
    return std::nullopt;
}

void HttpServer::handle(const httplib::Request& request, httplib::Response& response) {
    // Ranges are answered here, byte-exact and logged; httplib must not slice bodies again.
    // (The Request is a mutable object inside httplib; only the handler signature is const.)
    const_cast<httplib::Request&>(request).ranges.clear();

    auto in_flight = std::make_shared<InFlight>(this);
    std::size_t index = 0;
    {
        RequestRecord record;
        record.method = request.method;
        record.path = request.path;
        record.remote_port = request.remote_port;
        for (const auto& [name, value] : request.headers) {
            const auto key = lower(name);
            if (key == "authorization") {
                if (lower(value.substr(0, 6)) == "basic ") {
                    const auto decoded = unbase64(value.substr(6));
                    record.auth_user = decoded.substr(0, decoded.find(':'));
                }
                continue;
            }
            if (key == "remote_addr" || key == "remote_port") continue;  // added by httplib
            record.headers.emplace_back(key, value);
        }
        std::lock_guard lock(mutex_);
        index = log_.size();
        log_.push_back(std::move(record));
        ++seen_paths_[request.path];
        ++in_flight_;
        max_in_flight_ = std::max(max_in_flight_, in_flight_);
        if (gate_count_ > 0 && in_flight_ >= gate_count_) gate_open_ = true;
        changed_.notify_all();
    }
    wait_for_gate();

    auto answer = [&](int status, std::string body, std::string_view fault = {}) {
        response.status = status;
        response.set_content(std::move(body), "text/plain; charset=utf-8");
        finish_record(index, status, fault);
        in_flight->release();
    };

    if (options_.basic_auth) {
        const auto expected =
            "Basic " + base64(options_.basic_auth->first + ":" + options_.basic_auth->second);
        if (request.get_header_value("Authorization") != expected) {
            response.set_header("WWW-Authenticate", "Basic realm=\"aitk-test\"");
            answer(401, "authentication required\n");
            return;
        }
    }

    const auto fault = take_fault(request.path);
    if (fault && fault->kind == Fault::Kind::hold) {
        const bool released = wait_for_path(fault->until_path, fault->hold_timeout);
        std::lock_guard lock(mutex_);
        log_[index].hold_timed_out = !released;
    }
    if (fault && fault->kind == Fault::Kind::status) {
        if (!fault->retry_after.empty()) response.set_header("Retry-After", fault->retry_after);
        answer(fault->status, "injected HTTP " + std::to_string(fault->status) + "\n", "status");
        return;
    }
    const std::string fault_name = fault ? std::string(to_string(fault->kind)) : std::string();
    if (fault && fault->kind == Fault::Kind::redirect) {
        response.set_header("Location", fault->location);
        answer(302, "moved\n", fault_name);
        return;
    }

    // Resolve the path: a directory's index page, PEP 691 JSON sibling, or the file itself.
    const std::string& path = request.path;
    const std::string page = path.empty() || path.back() == '/' ? path + "index.html" : path;
    auto resource = find(page);
    std::optional<Resource> json;
    constexpr std::string_view html_suffix = ".html";
    if (options_.pep691_negotiation && page.size() > html_suffix.size() &&
        page.compare(page.size() - html_suffix.size(), html_suffix.size(), html_suffix) == 0) {
        json = find(page.substr(0, page.size() - html_suffix.size()) + ".json");
        if (json && json->kind != Resource::Kind::file) json.reset();
    }
    const std::string accept = request.get_header_value("Accept");
    if (json) {
        const double q_json =
            std::max(explicit_quality(accept, json_v1),
                     explicit_quality(accept, "application/vnd.pypi.simple.latest+json"));
        const double q_html =
            std::max({accept_quality(accept, "text/html"), explicit_quality(accept, html_v1),
                      explicit_quality(accept, "application/vnd.pypi.simple.latest+html")});
        if (q_json > 0 && (q_json >= q_html || !resource)) {
            resource = json;
            resource->content_type = std::string(json_v1);
        } else if (!resource) {
            answer(406, "this page is only available as " + std::string(json_v1) + "\n");
            return;
        } else if (explicit_quality(accept, html_v1) > 0 &&
                   explicit_quality(accept, html_v1) >= accept_quality(accept, "text/html")) {
            resource->content_type = std::string(html_v1);
        }
        resource->negotiated = true;
    }
    if (!resource && path != page) resource = find(path);  // a directory without index page
    if (!resource) {
        answer(404, "not found\n", fault_name);
        return;
    }
    if (resource->kind == Resource::Kind::redirect) {
        response.set_redirect(resource->location, 301);
        finish_record(index, 301, fault_name);
        in_flight->release();
        return;
    }
    if (resource->negotiated) response.set_header("Vary", "Accept");
    const std::string last_modified = format_http_date(resource->modified);
    response.set_header("ETag", resource->etag);
    response.set_header("Last-Modified", last_modified);
    response.set_header("Accept-Ranges", "bytes");

    const auto if_none_match = request.get_header_value("If-None-Match");
    const auto if_modified_since = request.get_header_value("If-Modified-Since");
    bool not_modified = false;
    if (!if_none_match.empty()) {
        not_modified = etag_matches(if_none_match, resource->etag);
    } else if (!if_modified_since.empty()) {
        const auto since = parse_http_date(if_modified_since);
        not_modified = since && resource->modified <= *since;
    }
    if (not_modified) {
        response.status = 304;
        finish_record(index, 304, fault_name);
        in_flight->release();
        return;
    }

    std::uint64_t first = 0;
    std::uint64_t length = resource->size;
    int status = 200;
    const auto range_header = request.get_header_value("Range");
    const auto if_range = request.get_header_value("If-Range");
    const bool range_applies =
        !range_header.empty() && !(fault && fault->ignore_range) &&
        (if_range.empty() || if_range == resource->etag || if_range == last_modified);
    if (range_applies) {
        ByteRange range;
        switch (parse_range(range_header, resource->size, range)) {
            case RangeResult::none:
                break;
            case RangeResult::unsatisfiable:
                response.set_header("Content-Range", "bytes */" + std::to_string(resource->size));
                answer(416, "range not satisfiable\n", fault_name);
                return;
            case RangeResult::ok:
                first = range.first;
                length = range.last - range.first + 1;
                status = 206;
                response.set_header("Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                                         std::to_string(range.last) + "/" +
                                                         std::to_string(resource->size));
                break;
        }
    }
    response.status = status;
    finish_record(index, status, fault_name);
    if (length == 0) {
        response.set_content(std::string(), resource->content_type);
        in_flight->release();
        return;
    }

    struct Body {
        Resource resource;
        std::uint64_t first = 0;
        std::uint64_t length = 0;
        std::optional<Fault> fault;
        std::size_t index = 0;
        std::shared_ptr<InFlight> in_flight;
        std::unique_ptr<std::ifstream> file;
        std::string buffer;
    };
    auto body = std::make_shared<Body>();
    body->resource = *resource;
    body->first = first;
    body->length = length;
    body->fault = fault;
    body->index = index;
    body->in_flight = in_flight;
    const int remote_port = request.remote_port;

    // A lying Content-Length: httplib announces `announced` but writes what the provider gives.
    const bool lies = fault && fault->kind == Fault::Kind::understated && fault->offset < length;
    const std::uint64_t announced = lies ? fault->offset : length;
    response.set_content_provider(
        static_cast<std::size_t>(announced), resource->content_type,
        [this, body, remote_port, lies](std::size_t offset, std::size_t left,
                                        httplib::DataSink& sink) {
            std::size_t take = std::min<std::size_t>(chunk_bytes, left);
            if (lies) take = static_cast<std::size_t>(body->length - offset);
            const auto& f = body->fault;
            if (f && (f->kind == Fault::Kind::reset || f->kind == Fault::Kind::truncate)) {
                if (offset >= f->offset) {
                    if (f->kind == Fault::Kind::reset) reset_connection(port_, remote_port);
                    return false;  // httplib closes the connection (FIN after a truncation)
                }
                take = static_cast<std::size_t>(std::min<std::uint64_t>(take, f->offset - offset));
            }
            if (f && f->kind == Fault::Kind::trickle) {
                if (offset >= f->offset) {
                    take = std::min(take, f->chunk);
                    std::unique_lock lock(mutex_);
                    if (changed_.wait_for(lock, f->interval, [&] { return stopping_; }))
                        return false;
                } else {
                    take =
                        static_cast<std::size_t>(std::min<std::uint64_t>(take, f->offset - offset));
                }
            }
            const std::uint64_t position = body->first + offset;
            body->buffer.resize(take);
            if (body->resource.memory) {
                body->resource.memory->copy(body->buffer.data(), take,
                                            static_cast<std::size_t>(position));
            } else {
                if (!body->file) {
                    body->file =
                        std::make_unique<std::ifstream>(body->resource.file, std::ios::binary);
                }
                body->file->seekg(static_cast<std::streamoff>(position));
                body->file->read(body->buffer.data(), static_cast<std::streamsize>(take));
                if (static_cast<std::size_t>(body->file->gcount()) != take) return false;
            }
            if (f && f->kind == Fault::Kind::wrong_bytes) {
                const std::uint64_t target = std::min(f->offset, body->resource.size - 1);
                if (target >= position && target < position + take) {
                    body->buffer[static_cast<std::size_t>(target - position)] ^= 0x5A;
                }
            }
            if (offset + take == body->length) body->in_flight->release();
            add_sent(body->index, take);
            if (lies && take > f->offset) {
                // The announced bytes, then the rest a moment later: the client has taken the
                // connection back for its next request when they arrive.
                const auto announced = static_cast<std::size_t>(f->offset);
                if (!sink.write(body->buffer.data(), announced)) return false;
                std::unique_lock lock(mutex_);
                if (changed_.wait_for(lock, std::chrono::milliseconds(100),
                                      [&] { return stopping_; }))
                    return false;
                lock.unlock();
                return sink.write(body->buffer.data() + announced, take - announced);
            }
            return sink.write(body->buffer.data(), take);
        },
        [body](bool) { body->in_flight->release(); });
}

std::uint16_t unused_port() {
#ifdef _WIN32
    const auto close_socket = [](socket_t socket) { ::closesocket(socket); };
    using length_t = int;
#else
    const auto close_socket = [](socket_t socket) { ::close(socket); };
    using length_t = socklen_t;
#endif
    const socket_t fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd == INVALID_SOCKET) throw std::runtime_error("unused_port: socket() failed");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        close_socket(fd);
        throw std::runtime_error("unused_port: bind() failed");
    }
    close_socket(fd);
    return ntohs(address.sin_port);
}

}  // namespace aitk::test
