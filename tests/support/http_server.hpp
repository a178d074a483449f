#pragma once
// A real HTTP(S) server on 127.0.0.1 (ephemeral port), run inside the test process, that serves
// a directory tree and/or in-memory files the way package indexes and CDNs do: byte ranges,
// ETag / Last-Modified with 304, Content-Type per extension, PEP 691 content negotiation, basic
// auth. Tests script failures per path (reset, 5xx, 429 + Retry-After, truncation, wrong bytes,
// a trickle, a held response) and read back what was asked and how many bytes went out.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace aitk::test {

// What goes wrong on a request for one path. It applies to the first `times` requests of that
// path, after which the path is healthy again.
struct Fault {
    enum class Kind {
        reset,        // sends `offset` body bytes, then resets the connection (TCP RST)
        truncate,     // promises the full Content-Length, sends `offset` bytes, closes cleanly
        status,       // answers `status` (500, 503, 429, ...) with an optional Retry-After
        wrong_bytes,  // the right length, but the byte at file position `offset` is flipped
        trickle,      // `offset` bytes at full speed, then `chunk` bytes every `interval`
        hold,         // no answer until a request for `until_path` arrives (or `hold_timeout`)
        understated,  // announces Content-Length `offset`, then sends the whole body anyway
        redirect,     // answers 302 with `Location: location`
    };
    Kind kind = Kind::status;
    std::uint64_t offset = 0;
    int status = 500;
    std::string retry_after;  // Retry-After value for Kind::status ("" = none)
    std::size_t chunk = 16;
    std::chrono::milliseconds interval{100};
    std::string until_path;
    std::chrono::milliseconds hold_timeout{10'000};
    int times = 1;

    static Fault reset_at(std::uint64_t offset, int times = 1);
    static Fault truncate_at(std::uint64_t offset, int times = 1);
    static Fault http_status(int status, int times = 1, std::string retry_after = {});
    static Fault wrong_bytes(int times = 1, std::uint64_t position = 0);
    static Fault trickle(int times = 1, std::uint64_t after = 0, std::size_t chunk = 16,
                         std::chrono::milliseconds interval = std::chrono::milliseconds(100));
    static Fault hold_until(std::string until_path, int times = 1);

    // A server that ignores Range: every answer is a 200 with the whole body from byte 0 (the
    // fault itself, a trickle or a truncation, still applies).
    bool ignore_range = false;
    std::string location;  // Kind::redirect

    static Fault short_length(std::uint64_t announced, int times = 1);
    static Fault redirect_to(std::string location, int times = 1);
    // `offset` bytes at full speed, then nothing for `hold` (the connection stays open).
    static Fault stall_after(std::uint64_t offset, int times = 1,
                             std::chrono::milliseconds hold = std::chrono::seconds(60));
};

std::string_view to_string(Fault::Kind kind);

// One request as the server saw it.
struct RequestRecord {
    std::string method;
    std::string path;                                          // percent-decoded, without the query
    std::vector<std::pair<std::string, std::string>> headers;  // lower-case names, no Authorization
    std::string auth_user;  // user name of a Basic Authorization header ("" = none sent)
    int remote_port = 0;    // tells connections apart (keep-alive reuse)
    int status = 0;
    std::uint64_t bytes_sent = 0;  // body bytes handed to the connection
    std::string fault;             // kind of the fault applied, "" when healthy
    bool hold_timed_out = false;

