#include "aitk/util/subprocess.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <thread>
#else
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
#endif

#if !defined(_WIN32) && !defined(__APPLE__)
extern char** environ;
#endif

namespace aitk::util {

// ---------------------------------------------------------------------------------------------
// Portable parts
// ---------------------------------------------------------------------------------------------

std::optional<std::string> environment_lookup(const Environment& env, std::string_view name,
                                              bool case_insensitive) {
    if (!case_insensitive) {
        auto it = env.find(std::string(name));
        if (it == env.end()) return std::nullopt;
        return it->second;
    }
    for (const auto& [key, value] : env) {
        if (iequals(key, name)) return value;
    }
    return std::nullopt;
}

std::optional<std::string> environment_lookup(const Environment& env, std::string_view name) {
#ifdef _WIN32
    return environment_lookup(env, name, true);
#else
    return environment_lookup(env, name, false);
#endif
}

Environment apply_environment_changes(Environment base, const EnvironmentChanges& changes,
                                      bool case_insensitive) {
    for (const auto& [name, value] : changes) {
        if (case_insensitive) {
            for (auto it = base.begin(); it != base.end();) {
                it = iequals(it->first, name) ? base.erase(it) : std::next(it);
            }
        } else {
            base.erase(name);
        }
        if (value) base[name] = *value;
    }
    return base;
}

namespace {

bool is_executable_file(const std::filesystem::path& path, bool windows) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
#ifdef _WIN32
    (void)windows;
    return true;
#else
    // Windows decisions are evaluated on POSIX in tests: there an existing file is enough.
    return windows || ::access(path.c_str(), X_OK) == 0;
#endif
}

bool has_extension(std::string_view name) {
    std::size_t slash = name.find_last_of("/\\");
    std::size_t dot = name.rfind('.');
    return dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash);
}

}  // namespace

std::optional<std::filesystem::path> find_program(std::string_view name,
                                                  std::string_view path_value, bool windows,
                                                  std::string_view pathext) {
    if (name.empty()) return std::nullopt;
    std::vector<std::string> names{std::string(name)};
    if (windows && !has_extension(name)) {
        names.clear();
        std::string_view exts = pathext.empty() ? std::string_view(".COM;.EXE;.BAT;.CMD") : pathext;
        for (std::string_view ext : split(exts, ';')) {
            if (ext.empty()) continue;
            names.push_back(std::string(name) + std::string(ext));
            // Windows file names are case-insensitive; when these rules are evaluated on a
            // case-sensitive file system (tests), ".EXE" must still find "x.exe".
            std::string lower = to_lower(ext);
            if (lower != ext) names.push_back(std::string(name) + lower);
        }
    }
    bool has_separator = name.find('/') != std::string_view::npos ||
                         (windows && name.find('\\') != std::string_view::npos);
    if (has_separator) {
        for (const auto& candidate : names) {
            if (is_executable_file(candidate, windows)) return std::filesystem::path(candidate);
        }
        return std::nullopt;
    }
    for (std::string_view dir : split(path_value, windows ? ';' : ':')) {
        if (dir.empty() && windows) continue;
        std::filesystem::path base =
            dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir);
        for (const auto& candidate : names) {
            std::filesystem::path full = base / candidate;
            if (is_executable_file(full, windows)) return full;
        }
    }
    return std::nullopt;
}

std::string ProcessResult::describe() const {
    switch (end) {
        case ProcessEnd::exited:
            return "exited with status " + std::to_string(exit_code);
        case ProcessEnd::signaled:
            return "was killed by signal " + std::to_string(signal);
        case ProcessEnd::timed_out: {
            auto ms = elapsed.count();
            if (ms % 1000 == 0) return "did not finish within " + std::to_string(ms / 1000) + " s";
            return "did not finish within " + std::to_string(ms) + " ms";
        }
    }
    return "ended";
}

std::string quote_windows_argument(std::string_view argument) {
    bool needs_quotes =
        argument.empty() || argument.find_first_of(" \t\n\v\"") != std::string_view::npos;
    if (!needs_quotes) return std::string(argument);
    std::string out = "\"";
    std::size_t backslashes = 0;
    for (char c : argument) {
        if (c == '\\') {
            ++backslashes;
            continue;
        }
        if (c == '"') {
            // Backslashes before a quote are escapes: double them, then escape the quote.
            out.append(backslashes * 2 + 1, '\\');
        } else {
            out.append(backslashes, '\\');
        }
        backslashes = 0;
        out += c;
    }
    // Trailing backslashes precede the closing quote, so they are doubled as well.
    out.append(backslashes * 2, '\\');
    out += '"';
    return out;
}

std::string windows_command_line(const std::vector<std::string>& argv) {
    std::string line;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i) line += ' ';
        line += quote_windows_argument(argv[i]);
    }
    return line;
}

