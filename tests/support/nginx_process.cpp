#include "nginx_process.hpp"

#ifdef _WIN32
// nginx is a Linux program here; under Wine the tests that need it skip (have_nginx() false).
namespace aitk::test {
bool have_nginx() { return false; }
bool port_accepts(std::uint16_t) { return false; }
std::string nginx_temp_paths(const std::filesystem::path&) { return {}; }
NginxProcess::NginxProcess(const std::filesystem::path&, std::uint16_t port) : port_(port) {}
NginxProcess::~NginxProcess() = default;
bool NginxProcess::running() const { return false; }
}  // namespace aitk::test
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

extern char** environ;

namespace aitk::test {

bool have_nginx() {
    std::error_code ec;
    return std::filesystem::exists(nginx_executable, ec);
}

bool port_accepts(std::uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

std::string nginx_temp_paths(const std::filesystem::path& dir) {
    std::string built;
    if (FILE* pipe = ::popen((nginx_executable + " -V 2>&1").c_str(), "r")) {
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
            built.append(buffer, n);
        ::pclose(pipe);
    }
    std::string paths = "client_body_temp_path " + (dir / "body").string() + ";\n";
    for (const char* module : {"proxy", "fastcgi", "uwsgi", "scgi"}) {
        if (built.find("--without-http_" + std::string(module) + "_module") != std::string::npos)
            continue;
        paths += std::string(module) + "_temp_path " + (dir / module).string() + ";\n";
    }
    return paths;
}

NginxProcess::NginxProcess(const std::filesystem::path& dir, std::uint16_t port) : port_(port) {
    std::vector<std::string> args = {nginx_executable,
                                     "-p",
                                     dir.string(),
                                     "-c",
                                     (dir / "nginx.conf").string(),
                                     "-g",
                                     "daemon off; master_process off;"};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, nginx_executable.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
        pid_ = -1;
    for (int i = 0; i < 500 && pid_ > 0 && !port_accepts(port_); ++i) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

NginxProcess::~NginxProcess() {
    if (pid_ > 0) {
        ::kill(pid_, SIGTERM);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
}

bool NginxProcess::running() const {
    return pid_ > 0 && port_accepts(port_);
}

}  // namespace aitk::test
#endif  // _WIN32
