// The POSIX process runner: posix_spawn/fork, a process group per child, poll on the pipes.
#ifndef _WIN32
#include "aitk/util/subprocess.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "subprocess_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <crt_externs.h>
#include <mach-o/dyld.h>
#endif

#if !defined(__APPLE__)
extern char** environ;
#endif

namespace aitk::util {
using detail::append_capped;

Environment current_environment() {
    Environment env;
#if defined(__APPLE__)
    char** entries = *_NSGetEnviron();
#else
    char** entries = environ;
#endif
    for (char** e = entries; e && *e; ++e) {
        std::string_view entry(*e);
        std::size_t eq = entry.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    return env;
}

std::filesystem::path self_executable_path() {
#if defined(__APPLE__)
    uint32_t size = 0;
    _NSGetExecutablePath(nullptr, &size);
    std::string buf(size, '\0');
    if (_NSGetExecutablePath(buf.data(), &size) != 0) return {};
    buf.resize(std::strlen(buf.c_str()));
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(buf, ec);
    return ec ? std::filesystem::path(buf) : canonical;
#else
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : path;
#endif
}

namespace {

using Clock = std::chrono::steady_clock;

class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) reset(other.release());
        return *this;
    }
    ~Fd() { reset(); }
    int get() const noexcept { return fd_; }
    int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    explicit operator bool() const noexcept { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

bool make_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
#if defined(__APPLE__)
    if (::pipe(fds) != 0) return false;
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#else
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
#endif
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
}

void set_nonblocking(int fd) {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// Blocks SIGPIPE on this thread while we write the child's stdin, so a child that exits without
// reading makes write() fail with EPIPE instead of killing aitk-env; a SIGPIPE raised meanwhile
// is consumed before the old mask comes back.
class SigpipeGuard {
  public:
    SigpipeGuard() {
        sigemptyset(&pipe_set_);
        sigaddset(&pipe_set_, SIGPIPE);
        sigset_t pending;
        sigemptyset(&pending);
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_mask_);
    }
    ~SigpipeGuard() {
        if (!was_pending_) {
            sigset_t pending;
            sigemptyset(&pending);
            sigpending(&pending);
            if (sigismember(&pending, SIGPIPE) == 1) {
#if defined(__APPLE__)
                int sig = 0;
                sigwait(&pipe_set_, &sig);
#else
                timespec zero{0, 0};
                while (sigtimedwait(&pipe_set_, nullptr, &zero) < 0 && errno == EINTR) {
                }
#endif
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    }
    const sigset_t& old_mask() const {
        return old_mask_;
    }

  private:
    sigset_t pipe_set_;
    sigset_t old_mask_;
    bool was_pending_ = false;
};

struct CStrings {
    std::vector<std::string> storage;
    std::vector<char*> pointers;
    char** data() {
        pointers.clear();
        for (auto& s : storage)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
        return pointers.data();
    }
};

// Kills the child's process group (the child is its leader) and the child itself, in case it
// had not joined the group yet.
void kill_tree(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

int wait_blocking(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return status;
}

}  // namespace

Expected<ProcessResult, ProcessStartError> run_process(const ProcessRequest& request) {
    using Err = Unexpected<ProcessStartError>;
    if (request.argv.empty()) return Err(ProcessStartError{"no program given", EINVAL});

    Environment env = apply_environment_changes(
        request.environment ? *request.environment : current_environment(),
        request.environment_changes, false);
    std::string path_value = environment_lookup(env, "PATH", false).value_or("/usr/bin:/bin");
    auto program = find_program(request.argv[0], path_value);
    if (!program) {
        bool bare = request.argv[0].find('/') == std::string::npos;
        return Err(ProcessStartError{bare ? request.argv[0] + ": not found on PATH"
                                          : request.argv[0] + ": not an executable file",
                                     ENOENT});
    }

    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::string program_path = program->string();
    CStrings argv{request.argv, {}};
    CStrings envp;
    for (const auto& [name, value] : env)
        envp.storage.push_back(name + "=" + value);
    char** argv_ptr = argv.data();
    char** envp_ptr = envp.data();
    std::string cwd = util::utf8_of(request.working_directory);

    Fd in_read, in_write, out_read, out_write, err_read, err_write, status_read, status_write;
    if (!make_pipe(in_read, in_write) || !make_pipe(out_read, out_write) ||
        !make_pipe(err_read, err_write) || !make_pipe(status_read, status_write)) {
        int e = errno;
        return Err(ProcessStartError{std::string("cannot create pipes: ") + std::strerror(e), e});
    }

    SigpipeGuard sigpipe_guard;
    const auto started = Clock::now();
    pid_t pid = ::fork();
    if (pid < 0) {
        int e = errno;
        return Err(ProcessStartError{std::string("cannot fork: ") + std::strerror(e), e});
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::signal(SIGPIPE, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &sigpipe_guard.old_mask(), nullptr);
        auto attach = [](int fd, int target) {
            if (fd == target) {
                ::fcntl(target, F_SETFD, 0);  // keep it across exec
            } else {
                ::dup2(fd, target);
            }
        };
        attach(in_read.get(), 0);
        attach(out_write.get(), 1);
        attach(err_write.get(), 2);
        int e = 0;
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
            e = errno;
        } else {
            ::execve(program_path.c_str(), argv_ptr, envp_ptr);
            e = errno;
        }
        // Tell the parent why; it reads this pipe until exec closes it (CLOEXEC).
        ssize_t ignored = ::write(status_write.get(), &e, sizeof e);
        (void)ignored;
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from here, so the group exists whichever side runs first
    in_read.reset();
    out_write.reset();
    err_write.reset();
    status_write.reset();

    int exec_errno = 0;
    ssize_t got;
    do {
        got = ::read(status_read.get(), &exec_errno, sizeof exec_errno);
    } while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof exec_errno)) {
        wait_blocking(pid);
        std::string what = cwd.empty() || exec_errno != ENOENT ? program_path : cwd;
        return Err(
            ProcessStartError{"cannot run " + what + ": " + std::strerror(exec_errno), exec_errno});
    }
    status_read.reset();

    ProcessResult result;
    std::size_t stdin_written = 0;
    if (request.stdin_data.empty()) {
        in_write.reset();
    } else {
        set_nonblocking(in_write.get());
    }
    set_nonblocking(out_read.get());
    set_nonblocking(err_read.get());

    const auto deadline = started + request.timeout;
    bool reaped = false;
    int status = 0;
    bool timed_out = false;
    char buffer[16384];

    auto try_reap = [&]() {
        if (reaped) return;
        pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) reaped = true;
    };

