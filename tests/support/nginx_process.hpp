#pragma once
// nginx from Debian run as a child of a test: one process (no master, no daemon, so it keeps
// the test's user and can read its temporary folders), its configuration and every file it
// writes under one folder, stopped when the object goes away. Tests skip without nginx.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace aitk::test {

inline const std::string nginx_executable = "/usr/sbin/nginx";
bool have_nginx();

// Whether something accepts TCP connections on 127.0.0.1:port.
bool port_accepts(std::uint16_t port);

// "client_body_temp_path DIR/body;" and the proxy/fastcgi/uwsgi/scgi temp paths the installed
// nginx was built with, each under `dir` (nginx-light leaves some modules out).
std::string nginx_temp_paths(const std::filesystem::path& dir);

class NginxProcess {
  public:
    // Starts nginx with `dir`/nginx.conf (written by the caller) and waits until it accepts on
    // `port` or exits (its error log says why; running() is false then).
    NginxProcess(const std::filesystem::path& dir, std::uint16_t port);
    ~NginxProcess();
    NginxProcess(const NginxProcess&) = delete;
    NginxProcess& operator=(const NginxProcess&) = delete;

    bool running() const;

  private:
    std::uint16_t port_;
    pid_t pid_ = -1;
};

}  // namespace aitk::test
