#pragma once
// Runs the built aitk-env binary as a user would (a real process, real stdin/stdout) and
// captures what it printed and its exit code.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// `env` entries are `env` arguments: "NAME=value" sets, "-u NAME" unsets.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {},
                         const std::vector<std::string>& env = {}) {
    namespace fs = std::filesystem;
    static int counter = 0;
    fs::path dir = fs::temp_directory_path() /
                   ("aitk-cli-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
    {
        std::ofstream in(dir / "stdin", std::ios::binary);
        in << stdin_text;
    }
    std::string cmd = "env ";
    for (const auto& e : env)
        cmd += e + " ";
    cmd += shell_quote(AITK_ENV_EXE);
    for (const auto& a : args)
        cmd += " " + shell_quote(a);
    cmd += " <" + shell_quote((dir / "stdin").string()) + " >" +
           shell_quote((dir / "stdout").string()) + " 2>" + shell_quote((dir / "stderr").string());
    int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto slurp = [](const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        std::ostringstream ss;
        ss << f.rdbuf();
        return ss.str();
    };
    r.out = slurp(dir / "stdout");
    r.err = slurp(dir / "stderr");
    fs::remove_all(dir);
    return r;
}

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

}  // namespace aitk::test
