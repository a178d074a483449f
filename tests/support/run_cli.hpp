#pragma once
// Runs the built aitk-env binary as a user would (a real process, real stdin/stdout) and
// captures what it printed and its exit code.
#ifndef _WIN32
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "aitk/util/subprocess.hpp"

namespace aitk::test {

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') {
            q += "'\\''";
        } else {
            q += c;
        }
    }
    return q + "'";
}

// `env` entries are `env` arguments: "NAME=value" sets, "-u NAME" unsets. Runs through
// util::run_process (no shell), so the same test runs on Windows.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {},
                         const std::vector<std::string>& env = {}) {
    util::ProcessRequest request;
    request.argv.push_back(AITK_ENV_EXE);
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.stdin_data = stdin_text;
    request.timeout = std::chrono::minutes(10);
    request.output_limit = std::size_t{256} << 20;
    for (const auto& entry : env) {
        if (entry.rfind("-u ", 0) == 0) {
            request.environment_changes[entry.substr(3)] = std::nullopt;
        } else if (const auto eq = entry.find('='); eq != std::string::npos) {
            request.environment_changes[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
    }
    CliResult r;
    auto result = util::run_process(request);
    if (!result) {
        r.err = "cannot start aitk-env: " + result.error().message;
        return r;
    }
    r.exit_code = result->end == util::ProcessEnd::exited ? result->exit_code : -1;
    r.out = std::move(result->out);
    r.err = std::move(result->err);
    if (result->end != util::ProcessEnd::exited) r.err += "\n(" + result->describe() + ")";
    return r;
}

// Runs `request` (the binary and its arguments): a run that did not exit on its own (killed,
// timed out) has exit code -1 and says how it ended at the end of `err`.
inline CliResult cli_result_of(const util::ProcessRequest& request) {
    CliResult r;
    auto result = util::run_process(request);
    if (!result) {
        r.err = "cannot start aitk-env: " + result.error().message;
        return r;
    }
    r.out = std::move(result->out);
    r.err = std::move(result->err);
    if (result->end == util::ProcessEnd::exited) {
        r.exit_code = result->exit_code;
    } else {
        r.err += "\n(" + result->describe() + ")";
    }
    return r;
}

// The binary with exactly `environment` (nothing inherited from the test), in
// `working_directory` when one is given. A run that did not exit on its own (killed, timed out)
// has exit code -1 and says how it ended at the end of `err`.
inline CliResult run_cli_in(const std::vector<std::string>& args, util::Environment environment,
                            std::chrono::seconds timeout = std::chrono::seconds(120),
                            const std::filesystem::path& working_directory = {}) {
    util::ProcessRequest request;
    request.argv.push_back(AITK_ENV_EXE);
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.environment = std::move(environment);
    request.working_directory = working_directory;
    request.timeout = timeout;
    return cli_result_of(request);
}

#ifndef _WIN32
// Starts `argv` (argv[0] is the program's path) in the background with exactly `env`
// ("NAME=value" entries), stdin from /dev/null, stdout to /dev/null, stderr into `stderr_file`
// ("" = /dev/null), in the folder `cwd` ("" = this process's). The pid, or -1 with `errno`
// set when it could not be started; the caller waits for it.
inline pid_t spawn_background(std::vector<std::string> argv, std::vector<std::string> env,
                              const std::string& stderr_file = {}, const std::string& cwd = {}) {
    std::vector<char*> cargv;
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                     stderr_file.empty() ? "/dev/null" : stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

#endif  // !_WIN32

}  // namespace aitk::test