    // First header named `name` (lower case), "" when absent.
    std::string header(std::string_view name) const;
};

struct ServerOptions {
    bool https = false;  // needs cert_file and key_file (see TestPki)
    std::filesystem::path cert_file;
    std::filesystem::path key_file;
    std::optional<std::pair<std::string, std::string>> basic_auth;  // user, password
    // Most threads at once, one per open connection (made as connections need them): keep it
    // above the clients' concurrency.
    int threads = 64;
    // For a page `X.html` (or a directory's index.html) with a sibling `X.json`, a request whose
    // Accept header prefers application/vnd.pypi.simple.v1+json gets the JSON (PEP 691).
    bool pep691_negotiation = true;
};

class HttpServer {
  public:
    // Starts listening at once.
    explicit HttpServer(ServerOptions options = {});
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Files under `root` appear under the URL prefix `mount` (e.g. "/" or "/files/").
    void serve_directory(const std::filesystem::path& root, std::string mount = "/");
    // An in-memory file at `path` ("/simple/foo/index.html"); replaces an earlier one. An
    // empty content type is derived from the extension.
    void add_file(const std::string& path, std::string content, std::string content_type = {});
    void set_fault(const std::string& path, Fault fault);
    void clear_faults();
    // Every request waits (up to `timeout`) until `count` requests have been in flight at the
    // same moment once: makes "the client used its full concurrency" observable without timing.
    void set_in_flight_gate(std::size_t count,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

    std::uint16_t port() const noexcept { return port_; }
    std::string base_url() const;                  // "http://127.0.0.1:PORT"
    std::string url(std::string_view path) const;  // base_url() + path
    // "http://user:password@127.0.0.1:PORT/path" (no escaping: keep the parts URL-safe).
    std::string url_with_credentials(std::string_view user, std::string_view password,
                                     std::string_view path) const;

    std::vector<RequestRecord> requests() const;
    std::vector<RequestRecord> requests_for(std::string_view path) const;
    std::uint64_t bytes_served(std::string_view path) const;
    std::size_t max_in_flight() const;
    void clear_log();

    // Closes the listening socket (new connections are refused) / listens again on the same
    // port. Both wait until the change has happened.
    void stop();
    void start();
    bool running() const noexcept { return server_ != nullptr; }

  private:
    struct Resource;
    struct InFlight;
    struct MemoryFile {
        std::shared_ptr<const std::string> content;
        std::string content_type;
        std::string etag;
        std::int64_t modified = 0;
    };
    struct Mount {
        std::filesystem::path root;
        std::string prefix;
    };
    struct PathFaults {
        Fault fault;
        int remaining = 0;
    };

    void handle(const httplib::Request& request, httplib::Response& response);
    std::optional<Fault> take_fault(const std::string& path);
    std::optional<Resource> find(const std::string& path) const;
    void finish_record(std::size_t index, int status, std::string_view fault);
    void add_sent(std::size_t index, std::uint64_t bytes);
    bool wait_for_path(const std::string& path, std::chrono::milliseconds timeout);
    void wait_for_gate();

    ServerOptions options_;
    std::uint16_t port_ = 0;
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    std::shared_ptr<std::atomic<bool>> listener_finished_;

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    std::map<std::string, MemoryFile> memory_;
    std::vector<Mount> mounts_;
    std::map<std::string, PathFaults> faults_;
    std::vector<RequestRecord> log_;
    std::map<std::string, int> seen_paths_;
    std::size_t in_flight_ = 0;
    std::size_t max_in_flight_ = 0;
    std::size_t gate_count_ = 0;  // 0 = no gate
    std::chrono::milliseconds gate_timeout_{0};
    bool gate_open_ = false;
};

// A throwaway CA and a server certificate it signed (for 127.0.0.1 and localhost), made with
// the OpenSSL API, as PEM files in `dir`.
struct TestPki {
    std::filesystem::path ca_cert;
    std::filesystem::path server_cert;
    std::filesystem::path server_key;

    static TestPki generate(const std::filesystem::path& dir);

    // Flawed variants, each a fresh CA in `dir` and a
    // server certificate that the CA signed but a client must still refuse: expired (notAfter
    // a day ago), not yet valid (notBefore a day ahead), or naming only `host` (not 127.0.0.1).
    static TestPki generate_expired(const std::filesystem::path& dir);
    static TestPki generate_not_yet_valid(const std::filesystem::path& dir);
    static TestPki generate_for_host(const std::filesystem::path& dir, const std::string& host);
    // A server certificate that signs itself; `ca_cert` is a CA that had no part in it.
    static TestPki generate_self_signed(const std::filesystem::path& dir);
};

// A port on 127.0.0.1 that nothing listens on (bound, then released): connections are refused.
std::uint16_t unused_port();

}  // namespace aitk::test