    while (out_read || err_read || !reaped) {
        auto now = Clock::now();
        if (now >= deadline) {
            try_reap();
            timed_out = !reaped;
            break;
        }
        if (!out_read && !err_read) {
            // Output is closed but the child has not exited yet: poll its status.
            try_reap();
            if (!reaped) {
                timespec nap{0, 2'000'000};
                ::nanosleep(&nap, nullptr);
            }
            continue;
        }
        pollfd fds[3];
        nfds_t n = 0;
        int out_index = -1, err_index = -1, in_index = -1;
        if (out_read) {
            out_index = static_cast<int>(n);
            fds[n++] = pollfd{out_read.get(), POLLIN, 0};
        }
        if (err_read) {
            err_index = static_cast<int>(n);
            fds[n++] = pollfd{err_read.get(), POLLIN, 0};
        }
        if (in_write) {
            in_index = static_cast<int>(n);
            fds[n++] = pollfd{in_write.get(), POLLOUT, 0};
        }
        auto remaining =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
        // Wake up now and then: a grandchild may hold the pipes open after the child exits.
        int wait_ms = static_cast<int>(std::min<long long>(remaining, 100));
        int ready = ::poll(fds, n, wait_ms);
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        auto drain = [&](int index, Fd& fd, std::string& sink, bool& truncated) {
            if (index < 0 || !(fds[index].revents & (POLLIN | POLLHUP | POLLERR))) return;
            while (true) {
                ssize_t r = ::read(fd.get(), buffer, sizeof buffer);
                if (r > 0) {
                    append_capped(sink, truncated, buffer, static_cast<std::size_t>(r),
                                  request.output_limit);
                    continue;
                }
                if (r < 0 && errno == EINTR) continue;
                if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
                fd.reset();  // EOF or a hard error
                return;
            }
        };
        drain(out_index, out_read, result.out, result.out_truncated);
        drain(err_index, err_read, result.err, result.err_truncated);
        if (in_index >= 0 && (fds[in_index].revents & (POLLOUT | POLLERR | POLLHUP))) {
            const std::string& data = request.stdin_data;
            ssize_t w =
                ::write(in_write.get(), data.data() + stdin_written, data.size() - stdin_written);
            if (w > 0) stdin_written += static_cast<std::size_t>(w);
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || stdin_written == data.size()) {
                in_write.reset();  // done, or the child stopped reading (EPIPE)
            }
        }
        try_reap();
    }

    if (!reaped) {
        kill_tree(pid);
        status = wait_blocking(pid);
    } else {
        // The child is gone; anything left in its group (a backgrounded grandchild holding our
        // pipes) is killed too, so nothing it started outlives the call.
        ::kill(-pid, SIGKILL);
    }
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    if (timed_out) {
        result.end = ProcessEnd::timed_out;
        result.elapsed = request.timeout;
    } else if (WIFEXITED(status)) {
        result.end = ProcessEnd::exited;
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.end = ProcessEnd::signaled;
        result.signal = WTERMSIG(status);
    }
    return result;
}

}  // namespace aitk::util

#endif  // !_WIN32