namespace {

// Appends up to the cap; reports whether anything was dropped.
void append_capped(std::string& sink, bool& truncated, const char* data, std::size_t n,
                   std::size_t cap) {
    std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
    std::size_t keep = std::min(room, n);
    sink.append(data, keep);
    if (keep < n) truncated = true;
}

}  // namespace

#ifndef _WIN32
// ---------------------------------------------------------------------------------------------
// POSIX
// ---------------------------------------------------------------------------------------------

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
    std::string cwd = request.working_directory.string();

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

#else
// ---------------------------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------------------------

namespace {

std::wstring widen(std::string_view s) { return wide_from_utf8(s); }
std::string narrow(std::wstring_view s) { return utf8_from_wide(s); }

std::string last_error_text(DWORD code) {
    wchar_t* text = nullptr;
    DWORD n = FormatMessageW(
        FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
        nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
    std::string out = n ? narrow(std::wstring_view(text, n)) : "error " + std::to_string(code);
    if (text) LocalFree(text);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == '.'))
        out.pop_back();
    return out;
}

class Handle {
  public:
    Handle() = default;
    explicit Handle(HANDLE h) : h_(h) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }
    HANDLE get() const { return h_; }
    HANDLE release() { return std::exchange(h_, nullptr); }
    void reset(HANDLE h = nullptr) {
        if (h_ && h_ != INVALID_HANDLE_VALUE) CloseHandle(h_);
        h_ = h;
    }
    explicit operator bool() const { return h_ && h_ != INVALID_HANDLE_VALUE; }

  private:
    HANDLE h_ = nullptr;
};

// The environment block CreateProcessW wants: "NAME=value\0" sorted case-insensitively
// (upper-case ordering, as the documentation asks), ending with an extra NUL.
std::wstring environment_block(const Environment& env) {
    std::vector<std::pair<std::wstring, std::wstring> > entries;
    for (const auto& [name, value] : env)
        entries.emplace_back(widen(name), widen(value));
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return CompareStringOrdinal(a.first.c_str(), static_cast<int>(a.first.size()),
                                    b.first.c_str(), static_cast<int>(b.first.size()),
                                    TRUE) == CSTR_LESS_THAN;
    });
    std::wstring block;
    for (const auto& [name, value] : entries) {
        block += name;
        block += L'=';
        block += value;
        block += L'\0';
    }
    if (block.empty()) block += L'\0';
    block += L'\0';
    return block;
}

void read_all(HANDLE pipe, std::string* sink, bool* truncated, std::size_t cap) {
    char buffer[16384];
    DWORD got = 0;
    while (ReadFile(pipe, buffer, sizeof buffer, &got, nullptr) && got > 0) {
        append_capped(*sink, *truncated, buffer, got, cap);
    }
}

}  // namespace

Environment current_environment() {
    Environment env;
    wchar_t* block = GetEnvironmentStringsW();
    if (!block) return env;
    for (const wchar_t* p = block; *p; p += wcslen(p) + 1) {
        std::wstring_view entry(p);
        // Names such as "=C:" (per-drive current directories) start with '='; skip them.
        std::size_t eq = entry.find(L'=', 1);
        if (entry.empty() || entry[0] == L'=' || eq == std::wstring_view::npos) continue;
        env.emplace(narrow(entry.substr(0, eq)), narrow(entry.substr(eq + 1)));
    }
    FreeEnvironmentStringsW(block);
    return env;
}

std::filesystem::path self_executable_path() {
    std::wstring buf(MAX_PATH, L'\0');
    while (true) {
        DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
        if (n == 0) return {};
        if (n < buf.size()) {
            buf.resize(n);
            return std::filesystem::path(buf);
        }
        buf.resize(buf.size() * 2);
    }
}

