#pragma once
// Running another program: argv only (never a shell), an explicit environment, captured and
// size-capped output, and a wall-clock limit that kills the whole process tree, so a hung tool
// (nvidia-smi on a wedged driver) can never hang aitk-env.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::util {

// A process environment, name → value. Windows compares names case-insensitively; see
// environment_lookup() for the lookup that follows the host's rule.
using Environment = std::map<std::string, std::string>;

// Changes applied on top of an Environment: a value sets the variable, nullopt removes it.
using EnvironmentChanges = std::map<std::string, std::optional<std::string>>;

// This process's environment, read once per call.
Environment current_environment();

// The value of `name` in `env`; `case_insensitive` follows Windows' rule for names.
std::optional<std::string> environment_lookup(const Environment& env, std::string_view name,
                                              bool case_insensitive);
// The same with the host's rule (case-insensitive on Windows only).
std::optional<std::string> environment_lookup(const Environment& env, std::string_view name);

// A Windows user's local application data folder as `env` names it: %LOCALAPPDATA%, else
// %USERPROFILE%\AppData\Local (a service account may lack the first); empty when neither is set.
std::string windows_local_app_data(const Environment& env);

// `base` with `changes` applied (on Windows a change replaces any differently-cased name).
Environment apply_environment_changes(Environment base, const EnvironmentChanges& changes,
                                      bool case_insensitive);

// Finds `name` the way a shell would on the given PATH value: a name with a directory separator
// is taken as it is; otherwise each PATH entry is tried in order (an empty entry is the current
// directory on POSIX). With `windows`, entries are split on ';', and a name without an extension
// is tried with each extension of `pathext` (e.g. ".COM;.EXE;.BAT"). Returns nullopt when no
// executable regular file matches.
std::optional<std::filesystem::path> find_program(std::string_view name,
                                                  std::string_view path_value, bool windows = false,
                                                  std::string_view pathext = {});

// The running executable's own path (/proc/self/exe, GetModuleFileNameW, _NSGetExecutablePath);
// empty when the OS does not say.
std::filesystem::path self_executable_path();

struct ProcessRequest {
    // argv[0] is a path, or a bare name looked up on the child's PATH.
    std::vector<std::string> argv;
    // The child's environment before `environment_changes`; nullopt: this process's environment.
    std::optional<Environment> environment;
    EnvironmentChanges environment_changes;
    std::filesystem::path working_directory;  // empty: this process's
    std::string stdin_data;                   // written to the child's stdin, which is then closed
    std::chrono::milliseconds timeout{60'000};
    // Bytes kept per stream; what comes after is read (so the child never blocks) and dropped.
    std::size_t output_limit = 4u << 20;
};

enum class ProcessEnd {
    exited,     // exit_code holds the status
    signaled,   // killed by `signal` (POSIX only)
    timed_out,  // ran past the timeout; its whole process tree was killed
};

struct ProcessResult {
    ProcessEnd end = ProcessEnd::exited;
    int exit_code = -1;
    int signal = 0;
    std::string out;
    std::string err;
    bool out_truncated = false;
    bool err_truncated = false;
    std::chrono::milliseconds elapsed{0};

    bool succeeded() const noexcept { return end == ProcessEnd::exited && exit_code == 0; }
    // "exited with status 6", "was killed by signal 11", "did not finish within 5 s".
    std::string describe() const;
};

// Why a program could not be started at all (not found, not executable, bad directory).
struct ProcessStartError {
    std::string message;
    int os_error = 0;
};

// Runs the request to completion or to its timeout. Never throws for a failing program; a
// program that cannot be started is an error value.
Expected<ProcessResult, ProcessStartError> run_process(const ProcessRequest& request);

// Windows command-line quoting (the rules CommandLineToArgvW and the MSVC runtime parse), so
// each argument arrives as one argv entry. Exposed for tests; used by run_process on Windows.
std::string quote_windows_argument(std::string_view argument);
std::string windows_command_line(const std::vector<std::string>& argv);

}  // namespace aitk::util
