// A minimal static file server for the network benchmark: HTTP/1.1 GET with keep-alive, one
// thread per connection, bodies sent with sendfile(2) from the page cache, so the server costs
// both clients as little as possible. Not a general server: no ranges, no HEAD, Linux only.
// Usage: bench_net_server ROOT PORT_FILE   (listens on an ephemeral 127.0.0.1 port, writes it
// to PORT_FILE, serves until killed)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

bool send_all(int fd, const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

bool send_status(int fd, const char* status) {
    const std::string body = std::string(status) + "\n";
    return send_all(fd, std::string("HTTP/1.1 ") + status + "\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body);
}

bool serve_file(int fd, const std::string& root, const std::string& target) {
    if (target.empty() || target[0] != '/' || target.find("..") != std::string::npos) {
        return send_status(fd, "400 Bad Request");
    }
    const std::string path = root + target;
    const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (file < 0 || ::fstat(file, &info) != 0 || !S_ISREG(info.st_mode)) {
        if (file >= 0) ::close(file);
        return send_status(fd, "404 Not Found");
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    bool ok = send_all(fd,
                       "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                       "Content-Length: " +
                           std::to_string(size) + "\r\n\r\n");
    off_t offset = 0;
    while (ok && static_cast<std::uint64_t>(offset) < size) {
        const ssize_t n = ::sendfile(fd, file, &offset, size - static_cast<std::uint64_t>(offset));
        if (n <= 0) ok = false;
    }
    ::close(file);
    return ok;
}

void serve_connection(int fd, std::string root) {
    std::string buffer;
    char chunk[8192];
    for (;;) {
        std::size_t end;
        while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) {
                ::close(fd);
                return;
            }
            buffer.append(chunk, static_cast<std::size_t>(n));
        }
        const std::string head = buffer.substr(0, end);
        buffer.erase(0, end + 4);
        const auto first_space = head.find(' ');
        const auto second_space = head.find(' ', first_space + 1);
        if (first_space == std::string::npos || second_space == std::string::npos ||
            head.compare(0, first_space, "GET") != 0) {
            send_status(fd, "400 Bad Request");
            break;
        }
        if (!serve_file(fd, root, head.substr(first_space + 1, second_space - first_space - 1))) {
            break;
        }
    }
    ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s ROOT PORT_FILE\n", argv[0]);
        return 2;
    }
    const std::string root = argv[1];
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int yes = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener, 128) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        std::perror("bench_net_server");
        return 1;
    }
    std::ofstream(argv[2]) << ntohs(address.sin_port) << "\n";
    for (;;) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
        std::thread(serve_connection, fd, root).detach();
    }
}