Expected<ProcessResult, ProcessStartError> run_process(const ProcessRequest& request) {
    using Err = Unexpected<ProcessStartError>;
    if (request.argv.empty())
        return Err(ProcessStartError{"no program given", ERROR_INVALID_PARAMETER});

    Environment env = apply_environment_changes(
        request.environment ? *request.environment : current_environment(),
        request.environment_changes, true);
    std::string path_value = environment_lookup(env, "PATH", true).value_or("");
    std::string pathext = environment_lookup(env, "PATHEXT", true).value_or(".COM;.EXE;.BAT;.CMD");
    auto program = find_program(request.argv[0], path_value, true, pathext);
    if (!program) {
        return Err(
            ProcessStartError{request.argv[0] + ": not found on PATH", ERROR_FILE_NOT_FOUND});
    }

    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE raw[6] = {};
    // [0]/[1] stdin read/write, [2]/[3] stdout, [4]/[5] stderr; the child's ends are inheritable.
    if (!CreatePipe(&raw[0], &raw[1], &inherit, 0) || !CreatePipe(&raw[2], &raw[3], &inherit, 0) ||
        !CreatePipe(&raw[4], &raw[5], &inherit, 0)) {
        DWORD e = GetLastError();
        for (HANDLE h : raw)
            if (h) CloseHandle(h);
        return Err(
            ProcessStartError{"cannot create pipes: " + last_error_text(e), static_cast<int>(e)});
    }
    Handle in_read(raw[0]), in_write(raw[1]), out_read(raw[2]), out_write(raw[3]), err_read(raw[4]),
        err_write(raw[5]);
    SetHandleInformation(in_write.get(), HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(out_read.get(), HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(err_read.get(), HANDLE_FLAG_INHERIT, 0);

    // Only these three handles are inherited, even if another thread creates a child meanwhile.
    HANDLE inherited[3] = {in_read.get(), out_write.get(), err_write.get()};
    SIZE_T attr_size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &attr_size);
    std::vector<char> attr_storage(attr_size);
    auto* attrs = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attr_storage.data());
    if (!InitializeProcThreadAttributeList(attrs, 1, 0, &attr_size) ||
        !UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherited,
                                   sizeof inherited, nullptr, nullptr)) {
        DWORD e = GetLastError();
        return Err(ProcessStartError{"cannot prepare handles: " + last_error_text(e),
                                     static_cast<int>(e)});
    }

    // A job object holds the whole tree, so a timeout kills grandchildren as well.
    Handle job(CreateJobObjectW(nullptr, nullptr));
    if (job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        SetInformationJobObject(job.get(), JobObjectExtendedLimitInformation, &limits,
                                sizeof limits);
    }

    STARTUPINFOEXW startup{};
    startup.StartupInfo.cb = sizeof startup;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = in_read.get();
    startup.StartupInfo.hStdOutput = out_write.get();
    startup.StartupInfo.hStdError = err_write.get();
    startup.lpAttributeList = attrs;

    std::vector<std::string> argv = request.argv;
    argv[0] = program->string();
    std::wstring command_line = widen(windows_command_line(argv));
    std::wstring env_block = environment_block(env);
    std::wstring cwd = request.working_directory.wstring();
    PROCESS_INFORMATION info{};
    const auto started = std::chrono::steady_clock::now();
    BOOL created = CreateProcessW(
        program->wstring().c_str(), command_line.data(), nullptr, nullptr, TRUE,
        CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW |
            EXTENDED_STARTUPINFO_PRESENT,
        env_block.data(), cwd.empty() ? nullptr : cwd.c_str(), &startup.StartupInfo, &info);
    DWORD create_error = GetLastError();
    DeleteProcThreadAttributeList(attrs);
    if (!created) {
        return Err(ProcessStartError{
            "cannot run " + program->string() + ": " + last_error_text(create_error),
            static_cast<int>(create_error)});
    }
    Handle process(info.hProcess), thread(info.hThread);
    if (job) AssignProcessToJobObject(job.get(), process.get());
    ResumeThread(thread.get());
    in_read.reset();
    out_write.reset();
    err_write.reset();

    ProcessResult result;
    std::thread out_reader(read_all, out_read.get(), &result.out, &result.out_truncated,
                           request.output_limit);
    std::thread err_reader(read_all, err_read.get(), &result.err, &result.err_truncated,
                           request.output_limit);
    // The writer owns the stdin handle and closes it when done, so the child sees end of input.
    std::thread writer([stdin_handle = in_write.release(), &request]() {
        const std::string& data = request.stdin_data;
        std::size_t done = 0;
        while (done < data.size()) {
            DWORD wrote = 0;
            DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size() - done, 1u << 16));
            if (!WriteFile(stdin_handle, data.data() + done, chunk, &wrote, nullptr)) break;
            done += wrote;
        }
        CloseHandle(stdin_handle);
    });

    auto ms = request.timeout.count();
    DWORD wait_ms = ms >= static_cast<long long>(INFINITE) ? INFINITE - 1 : static_cast<DWORD>(ms);
    bool timed_out = WaitForSingleObject(process.get(), wait_ms) == WAIT_TIMEOUT;
    if (timed_out) {
        if (job) TerminateJobObject(job.get(), 1);
        TerminateProcess(process.get(), 1);
        WaitForSingleObject(process.get(), INFINITE);
    } else if (job) {
        // The child is done; whatever it left behind in the job (holding our pipes) goes too.
        TerminateJobObject(job.get(), 1);
    }
    // A grandchild outside the job could still hold a pipe: stop the reads rather than wait.
    CancelIoEx(out_read.get(), nullptr);
    CancelIoEx(err_read.get(), nullptr);
    writer.join();
    out_reader.join();
    err_reader.join();

    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    if (timed_out) {
        result.end = ProcessEnd::timed_out;
        result.elapsed = request.timeout;
    } else {
        DWORD code = 0;
        GetExitCodeProcess(process.get(), &code);
        result.end = ProcessEnd::exited;
        result.exit_code = static_cast<int>(code);
    }
    return result;
}

#endif

}  // namespace aitk::util
